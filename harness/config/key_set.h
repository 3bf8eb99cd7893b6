/* key_set.h - the keys of one YAML map being read, in a hash set, so that
 * the duplicate-key check costs the same per key however large the map
 * (a scan of the keys so far made a 120,000-key map take minutes). */
#ifndef HARNESS_CONFIG_KEY_SET_H
#define HARNESS_CONFIG_KEY_SET_H

#include <stddef.h>

#include "config/config_node.h"

/* Indices into a map's entries, by the hash of their keys. */
typedef struct harness_key_set {
    size_t *slots;                 /* entry index + 1; 0: empty */
    size_t cap;                    /* a power of two, or 0 */
    size_t n;
} harness_key_set;

/* The entry of `map` whose key is `key`, or NULL. */
const harness_node_entry *harness_key_set_find(const harness_key_set *s, const harness_node *map, const char *key);

/* Remember map->entries[index]; -1 out of memory. */
int harness_key_set_add(harness_key_set *s, const harness_node *map, size_t index);

void harness_key_set_free(harness_key_set *s);

#endif
