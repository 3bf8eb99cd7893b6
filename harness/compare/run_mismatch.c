/* What keeps two sides' runs apart (compare/run_mismatch.h). */
#include "compare/run_mismatch.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SHOWN = 3 };            /* differing keys named; the rest counted */

static const cJSON *member(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

/* Config keys of a or b whose values differ (a's keys, then b's own);
 * up to cap named into keys. The count of all. */
static size_t config_diff(const cJSON *a, const cJSON *b, const char **keys, size_t cap)
{
    size_t n = 0;
    for (int side = 0; side < 2; side++)
        for (const cJSON *m = cJSON_IsObject(side ? b : a) ? (side ? b : a)->child : NULL; m; m = m->next) {
            const cJSON *other = member(side ? a : b, m->string);
            if (side && other)
                continue;          /* compared from a's side */
            if (other && cJSON_Compare(m, other, 1))
                continue;
            if (n < cap)
                keys[n] = m->string;
            n++;
        }
    return n;
}

static size_t distance(const harness_run_summary *a, const harness_run_summary *b)
{
    const char *keys[1];
    size_t d = config_diff(a->config, b->config, keys, 0);
    d += strcmp(a->variant_key ? a->variant_key : "", b->variant_key ? b->variant_key : "") != 0;
    return d + (a->rank != b->rank || a->world_size != b->world_size);
}

/* " key=value" of run r (or " no key" when it has none). */
static void put_key(FILE *f, const harness_run_summary *r, const char *key)
{
    const cJSON *v = member(r->config, key);
    if (!v) {
        fprintf(f, " no %s", key);
        return;
    }
    if (cJSON_IsString(v)) {
        fprintf(f, " %s=%s", key, v->valuestring);
        return;
    }
    char *text = cJSON_PrintUnformatted(v);
    fprintf(f, " %s=%s", key, text ? text : "?");
    free(text);
}

/* What run r has of the differences: variant, keys, rank. */
static void put_side(FILE *f, const harness_run_summary *r, int variant, const char **keys, size_t n, size_t all,
                     int rank)
{
    if (variant)
        fprintf(f, " variant %s", r->variant_key ? r->variant_key : "(none)");
    for (size_t i = 0; i < n; i++)
        put_key(f, r, keys[i]);
    if (all > n)
        fprintf(f, " (and %zu more config keys)", all - n);
    if (rank)
        fprintf(f, " rank %d of %d", r->rank, r->world_size);
}

void harness_cmp_mismatch_text(const harness_compare_side *base, const harness_compare_side *cand, char *out,
                               size_t cap)
{
    out[0] = '\0';
    if (base->n_runs == 0 || cand->n_runs == 0)
        return;
    const harness_run_summary *b = &base->runs[0], *c = &cand->runs[0];
    for (size_t i = 1; i < cand->n_runs; i++)
        if (distance(b, &cand->runs[i]) < distance(b, c))
            c = &cand->runs[i];
    const char *keys[MAX_SHOWN];
    size_t all = config_diff(b->config, c->config, keys, MAX_SHOWN), n = all < MAX_SHOWN ? all : MAX_SHOWN;
    int variant = strcmp(b->variant_key ? b->variant_key : "", c->variant_key ? c->variant_key : "") != 0;
    int rank = b->rank != c->rank || b->world_size != c->world_size;
    if (variant)                   /* another component: its config keys differ anyway */
        all = n = 0;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return;
    fprintf(f, "%s's %s", base->root ? base->root : "BASE", b->variant_key ? b->variant_key : "run");
    put_side(f, b, 0, keys, n, all, rank);
    fprintf(f, ", and the nearest run of %s has", cand->root ? cand->root : "CAND");
    put_side(f, c, variant, keys, n, all, rank);
    if (fclose(f) == 0)
        snprintf(out, cap, "%s", text);
    free(text);
}
