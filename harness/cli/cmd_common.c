/* What run and validate share: options and the preparation of a config. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/cpu_hint.h"
#include "backend/backend.h"
#include "run/instance.h"
#include "util/input_file.h"
#include "util/suggest.h"
#include "util/term.h"

enum { OPT_SET = 's', OPT_PLUGIN_PATH = 'P', OPT_OUTPUT_DIR = 'o', OPT_DEVICE = 'd', OPT_QUIET = 'q',
       OPT_HELP = 'h', OPT_JSON = 'j', OPT_RUNS = 1000, OPT_FILTER, OPT_COLOR };

static int parse_runs(const char *arg, int *runs, harness_error *err)
{
    char *end;
    long n = strtol(arg, &end, 10);
    if (end == arg || *end || n < 1 || n > 1000)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "--runs: expected an integer in [1, 1000], got '%s'",
                                 arg);
    *runs = (int)n;
    return 0;
}

static int add_opt(const char **list, size_t *n, const char *value, const char *what, harness_error *err)
{
    if (*n == HARNESS_MAX_OPTS)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "too many %s options (at most %d)", what,
                                 HARNESS_MAX_OPTS);
    list[(*n)++] = value;
    return 0;
}

int harness_parse_opts(int argc, char **argv, const char *command, void (*usage)(FILE *), harness_cli_opts *opts,
                       harness_error *err)
{
    static const struct option longopts[] = {
        {"set", required_argument, NULL, OPT_SET},
        {"plugin-path", required_argument, NULL, OPT_PLUGIN_PATH},
        {"output-dir", required_argument, NULL, OPT_OUTPUT_DIR},
        {"device", required_argument, NULL, OPT_DEVICE},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"json", no_argument, NULL, OPT_JSON},
        {"help", no_argument, NULL, OPT_HELP},
        {"runs", required_argument, NULL, OPT_RUNS},
        {"filter", required_argument, NULL, OPT_FILTER},
        {"color", required_argument, NULL, OPT_COLOR},
        {NULL, 0, NULL, 0},
    };
    memset(opts, 0, sizeof *opts);
    opts->runs = 1;
    int takes_config = strcmp(command, "list") != 0, is_run = strcmp(command, "run") == 0;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "s:P:o:d:qh", longopts, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case OPT_SET: rc = add_opt(opts->sets, &opts->n_sets, optarg, "--set", err); break;
        case OPT_PLUGIN_PATH:
            rc = add_opt(opts->plugin_paths, &opts->n_plugin_paths, optarg, "--plugin-path", err);
            break;
        case OPT_OUTPUT_DIR: opts->output_dir = optarg; break;
        case OPT_DEVICE: opts->device = optarg; break;
        case OPT_QUIET: opts->quiet = 1; break;
        case OPT_JSON: opts->json = 1; break;
        case OPT_HELP: usage(stdout); return -1;
        case OPT_RUNS:
            if (!is_run)
                goto unknown;
            rc = parse_runs(optarg, &opts->runs, err);
            break;
        case OPT_COLOR:
            if (!is_run)
                goto unknown;
            rc = harness_color_option(optarg, &opts->color, err);
            break;
        case OPT_FILTER:
            if (!is_run && takes_config)
                goto unknown;
            opts->filter = optarg;
            break;
        default:
        unknown:
            return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: %s option '%s'; see `harness %s --help`",
                                     command, optopt ? "option needs a value or is unknown:" : "unknown",
                                     argv[optind - 1], command);
        }
        if (rc)
            return rc;
    }
    int positional = argc - optind;
    if (is_run && positional >= 1) {
        for (int i = optind; i < argc; i++)
            if (add_opt(opts->configs, &opts->n_configs, argv[i], "CONFIG", err) != 0)
                return err->code;
        opts->config_path = opts->configs[0];
    } else if (is_run) {
        return harness_error_set(err, HARNESS_EXIT_USAGE, "run: expected a CONFIG file, a folder of configs or a "
                                 "suite file; see `harness run --help`");
    } else if (takes_config && positional != 1) {
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: expected one CONFIG file, got %d arguments; see "
                                 "`harness %s --help`", command, positional, command);
    }
    if (!takes_config && positional != 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: unexpected argument '%s'", command, argv[optind]);
    if (takes_config)
        opts->config_path = argv[optind];
    return 0;
}

int harness_load_plugins(harness_registry *reg, const harness_cli_opts *opts, const harness_config *cfg,
                         harness_error *err)
{
    const char *extra[2 * HARNESS_MAX_OPTS];
    size_t n = 0;
    for (size_t i = 0; i < opts->n_plugin_paths; i++)
        extra[n++] = opts->plugin_paths[i];
    for (size_t i = 0; cfg && i < cfg->n_plugin_path && n < 2 * HARNESS_MAX_OPTS; i++) {
        /* A wrong path in the config is the config's error: say where. */
        struct stat st;
        int missing = stat(cfg->plugin_path[i], &st) != 0;
        if (missing || !S_ISDIR(st.st_mode))
            return harness_config_fail(cfg, HARNESS_EXIT_USAGE, "plugin_path", err,
                                       "plugin directory %s: %s; relative entries are relative to the config "
                                       "file's folder", cfg->plugin_path[i],
                                       missing ? strerror(errno) : "not a directory");
        extra[n++] = cfg->plugin_path[i];
    }
    return harness_registry_load_search_path(reg, extra, n, err);
}

