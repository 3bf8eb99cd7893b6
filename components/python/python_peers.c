/* python_peers.c - the PyTorch peers of the C variants as variants of
 * their own: rms_norm/torch, attention/torch, transformer_block/torch
 * (components/python/torch/README.md). Each has its C variant's family and
 * parameter table (the same macros and table the C adapters use), so that a
 * config written for the C variant runs its peer with nothing but
 *   --set component.variant_key=rms_norm/torch
 * and `harness ab` compares the two by its own rules. A peer runs its class
 * as python/cpu would, with the parameters handed over as the JSON object
 * the class reads, torch from HARNESS_TORCH_PYTHON (a virtual environment's
 * python) or else the build tree's .venv-torch (scripts/setup --with-torch).
 * A family name ("rms_norm") still means the C variant: the registry prefers
 * the key FAMILY/DEVICE. */
#include "python_component.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attention/attention_adapter.h"
#include "rms_norm/rms_norm_adapter.h"
#include "transformer_block/transformer_block_adapter.h"

static const char *const dtypes[] = {"fp32", "bf16", NULL};
static const char *const auto_isa[] = {"auto", NULL};

static const harness_param rms_norm_params[] = RMS_NORM_PARAMS(dtypes, "type of x, weight and y");
static const harness_param attention_params[] = ATTENTION_PARAMS(
    dtypes, "type of q, k, v and o",
    HARNESS_ENUM_PARAM("isa", "auto", auto_isa, "accepted for attention/cpu's configs; torch chooses its own"));

typedef struct peer {
    const char *key, *family, *file, *cls, *summary;
    const harness_param *params;
    uint32_t n_params;
} peer;

#define PEER(KEY, FAMILY, FILE, CLS, SUMMARY, PARAMS) \
    {KEY, FAMILY, FILE, CLS, SUMMARY, PARAMS, sizeof PARAMS / sizeof PARAMS[0]}
static const peer peers[] = {
    PEER("rms_norm/torch", "rms_norm", "rms_norm_torch.py", "RmsNormTorch",
         "torch.nn.functional.rms_norm on the harness's buffers (PyTorch's peer of rms_norm/cpu)", rms_norm_params),
    PEER("attention/torch", "attention", "attention_torch.py", "AttentionTorch",
         "torch.nn.functional.scaled_dot_product_attention (PyTorch's peer of attention/cpu)", attention_params),
    PEER("transformer_block/torch", "transformer_block", "transformer_block_torch.py", "TransformerBlockTorch",
         "the Llama block in F.* ops (PyTorch's peer of transformer_block/cpu)", tb_params),
};
#define N_PEERS (sizeof peers / sizeof peers[0])

/* The instance's peer: its key is the variant's, which the host gives by
 * no service, so each peer has a callback of its own (below) naming it. */
typedef struct call {
    char callable[4200], params[4096];
    const char *python;
} call;

/* Where the peers' files are: installed beside the harness's data, or in
 * the source tree this plugin was built from. */
static const char *peers_dir(void)
{
    static const char *const dirs[] = {PYC_PEERS_INSTALLED, PYC_PEERS_SOURCE};
    char probe[4200];
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(probe, sizeof probe, "%s/peers.py", dirs[i]);
        if (access(probe, R_OK) == 0)
            return dirs[i];
    }
    return PYC_PEERS_SOURCE;
}

static const char *torch_python(void)
{
    const char *env = getenv("HARNESS_TORCH_PYTHON");
    if (env && *env)
        return env;
    return access(PYC_BUILD_VENV, X_OK) == 0 ? PYC_BUILD_VENV : "";
}

/* The parameters as a JSON object: names and enum choices are the tables'
 * own (plain words), numbers printed to round-trip. -1 when it does not fit. */
static int params_json(harness_ctx *ctx, const peer *p, char *out, size_t cap)
{
    size_t len = 0;
    int w = snprintf(out, cap, "{");
    for (uint32_t i = 0; w >= 0 && (len += (size_t)w) < cap && i < p->n_params; i++) {
        const harness_param *q = &p->params[i];
        const char *sep = i ? ", " : "";
        switch (q->type) {
        case HARNESS_PARAM_INT:
            w = snprintf(out + len, cap - len, "%s\"%s\": %lld", sep, q->name,
                         (long long)harness_host->param_int(ctx, q->name));
            break;
        case HARNESS_PARAM_FLOAT:
            w = snprintf(out + len, cap - len, "%s\"%s\": %.17g", sep, q->name, harness_host->param_float(ctx, q->name));
            break;
        case HARNESS_PARAM_BOOL:
            w = snprintf(out + len, cap - len, "%s\"%s\": %s", sep, q->name,
                         harness_host->param_bool(ctx, q->name) ? "true" : "false");
            break;
        default:
            w = snprintf(out + len, cap - len, "%s\"%s\": \"%s\"", sep, q->name,
                         harness_host->param_string(ctx, q->name));
            break;
        }
    }
    if (w < 0 || len >= cap || snprintf(out + len, cap - len, "}") != 1)
        return -1;
    return 0;
}

static int call_of(harness_ctx *ctx, const peer *p, call *c, pyc_class *cls)
{
    snprintf(c->callable, sizeof c->callable, "%s/%s:%s", peers_dir(), p->file, p->cls);
    c->python = torch_python();
    if (params_json(ctx, p, c->params, sizeof c->params) != 0)
        return harness_host->fail(ctx, "%s: the parameters do not fit in %zu bytes of JSON", p->key,
                                  sizeof c->params);
    *cls = (pyc_class){c->callable, c->python, c->params};
    return 0;
}

static int validate_peer(harness_ctx *ctx, const peer *p)
{
    call c;
    pyc_class cls;
    return call_of(ctx, p, &c, &cls) != 0 ? -1 : pyc_validate_class(ctx, &cls);
}

static int create_peer(harness_ctx *ctx, void **state, const peer *p)
{
    call c;
    pyc_class cls;
    return call_of(ctx, p, &c, &cls) != 0 ? -1 : pyc_create_class(ctx, state, "cpu", &cls);
}

#define PEER_CALLBACKS(I)                                                   \
    static int validate_##I(harness_ctx *ctx) { return validate_peer(ctx, &peers[I]); } \
    static int create_##I(harness_ctx *ctx, void **state) { return create_peer(ctx, state, &peers[I]); }
PEER_CALLBACKS(0)
PEER_CALLBACKS(1)
PEER_CALLBACKS(2)
static int (*const validates[N_PEERS])(harness_ctx *) = {validate_0, validate_1, validate_2};
static int (*const creates[N_PEERS])(harness_ctx *, void **) = {create_0, create_1, create_2};

int pyc_register_peers(const harness_services *svc, harness_ctx *ctx)
{
    for (size_t i = 0; i < N_PEERS; i++) {
        const peer *p = &peers[i];
        harness_variant v = {
            .size = sizeof(harness_variant), .key = p->key, .family = p->family, .device = "cpu",
            .summary = p->summary, .params = p->params, .n_params = p->n_params,
            .create = creates[i], .step = pyc_step, .check = pyc_check, .destroy = pyc_destroy,
            .validate = validates[i], .step_cost = pyc_step_cost,
        };
        if (svc->register_variant(ctx, &v) != 0)
            return -1;
    }
    return 0;
}
