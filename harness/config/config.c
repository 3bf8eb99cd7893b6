/* The experiment config (docs/ARCHITECTURE.md section 5): the table of keys, loading
 * and validating the tree against it, defaults, and freeing. Binding
 * component parameters is in config_bind.c and the canonical dump that names
 * the experiment folder in config_dump.c; what they share with this file is
 * declared in config_internal.h. */
#include "config/config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config_internal.h"
#include "util/utf8.h"
#include "config/config_limits.h"
#include "config/config_tree.h"
#include "util/suggest.h"

/* ---- the table of keys ---------------------------------------------------
 * The types, and why one table drives both validation and the dump, are in
 * config_internal.h. */

#define AT(member) offsetof(harness_config, member)

static const char *const devices[] = {"auto", "cpu", "cuda", NULL};
static const char *const timings[] = {"per_step", "batch", NULL};
/* In the order of HARNESS_LOCK_CLOCKS_* (backend/backend.h). */
static const char *const clock_locks[] = {"off", "base", "max", NULL};
/* In the order of harness_generator. */
static const char *const generators[] = {"random_normal", "random_uniform", "zeros", "ones", NULL};
/* Whether the ranks' files travel to rank 0 (dist/gather.h). */
static const char *const gathers[] = {"auto", "always", "never", NULL};

static const harness_cfg_key_spec experiment_keys[] = {
    {"name", K_STRING, AT(name), 0, NULL, NULL},
    {"output_dir", K_STRING, AT(output_dir), 0, NULL, NULL},
    /* Left out of the canonical dump at their defaults (config_dump.c). */
    {"gather", K_CHOICE_TEXT, AT(gather), 0, gathers, NULL},
    {"gather_max_bytes", K_INT, AT(gather_max_bytes), 1, NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL},
};
static const harness_cfg_key_spec stopping_keys[] = {
    {"max_rel_ci", K_POSITIVE, AT(stop_max_rel_ci), 0, NULL, NULL},
    {"min_steps", K_INT, AT(stop_min_steps), 1, NULL, NULL},
    {"max_steps", K_INT, AT(stop_max_steps), 1, NULL, NULL},
    {"max_time_s", K_POSITIVE, AT(stop_max_time_s), 0, NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL},
};
static const harness_cfg_key_spec schedule_keys[] = {
    {"warmup_steps", K_INT, AT(warmup_steps), 0, NULL, NULL},
    {"wait_steps", K_INT, AT(wait_steps), 0, NULL, NULL},
    {"measurement_steps", K_STEPS, AT(measurement_steps), 1, NULL, NULL},
    {"repeat", K_INT, AT(repeat), 1, NULL, NULL},
    {"stopping", K_SECTION, 0, 0, NULL, stopping_keys},
    {"step_timeout_s", K_SECONDS, AT(step_timeout_s), 0, NULL, NULL},
    {"callback_timeout_s", K_SECONDS, AT(callback_timeout_s), 0, NULL, NULL},
    {"sync_steps", K_BOOL, AT(sync_steps), 0, NULL, NULL},
    {"rotate_inputs", K_INT, AT(rotate_inputs), 0, NULL, NULL},
    /* CUDA only (a config error on the CPU: cli/cmd_common.c). */
    {"timing", K_CHOICE_TEXT, AT(timing), 0, timings, NULL},
    {"flush_l2", K_BOOL, AT(flush_l2), 0, NULL, NULL},
    {"cuda_graph", K_BOOL, AT(cuda_graph), 0, NULL, NULL},
    {"blocking_kernel", K_BOOL, AT(blocking_kernel), 0, NULL, NULL},
    /* Left out of the canonical dump at their defaults (config_dump.c). */
    {"throttle_threshold", K_FRACTION, AT(throttle_threshold), 0, NULL, NULL},
    {"lock_clocks", K_CHOICE_TEXT, AT(lock_clocks), 0, clock_locks, NULL},
    {NULL, 0, 0, 0, NULL, NULL},
};
static const harness_cfg_key_spec profiling_keys[] = {
    {"profiled_ranks", K_RANKS, 0, 0, NULL, NULL},
    {"trace", K_BOOL, AT(trace), 0, NULL, NULL},
    {"memory", K_BOOL, AT(memory), 0, NULL, NULL},
    {"memory_log_steps", K_INT, AT(memory_log_steps), 1, NULL, NULL},
    {"max_trace_events", K_INT, AT(max_trace_events), 1, NULL, NULL},
    {"nvtx", K_BOOL, AT(nvtx), 0, NULL, NULL},
    {"cupti", K_BOOL, AT(cupti), 0, NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL},
};
static const harness_cfg_key_spec component_keys[] = {
    {"variant_key", K_STRING, AT(variant_key), 0, NULL, NULL},
    {"config", K_PARAMS, 0, 0, NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL},
};
/* seed is a uint64_t written through int64_t: allowed (C11 6.5p7) and the
 * value is checked >= 0 first. */
