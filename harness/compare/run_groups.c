/* run_groups.c - compare's runs grouped by key with one sort; see run_groups.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* open_memstream, before any system header */
#endif
#include "compare/run_groups.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A string as "<length>:<bytes>", so no content can imitate a separator. */
static void put_string(FILE *f, const char *s)
{
    fprintf(f, "%zu:%s", strlen(s), s);
}

static int by_name(const void *pa, const void *pb)
{
    const cJSON *a = *(const cJSON *const *)pa, *b = *(const cJSON *const *)pb;
    return strcmp(a->string ? a->string : "", b->string ? b->string : "");
}

/* The canonical text of a JSON value: cJSON_Compare's equality (members in
 * any order) becomes equality of strings. 0, or -1 out of memory. */
static int put_value(FILE *f, const cJSON *v)
{
    if (cJSON_IsObject(v)) {
        size_t n = 0;
        for (const cJSON *c = v->child; c; c = c->next)
            n++;
        const cJSON **members = malloc((n ? n : 1) * sizeof *members);
        if (!members)
            return -1;
        n = 0;
        for (const cJSON *c = v->child; c; c = c->next)
            members[n++] = c;
        qsort(members, n, sizeof *members, by_name);
        fputc('{', f);
        int rc = 0;
        for (size_t i = 0; i < n && rc == 0; i++) {
            put_string(f, members[i]->string ? members[i]->string : "");
            rc = put_value(f, members[i]);
        }
        fputc('}', f);
        free(members);
        return rc;
    }
    if (cJSON_IsArray(v)) {
        fputc('[', f);
        for (const cJSON *c = v->child; c; c = c->next)
            if (put_value(f, c) != 0)
                return -1;
        fputc(']', f);
        return 0;
    }
    if (cJSON_IsString(v)) {
        fputc('s', f);
        put_string(f, v->valuestring ? v->valuestring : "");
    } else if (cJSON_IsNumber(v)) {
        fprintf(f, "n%.17g;", v->valuedouble == 0 ? 0.0 : v->valuedouble);
    } else if (cJSON_IsTrue(v)) {
        fputc('t', f);
    } else if (cJSON_IsFalse(v)) {
        fputc('f', f);
    } else {
        fputc('z', f);             /* null (or raw, which summaries never hold) */
    }
    return 0;
}

static char *run_key(const harness_run_summary *r, int by_rank)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "%d/%d", r->rank, r->world_size);
    int rc = 0;
    if (!by_rank) {
        fputc('|', f);
        put_string(f, r->variant_key ? r->variant_key : "");
        rc = r->config ? put_value(f, r->config) : 0;
    }
    if (fclose(f) != 0 || rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

typedef struct keyed {
    const char *key;
    size_t index;
} keyed;

static int by_key_then_index(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

int harness_run_groups_build(const harness_run_summary *runs, size_t n, int by_rank, harness_run_groups *g)
{
    memset(g, 0, sizeof *g);
    g->n_runs = n;
    size_t m = n ? n : 1;
    g->key = calloc(m, sizeof *g->key);
    g->group = malloc(m * sizeof *g->group);
    g->member = malloc(m * sizeof *g->member);
    g->start = malloc((m + 1) * sizeof *g->start);
    keyed *sorted = malloc(m * sizeof *sorted);
    if (!g->key || !g->group || !g->member || !g->start || !sorted) {
        free(sorted);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!(g->key[i] = run_key(&runs[i], by_rank))) {
            free(sorted);
            return -1;
        }
        sorted[i] = (keyed){g->key[i], i};
    }
    qsort(sorted, n, sizeof *sorted, by_key_then_index);
    for (size_t k = 0; k < n; k++) {
        g->member[k] = sorted[k].index;
        if (k == 0 || strcmp(sorted[k].key, sorted[k - 1].key) != 0)
            g->start[g->n_groups++] = k;
        g->group[sorted[k].index] = g->n_groups - 1;
    }
    g->start[g->n_groups] = n;
    free(sorted);
    return 0;
}

void harness_run_groups_free(harness_run_groups *g)
{
    if (!g)
        return;
    for (size_t i = 0; g->key && i < g->n_runs; i++)
        free(g->key[i]);
    free(g->key);
    free(g->group);
    free(g->member);
    free(g->start);
    memset(g, 0, sizeof *g);
}

size_t harness_run_groups_of(const harness_run_groups *g, size_t i, const size_t **first)
{
    size_t grp = g->group[i];
    if (first)
        *first = g->member + g->start[grp];
    return g->start[grp + 1] - g->start[grp];
}

size_t harness_run_groups_find(const harness_run_groups *g, const char *key)
{
    size_t lo = 0, hi = g->n_groups;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(g->key[g->member[g->start[mid]]], key);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (size_t)-1;
}
