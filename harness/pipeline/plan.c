/* Config -> device -> plugins -> variant -> parameters -> schedule: the
 * plan of one run (pipeline/plan.h). */
#include "pipeline/plan.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/backend.h"
#include "pipeline/config_source.h"
#include "pipeline/cpu_hint.h"
#include "run/guard.h"
#include "run/instance.h"
#include "run/services.h"
#include "util/suggest.h"

/* The kernel timeline's window: at most this many steps (fewer when the
 * first measured window ran fewer), enough to see a step's kernels repeat
 * while CUPTI's 8 MiB buffers hold them all. */
#define TRACE_WINDOW_STEPS 50

/* A wrong plugin_path entry is the config's error: say where. */
static int check_plugin_dir(const harness_config *cfg, size_t i, harness_error *err)
{
    struct stat st;
    int missing = stat(cfg->plugin_path[i], &st) != 0;
    if (!missing && S_ISDIR(st.st_mode))
        return 0;
    return harness_config_fail(cfg, HARNESS_EXIT_USAGE, "plugin_path", err,
                               "plugin directory %s: %s; relative entries are relative to the config "
                               "file's folder", cfg->plugin_path[i], missing ? strerror(errno) : "not a directory");
}

int harness_plan_load_plugins(harness_registry *reg, const harness_plan_request *req, const harness_config *cfg,
                              harness_error *err)
{
    size_t n_cfg = cfg ? cfg->n_plugin_path : 0, n = 0;
    const char **extra = malloc((req->n_plugin_paths + n_cfg + 1) * sizeof *extra);
    if (!extra)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    for (size_t i = 0; i < req->n_plugin_paths; i++)
        extra[n++] = req->plugin_paths[i];
    int rc = 0;
    for (size_t i = 0; i < n_cfg && rc == 0; i++) {
        rc = check_plugin_dir(cfg, i, err);
        extra[n++] = cfg->plugin_path[i];
    }
    if (rc == 0)
        rc = harness_registry_load_search_path(reg, extra, n, err);
    free(extra);
    return rc;
}

/* Command-line values replace the config's, and so end up in the resolved
 * config and its hash like any other setting. */
static int apply_overrides(harness_config *cfg, const harness_plan_request *req, harness_error *err)
{
    if (req->device) {
        static const char *const devices[] = {"auto", "cpu", "cuda"};
        size_t known = 0;
        while (known < 3 && strcmp(req->device, devices[known]) != 0)
            known++;
        if (known == 3) {
            const char *guess = harness_suggest(req->device, devices, 3);
            return harness_error_set(err, HARNESS_EXIT_USAGE, "--device: expected auto, cpu or cuda, got '%s'%s%s%s",
                                     req->device, guess ? "; did you mean " : "", guess ? guess : "",
                                     guess ? "?" : "");
        }
        free(cfg->device);
        cfg->device = strdup(req->device);
    }
    if (req->output_dir) {
        if (!*req->output_dir)
            return harness_error_set(err, HARNESS_EXIT_USAGE, "--output-dir: empty path");
        free(cfg->output_dir);
        cfg->output_dir = strdup(req->output_dir);
    }
    if (!cfg->device || !cfg->output_dir)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    return 0;
}

/* The parameter a variant's refusal is about: the one its message starts
 * with ("num_heads (6) must be a multiple of num_kv_heads (4)"), so that the
 * error points at that key's line; NULL when it names none. */
static const char *param_named_by(const harness_variant *v, const char *msg)
{
    for (size_t i = 0; i < v->n_params; i++) {
        size_t n = strlen(v->params[i].name);
        if (strncmp(msg, v->params[i].name, n) == 0 && !isalnum((unsigned char)msg[n]) && msg[n] != '_')
            return v->params[i].name;
    }
    return NULL;
}

/* The CUDA schedule options and device_index mean nothing on the CPU; set
 * there, they are config errors rather than silently ignored. */
