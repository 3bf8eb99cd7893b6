/* job_pairs.c - "pairs" of summary.json, writer and reader side by side
 * (job_pairs.h). */
#include "folder/job_pairs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folder/json_fields.h"
#include "util/json_number.h"

cJSON *harness_job_pairs_json(const harness_job_pairs *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", "send_recv");
    cJSON_AddStringToObject(o, "unit", "ns");
    harness_json_add_num(o, "bytes", p->bytes);
    cJSON *m = cJSON_AddArrayToObject(o, "median_ns");
    for (int a = 0; a < p->n; a++) {
        cJSON *row = cJSON_CreateArray();
        for (int b = 0; b < p->n; b++) {
            double v = p->median_ns[(size_t)a * (size_t)p->n + (size_t)b];
            cJSON_AddItemToArray(row, isnan(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v));
        }
        cJSON_AddItemToArray(m, row);
    }
    harness_json_add_num(o, "median_pair_ns", p->median_pair_ns);
    if (p->slowest_a >= 0) {
        cJSON *s = cJSON_AddObjectToObject(o, "slowest");
        cJSON *ranks = cJSON_AddArrayToObject(s, "ranks");
        cJSON_AddItemToArray(ranks, cJSON_CreateNumber(p->slowest_a));
        cJSON_AddItemToArray(ranks, cJSON_CreateNumber(p->slowest_b));
        harness_json_add_num(s, "median_ns", p->slowest_ns);
    } else {
        cJSON_AddNullToObject(o, "slowest");
    }
    return o;
}

void harness_job_pairs_free(harness_job_pairs *p)
{
    if (p)
        free(p->median_ns);
    if (p)
        memset(p, 0, sizeof *p);
}

/* A rank number of `ranks`, n the matrix's size. */
static int read_rank(const cJSON *j, int n, const char *path, const char *key, int *out, harness_error *err)
{
    double v = cJSON_IsNumber(j) ? j->valuedouble : -1;
    if (!(v >= 0 && v < n && v == floor(v)))
        return harness_field_bad(err, path, "pairs.slowest.%s: expected a rank below %d", key, n);
    *out = (int)v;
    return 0;
}

static int read_matrix(const cJSON *m, const char *path, harness_job_pairs *out, harness_error *err)
{
    int n = cJSON_GetArraySize(m);
    if (n < 1 || n > 1 << 16)
        return harness_field_bad(err, path, "pairs.median_ns: expected a square matrix of ranks, got %d rows", n);
    if (!(out->median_ns = malloc(sizeof *out->median_ns * (size_t)n * (size_t)n)))
        return harness_field_oom(err);
    out->n = n;
    int a = 0;
    for (const cJSON *row = m->child; row; row = row->next, a++) {
        if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != n)
            return harness_field_bad(err, path, "pairs.median_ns[%d]: expected an array of %d numbers or null", a,
                                     n);
        int b = 0;
        for (const cJSON *v = row->child; v; v = v->next, b++) {
            if (!cJSON_IsNumber(v) && !cJSON_IsNull(v))
                return harness_field_bad(err, path, "pairs.median_ns[%d][%d]: expected a number or null, got %s", a,
                                         b, harness_field_kind(v));
            out->median_ns[(size_t)a * (size_t)n + (size_t)b] = cJSON_IsNumber(v) ? v->valuedouble : NAN;
        }
    }
    return 0;
}

int harness_job_pairs_read(const cJSON *o, const char *path, harness_job_pairs *out, harness_error *err)
{
    memset(out, 0, sizeof *out);
    out->slowest_a = out->slowest_b = -1;
    if (!o || cJSON_IsNull(o))
        return 0;
    if (!cJSON_IsObject(o))
        return harness_field_bad(err, path, "pairs: expected an object or null, got %s", harness_field_kind(o));
    const cJSON *m = harness_field_need(o, "pairs.", "median_ns", cJSON_IsArray, "an array", "pair matrix", path, err);
    const cJSON *s;
    if (!m || read_matrix(m, path, out, err) != 0 ||
        harness_field_number(o, "pairs.", "bytes", path, &out->bytes, err) != 0 ||
        harness_field_number(o, "pairs.", "median_pair_ns", path, &out->median_pair_ns, err) != 0 ||
        harness_field_object(o, "pairs.", "slowest", path, &s, err) != 0)
        goto fail;
    if (s) {
        const cJSON *ranks = harness_field_need(s, "pairs.slowest.", "ranks", cJSON_IsArray, "an array",
                                                "pair matrix", path, err);
        if (!ranks || cJSON_GetArraySize(ranks) != 2) {
            if (ranks)
                harness_field_bad(err, path, "pairs.slowest.ranks: expected two ranks");
            goto fail;
        }
        if (read_rank(ranks->child, out->n, path, "ranks[0]", &out->slowest_a, err) != 0 ||
            read_rank(ranks->child->next, out->n, path, "ranks[1]", &out->slowest_b, err) != 0 ||
            harness_field_number(s, "pairs.slowest.", "median_ns", path, &out->slowest_ns, err) != 0)
            goto fail;
    }
    return 0;
fail:
    harness_job_pairs_free(out);
    return err->code;
}
