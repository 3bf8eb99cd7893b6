/* key_set.c - a hash set of a map's keys (key_set.h): open addressing,
 * linear probing, kept at most half full. */
#include "config/key_set.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a: short keys, no adversary who gains from collisions beyond a
 * slower load, which the map's key limit bounds anyway. */
static size_t hash(const char *key)
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return (size_t)h;
}

const harness_node_entry *harness_key_set_find(const harness_key_set *s, const harness_node *map, const char *key)
{
    if (!s->cap)
        return NULL;
    for (size_t i = hash(key) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        size_t slot = s->slots[i];
        if (!slot)
            return NULL;
        if (strcmp(map->entries[slot - 1].key, key) == 0)
            return &map->entries[slot - 1];
    }
}

static void put(size_t *slots, size_t cap, const harness_node *map, size_t index)
{
    size_t i = hash(map->entries[index].key) & (cap - 1);
    while (slots[i])
        i = (i + 1) & (cap - 1);
    slots[i] = index + 1;
}

int harness_key_set_add(harness_key_set *s, const harness_node *map, size_t index)
{
    if (2 * (s->n + 1) > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        size_t *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slots[i])
                put(slots, cap, map, s->slots[i] - 1);
        free(s->slots);
        s->slots = slots;
        s->cap = cap;
    }
    put(s->slots, s->cap, map, index);
    s->n++;
    return 0;
}

void harness_key_set_free(harness_key_set *s)
{
    free(s->slots);
    memset(s, 0, sizeof *s);
}