static int check_cuda_only_keys(const harness_plan *p, harness_error *err)
{
    if (strcmp(p->device, "cpu") != 0)
        return 0;
    const harness_config *c = p->cfg;
    const char *key = c->device_index != 0             ? "device_index"
                      : strcmp(c->timing, "batch") == 0 ? "schedule.timing"
                      : c->flush_l2                     ? "schedule.flush_l2"
                      : c->cuda_graph                   ? "schedule.cuda_graph"
                      : !c->blocking_kernel             ? "schedule.blocking_kernel"
                      : c->throttle_threshold != HARNESS_DEFAULT_THROTTLE_THRESHOLD ? "schedule.throttle_threshold"
                      : strcmp(c->lock_clocks, "off") != 0 ? "schedule.lock_clocks"
                                                        : NULL;
    if (!key)
        return 0;
    const char *why = strcmp(c->device, "cpu") == 0    ? "device is cpu"
                      : strcmp(c->device, "auto") == 0 ? "device auto found no CUDA device, or the variant runs on the CPU"
                                                       : "the variant runs on the CPU";
    return harness_config_fail(c, HARNESS_EXIT_USAGE, key, err,
                               "applies to CUDA runs only, and this run is on the CPU (%s); remove it, or run "
                               "a CUDA variant with device: cuda", why);
}

/* After v refused component.config (err says why): when another variant of
 * v's family takes the same config (attention/cuda offers dtype fp16,
 * attention/cpu does not), the message names it, since a device or key is
 * then the fix rather than the value. Binding the config to them replaces
 * nothing that matters: the run stops here. Returns err's code. */
static int name_variants_that_accept(harness_plan *p, const harness_variant *v, harness_error *err)
{
    char others[256] = "";
    size_t len = 0, count = 0;
    for (size_t i = 0; i < p->registry.n_variants; i++) {
        const harness_variant *o = &p->registry.variants[i].variant;
        harness_error ignored = {0};
        if (o == v || strcmp(o->family, v->family) != 0 ||
            harness_config_bind_params(p->cfg, o->key, o->params, o->n_params, &ignored) != 0)
            continue;
        int n = snprintf(others + len, sizeof others - len, "%s%s (device: %s)", len ? ", " : "", o->key, o->device);
        if (n < 0 || (size_t)n >= sizeof others - len)
            break;
        len += (size_t)n;
        count++;
    }
    if (len) {
        size_t used = strlen(err->msg);
        snprintf(err->msg + used, sizeof err->msg - used, "; %s %s this config: set device or "
                 "component.variant_key to run %s", others, count > 1 ? "accept" : "accepts", count > 1 ? "one" : "it");
    }
    return err->code;
}

/* The device for `wanted`; with device_may_be_absent (validate), a cuda
 * config on a machine without a GPU is still checked in full but for the
 * device itself, which p->device_unchecked then explains. */
static int resolve_device(const harness_plan_request *req, const char *wanted, harness_plan *p, harness_error *err)
{
    if (harness_device_resolve(wanted, &p->device, err) == 0)
        return 0;
#ifndef HAVE_CUDA
    return err->code;              /* no CUDA variant to check either: the error says how to build one */
#endif
    if (!req->device_may_be_absent || strcmp(wanted, "cuda") != 0 || err->code != HARNESS_EXIT_RUNTIME)
        return err->code;
    snprintf(p->device_unchecked, sizeof p->device_unchecked, "%.500s", err->msg);
    p->device = "cuda";
    memset(err, 0, sizeof *err);
    return 0;
}

/* The folder's hash: of the resolved config as if its output_dir were the
 * default, since where a run is written is not what was run (one config run
 * into two places gets one hash, and a default run keeps the hash it had). */
static int folder_hash(harness_config *cfg, char hash8[9])
{
    char *where = cfg->output_dir, fallback[] = "experiments";
    cfg->output_dir = fallback;
    char *text = harness_config_dump(cfg);
    cfg->output_dir = where;
    if (!text)
        return -1;
    harness_config_hash8(text, hash8);
    free(text);
    return 0;
}

