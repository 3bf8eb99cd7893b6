/* config.h - the experiment config (docs/ARCHITECTURE.md section 5): parse, validate,
 * apply --set overrides, fill defaults, bind component parameters to a
 * variant's schema, and dump the canonical resolved form that is hashed.
 *
 * Every error is HARNESS_EXIT_USAGE with a message naming the file, line,
 * column and key path: "configs/x.yaml:12:5: schedule.repeat: expected an
 * integer >= 1, got 0". Overrides are named "--set KEY=VALUE" instead of a
 * file position. */
#ifndef HARNESS_CONFIG_H
#define HARNESS_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "harness/plugin.h"

typedef struct harness_config_tree harness_config_tree; /* parsed YAML with positions */

typedef enum { HARNESS_GEN_RANDOM_NORMAL, HARNESS_GEN_RANDOM_UNIFORM, HARNESS_GEN_ZEROS, HARNESS_GEN_ONES } harness_generator;

/* A component parameter after binding: validated, default filled. */
typedef struct harness_param_value {
    const harness_param *spec;
    int64_t i;                     /* INT, and BOOL as 0/1 */
    double f;                      /* FLOAT */
    char *s;                       /* STRING, ENUM */
    int from_default;
} harness_param_value;

/* experiment.gather_max_bytes's default: 256 MiB a rank, enough for every
 * file but a long trace, little enough for rank 0's disk and the network. */
#define HARNESS_DEFAULT_GATHER_MAX_BYTES (256ll << 20)

/* schedule.throttle_threshold's default: nvbench's (run/throttle.h). */
#define HARNESS_DEFAULT_THROTTLE_THRESHOLD 0.75

typedef struct harness_config {
    char *path;                    /* as given on the command line */
    char *name;                    /* experiment.name; default: the file's stem */
    char *output_dir;              /* experiment.output_dir; default "experiments" */
    char *gather;                  /* experiment.gather: "auto" | "always" | "never" (dist/gather.h) */
    int64_t gather_max_bytes;      /* experiment.gather_max_bytes: what one rank may send rank 0 */
    char *device;                  /* "auto" | "cpu" | "cuda" */
    int64_t device_index;          /* the CUDA device, default 0 */

    /* schedule */
    int64_t warmup_steps;          /* default 20, >= 0 */
    int64_t wait_steps;            /* default 5, >= 0 */
    int64_t measurement_steps;     /* default 100, >= 1; 0 means "auto" */
    int64_t repeat;                /* default 1, >= 1 */
    double stop_max_rel_ci;        /* stopping.max_rel_ci, default 0.01, > 0 */
    int64_t stop_min_steps;        /* default 10 */
    int64_t stop_max_steps;        /* default 100000, >= min_steps */
    double stop_max_time_s;        /* default 30, > 0 */
    char *timing;                  /* CUDA: "per_step" (default) | "batch" */
    int flush_l2;                  /* CUDA: write an L2-sized buffer between steps; default false */
    int cuda_graph;                /* CUDA: time launches of a graph of one step; default false */
    int blocking_kernel;           /* CUDA: timed launches queue behind the blocking kernel; default true */
    double throttle_threshold;     /* CUDA: drop steps read below this share of the most SM clock; 0 to 1,
                                    * default HARNESS_DEFAULT_THROTTLE_THRESHOLD, 0: never */
    char *lock_clocks;             /* CUDA: "off" (default) | "base" | "max" */
    int64_t step_timeout_s;        /* a step() running longer ends the run (timed_out); default 60, 0: never */
    int64_t callback_timeout_s;    /* the same for create, cost, check and destroy; default 600, 0: never */
    int sync_steps;                /* multi-rank: a barrier before every measured step; default false */
    int64_t rotate_inputs;         /* N value sets of the declared inputs, one per step in turn; 0 or 1: off */

    /* profiling */
    int profile_all_ranks;         /* profiled_ranks: "all" */
    int64_t *profiled_ranks;       /* else this list; default [0] */
    size_t n_profiled_ranks;
    int trace, memory, nvtx, cupti;/* defaults true */
    int64_t memory_log_steps;      /* default 10, >= 1 */
    int64_t max_trace_events;      /* default 1000000, >= 1: the trace stops growing there */

    /* component */
    char *variant_key;             /* required */
    harness_param_value *params;   /* after harness_config_bind_params */
    size_t n_params;
    char *bound_key;               /* the exact key params were bound to */

    /* data */
    harness_generator generator;   /* default random_normal */
    uint64_t seed;                 /* default 1234 */

    int validate;                  /* default true */
    int validate_after_timing;     /* the checks after the last timed window; default true */
    char **plugin_path;            /* plugin_path: a string or a list; default none */
    size_t n_plugin_path;

    /* sweep: the points of the cartesian product (first key slowest); this
     * config is one of them, its values applied like --set overrides. */
    size_t n_sweep_points;         /* 1 without a sweep */
    size_t sweep_point;            /* 0-based index of this point */
    size_t n_sweep_keys;           /* 0 without a sweep */
    char **sweep_keys;             /* the swept paths, in file order */
    char **sweep_values;           /* this point's value of each, as written */

    harness_config_tree *tree;     /* kept for binding component.config later */
} harness_config;