static const harness_cfg_key_spec data_keys[] = {
    {"generator", K_CHOICE_INDEX, AT(generator), 0, generators, NULL},
    {"seed", K_INT, AT(seed), 0, NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL},
};
const harness_cfg_key_spec harness_cfg_top_keys[] = {
    {"experiment", K_SECTION, 0, 0, NULL, experiment_keys},
    {"device", K_CHOICE_TEXT, AT(device), 0, devices, NULL},
    {"device_index", K_INT_NARROW, AT(device_index), 0, NULL, NULL},
    {"schedule", K_SECTION, 0, 0, NULL, schedule_keys},
    {"profiling", K_SECTION, 0, 0, NULL, profiling_keys},
    {"component", K_SECTION, 0, 0, NULL, component_keys},
    {"data", K_SECTION, 0, 0, NULL, data_keys},
    {"validate", K_BOOL, AT(validate), 0, NULL, NULL},
    {"validate_after_timing", K_BOOL, AT(validate_after_timing), 0, NULL, NULL},
    {"plugin_path", K_PATHS, 0, 0, NULL, NULL},
    {"sweep", K_SWEEP, 0, 0, NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL},
};

/* ---- scalar values with messages ---------------------------------------- */

/* An integer in [min, max]; max is INT64_MAX for none. The range is in the
 * message when there is a max: the value is narrowed to int later. */
static int get_int(const harness_config *cfg, const harness_node *v, const char *path,
                   int64_t min, int64_t max, const char *alternative, int64_t *out, harness_error *err)
{
    int64_t x = 0;
    int rc = v->kind == HARNESS_NODE_SCALAR && !v->quoted ? harness_parse_int(v->text, &x) : -1;
    if (rc == 0 && x >= min && x <= max) {
        *out = x;
        return 0;
    }
    char got[128], range[64];
    harness_node_describe(v, got, sizeof got);
    if (max < INT64_MAX)
        snprintf(range, sizeof range, "from %" PRId64 " to %" PRId64, min, max);
    else
        snprintf(range, sizeof range, ">= %" PRId64, min);
    return harness_tree_fail(cfg->tree, v->at, path, err, "expected an integer %s%s, got %s%s", range,
                             alternative ? alternative : "", got,
                             rc == -2 ? ", which does not fit in 64 bits" : "");
}

/* A timeout in whole seconds, bounded so that its nanoseconds fit. */
static int get_seconds(const harness_config *cfg, const harness_node *v, const char *path, int64_t *out,
                       harness_error *err)
{
    int64_t x = 0;
    if (get_int(cfg, v, path, 0, INT64_MAX, NULL, &x, err) != 0)
        return err->code;
    if (x > HARNESS_CFG_MAX_TIMEOUT_S)
        return harness_tree_fail(cfg->tree, v->at, path, err,
                                 "%" PRId64 " seconds is more than a year (%d s), the longest timeout; "
                                 "use 0 for none", x, HARNESS_CFG_MAX_TIMEOUT_S);
    *out = x;
    return 0;
}

/* A number > 0 (K_POSITIVE), or a share from 0 to 1 (K_FRACTION:
 * schedule.throttle_threshold). */
static int get_number(const harness_config *cfg, const harness_node *v, const char *path, int fraction,
                      double *out, harness_error *err)
{
    double x = 0;
    int rc = v->kind == HARNESS_NODE_SCALAR && !v->quoted ? harness_parse_float(v->text, &x) : -1;
    if (rc == 0 && (fraction ? x >= 0 && x <= 1 : x > 0)) {
        *out = x;
        return 0;
    }
    char got[128];
    harness_node_describe(v, got, sizeof got);
    if (fraction)
        return harness_tree_fail(cfg->tree, v->at, path, err, "expected a number from 0 to 1 (a share of the "
                                 "most SM clock; 0 never drops a step), got %s", got);
    return harness_tree_fail(cfg->tree, v->at, path, err, "expected a number > 0, got %s%s", got,
                             rc == -2 ? ", which does not fit in a double" : "");
}

