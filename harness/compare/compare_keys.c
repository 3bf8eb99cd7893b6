#define _GNU_SOURCE                /* asprintf, before any system header */
#include "compare/compare_keys.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_name(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    return strcmp(x->string ? x->string : "", y->string ? y->string : "");
}

/* Every object's members in name order, recursively (in place). */
static int sort_members(cJSON *j)
{
    size_t n = 0;
    for (cJSON *c = j->child; c; c = c->next) {
        n++;
        if (sort_members(c) != 0)
            return -1;
    }
    if (!cJSON_IsObject(j) || n < 2)
        return 0;
    cJSON **items = malloc(n * sizeof *items);
    if (!items)
        return -1;
    size_t i = 0;
    for (cJSON *c = j->child; c; c = c->next)
        items[i++] = c;
    qsort(items, n, sizeof *items, by_name);
    for (i = 0; i < n; i++) {
        items[i]->prev = i ? items[i - 1] : items[n - 1];  /* cJSON: the head's prev is the tail */
        items[i]->next = i + 1 < n ? items[i + 1] : NULL;
    }
    j->child = items[0];
    free(items);
    return 0;
}

static char *key_of(const harness_run_summary *r, int by_rank)
{
    char *key = NULL;
    if (by_rank)
        return asprintf(&key, "%d/%d", r->world_size, r->rank) < 0 ? NULL : key;
    cJSON *config = cJSON_Duplicate(r->config, 1);
    char *text = config && sort_members(config) == 0 ? cJSON_PrintUnformatted(config) : NULL;
    cJSON_Delete(config);
    /* The variant key cannot hold a NUL, and '\n' separates it from the rest. */
    if (!text || asprintf(&key, "%s\n%s\n%d/%d", r->variant_key, text, r->world_size, r->rank) < 0)
        key = NULL;
    free(text);
    return key;
}

static int key_order(const void *a, const void *b)
{
    const harness_run_key *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

int harness_run_keys(const harness_run_summary *const *runs, size_t n, int by_rank, harness_run_key **out,
                     harness_error *err)
{
    harness_run_key *keys = calloc(n ? n : 1, sizeof *keys);
    if (!keys)
        return harness_cmp_oom(err);
    for (size_t i = 0; i < n; i++) {
        keys[i].run = runs[i];
        keys[i].index = i;
        if (!(keys[i].key = key_of(runs[i], by_rank))) {
            harness_run_keys_free(keys, i);
            return harness_cmp_oom(err);
        }
    }
    qsort(keys, n, sizeof *keys, key_order);
    *out = keys;
    return 0;
}

size_t harness_run_keys_find(const harness_run_key *keys, size_t n, const char *key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(keys[mid].key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && strcmp(keys[lo].key, key) == 0 ? lo : n;
}

void harness_run_keys_free(harness_run_key *keys, size_t n)
{
    for (size_t i = 0; keys && i < n; i++)
        free(keys[i].key);
    free(keys);
}
