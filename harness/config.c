/* The experiment config: validation of the tree against a fixed table of
 * keys, defaults, component parameter binding, and the canonical dump that
 * names the experiment folder (DESIGN.md section 5). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_tree.h"
#include "sha256.h"
#include "suggest.h"

/* ---- the table of keys ---------------------------------------------------
 * One table drives both validation and the dump, so the dump's key order is
 * the table's order and no key can be checked but not written (or back). */

typedef enum {
    K_SECTION,      /* a map of further keys */
    K_INT,          /* int64_t >= min */
    K_POSITIVE,     /* double > 0 */
    K_BOOL,         /* int 0/1 */
    K_STRING,       /* char *, not empty */
    K_CHOICE_TEXT,  /* char *, one of `choices` */
    K_CHOICE_INDEX, /* harness_generator, index into `choices` */
    K_STEPS,        /* measurement_steps: int64_t >= 1, or auto (0) */
    K_RANKS,        /* profiled_ranks */
    K_PATHS,        /* plugin_path */
    K_PARAMS,       /* component.config: checked by harness_config_bind_params */
    K_SWEEP         /* reserved: refused with a clear message */
} key_kind;

typedef struct key_spec {
    const char *name;
    key_kind kind;
    size_t offset;                     /* of the member in harness_config */
    int64_t min;                       /* K_INT */
    const char *const *choices;        /* K_CHOICE_*, NULL-terminated */
    const struct key_spec *children;   /* K_SECTION, ended by a NULL name */
} key_spec;

#define AT(member) offsetof(harness_config, member)

static const char *const devices[] = {"auto", "cpu", "cuda", NULL};
/* In the order of harness_generator. */
static const char *const generators[] = {"random_normal", "random_uniform", "zeros", "ones", NULL};

static const key_spec experiment_keys[] = {
    {"name", K_STRING, AT(name), 0, NULL, NULL},
    {"output_dir", K_STRING, AT(output_dir), 0, NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL},
};
static const key_spec stopping_keys[] = {
    {"max_rel_ci", K_POSITIVE, AT(stop_max_rel_ci), 0, NULL, NULL},
    {"min_steps", K_INT, AT(stop_min_steps), 1, NULL, NULL},
    {"max_steps", K_INT, AT(stop_max_steps), 1, NULL, NULL},
    {"max_time_s", K_POSITIVE, AT(stop_max_time_s), 0, NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL},
};
static const key_spec schedule_keys[] = {
    {"warmup_steps", K_INT, AT(warmup_steps), 0, NULL, NULL},
    {"wait_steps", K_INT, AT(wait_steps), 0, NULL, NULL},
    {"measurement_steps", K_STEPS, AT(measurement_steps), 1, NULL, NULL},
    {"repeat", K_INT, AT(repeat), 1, NULL, NULL},
    {"stopping", K_SECTION, 0, 0, NULL, stopping_keys},
    {NULL, 0, 0, 0, NULL, NULL},
};
static const key_spec profiling_keys[] = {
    {"profiled_ranks", K_RANKS, 0, 0, NULL, NULL},
    {"trace", K_BOOL, AT(trace), 0, NULL, NULL},
    {"memory", K_BOOL, AT(memory), 0, NULL, NULL},
    {"memory_log_steps", K_INT, AT(memory_log_steps), 1, NULL, NULL},
    {"max_trace_events", K_INT, AT(max_trace_events), 1, NULL, NULL},
    {"nvtx", K_BOOL, AT(nvtx), 0, NULL, NULL},
    {"cupti", K_BOOL, AT(cupti), 0, NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL},
};
static const key_spec component_keys[] = {
    {"variant_key", K_STRING, AT(variant_key), 0, NULL, NULL},
    {"config", K_PARAMS, 0, 0, NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL},
};
/* seed is a uint64_t written through int64_t: allowed (C11 6.5p7) and the
 * value is checked >= 0 first. */
static const key_spec data_keys[] = {
    {"generator", K_CHOICE_INDEX, AT(generator), 0, generators, NULL},
    {"seed", K_INT, AT(seed), 0, NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL},
};
static const key_spec top_keys[] = {
    {"experiment", K_SECTION, 0, 0, NULL, experiment_keys},
    {"device", K_CHOICE_TEXT, AT(device), 0, devices, NULL},
    {"schedule", K_SECTION, 0, 0, NULL, schedule_keys},
    {"profiling", K_SECTION, 0, 0, NULL, profiling_keys},
    {"component", K_SECTION, 0, 0, NULL, component_keys},
    {"data", K_SECTION, 0, 0, NULL, data_keys},
    {"validate", K_BOOL, AT(validate), 0, NULL, NULL},
    {"plugin_path", K_PATHS, 0, 0, NULL, NULL},
    {"sweep", K_SWEEP, 0, 0, NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL},
};