static int get_bool(const harness_config *cfg, const harness_node *v, const char *path, int *out,
                    harness_error *err)
{
    if (v->kind == HARNESS_NODE_SCALAR && !v->quoted && harness_parse_bool(v->text, out) == 0)
        return 0;
    char got[128];
    harness_node_describe(v, got, sizeof got);
    return harness_tree_fail(cfg->tree, v->at, path, err, "expected true or false, got %s", got);
}

/* Any scalar is a string: `name: 123` names the experiment "123". */
static int get_string(const harness_config *cfg, const harness_node *v, const char *path,
                      char **out, harness_error *err)
{
    if (v->kind != HARNESS_NODE_SCALAR || harness_node_is_null(v)) {
        char got[128];
        harness_node_describe(v, got, sizeof got);
        return harness_tree_fail(cfg->tree, v->at, path, err, "expected a string, got %s", got);
    }
    if (v->text[0] == '\0')
        return harness_tree_fail(cfg->tree, v->at, path, err, "must not be empty");
    char *s = strdup(v->text);
    if (!s)
        return harness_cfg_out_of_memory(err);
    free(*out);
    *out = s;
    return 0;
}

/* Index of `v` in `choices`, or an error with a did-you-mean. */
static int get_choice(const harness_config *cfg, const harness_node *v, const char *path,
                      const char *const *choices, size_t *index, harness_error *err)
{
    size_t n = 0;
    while (choices[n])
        n++;
    if (v->kind == HARNESS_NODE_SCALAR) {
        for (size_t i = 0; i < n; i++) {
            if (strcmp(v->text, choices[i]) == 0) {
                *index = i;
                return 0;
            }
        }
    }
    char got[128], list[256];
    harness_node_describe(v, got, sizeof got);
    harness_cfg_join(list, sizeof list, choices);
    const char *guess = v->kind == HARNESS_NODE_SCALAR ? harness_suggest(v->text, choices, n) : NULL;
    return harness_tree_fail(cfg->tree, v->at, path, err, "expected one of %s, got %s%s%s%s", list,
                             got, guess ? "; did you mean " : "", guess ? guess : "", guess ? "?" : "");
}

static int cmp_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* profiled_ranks: "all" or a list of ranks, kept sorted so that [1, 0] and
 * [0, 1] dump (and hash) the same. */
static int get_ranks(harness_config *cfg, const harness_node *v, const char *path,
                     harness_error *err)
{
    if (v->kind == HARNESS_NODE_SCALAR && strcmp(v->text, "all") == 0) {
        cfg->profile_all_ranks = 1;
        free(cfg->profiled_ranks);
        cfg->profiled_ranks = NULL;
        cfg->n_profiled_ranks = 0;
        return 0;
    }
    if (v->kind != HARNESS_NODE_LIST) {
        char got[128];
        harness_node_describe(v, got, sizeof got);
        return harness_tree_fail(cfg->tree, v->at, path, err,
                                 "expected a list of ranks such as [0, 1], or all, got %s", got);
    }
    int64_t *ranks = malloc((v->n ? v->n : 1) * sizeof *ranks);
    if (!ranks)
        return harness_cfg_out_of_memory(err);
    for (size_t i = 0; i < v->n; i++) {
        char item[512 + 24]; /* the path plus [index] */
        snprintf(item, sizeof item, "%s[%zu]", path, i);
        /* Ranks are ints (MPI's): 4294967296 must not come out as rank 0. */
        int rc = get_int(cfg, v->items[i], item, 0, INT_MAX, NULL, &ranks[i], err);
        if (rc) {
            free(ranks);
            return rc;
        }
    }
    qsort(ranks, v->n, sizeof *ranks, cmp_int64);
    for (size_t i = 1; i < v->n; i++) {
        if (ranks[i] == ranks[i - 1]) {
            int64_t twice = ranks[i];
            free(ranks);
            return harness_tree_fail(cfg->tree, v->at, path, err,
                                     "rank %" PRId64 " is listed twice", twice);
        }
    }
    free(cfg->profiled_ranks);
    cfg->profiled_ranks = ranks;
    cfg->n_profiled_ranks = v->n;
    cfg->profile_all_ranks = 0;
    return 0;
}

/* A relative directory written in the config file means the folder next to
 * the file, so a config and its plugins move together and run from any
 * working directory; one given with --set is relative to the working
 * directory, where the user typed it. Either becomes absolute: the resolved
 * config, copied into the experiment folder, must find the same plugins
 * (and hash the same) wherever it is read from. */
