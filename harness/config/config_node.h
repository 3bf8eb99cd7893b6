/* config_node.h - the nodes of a config tree (config/config_tree.h): maps,
 * lists and scalars, each with where it was written. Apart from the tree's
 * functions so that the key set of a map (config/key_set.h) needs only them. */
#ifndef HARNESS_CONFIG_NODE_H
#define HARNESS_CONFIG_NODE_H

#include <stddef.h>

typedef enum { HARNESS_NODE_SCALAR, HARNESS_NODE_LIST, HARNESS_NODE_MAP } harness_node_kind;

typedef struct harness_node harness_node;

/* Where something was written: `origin` NULL means the tree's file at
 * line:col (1-based); otherwise it is "--set KEY=VALUE" and line:col mean
 * nothing to the user. */
typedef struct harness_where {
    const char *origin;
    int line, col;
    const char *key;                    /* when set, the key path errors about this
                                         * node name (a swept value: "sweep.a.b[1]") */
} harness_where;

typedef struct harness_node_entry {     /* one `key: value` of a map */
    char *key;
    harness_where at;                   /* of the key */
    harness_node *value;
} harness_node_entry;

struct harness_node {
    harness_node_kind kind;
    harness_where at;
    char *text;                         /* SCALAR: as written, quotes removed */
    int quoted;                         /* SCALAR: written in quotes (always a string) */
    harness_node **items;               /* LIST */
    harness_node_entry *entries;        /* MAP, in file order */
    size_t n;                           /* items or entries */
};

#endif
