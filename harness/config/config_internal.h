/* config_internal.h - private to config.c, config_bind.c, config_dump.c,
 * config_tree.c and config_set.c: the table of keys that both validation
 * (config.c) and the canonical dump (config_dump.c) walk, and the few helpers
 * that more than one of those files needs. Nothing else in the harness should
 * include it. */
#ifndef HARNESS_CONFIG_INTERNAL_H
#define HARNESS_CONFIG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "config/config_node.h"
#include "util/error.h"

struct harness_config;
struct harness_param_value;

/* ---- the table of keys ---------------------------------------------------
 * One table drives both validation and the dump, so the dump's key order is
 * the table's order and no key can be checked but not written (or back). */

typedef enum {
    K_SECTION,      /* a map of further keys */
    K_INT,          /* int64_t >= min */
    K_INT_NARROW,   /* int64_t from min to INT_MAX: the harness narrows it to int (device_index);
                     * checked here, so 4294967296 is an error, never device 0 */
    K_SECONDS,      /* int64_t timeout, 0 to HARNESS_CFG_MAX_TIMEOUT_S (0: never) */
    K_POSITIVE,     /* double > 0 */
    K_FRACTION,     /* double from 0 to 1 */
    K_BOOL,         /* int 0/1 */
    K_STRING,       /* char *, not empty */
    K_CHOICE_TEXT,  /* char *, one of `choices` */
    K_CHOICE_INDEX, /* harness_generator, index into `choices` */
    K_STEPS,        /* measurement_steps: int64_t >= 1, or auto (0) */
    K_RANKS,        /* profiled_ranks */
    K_PATHS,        /* plugin_path */
    K_PARAMS,       /* component.config: checked by harness_config_bind_params */
    K_SWEEP         /* sweep: taken out of the tree by the loader (config.c) */
} harness_cfg_key_kind;

typedef struct harness_cfg_key_spec {
    const char *name;
    harness_cfg_key_kind kind;
    size_t offset;                                 /* of the member in harness_config */
    int64_t min;                                   /* K_INT */
    const char *const *choices;                    /* K_CHOICE_*, NULL-terminated */
    const struct harness_cfg_key_spec *children;   /* K_SECTION, ended by a NULL name */
} harness_cfg_key_spec;

/* A timeout is turned into nanoseconds (run/guard.c): a year keeps that
 * product far inside int64_t and is longer than any run anyone waits for. */
#define HARNESS_CFG_MAX_TIMEOUT_S 31536000

/* The top level of the config, ended by a NULL name; defined in config.c. */
extern const harness_cfg_key_spec harness_cfg_top_keys[];

/* ---- shared helpers ------------------------------------------------------
 * Each is described where it is defined. */

/* config_common.c */
int harness_cfg_out_of_memory(harness_error *err);
void harness_cfg_join(char *buf, size_t size, const char *const *words);
harness_where harness_cfg_nearest(const struct harness_config *cfg, const char *path);

/* config_bind.c */
void harness_cfg_free_params(struct harness_param_value *values, size_t n);

/* config_dump.c */
void harness_cfg_format_double(double v, char *buf, size_t size);

#endif