static int absolute_dir(const harness_config *cfg, char **dir, int in_file, harness_error *err)
{
    if ((*dir)[0] == '/')
        return 0;
    const char *file = cfg->tree->path;
    const char *slash = in_file && file ? strrchr(file, '/') : NULL;
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "plugin_path: cannot read the working directory: %s",
                                 strerror(errno));
    int folder_len = slash ? (int)(slash - file) : 0;
    int file_absolute = slash && file[0] == '/';
    const char *sep = strcmp(*dir, ".") == 0 ? "" : "/", *rest = *sep ? *dir : "";   /* "." is the folder itself */
    size_t len = strlen(cwd) + (size_t)folder_len + strlen(*dir) + 3;
    char *joined = malloc(len);
    if (!joined)
        return harness_cfg_out_of_memory(err);
    if (file_absolute)
        snprintf(joined, len, "%.*s%s%s", folder_len, file, sep, rest);
    else if (slash)
        snprintf(joined, len, "%s/%.*s%s%s", cwd, folder_len, file, sep, rest);
    else
        snprintf(joined, len, "%s%s%s", cwd, sep, rest);
    free(*dir);
    *dir = joined;
    return 0;
}

/* plugin_path: one directory or a list of them, searched in order; see
 * absolute_dir for relative entries. */
static int get_paths(harness_config *cfg, const harness_node *v, const char *path,
                     harness_error *err)
{
    const harness_node *const *items = v->kind == HARNESS_NODE_LIST
                                           ? (const harness_node *const *)v->items : &v;
    size_t n = v->kind == HARNESS_NODE_LIST ? v->n : 1;
    if (v->kind == HARNESS_NODE_MAP)
        return harness_tree_fail(cfg->tree, v->at, path, err,
                                 "expected a directory or a list of directories, got a map");

    char **dirs = calloc(n ? n : 1, sizeof *dirs);
    if (!dirs)
        return harness_cfg_out_of_memory(err);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        char item[512 + 24]; /* the path plus [index] */
        if (v->kind == HARNESS_NODE_LIST)
            snprintf(item, sizeof item, "%s[%zu]", path, i);
        else
            snprintf(item, sizeof item, "%s", path);
        rc = get_string(cfg, items[i], item, &dirs[i], err);
        if (!rc)
            rc = absolute_dir(cfg, &dirs[i], !items[i]->at.origin, err);
    }
    if (rc) {
        for (size_t i = 0; i < n; i++)
            free(dirs[i]);
        free(dirs);
        return rc;
    }
    for (size_t i = 0; i < cfg->n_plugin_path; i++)
        free(cfg->plugin_path[i]);
    free(cfg->plugin_path);
    cfg->plugin_path = dirs;
    cfg->n_plugin_path = n;
    return 0;
}

/* ---- validation --------------------------------------------------------- */

static int check_map(harness_config *cfg, const harness_node *map,
                     const harness_cfg_key_spec *keys, const char *prefix, harness_error *err);

static int unknown_name(const harness_config *cfg, const char *name, harness_where at,
                        const harness_cfg_key_spec *keys, const char *path, harness_error *err)
{
    const char *names[32];
    size_t n = 0;
    for (; keys[n].name && n < sizeof names / sizeof *names - 1; n++)
        names[n] = keys[n].name;
    names[n] = NULL;
    const char *guess = harness_suggest(name, names, n);
    if (guess)
        return harness_tree_fail(cfg->tree, at, path, err, "unknown key; did you mean %s?", guess);
    char list[512];
    harness_cfg_join(list, sizeof list, names);
    return harness_tree_fail(cfg->tree, at, path, err, "unknown key; expected one of %s", list);
}

static int unknown_key(const harness_config *cfg, const harness_node_entry *e,
                       const harness_cfg_key_spec *keys, const char *path, harness_error *err)
{
    return unknown_name(cfg, e->key, e->at, keys, path, err);
}

