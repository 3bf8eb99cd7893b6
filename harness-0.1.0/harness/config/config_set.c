/* config_set.c - editing a config tree after it is read: what `--set
 * KEY=VALUE` and sweeps do to it. It parses a --set value as YAML, places a
 * value at a dotted key (replacing it, or creating it and the maps on the
 * way), detaches a top-level entry, deep-copies nodes and keeps the origin
 * labels that placed nodes point to. Reading the file (the libyaml event
 * parser), looking nodes up, describing them and formatting errors are in
 * config_tree.c. */
#include "config/config_tree.h"
#include "config/config_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static harness_node_entry *find_entry(harness_node *map, const char *key)
{
    return (harness_node_entry *)harness_node_find(map, key);
}

/* Walk `key` (dotted) from the root, creating maps on the way (a null value
 * on the way counts as an empty map), and put `value` at its end. Takes
 * ownership of `value`. */
static int place(harness_config_tree *tree, harness_where at, const char *key,
                 harness_node *value, harness_error *err)
{
    harness_node *map = tree->root;
    for (const char *seg = key;;) {
        const char *dot = strchr(seg, '.');
        char *name = strndup(seg, dot ? (size_t)(dot - seg) : strlen(seg));
        harness_node_entry *e = name ? find_entry(map, name) : NULL;

        if (!name) {
            harness_node_free(value);
            return harness_cfg_out_of_memory(err);
        }
        if (!dot) {
            if (!e)
                return harness_cfg_map_append(map, name, at, value) ? harness_cfg_out_of_memory(err) : 0;
            free(name);
            harness_node_free(e->value);
            e->value = value;
            return 0;
        }
        if (!e) {
            if (harness_cfg_map_append(map, name, at, harness_cfg_node_new(HARNESS_NODE_MAP, at))) {
                harness_node_free(value);
                return harness_cfg_out_of_memory(err);
            }
            e = &map->entries[map->n - 1];
        } else {
            free(name);
            if (harness_node_is_null(e->value)) {
                harness_node *empty = harness_cfg_node_new(HARNESS_NODE_MAP, at);
                if (!empty) {
                    harness_node_free(value);
                    return harness_cfg_out_of_memory(err);
                }
                harness_node_free(e->value);
                e->value = empty;
            } else if (e->value->kind != HARNESS_NODE_MAP) {
                char got[64], prefix[512];
                harness_node_describe(e->value, got, sizeof got);
                snprintf(prefix, sizeof prefix, "%.*s", (int)(dot - key), key);
                harness_node_free(value);
                return harness_tree_fail(tree, at, prefix, err,
                                         "holds %s, not a map; cannot set %s inside it", got, key);
            }
        }
        map = e->value;
        seg = dot + 1;
    }
}

int harness_tree_place(harness_config_tree *tree, harness_where at, const char *key,
                       harness_node *value, harness_error *err)
{
    return place(tree, at, key, value, err);
}

harness_node *harness_tree_detach(harness_config_tree *tree, const char *key)
{
    harness_node *root = tree->root;
    for (size_t i = 0; i < root->n; i++) {
        if (strcmp(root->entries[i].key, key) != 0)
            continue;
        harness_node *value = root->entries[i].value;
        free(root->entries[i].key);
        memmove(&root->entries[i], &root->entries[i + 1], (root->n - i - 1) * sizeof *root->entries);
        root->n--;
        return value;
    }
    return NULL;
}

harness_node *harness_node_copy(const harness_node *n)
{
    harness_node *c = harness_cfg_node_new(n->kind, n->at);
    if (!c)
        return NULL;
    c->quoted = n->quoted;
    if (n->text && !(c->text = strdup(n->text))) {
        harness_node_free(c);
        return NULL;
    }
    for (size_t i = 0; i < n->n; i++) {
        harness_node *item = n->kind == HARNESS_NODE_LIST ? n->items[i] : n->entries[i].value;
        harness_node *copy = harness_node_copy(item);
        int bad = n->kind == HARNESS_NODE_LIST
                      ? (!copy || harness_cfg_list_append(c, copy))
                      : harness_cfg_map_append(c, strdup(n->entries[i].key), n->entries[i].at, copy);
        if (bad) {
            if (n->kind == HARNESS_NODE_LIST)
                harness_node_free(copy);
            harness_node_free(c);
            return NULL;
        }
    }
    return c;
}

const char *harness_tree_keep(harness_config_tree *tree, char *s)
{
    if (!s || harness_cfg_grow((void **)&tree->origins, tree->n_origins, sizeof *tree->origins)) {
        free(s);
        return NULL;
    }
    tree->origins[tree->n_origins++] = s;
    return s;
}

int harness_tree_set(harness_config_tree *tree, const char *assignment, harness_error *err)
{
    char *origin = malloc(strlen(assignment) + sizeof "--set ");
    if (!origin || harness_cfg_grow((void **)&tree->origins, tree->n_origins, sizeof *tree->origins)) {
        free(origin);
        return harness_cfg_out_of_memory(err);
    }
    sprintf(origin, "--set %s", assignment);
    tree->origins[tree->n_origins++] = origin;
    harness_where at = {origin, 1, 1, NULL};

    const char *eq = strchr(assignment, '=');
    if (!eq)
        return harness_tree_fail(tree, at, "", err,
                                 "expected KEY=VALUE, e.g. --set schedule.repeat=3");
    char *key = strndup(assignment, (size_t)(eq - assignment));
    if (!key)
        return harness_cfg_out_of_memory(err);

    int depth = 1, empty_segment = key[0] == '\0';
    for (const char *p = key; *p; p++) {
        if (*p != '.')
            continue;
        depth++;
        empty_segment |= p == key || p[1] == '.' || p[1] == '\0';
    }
    int rc = 0;
    if (empty_segment)
        rc = harness_tree_fail(tree, at, "", err,
                               "KEY must be a dotted path of names, e.g. schedule.repeat");
    else if (depth > HARNESS_CFG_TREE_MAX_DEPTH)
        rc = harness_tree_fail(tree, at, "", err, "KEY is nested too deeply");

    harness_node *value = NULL;
    if (!rc)
        rc = harness_cfg_parse_text(tree, origin, key, depth, eq + 1, strlen(eq + 1), &value, err);
    if (!rc)
        rc = place(tree, at, key, value, err);
    free(key);
    return rc;
}