static int out_of_memory(harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory while reading the config");
}

/* "a, b, c" of a NULL-terminated list, for "expected one of ..." messages. */
static void join(char *buf, size_t size, const char *const *words)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; words && words[i] && used < size; i++) {
        int k = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", words[i]);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

/* ---- scalar values with messages ---------------------------------------- */

static int get_int(const harness_config *cfg, const harness_node *v, const char *path,
                   int64_t min, const char *alternative, int64_t *out, harness_error *err)
{
    int64_t x = 0;
    int rc = v->kind == HARNESS_NODE_SCALAR && !v->quoted ? harness_parse_int(v->text, &x) : -1;
    if (rc == 0 && x >= min) {
        *out = x;
        return 0;
    }
    char got[128];
    harness_node_describe(v, got, sizeof got);
    return harness_tree_fail(cfg->tree, v->at, path, err, "expected an integer >= %" PRId64 "%s, got %s%s",
                             min, alternative ? alternative : "", got,
                             rc == -2 ? ", which does not fit in 64 bits" : "");
}

static int get_positive(const harness_config *cfg, const harness_node *v, const char *path,
                        double *out, harness_error *err)
{
    double x = 0;
    int rc = v->kind == HARNESS_NODE_SCALAR && !v->quoted ? harness_parse_float(v->text, &x) : -1;
    if (rc == 0 && x > 0) {
        *out = x;
        return 0;
    }
    char got[128];
    harness_node_describe(v, got, sizeof got);
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
        return out_of_memory(err);
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
    join(list, sizeof list, choices);
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
        return out_of_memory(err);
    for (size_t i = 0; i < v->n; i++) {
        char item[512 + 24]; /* the path plus [index] */
        snprintf(item, sizeof item, "%s[%zu]", path, i);
        int rc = get_int(cfg, v->items[i], item, 0, NULL, &ranks[i], err);
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

/* plugin_path: one directory or a list of them, searched in order. */
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
        return out_of_memory(err);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        char item[512 + 24]; /* the path plus [index] */
        if (v->kind == HARNESS_NODE_LIST)
            snprintf(item, sizeof item, "%s[%zu]", path, i);
        else
            snprintf(item, sizeof item, "%s", path);
        rc = get_string(cfg, items[i], item, &dirs[i], err);
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

static int check_map(harness_config *cfg, const harness_node *map, const key_spec *keys,
                     const char *prefix, harness_error *err);

static int unknown_key(const harness_config *cfg, const harness_node_entry *e,
                       const key_spec *keys, const char *path, harness_error *err)
{
    const char *names[32];
    size_t n = 0;
    for (; keys[n].name && n < sizeof names / sizeof *names - 1; n++)
        names[n] = keys[n].name;
    names[n] = NULL;
    const char *guess = harness_suggest(e->key, names, n);
    if (guess)
        return harness_tree_fail(cfg->tree, e->at, path, err, "unknown key; did you mean %s?", guess);
    char list[512];
    join(list, sizeof list, names);
    return harness_tree_fail(cfg->tree, e->at, path, err, "unknown key; expected one of %s", list);
}

static int check_key(harness_config *cfg, const key_spec *k, const harness_node_entry *e,
                     const char *path, harness_error *err)
{
    const harness_node *v = e->value;
    void *dst = (char *)cfg + k->offset;
    size_t index;
    int rc;

    if (k->kind == K_SWEEP)
        return harness_tree_fail(cfg->tree, e->at, path, err,
                                 "not supported yet; run one config per point");
    if (harness_node_is_null(v))
        return 0; /* keep the default */

    switch (k->kind) {
    case K_SECTION:
        if (v->kind != HARNESS_NODE_MAP) {
            char got[128];
            harness_node_describe(v, got, sizeof got);
            return harness_tree_fail(cfg->tree, v->at, path, err, "expected a map of keys, got %s", got);
        }
        return check_map(cfg, v, k->children, path, err);
    case K_INT:
        return get_int(cfg, v, path, k->min, NULL, dst, err);
    case K_POSITIVE:
        return get_positive(cfg, v, path, dst, err);
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
            return out_of_memory(err);
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
        return get_int(cfg, v, path, k->min, " or auto", dst, err);
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

static int check_map(harness_config *cfg, const harness_node *map, const key_spec *keys,
                     const char *prefix, harness_error *err)
{
    for (size_t i = 0; i < map->n; i++) {
        const harness_node_entry *e = &map->entries[i];
        char path[512];
        snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", e->key);

        const key_spec *k = keys;
        while (k->name && strcmp(k->name, e->key) != 0)
            k++;
        int rc = k->name ? check_key(cfg, k, e, path, err) : unknown_key(cfg, e, keys, path, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* Where to point at for something missing under `path`: the closest
 * enclosing thing that was written. */
static harness_where nearest(const harness_config *cfg, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (;;) {
        const harness_node_entry *e = harness_tree_find(cfg->tree, buf);
        if (e)
            return e->value->at;
        char *dot = strrchr(buf, '.');
        if (!dot)
            return cfg->tree->root->at;
        *dot = '\0';
    }
}

/* Rules that involve more than one key, or that the table cannot say. */
static int check_whole(const harness_config *cfg, harness_error *err)
{
    if (!cfg->variant_key)
        return harness_tree_fail(cfg->tree, nearest(cfg, "component.variant_key"),
                                 "component.variant_key", err,
                                 "required; name a family (rms_norm) or an exact key (rms_norm/cpu)");
    if (strchr(cfg->name, '/'))
        return harness_tree_fail(cfg->tree, nearest(cfg, "experiment.name"), "experiment.name",
                                 err, "must not contain '/'; it names a folder under output_dir");
    if (cfg->stop_max_steps < cfg->stop_min_steps) {
        if (harness_tree_find(cfg->tree, "schedule.stopping.max_steps"))
            return harness_tree_fail(cfg->tree, nearest(cfg, "schedule.stopping.max_steps"),
                                     "schedule.stopping.max_steps", err,
                                     "expected an integer >= min_steps (%" PRId64 "), got %" PRId64,
                                     cfg->stop_min_steps, cfg->stop_max_steps);
        return harness_tree_fail(cfg->tree, nearest(cfg, "schedule.stopping.min_steps"),
                                 "schedule.stopping.min_steps", err,
                                 "expected an integer <= max_steps (%" PRId64 "), got %" PRId64,
                                 cfg->stop_max_steps, cfg->stop_min_steps);
    }
    return 0;
}

/* "configs/rms_norm.yaml" -> "rms_norm" */
static char *file_stem(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    return strndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
}

static int set_defaults(harness_config *cfg)
{
    cfg->name = file_stem(cfg->path);
    cfg->output_dir = strdup("experiments");
    cfg->device = strdup("auto");
    cfg->warmup_steps = 20;
    cfg->wait_steps = 5;
    cfg->measurement_steps = 100;
    cfg->repeat = 1;
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
    return cfg->name && cfg->output_dir && cfg->device && cfg->profiled_ranks ? 0 : -1;
}

int harness_config_load(const char *path, const char *const *sets, size_t n_sets,
                        harness_config **out, harness_error *err)
{
    harness_config *cfg = calloc(1, sizeof *cfg);
    if (!cfg)
        return out_of_memory(err);
    int rc = (cfg->path = strdup(path)) && set_defaults(cfg) == 0 ? 0 : out_of_memory(err);
    if (!rc)
        rc = harness_tree_load(path, &cfg->tree, err);
    for (size_t i = 0; i < n_sets && !rc; i++)
        rc = harness_tree_set(cfg->tree, sets[i], err);
    if (!rc)
        rc = check_map(cfg, cfg->tree->root, top_keys, "", err);
    if (!rc)
        rc = check_whole(cfg, err);
    if (rc) {
        harness_config_free(cfg);
        return rc;
    }
    *out = cfg;
    return 0;
}

/* ---- component parameters ----------------------------------------------- */

/* The shortest text that strtod reads back as exactly v: "0.01", "1e-6",
 * "30", "2500", "1e20". With as few significant digits as round-trip, the
 * fixed and the exponent form are both tried and the shorter one wins. */
static void format_double(double v, char *buf, size_t size)
{
    char sci[40], fixed[64];
    int prec;

    if (v == 0)
        v = 0; /* -0 and 0 mean the same setting */
    for (prec = 1; prec <= 17; prec++) {
        snprintf(sci, sizeof sci, "%.*e", prec - 1, v);
        if (strtod(sci, NULL) == v)
            break;
    }
    /* printf writes exponents as e-06 and e+20; e-6 and e20 read better. */
    char *e = strchr(sci, 'e');
    int exp10 = atoi(e + 1);
    char *digits = e + 1 + (e[1] == '-' || e[1] == '+');
    while (digits[0] == '0' && digits[1])
        digits++;
    memmove(e + 1 + (e[1] == '-'), digits, strlen(digits) + 1);

    if (exp10 >= -20 && exp10 <= 20) {
        int decimals = prec - 1 - exp10;
        snprintf(fixed, sizeof fixed, "%.*f", decimals > 0 ? decimals : 0, v);
        if (strlen(fixed) <= strlen(sci) && strtod(fixed, NULL) == v) {
            snprintf(buf, size, "%s", fixed);
            return;
        }
    }
    snprintf(buf, size, "%s", sci);
}

/* "an integer in [1, 65536]", "a number >= 0", "one of fp32, bf16", ... */
static void describe_param(const harness_param *spec, char *buf, size_t size)
{
    char lo[64], hi[64], list[256];
    format_double(spec->min, lo, sizeof lo);
    format_double(spec->max, hi, sizeof hi);
    const char *what = spec->type == HARNESS_PARAM_INT ? "an integer" : "a number";
    unsigned b = spec->bounds & (HARNESS_PARAM_MIN | HARNESS_PARAM_MAX);

    switch (spec->type) {
    case HARNESS_PARAM_INT:
    case HARNESS_PARAM_FLOAT:
        if (b == (HARNESS_PARAM_MIN | HARNESS_PARAM_MAX))
            snprintf(buf, size, "%s in [%s, %s]", what, lo, hi);
        else if (b == HARNESS_PARAM_MIN)
            snprintf(buf, size, "%s >= %s", what, lo);
        else if (b == HARNESS_PARAM_MAX)
            snprintf(buf, size, "%s <= %s", what, hi);
        else
            snprintf(buf, size, "%s", what);
        break;
    case HARNESS_PARAM_BOOL:
        snprintf(buf, size, "true or false");
        break;
    case HARNESS_PARAM_ENUM:
        join(list, sizeof list, spec->choices);
        snprintf(buf, size, "one of %s", list);
        break;
    default:
        snprintf(buf, size, "a string");
        break;
    }
}

static int in_bounds(const harness_param *spec, double x)
{
    return !((spec->bounds & HARNESS_PARAM_MIN) && x < spec->min) &&
           !((spec->bounds & HARNESS_PARAM_MAX) && x > spec->max);
}

/* The value of scalar text for `spec`; a quoted scalar is only ever a
 * string. Returns 0, -1 (not of the type or range) or -2 (does not fit). */
static int param_value(const harness_param *spec, const char *text, int quoted,
                       harness_param_value *out)
{
    int rc = -1, b;
    out->spec = spec;
    switch (spec->type) {
    case HARNESS_PARAM_INT:
        if (!quoted && (rc = harness_parse_int(text, &out->i)) == 0 && !in_bounds(spec, (double)out->i))
            rc = -1;
        return rc;
    case HARNESS_PARAM_FLOAT:
        if (!quoted && (rc = harness_parse_float(text, &out->f)) == 0 && !in_bounds(spec, out->f))
            rc = -1;
        return rc;
    case HARNESS_PARAM_BOOL:
        if (quoted || harness_parse_bool(text, &b) != 0)
            return -1;
        out->i = b;
        return 0;
    case HARNESS_PARAM_ENUM:
        for (size_t i = 0; spec->choices && spec->choices[i]; i++)
            if (strcmp(text, spec->choices[i]) == 0)
                rc = 0;
        if (rc)
            return rc;
        break;
    case HARNESS_PARAM_STRING:
        break;
    default:
        return -1;
    }
    out->s = strdup(text);
    return out->s ? 0 : -2;
}

static size_t count_choices(const char *const *choices)
{
    size_t n = 0;
    while (choices && choices[n])
        n++;
    return n;
}

static int bind_one(const harness_config *cfg, const char *key, const harness_param *spec,
                    const harness_node_entry *e, harness_where missing_at,
                    harness_param_value *out, harness_error *err)
{
    char path[300], expected[512];
    snprintf(path, sizeof path, "component.config.%s", spec->name);
    describe_param(spec, expected, sizeof expected);

    if (!e || harness_node_is_null(e->value)) {
        if (!spec->default_value)
            return harness_tree_fail(cfg->tree, e ? e->value->at : missing_at, path, err,
                                     "required parameter of %s is missing; set it under component.config",
                                     key);
        out->from_default = 1;
        if (param_value(spec, spec->default_value, 0, out) == 0)
            return 0;
        return harness_error_set(err, HARNESS_EXIT_RUNTIME,
                                 "%s: parameter %s has the default \"%s\", which is not %s; the plugin is broken",
                                 key, spec->name, spec->default_value, expected);
    }

    const harness_node *v = e->value;
    int rc = v->kind == HARNESS_NODE_SCALAR ? param_value(spec, v->text, v->quoted, out) : -1;
    if (rc == 0)
        return 0;
    char got[128];
    harness_node_describe(v, got, sizeof got);
    const char *guess = spec->type == HARNESS_PARAM_ENUM && v->kind == HARNESS_NODE_SCALAR
                            ? harness_suggest(v->text, spec->choices, count_choices(spec->choices))
                            : NULL;
    return harness_tree_fail(cfg->tree, v->at, path, err, "expected %s, got %s%s%s%s%s", expected,
                             got, rc == -2 ? ", which does not fit" : "",
                             guess ? "; did you mean " : "", guess ? guess : "", guess ? "?" : "");
}

static void free_params(harness_param_value *values, size_t n)
{
    for (size_t i = 0; values && i < n; i++)
        free(values[i].s);
    free(values);
}

static int unknown_param(const harness_config *cfg, const char *key, const harness_node_entry *e,
                         const harness_param *specs, size_t n_specs, harness_error *err)
{
    char path[300], list[512] = "";
    snprintf(path, sizeof path, "component.config.%s", e->key);
    const char **names = calloc(n_specs + 1, sizeof *names);
    if (!names)
        return out_of_memory(err);
    for (size_t i = 0; i < n_specs; i++)
        names[i] = specs[i].name;
    const char *guess = harness_suggest(e->key, names, n_specs);
    join(list, sizeof list, names);
    free(names);
    if (guess)
        return harness_tree_fail(cfg->tree, e->at, path, err,
                                 "unknown parameter of %s; did you mean %s?", key, guess);
    if (n_specs == 0)
        return harness_tree_fail(cfg->tree, e->at, path, err, "%s takes no parameters", key);
    return harness_tree_fail(cfg->tree, e->at, path, err,
                             "unknown parameter of %s; its parameters are %s", key, list);
}

int harness_config_bind_params(harness_config *cfg, const char *key, const harness_param *specs,
                               size_t n_specs, harness_error *err)
{
    const harness_node_entry *ce = harness_tree_find(cfg->tree, "component.config");
    const harness_node *map = ce && ce->value->kind == HARNESS_NODE_MAP ? ce->value : NULL;
    harness_where missing_at = nearest(cfg, "component.config");

    for (size_t i = 0; map && i < map->n; i++) {
        size_t j = 0;
        while (j < n_specs && strcmp(specs[j].name, map->entries[i].key) != 0)
            j++;
        if (j == n_specs)
            return unknown_param(cfg, key, &map->entries[i], specs, n_specs, err);
    }

    harness_param_value *values = calloc(n_specs ? n_specs : 1, sizeof *values);
    char *bound = strdup(key);
    if (!values || !bound) {
        free(values);
        free(bound);
        return out_of_memory(err);
    }
    for (size_t i = 0; i < n_specs; i++) {
        int rc = bind_one(cfg, key, &specs[i], harness_node_find(map, specs[i].name), missing_at,
                          &values[i], err);
        if (rc) {
            free_params(values, n_specs);
            free(bound);
            return rc;
        }
    }
    free_params(cfg->params, cfg->n_params);
    free(cfg->bound_key);
    cfg->params = values;
    cfg->n_params = n_specs;
    cfg->bound_key = bound;
    return 0;
}

const harness_param_value *harness_config_param(const harness_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->n_params; i++)
        if (strcmp(cfg->params[i].spec->name, name) == 0)
            return &cfg->params[i];
    return NULL;
}

/* ---- the canonical dump -------------------------------------------------- */

static int safe_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '/' || c == '-' || c == '+';
}

/* Written bare, `s` must read back as the same string, in block and flow
 * context alike: safe characters only, and nothing a reader would take for
 * a number, a boolean or null. */
static int plain_safe(const char *s)
{
    int64_t i;
    double d;
    int b;
    if (!*s || *s == '-' || harness_parse_int(s, &i) != -1 || harness_parse_float(s, &d) != -1 ||
        harness_parse_bool(s, &b) == 0 || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"))
        return 0;
    for (; *s; s++)
        if (!safe_char(*s))
            return 0;
    return 1;
}

/* Decode one UTF-8 sequence (the tree holds valid UTF-8: libyaml checks). */
static unsigned long utf8_next(const unsigned char **p)
{
    const unsigned char *s = *p;
    int extra = s[0] >= 0xF0 ? 3 : s[0] >= 0xE0 ? 2 : s[0] >= 0xC0 ? 1 : 0;
    unsigned long c = extra ? s[0] & (0x3Fu >> extra) : s[0];
    for (int i = 1; i <= extra && s[i]; i++)
        c = (c << 6) | (s[i] & 0x3Fu);
    *p = s + 1;
    while (extra-- > 0 && **p)
        (*p)++;
    return c;
}

/* Characters that can stand for themselves inside double quotes: YAML's
 * printable set (libyaml refuses the rest on reading) minus the line breaks
 * NEL, LS and PS (folded into spaces when read) and the byte order mark. */
static int yaml_printable(unsigned long c)
{
    if (c == 0x85 || c == 0x2028 || c == 0x2029 || c == 0xFEFF)
        return 0;
    return (c >= 0x20 && c <= 0x7E) || (c >= 0xA0 && c <= 0xD7FF) ||
           (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

static void emit_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        const unsigned char *start = p;
        unsigned long c = utf8_next(&p);
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", (int)c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (!yaml_printable(c))
            fprintf(f, c > 0xFFFF ? "\\U%08lX" : "\\u%04lX", c);
        else
            fwrite(start, 1, (size_t)(p - start), f);
    }
    fputc('"', f);
}

static void emit_string(FILE *f, const char *s)
{
    if (plain_safe(s))
        fputs(s, f);
    else
        emit_quoted(f, s);
}

static void emit_double(FILE *f, double v)
{
    char buf[64];
    format_double(v, buf, sizeof buf);
    /* Always with a '.' or an exponent, so it reads back as a float. */
    fprintf(f, "%s%s", buf, strpbrk(buf, ".e") ? "" : ".0");
}

/* component.config before binding: no schema, so values stay as written
 * (quoted stays quoted), keys sorted, nested values in flow style. */
static void emit_unbound(FILE *f, const harness_node *n)
{
    int64_t i;
    double d;
    int b;
    if (n->kind == HARNESS_NODE_SCALAR) {
        if (n->quoted)
            emit_quoted(f, n->text);
        else if (harness_node_is_null(n))
            fputs("null", f);
        else if (!harness_parse_int(n->text, &i) || !harness_parse_float(n->text, &d) ||
                 !harness_parse_bool(n->text, &b))
            fputs(n->text, f);
        else
            emit_string(f, n->text);
    } else if (n->kind == HARNESS_NODE_LIST) {
        fputc('[', f);
        for (size_t k = 0; k < n->n; k++) {
            fputs(k ? ", " : "", f);
            emit_unbound(f, n->items[k]);
        }
        fputc(']', f);
    } else {
        /* Keys in sorted order without allocating: each round takes the
         * smallest key after the previous one (keys in a map are unique). */
        const char *prev = NULL;
        fputc('{', f);
        for (size_t k = 0; k < n->n; k++) {
            const harness_node_entry *next = NULL;
            for (size_t j = 0; j < n->n; j++) {
                const harness_node_entry *c = &n->entries[j];
                if ((!prev || strcmp(c->key, prev) > 0) && (!next || strcmp(c->key, next->key) < 0))
                    next = c;
            }
            fputs(k ? ", " : "", f);
            emit_string(f, next->key);
            fputs(": ", f);
            emit_unbound(f, next->value);
            prev = next->key;
        }
        fputc('}', f);
    }
}

static void emit_param(FILE *f, const harness_param_value *v)
{
    switch (v->spec->type) {
    case HARNESS_PARAM_INT:
        fprintf(f, "%" PRId64, v->i);
        break;
    case HARNESS_PARAM_FLOAT:
        emit_double(f, v->f);
        break;
    case HARNESS_PARAM_BOOL:
        fputs(v->i ? "true" : "false", f);
        break;
    default:
        emit_string(f, v->s);
        break;
    }
}

static void emit_params(FILE *f, const harness_config *cfg, int indent)
{
    if (cfg->bound_key) {
        fputs(cfg->n_params ? "\n" : " {}\n", f);
        for (size_t i = 0; i < cfg->n_params; i++) {
            fprintf(f, "%*s%s: ", indent, "", cfg->params[i].spec->name);
            emit_param(f, &cfg->params[i]);
            fputc('\n', f);
        }
        return;
    }
    const harness_node_entry *ce = harness_tree_find(cfg->tree, "component.config");
    if (!ce || ce->value->kind != HARNESS_NODE_MAP) {
        fputs(" {}\n", f);
        return;
    }
    fputc(' ', f);
    emit_unbound(f, ce->value);
    fputc('\n', f);
}

static void emit_keys(FILE *f, const harness_config *cfg, const key_spec *keys, int indent)
{
    for (const key_spec *k = keys; k->name; k++) {
        const void *src = (const char *)cfg + k->offset;
        if (k->kind == K_SWEEP)
            continue;
        fprintf(f, "%*s%s:", indent, "", k->name);
        switch (k->kind) {
        case K_SECTION:
            fputc('\n', f);
            emit_keys(f, cfg, k->children, indent + 2);
            continue;
        case K_PARAMS:
            emit_params(f, cfg, indent + 2);
            continue;
        case K_INT:
            fprintf(f, " %" PRId64, *(const int64_t *)src);
            break;
        case K_POSITIVE:
            fputc(' ', f);
            emit_double(f, *(const double *)src);
            break;
        case K_BOOL:
            fputs(*(const int *)src ? " true" : " false", f);
            break;
        case K_STRING:
            fputc(' ', f);
            /* The resolved key, so that a family and its exact key hash alike. */
            emit_string(f, src == &cfg->variant_key && cfg->bound_key ? cfg->bound_key
                                                                      : *(char *const *)src);
            break;
        case K_CHOICE_TEXT:
            fputc(' ', f);
            emit_string(f, *(char *const *)src);
            break;
        case K_CHOICE_INDEX:
            fputc(' ', f);
            emit_string(f, k->choices[*(const harness_generator *)src]);
            break;
        case K_STEPS:
            if (cfg->measurement_steps == 0)
                fputs(" auto", f);
            else
                fprintf(f, " %" PRId64, cfg->measurement_steps);
            break;
        case K_RANKS:
            if (cfg->profile_all_ranks) {
                fputs(" all", f);
                break;
            }
            fputs(" [", f);
            for (size_t i = 0; i < cfg->n_profiled_ranks; i++)
                fprintf(f, "%s%" PRId64, i ? ", " : "", cfg->profiled_ranks[i]);
            fputc(']', f);
            break;
        case K_PATHS:
            fputs(" [", f);
            for (size_t i = 0; i < cfg->n_plugin_path; i++) {
                fputs(i ? ", " : "", f);
                emit_string(f, cfg->plugin_path[i]);
            }
            fputc(']', f);
            break;
        case K_SWEEP:
            break;
        }
        fputc('\n', f);
    }
}

char *harness_config_dump(const harness_config *cfg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fputs("# resolved by harness; hashed for the experiment folder name\n", f);
    emit_keys(f, cfg, top_keys, 0);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

void harness_config_hash8(const char *text, char out[9])
{
    uint8_t digest[32];
    harness_sha256_digest(text, strlen(text), digest);
    for (int i = 0; i < 4; i++)
        snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

void harness_config_free(harness_config *cfg)
{
    if (!cfg)
        return;
    free(cfg->path);
    free(cfg->name);
    free(cfg->output_dir);
    free(cfg->device);
    free(cfg->profiled_ranks);
    free(cfg->variant_key);
    free_params(cfg->params, cfg->n_params);
    free(cfg->bound_key);
    for (size_t i = 0; i < cfg->n_plugin_path; i++)
        free(cfg->plugin_path[i]);
    free(cfg->plugin_path);
    harness_tree_free(cfg->tree);
    free(cfg);
}