static int check_key(harness_config *cfg, const harness_cfg_key_spec *k,
                     const harness_node_entry *e, const char *path, harness_error *err)
{
    const harness_node *v = e->value;
    void *dst = (char *)cfg + k->offset;
    size_t index;
    int rc;

    if (k->kind == K_SWEEP) /* the file's sweep is taken out before checking */
        return harness_tree_fail(cfg->tree, e->at, path, err,
                                 "cannot be set with --set; write sweep: in the config file");
    /* A section or component.config with nothing under it is empty; a value
     * left empty (`--set k=$UNSET_VAR`, `key:` alone) is a mistake, not a
     * request for the default, which would measure another shape silently. */
    if (harness_node_is_null(v)) {
        if (k->kind == K_SECTION || k->kind == K_PARAMS)
            return 0;
        if (k->kind == K_STRING && !*(char **)dst)
            return 0; /* no default (variant_key): check_whole says it is required */
        return harness_tree_fail(cfg->tree, v->at, path, err,
                                 "has no value; give one, or leave the key out to use the default");
    }

    switch (k->kind) {
    case K_SECTION:
        if (v->kind != HARNESS_NODE_MAP) {
            char got[128];
            harness_node_describe(v, got, sizeof got);
            return harness_tree_fail(cfg->tree, v->at, path, err, "expected a map of keys, got %s", got);
        }
        return check_map(cfg, v, k->children, path, err);
    case K_INT:
        return get_int(cfg, v, path, k->min, INT64_MAX, NULL, dst, err);
    case K_INT_NARROW:
        return get_int(cfg, v, path, k->min, INT_MAX, NULL, dst, err);
    case K_SECONDS:
        return get_seconds(cfg, v, path, dst, err);
    case K_POSITIVE:
    case K_FRACTION:
        return get_number(cfg, v, path, k->kind == K_FRACTION, dst, err);
    case K_BOOL:
        return get_bool(cfg, v, path, dst, err);
    case K_STRING:
        return get_string(cfg, v, path, dst, err);
    case K_CHOICE_TEXT:
        rc = get_choice(cfg, v, path, k->choices, &index, err);
        if (rc)
            return rc;
        char *s = strdup(k->choices[index]);
        if (!s)
            return harness_cfg_out_of_memory(err);
        free(*(char **)dst);
        *(char **)dst = s;
        return 0;
    case K_CHOICE_INDEX:
        rc = get_choice(cfg, v, path, k->choices, &index, err);
        if (!rc)
            *(harness_generator *)dst = (harness_generator)index;
        return rc;
    case K_STEPS:
        if (v->kind == HARNESS_NODE_SCALAR && strcmp(v->text, "auto") == 0) {
            cfg->measurement_steps = 0;
            return 0;
        }
        return get_int(cfg, v, path, k->min, INT64_MAX, " or auto", dst, err);
    case K_RANKS:
        return get_ranks(cfg, v, path, err);
    case K_PATHS:
        return get_paths(cfg, v, path, err);
    case K_PARAMS:
        if (v->kind != HARNESS_NODE_MAP) {
            char got[128];
            harness_node_describe(v, got, sizeof got);
            return harness_tree_fail(cfg->tree, v->at, path, err,
                                     "expected a map of component parameters, got %s", got);
        }
        return 0;
    case K_SWEEP:
        break;
    }
    return 0;
}

static int check_map(harness_config *cfg, const harness_node *map,
                     const harness_cfg_key_spec *keys, const char *prefix, harness_error *err)
{
    for (size_t i = 0; i < map->n; i++) {
        const harness_node_entry *e = &map->entries[i];
        char path[512];
        snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", e->key);

        const harness_cfg_key_spec *k = keys;
        while (k->name && strcmp(k->name, e->key) != 0)
            k++;
        int rc = k->name ? check_key(cfg, k, e, path, err) : unknown_key(cfg, e, keys, path, err);
        if (rc)
            return rc;
    }
    return 0;
}

int harness_config_fail(const harness_config *cfg, int code, const char *key_path, harness_error *err,
                        const char *fmt, ...)
{
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    harness_tree_fail(cfg->tree, harness_cfg_nearest(cfg, key_path), key_path, err, "%s", msg);
    err->code = code;
    return code;
}