/* A GPU config that cannot run here: the error ends with the command that
 * runs it on the CPU (validate checks without the device, never gets here). */
static int cpu_hint(const harness_plan_request *req, harness_plan *p, harness_error *err)
{
    harness_error ignored = {0};
    if (p->cfg && !p->registry_ready) {
        if (harness_registry_init(&p->registry, harness_host_services(), &ignored) != 0)
            return err->code;
        p->registry_ready = 1;
        if (harness_plan_load_plugins(&p->registry, req, p->cfg, &ignored) != 0)
            return err->code;
    }
    harness_append_cpu_hint(req, p->cfg, &p->registry, err);
    return err->code;
}

/* The variant the config names, on the device it resolved to. Returns
 * err's code; a variant for another device is an error unless device is
 * auto, where the variant decides. */
static int find_variant(const harness_plan_request *req, harness_plan *p, harness_error *err)
{
    p->entry = harness_registry_resolve(&p->registry, p->cfg->variant_key, p->device, err);
    if (!p->entry && strcmp(p->cfg->device, "auto") == 0 && strcmp(p->device, "cpu") != 0) {
        /* auto on a GPU node, for a family without a GPU variant: the CPU one runs. */
        p->entry = harness_registry_resolve(&p->registry, p->cfg->variant_key, "cpu", err);
        if (p->entry)
            p->device = "cpu";
    }
    if (!p->entry) {
        /* Point at the key, as every config error does. */
        harness_error inner = *err;
        return harness_config_fail(p->cfg, inner.code, "component.variant_key", err, "%s", inner.msg);
    }
    const harness_variant *v = &p->entry->variant;
    if (strcmp(v->device, p->device) == 0)
        return 0;
    if (strcmp(p->cfg->device, "auto") != 0) {
        harness_config_fail(p->cfg, HARNESS_EXIT_USAGE, "component.variant_key", err,
                            "%s runs on %s, but device is %s; drop one of them or make them agree", v->key,
                            v->device, p->cfg->device);
        return cpu_hint(req, p, err);
    }
    /* auto with an exact key: the key decides. */
    if (resolve_device(req, v->device, p, err) != 0)
        return cpu_hint(req, p, err);
    return 0;
}

/* The variant's own say on the bound parameters (its validate callback),
 * as a config error at the key it names. */
static int variant_accepts(const harness_plan *p, const harness_variant *v, harness_error *err)
{
    if (!v->validate)
        return 0;
    harness_instance in;
    harness_instance_init(&in, v, p->cfg, NULL, NULL);
    int rc = v->validate(&in.ctx);
    harness_ctx_clear_live(&in.ctx);   /* `in` is on this stack */
    if (rc == 0 && !in.ctx.failed)
        return 0;
    const char *msg = harness_ctx_message(&in.ctx, "rejected by the variant without a message");
    char key[160] = "component.config";
    const char *param = param_named_by(v, msg);
    if (param)
        snprintf(key, sizeof key, "component.config.%s", param);
    return harness_config_fail(p->cfg, HARNESS_EXIT_USAGE, key, err, "%s", msg);
}

/* The runner sees the schedule, never the config (docs/ARCHITECTURE.md
 * section 6). A time budget is the command line's, not the config's: it
 * sizes what runs but is no part of what the config asks, so the folder's
 * hash and a history's series key stay those of the config. */