/* At most this many points in a sweep. */
#define HARNESS_MAX_SWEEP_POINTS 10000

/* Read and validate `path` with `n_sets` overrides ("a.b.c=value"). Checks
 * everything except component.config, whose schema belongs to the variant.
 * With a sweep: point 0 (see harness_config_load_point). */
int harness_config_load(const char *path, const char *const *sets, size_t n_sets,
                        harness_config **out, harness_error *err);

/* The same for point `point` (0-based, < n_sweep_points) of the config's
 * sweep: the base config, then the --set overrides, then the point's
 * values, each applied like a --set and checked the same way; errors about
 * a swept value name it "sweep.KEY[INDEX]" at its place in the file. The
 * result has no sweep: left (its dump neither). A --set of a swept key (or
 * of a key inside or around one) is an error, as is --set sweep.... */
int harness_config_load_point(const char *path, const char *const *sets, size_t n_sets, size_t point,
                              harness_config **out, harness_error *err);
/* The same from the file's bytes, read once by the caller (NULL: read
 * `path`), so every sweep point and the folder's copy are of one reading. */
int harness_config_load_text(const char *path, const char *text, size_t len, const char *const *sets,
                             size_t n_sets, size_t point, harness_config **out, harness_error *err);

/* Check component.config against a variant's schema: unknown names (with a
 * did-you-mean), types, ranges and enums; fill defaults; a parameter without
 * a default must be set. `key` is the resolved variant key, used in messages. */
int harness_config_bind_params(harness_config *cfg, const char *key,
                               const harness_param *specs, size_t n_specs,
                               harness_error *err);

/* An error found later about `key_path` (a problem with a value the config
 * checks could not see, such as an unknown variant): "FILE:LINE:COL: KEY_PATH:
 * message" at the value's place in the file, or its --set origin. Returns
 * `code` (HARNESS_EXIT_USAGE for a config error). */
int harness_config_fail(const harness_config *cfg, int code, const char *key_path, harness_error *err,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Look up a bound parameter; NULL when no such name. */
const harness_param_value *harness_config_param(const harness_config *cfg, const char *name);

/* The resolved config as canonical YAML (fixed key order, every default
 * written out, component.variant_key the resolved key). malloc'ed. Two
 * configs that mean the same thing dump to the same bytes. */
char *harness_config_dump(const harness_config *cfg);

/* First 8 hex digits of the SHA-256 of `text`. */
void harness_config_hash8(const char *text, char out[9]);

void harness_config_free(harness_config *cfg);

#endif