/* Rules that involve more than one key, or that the table cannot say. */
static int check_whole(const harness_config *cfg, harness_error *err)
{
    if (!cfg->variant_key)
        return harness_tree_fail(cfg->tree, harness_cfg_nearest(cfg, "component.variant_key"),
                                 "component.variant_key", err,
                                 "required; name a family (rms_norm) or an exact key (rms_norm/cpu)");
    if (strcmp(cfg->timing, "batch") == 0 && cfg->measurement_steps == 0)
        return harness_tree_fail(cfg->tree, harness_cfg_nearest(cfg, "schedule.timing"), "schedule.timing", err,
                                 "batch times whole windows, but measurement_steps: auto stops on per-step "
                                 "samples; use timing: per_step or a number of measurement_steps");
    if (cfg->sync_steps && cfg->measurement_steps == 0)
        return harness_tree_fail(cfg->tree, harness_cfg_nearest(cfg, "schedule.sync_steps"), "schedule.sync_steps",
                                 err, "needs a number of measurement_steps: with auto each rank would stop on its "
                                 "own samples and the others would wait for it at the next step");
    if (cfg->stop_max_steps < cfg->stop_min_steps) {
        if (harness_tree_find(cfg->tree, "schedule.stopping.max_steps"))
            return harness_tree_fail(cfg->tree,
                                     harness_cfg_nearest(cfg, "schedule.stopping.max_steps"),
                                     "schedule.stopping.max_steps", err,
                                     "expected an integer >= min_steps (%" PRId64 "), got %" PRId64,
                                     cfg->stop_min_steps, cfg->stop_max_steps);
        return harness_tree_fail(cfg->tree,
                                 harness_cfg_nearest(cfg, "schedule.stopping.min_steps"),
                                 "schedule.stopping.min_steps", err,
                                 "expected an integer <= max_steps (%" PRId64 "), got %" PRId64,
                                 cfg->stop_max_steps, cfg->stop_min_steps);
    }
    harness_schedule_counts counts = {.warmup_steps = cfg->warmup_steps, .wait_steps = cfg->wait_steps,
                                      .measurement_steps = cfg->measurement_steps, .repeat = cfg->repeat,
                                      .stop_max_steps = cfg->stop_max_steps};
    char why[256];
    const char *key = harness_schedule_counts_exceed(&counts, why, sizeof why);
    return key ? harness_config_fail(cfg, HARNESS_EXIT_USAGE, key, err, "%s", why) : 0;
}

/* "configs/rms_norm.yaml" -> "rms_norm" */
static char *file_stem(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    char *stem = strndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
    if (stem)                      /* a file name is any bytes; the name goes into JSON and YAML */
        harness_utf8_scrub(stem);
    return stem;
}

static int set_defaults(harness_config *cfg)
{
    cfg->name = file_stem(cfg->path);
    cfg->output_dir = strdup("experiments");
    cfg->device = strdup("auto");
    cfg->timing = strdup("per_step");
    cfg->lock_clocks = strdup("off");
    cfg->gather = strdup("auto");
    cfg->gather_max_bytes = HARNESS_DEFAULT_GATHER_MAX_BYTES;
    cfg->throttle_threshold = HARNESS_DEFAULT_THROTTLE_THRESHOLD;
    cfg->warmup_steps = 20;
    cfg->wait_steps = 5;
    cfg->measurement_steps = 100;
    cfg->repeat = 1;
    cfg->step_timeout_s = 60;
    cfg->callback_timeout_s = 600;
    cfg->stop_max_rel_ci = 0.01;
    cfg->stop_min_steps = 10;
    cfg->stop_max_steps = 100000;
    cfg->stop_max_time_s = 30;
    cfg->profiled_ranks = calloc(1, sizeof *cfg->profiled_ranks);
    cfg->n_profiled_ranks = 1;
    cfg->trace = cfg->memory = cfg->nvtx = cfg->cupti = 1;
    cfg->memory_log_steps = 10;
    cfg->max_trace_events = 1000000;
    cfg->generator = HARNESS_GEN_RANDOM_NORMAL;
    cfg->seed = 1234;
    cfg->validate = 1;
    cfg->validate_after_timing = 1;
    cfg->blocking_kernel = 1;
    return cfg->name && cfg->output_dir && cfg->device && cfg->timing && cfg->lock_clocks && cfg->gather &&
                   cfg->profiled_ranks
               ? 0 : -1;
}

/* ---- sweep ---------------------------------------------------------------
 * The file's sweep: entry is taken out of the tree; the point's values are
 * put back in like --set overrides, before the whole tree is checked. */

/* Whether dotted paths `a` and `b` are the same or one holds the other. */
static int paths_overlap(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), n = la < lb ? la : lb;
    return strncmp(a, b, n) == 0 && (la == lb || (la < lb ? b : a)[n] == '.');
}

/* A swept key must name a key of the table (or a component parameter,
 * which binding checks against the variant's schema). */
