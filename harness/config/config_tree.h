/* config_tree.h - a YAML config file as a tree of maps, lists and scalars
 * that remembers where every node and key came from, so that errors found
 * later (validation, parameter binding) can name the line and column.
 *
 * Only the part of YAML a config needs is accepted: one document whose top
 * level is a map, no anchors, aliases or tags, no duplicate keys, and map
 * keys that are scalars. Scalars stay text; the harness_parse_* helpers give
 * them meaning (YAML 1.2 core-schema style, but stricter: see config.h). */
#ifndef HARNESS_CONFIG_TREE_H
#define HARNESS_CONFIG_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "config/config_node.h"
#include "util/error.h"

typedef struct harness_config_tree {
    char *path;
    harness_node *root;                 /* a MAP */
    char **origins;                     /* "--set KEY=VALUE" strings nodes point to */
    size_t n_origins;
} harness_config_tree;

/* Parse the file at `path`. */
int harness_tree_load(const char *path, harness_config_tree **out, harness_error *err);
/* The same from bytes already read (`path` names them in messages). */
int harness_tree_load_text(const char *path, const char *text, size_t len, harness_config_tree **out,
                           harness_error *err);

/* Apply one "a.b.c=VALUE" override: VALUE is parsed as YAML (so [0, 1] is
 * a list and an empty VALUE is null) and replaces or creates a.b.c, creating
 * maps on the way. Nodes it creates carry the "--set ..." origin. */
int harness_tree_set(harness_config_tree *tree, const char *assignment, harness_error *err);

void harness_tree_free(harness_config_tree *tree);

/* Put `value` (owned, also on failure) at dotted `key` like a --set does:
 * replacing or creating it, creating maps on the way at `at`. */
int harness_tree_place(harness_config_tree *tree, harness_where at, const char *key,
                       harness_node *value, harness_error *err);

/* Remove the top-level entry `key` and return its value (the caller frees
 * it with harness_node_free), or NULL when there is none. */
harness_node *harness_tree_detach(harness_config_tree *tree, const char *key);

/* A deep copy, positions included; NULL out of memory. */
harness_node *harness_node_copy(const harness_node *n);
void harness_node_free(harness_node *n);

/* Keep a malloc'ed string for as long as the tree (labels that nodes'
 * `at` point to); takes ownership, also on failure. NULL out of memory. */
const char *harness_tree_keep(harness_config_tree *tree, char *s);

/* The entry for `key` in a MAP node, or NULL (also when `map` is not a map). */
const harness_node_entry *harness_node_find(const harness_node *map, const char *key);

/* The entry at dotted `path` ("schedule.stopping.max_steps") from the root, or NULL. */
const harness_node_entry *harness_tree_find(const harness_config_tree *tree, const char *path);

/* A plain (unquoted) empty, ~, null, Null or NULL scalar: "use the default". */
int harness_node_is_null(const harness_node *n);

/* What the node is, for "got ..." in messages: `a list`, `a map`,
 * `a string "8"` for quoted scalars, the text itself for plain ones. */
void harness_node_describe(const harness_node *n, char *buf, size_t size);

/* Set err to "WHERE: KEY_PATH: message" with WHERE either "PATH:LINE:COL" or
 * the --set origin, and return HARNESS_EXIT_USAGE. `key_path` may be "" for
 * errors that are not about one key. */
int harness_tree_fail(const harness_config_tree *tree, harness_where at, const char *key_path,
                      harness_error *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Scalar text to values; return 0 when `text` has the form, -1 when not,
 * and (ints and floats) -2 when it has the form but does not fit. */
int harness_parse_int(const char *text, int64_t *out);    /* [+-]digits */
int harness_parse_float(const char *text, double *out);   /* 1e-6, 1.0e-6, .5, -2.5E+3, 7 */
int harness_parse_bool(const char *text, int *out);       /* true/false, True/False, TRUE/FALSE */

/* The tree's building blocks, for the parser and the tree editing of
 * config_set.c. */

/* Deeper than any config needs; bounds the recursion of the parser and the
 * depth of a --set KEY. */
#define HARNESS_CFG_TREE_MAX_DEPTH 64
/* Keys in one map: far above any config (a sweep or a component's
 * parameters), far below what makes loading slow. */
#define HARNESS_CFG_TREE_MAX_MAP_KEYS 10000
#define HARNESS_STR_(x) #x
#define HARNESS_STR(x) HARNESS_STR_(x)

harness_node *harness_cfg_node_new(harness_node_kind kind, harness_where at);
int harness_cfg_grow(void **array, size_t n, size_t elem);
int harness_cfg_list_append(harness_node *list, harness_node *item);
int harness_cfg_map_append(harness_node *map, char *key, harness_where at, harness_node *value);
int harness_cfg_parse_text(harness_config_tree *tree, const char *origin, const char *key_path,
                           int depth, const char *text, size_t len, harness_node **out,
                           harness_error *err);

#endif