static harness_schedule schedule_of(const harness_config *c, const char *device, double time_budget_s)
{
    int cuda = strcmp(device, "cuda") == 0;
    return (harness_schedule){
        .warmup_steps = c->warmup_steps, .wait_steps = c->wait_steps,
        .measurement_steps = c->measurement_steps, .repeat = c->repeat,
        .max_rel_ci = c->stop_max_rel_ci, .min_steps = c->stop_min_steps,
        .max_steps = c->stop_max_steps, .max_time_s = c->stop_max_time_s,
        .nvtx = c->nvtx && cuda,
        /* Every rank runs the trace window (a collective step needs them
         * all); only profiled ranks record in it. */
        .trace_steps = c->cupti && cuda ? TRACE_WINDOW_STEPS : 0,
        .time_budget_s = time_budget_s,
        .throttle_threshold = cuda ? c->throttle_threshold : 0,
    };
}

int harness_plan_point(const harness_plan_request *req, size_t point, harness_plan *p, harness_error *err)
{
    memset(p, 0, sizeof *p);
    const char *text;
    size_t len;
    if (harness_config_source(req->config_path, &text, &len, err) != 0 ||
        harness_config_load_text(req->config_path, text, len, req->sets, req->n_sets, point, &p->cfg, err) != 0)
        return err->code;
    if (apply_overrides(p->cfg, req, err) != 0)
        return err->code;
    if (resolve_device(req, p->cfg->device, p, err) != 0)
        return err->code == HARNESS_EXIT_RUNTIME ? cpu_hint(req, p, err) : err->code;
    harness_process_take();        /* before any plugin code, when main has not */
    if (harness_registry_init(&p->registry, harness_host_services(), err) != 0)
        return err->code;
    p->registry_ready = 1;
    int rc = harness_plan_load_plugins(&p->registry, req, p->cfg, err);
    harness_guard_take_back();     /* the plugins' init ran: their cwd, mask and handlers are not ours */
    if (rc != 0 || find_variant(req, p, err) != 0 || check_cuda_only_keys(p, err) != 0)
        return err->code;
    const harness_variant *v = &p->entry->variant;
    if (harness_config_bind_params(p->cfg, v->key, v->params, v->n_params, err) != 0)
        return name_variants_that_accept(p, v, err);
    rc = variant_accepts(p, v, err);
    harness_guard_take_back();     /* so did its validate */
    if (rc != 0)
        return err->code;
    p->schedule = schedule_of(p->cfg, p->device, req->time_budget_s);
    p->out = (harness_plan_outputs){.config_path = p->cfg->path, .output_dir = p->cfg->output_dir,
                                    .resolved_yaml = harness_config_dump(p->cfg)};
    if (!p->out.resolved_yaml || folder_hash(p->cfg, p->out.hash8) != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    return 0;
}

int harness_plan_sweep(const harness_plan_request *req, const harness_plan *first, harness_error *err)
{
    for (size_t i = 1; i < first->cfg->n_sweep_points; i++) {
        harness_plan p;
        int rc = harness_plan_point(req, i, &p, err);
        harness_plan_free(&p);
        if (rc != 0)
            return rc;
    }
    return 0;
}

void harness_plan_free(harness_plan *p)
{
    free(p->out.resolved_yaml);
    harness_config_free(p->cfg);
    if (p->registry_ready)
        harness_registry_free(&p->registry);
    harness_guard_take_back();     /* the plugins' unload callbacks ran */
    memset(p, 0, sizeof *p);
}

/* The benchmark's name as --filter matches it (cli/bench_filter.h): the
 * experiment, the variant and, for a sweep point, KEY=VALUE per swept key
 * (the last part of its dotted name). */
const char *harness_plan_bench_name(const harness_plan *p, char *buf, size_t cap)
{
    const harness_config *cfg = p->cfg;
    size_t len = (size_t)snprintf(buf, cap, "%s %s", cfg->name, p->entry->variant.key);
    for (size_t k = 0; k < cfg->n_sweep_keys && len < cap; k++) {
        const char *dot = strrchr(cfg->sweep_keys[k], '.');
        len += (size_t)snprintf(buf + len, cap - len, " %s=%s", dot ? dot + 1 : cfg->sweep_keys[k],
                                cfg->sweep_values[k]);
    }
    return buf;
}