static int check_sweep_path(const harness_config *cfg, const harness_node_entry *e, const char *label,
                            harness_error *err)
{
    const harness_cfg_key_spec *keys = harness_cfg_top_keys;
    for (const char *seg = e->key;;) {
        const char *dot = strchr(seg, '.');
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(dot ? (size_t)(dot - seg) : strlen(seg)), seg);
        const harness_cfg_key_spec *k = keys;
        while (k->name && strcmp(k->name, name) != 0)
            k++;
        if (!k->name)
            return unknown_name(cfg, name, e->at, keys, label, err);
        if (k->kind == K_SWEEP)
            return harness_tree_fail(cfg->tree, e->at, label, err, "a sweep cannot sweep itself");
        if (!dot || k->kind == K_PARAMS)
            return 0;
        if (k->kind != K_SECTION)
            return harness_tree_fail(cfg->tree, e->at, label, err,
                                     "%.*s is a value, not a section; nothing to sweep inside it",
                                     (int)(dot - e->key), e->key);
        keys = k->children;
        seg = dot + 1;
    }
}

/* Check the sweep map; count its points into cfg. */
static int check_sweep(harness_config *cfg, harness_where at, const harness_node *sweep,
                       const char *const *sets, size_t n_sets, harness_error *err)
{
    if (sweep->kind != HARNESS_NODE_MAP) {
        char got[128];
        harness_node_describe(sweep, got, sizeof got);
        return harness_tree_fail(cfg->tree, sweep->at, "sweep", err,
                                 "expected a map of config paths to lists of values, got %s", got);
    }
    size_t points = 1;
    for (size_t i = 0; i < sweep->n; i++) {
        const harness_node_entry *e = &sweep->entries[i];
        char label[512];
        snprintf(label, sizeof label, "sweep.%s", e->key);
        int rc = check_sweep_path(cfg, e, label, err);
        if (rc)
            return rc;
        if (e->value->kind != HARNESS_NODE_LIST || e->value->n == 0) {
            char got[128];
            harness_node_describe(e->value, got, sizeof got);
            return harness_tree_fail(cfg->tree, e->value->at, label, err,
                                     "expected a non-empty list of values such as [1, 2], got %s",
                                     e->value->kind == HARNESS_NODE_LIST ? "[]" : got);
        }
        for (size_t j = 0; j < i; j++)
            if (paths_overlap(e->key, sweep->entries[j].key))
                return harness_tree_fail(cfg->tree, e->at, label, err,
                                         "overlaps sweep.%s (line %d); sweep each key once",
                                         sweep->entries[j].key, sweep->entries[j].at.line);
        for (size_t j = 0; j < n_sets; j++) {
            const char *eq = strchr(sets[j], '=');
            char key[512];
            snprintf(key, sizeof key, "%.*s", (int)(eq ? (size_t)(eq - sets[j]) : strlen(sets[j])), sets[j]);
            if (paths_overlap(e->key, key))
                return harness_tree_fail(cfg->tree, e->at, label, err,
                                         "both swept and --set (--set %s); drop one of them", sets[j]);
        }
        points = points > HARNESS_MAX_SWEEP_POINTS ? points : points * e->value->n;
    }
    if (points > HARNESS_MAX_SWEEP_POINTS)
        return harness_tree_fail(cfg->tree, at, "sweep", err,
                                 "more than %d points; split the sweep into smaller ones",
                                 HARNESS_MAX_SWEEP_POINTS);
    cfg->n_sweep_points = sweep->n ? points : 1;
    return 0;
}

/* Put point `point`'s values into the tree; remember them for headers. */
static int apply_sweep_point(harness_config *cfg, const harness_node *sweep, size_t point,
                             harness_error *err)
{
    size_t n = sweep->n;
    cfg->sweep_keys = calloc(n ? n : 1, sizeof *cfg->sweep_keys);
    cfg->sweep_values = calloc(n ? n : 1, sizeof *cfg->sweep_values);
    if (!cfg->sweep_keys || !cfg->sweep_values)
        return harness_cfg_out_of_memory(err);
    cfg->n_sweep_keys = n;
    cfg->sweep_point = point;
    for (size_t i = n; i-- > 0;) { /* the first key varies slowest */
        const harness_node_entry *e = &sweep->entries[i];
        size_t index = point % e->value->n;
        point /= e->value->n;
        const harness_node *item = e->value->items[index];

        char got[128], label[560], entry_label[560];
        harness_node_describe(item, got, sizeof got);
        snprintf(label, sizeof label, "sweep.%s[%zu]", e->key, index);
        snprintf(entry_label, sizeof entry_label, "sweep.%s", e->key);
        cfg->sweep_keys[i] = strdup(e->key);
        cfg->sweep_values[i] = strdup(item->kind == HARNESS_NODE_SCALAR ? item->text : got);
        harness_node *copy = harness_node_copy(item);
        const char *kept = harness_tree_keep(cfg->tree, strdup(label));
        const char *entry_kept = harness_tree_keep(cfg->tree, strdup(entry_label));
        if (!cfg->sweep_keys[i] || !cfg->sweep_values[i] || !copy || !kept || !entry_kept) {
            harness_node_free(copy);
            return harness_cfg_out_of_memory(err);
        }
        copy->at.key = kept;
        int rc = harness_tree_place(cfg->tree, e->at, e->key, copy, err);
        if (rc)
            return rc;
        /* Errors about the entry itself (an unknown parameter) name the sweep key. */
        harness_node_entry *placed = (harness_node_entry *)harness_tree_find(cfg->tree, e->key);
        if (placed && placed->at.line == e->at.line && placed->at.col == e->at.col && !placed->at.origin)
            placed->at.key = entry_kept;
    }
    return 0;
}