void harness_warn_broken_plugins(const harness_registry *reg)
{
    for (size_t i = 0; i < reg->n_broken; i++)
        fprintf(stderr, "harness: %swarning: skipped %s: %s\n", harness_error_rank_label(), reg->broken[i].path,
                reg->broken[i].why);
}

/* Command-line values replace the config's, and so end up in the resolved
 * config and its hash like any other setting. */
static int apply_cli_overrides(harness_config *cfg, const harness_cli_opts *opts, harness_error *err)
{
    if (opts->device) {
        static const char *const devices[] = {"auto", "cpu", "cuda"};
        size_t known = 0;
        while (known < 3 && strcmp(opts->device, devices[known]) != 0)
            known++;
        if (known == 3) {
            const char *guess = harness_suggest(opts->device, devices, 3);
            return harness_error_set(err, HARNESS_EXIT_USAGE, "--device: expected auto, cpu or cuda, got '%s'%s%s%s",
                                     opts->device, guess ? "; did you mean " : "", guess ? guess : "",
                                     guess ? "?" : "");
        }
        free(cfg->device);
        cfg->device = strdup(opts->device);
    }
    if (opts->output_dir) {
        if (!*opts->output_dir)
            return harness_error_set(err, HARNESS_EXIT_USAGE, "--output-dir: empty path");
        free(cfg->output_dir);
        cfg->output_dir = strdup(opts->output_dir);
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
static int check_cuda_only_keys(const harness_prepared *p, harness_error *err)
{
    if (strcmp(p->device, "cpu") != 0)
        return 0;
    const harness_config *c = p->cfg;
    const char *key = c->device_index != 0             ? "device_index"
                      : strcmp(c->timing, "batch") == 0 ? "schedule.timing"
                      : c->flush_l2                     ? "schedule.flush_l2"
                      : c->cuda_graph                   ? "schedule.cuda_graph"
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

int harness_prepare(const harness_cli_opts *opts, harness_prepared *p, harness_error *err)
{
    return harness_prepare_point(opts, 0, p, err);
}

/* The config file's bytes, read once per process: every sweep point is
 * parsed from them and the folder's copy is of them, so a FIFO is never
 * read twice and an edit during a sweep changes nothing. Kept to the end. */
static struct {
    char *path, *text;
    size_t len;
} source;

int harness_config_source(const char *path, const char **text, size_t *len, harness_error *err)
{
    if (!source.path || strcmp(source.path, path) != 0) {
        char *t = NULL;
        size_t n = 0;
        if (harness_read_input_file(path, "config", HARNESS_MAX_INPUT_BYTES, HARNESS_EXIT_USAGE, &t, &n, err) != 0)
            return err->code;
        char *copy = strdup(path);
        if (!copy) {
            free(t);
            return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
        }
        free(source.path);
        free(source.text);
        source.path = copy;
        source.text = t;
        source.len = n;
    }
    *text = source.text;
    *len = source.len;
    return 0;
}

/* After v refused component.config (err says why): when another variant of
 * v's family takes the same config (attention/cuda offers dtype fp16,
 * attention/cpu does not), the message names it, since a device or key is
 * then the fix rather than the value. Binding the config to them replaces
 * nothing that matters: the run stops here. Returns err's code. */
static int name_variants_that_accept(harness_prepared *p, const harness_variant *v, harness_error *err)
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
static int resolve_device(const harness_cli_opts *opts, const char *wanted, harness_prepared *p, harness_error *err)
{
    if (harness_device_resolve(wanted, &p->device, err) == 0)
        return 0;
#ifndef HAVE_CUDA
    return err->code;              /* no CUDA variant to check either: the error says how to build one */
#endif
    if (!opts->device_may_be_absent || strcmp(wanted, "cuda") != 0 || err->code != HARNESS_EXIT_RUNTIME)
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
static int cpu_hint(const harness_cli_opts *opts, harness_prepared *p, harness_error *err)
{
    harness_append_cpu_hint(opts, p, err);
    return err->code;
}

int harness_prepare_point(const harness_cli_opts *opts, size_t point, harness_prepared *p, harness_error *err)
{
    memset(p, 0, sizeof *p);
    const char *text;
    size_t len;
    if (harness_config_source(opts->config_path, &text, &len, err) != 0 ||
        harness_config_load_text(opts->config_path, text, len, opts->sets, opts->n_sets, point, &p->cfg, err) != 0)
        return err->code;
    if (apply_cli_overrides(p->cfg, opts, err) != 0)
        return err->code;
    if (resolve_device(opts, p->cfg->device, p, err) != 0)
        return err->code == HARNESS_EXIT_RUNTIME ? cpu_hint(opts, p, err) : err->code;
    if (harness_registry_init(&p->registry, harness_host_services(), err) != 0)
        return err->code;
    p->registry_ready = 1;
    if (harness_load_plugins(&p->registry, opts, p->cfg, err) != 0)
        return err->code;
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
    if (strcmp(v->device, p->device) != 0) {
        if (strcmp(p->cfg->device, "auto") != 0) {
            harness_config_fail(p->cfg, HARNESS_EXIT_USAGE, "component.variant_key", err,
                                "%s runs on %s, but device is %s; drop one of them or make them agree", v->key,
                                v->device, p->cfg->device);
            return cpu_hint(opts, p, err);
        }
        /* auto with an exact key: the key decides. */
        if (resolve_device(opts, v->device, p, err) != 0)
            return cpu_hint(opts, p, err);
    }
    if (check_cuda_only_keys(p, err) != 0)
        return err->code;
    if (harness_config_bind_params(p->cfg, v->key, v->params, v->n_params, err) != 0)
        return name_variants_that_accept(p, v, err);
    if (v->validate) {
        harness_instance in;
        harness_instance_init(&in, v, p->cfg, NULL, NULL);
        if (v->validate(&in.ctx) != 0 || in.ctx.failed) {
            const char *msg = harness_ctx_message(&in.ctx, "rejected by the variant without a message");
            char key[160] = "component.config";
            const char *param = param_named_by(v, msg);
            if (param)
                snprintf(key, sizeof key, "component.config.%s", param);
            return harness_config_fail(p->cfg, HARNESS_EXIT_USAGE, key, err, "%s", msg);
        }
    }
    p->resolved_yaml = harness_config_dump(p->cfg);
    if (!p->resolved_yaml || folder_hash(p->cfg, p->hash8) != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    return 0;
}

int harness_cli_prepare(int argc, char **argv, const char *command, void (*usage)(FILE *),
                        harness_cli_opts *opts, harness_prepared *p, int *exit_code)
{
    harness_error err = {0};
    int rc = harness_parse_opts(argc, argv, command, usage, opts, &err);
    if (rc != 0) {
        *exit_code = rc < 0 ? 0 : harness_error_report(&err);
        return -1;
    }
    return harness_cli_prepare_parsed(opts, command, p, exit_code);
}

int harness_cli_prepare_parsed(harness_cli_opts *opts, const char *command, harness_prepared *p, int *exit_code)
{
    harness_error err = {0};
    /* validate lints configs for machines other than this one (a CPU CI job
     * checking the GPU configs); run needs the device. */
    opts->device_may_be_absent = strcmp(command, "validate") == 0;
    int rc_prepare = harness_prepare(opts, p, &err);
    if (p->registry_ready)
        harness_warn_broken_plugins(&p->registry);
    if (rc_prepare != 0) {
        harness_prepared_free(p);
        *exit_code = harness_error_report(&err);
        return -1;
    }
    return 0;
}

void harness_sweep_point_label(const harness_config *cfg, FILE *f)
{
    fprintf(f, "point %zu/%zu:", cfg->sweep_point + 1, cfg->n_sweep_points);
    for (size_t i = 0; i < cfg->n_sweep_keys; i++)
        fprintf(f, " %s=%s", cfg->sweep_keys[i], cfg->sweep_values[i]);
}

int harness_prepare_sweep(const harness_cli_opts *opts, harness_prepared *first, harness_error *err)
{
    for (size_t i = 1; i < first->cfg->n_sweep_points; i++) {
        harness_prepared p;
        int rc = harness_prepare_point(opts, i, &p, err);
        harness_prepared_free(&p);
        if (rc != 0)
            return rc;
    }
    return 0;
}

void harness_prepared_free(harness_prepared *p)
{
    free(p->resolved_yaml);
    harness_config_free(p->cfg);
    if (p->registry_ready)
        harness_registry_free(&p->registry);
    memset(p, 0, sizeof *p);
}