int harness_config_load_point(const char *path, const char *const *sets, size_t n_sets, size_t point,
                              harness_config **out, harness_error *err)
{
    return harness_config_load_text(path, NULL, 0, sets, n_sets, point, out, err);
}

int harness_config_load_text(const char *path, const char *text, size_t len, const char *const *sets,
                             size_t n_sets, size_t point, harness_config **out, harness_error *err)
{
    harness_config *cfg = calloc(1, sizeof *cfg);
    if (!cfg)
        return harness_cfg_out_of_memory(err);
    cfg->n_sweep_points = 1;
    harness_node *sweep = NULL;
    harness_where sweep_at = {0};
    int rc = (cfg->path = strdup(path)) && set_defaults(cfg) == 0 ? 0
                                                                   : harness_cfg_out_of_memory(err);
    if (!rc)
        rc = text ? harness_tree_load_text(path, text, len, &cfg->tree, err)
                  : harness_tree_load(path, &cfg->tree, err);
    if (!rc) {
        const harness_node_entry *se = harness_node_find(cfg->tree->root, "sweep");
        if (se)
            sweep_at = se->at;
        sweep = harness_tree_detach(cfg->tree, "sweep");
        if (sweep && harness_node_is_null(sweep)) {
            harness_node_free(sweep);
            sweep = NULL;
        }
    }
    for (size_t i = 0; i < n_sets && !rc; i++)
        rc = harness_tree_set(cfg->tree, sets[i], err);
    if (!rc && sweep)
        rc = check_sweep(cfg, sweep_at, sweep, sets, n_sets, err);
    if (!rc && point >= cfg->n_sweep_points)
        rc = harness_error_set(err, HARNESS_EXIT_USAGE, "%s: sweep point %zu does not exist (%zu points)", path,
                               point, cfg->n_sweep_points);
    if (!rc && sweep)
        rc = apply_sweep_point(cfg, sweep, point, err);
    if (!rc)
        rc = check_map(cfg, cfg->tree->root, harness_cfg_top_keys, "", err);
    if (!rc)
        rc = check_whole(cfg, err);
    harness_node_free(sweep);
    if (rc) {
        harness_config_free(cfg);
        return rc;
    }
    *out = cfg;
    return 0;
}

int harness_config_load(const char *path, const char *const *sets, size_t n_sets,
                        harness_config **out, harness_error *err)
{
    return harness_config_load_point(path, sets, n_sets, 0, out, err);
}

void harness_config_free(harness_config *cfg)
{
    if (!cfg)
        return;
    free(cfg->path);
    free(cfg->name);
    free(cfg->output_dir);
    free(cfg->device);
    free(cfg->timing);
    free(cfg->lock_clocks);
    free(cfg->gather);
    free(cfg->profiled_ranks);
    free(cfg->variant_key);
    harness_cfg_free_params(cfg->params, cfg->n_params);
    free(cfg->bound_key);
    for (size_t i = 0; i < cfg->n_plugin_path; i++)
        free(cfg->plugin_path[i]);
    free(cfg->plugin_path);
    for (size_t i = 0; i < cfg->n_sweep_keys; i++) {
        free(cfg->sweep_keys[i]);
        free(cfg->sweep_values[i]);
    }
    free(cfg->sweep_keys);
    free(cfg->sweep_values);
    harness_tree_free(cfg->tree);
    free(cfg);
}
