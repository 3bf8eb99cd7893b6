/* job_nodes.c - summary.json's "nodes" member, writer and reader side by
 * side (job_nodes.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strdup */
#endif
#include "folder/job_nodes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folder/json_fields.h"
#include "util/json_number.h"

#define WHAT "job summary"

/* ---- writing ------------------------------------------------------------- */

static cJSON *node_json(const harness_job_node_record *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "host", r->host);
    cJSON *ranks = cJSON_AddArrayToObject(o, "ranks");
    for (size_t i = 0; i < r->n_ranks; i++)
        cJSON_AddItemToArray(ranks, cJSON_CreateNumber(r->ranks[i]));
    cJSON_AddNumberToObject(o, "ranks_measured", r->ranks_measured);
    harness_json_add_num(o, "median_ns", r->median_ns);
    if (r->slowest_rank >= 0)
        cJSON_AddNumberToObject(o, "slowest_rank", r->slowest_rank);
    else
        cJSON_AddNullToObject(o, "slowest_rank");
    harness_json_add_num(o, "slowest_median_ns", r->slowest_median_ns);
    harness_json_add_num(o, "excess", r->excess);
    cJSON_AddBoolToObject(o, "outlier", r->outlier);
    return o;
}

void harness_job_nodes_write(cJSON *root, const harness_job_nodes *x)
{
    if (x->n == 0)
        return;
    cJSON *o = cJSON_AddObjectToObject(root, "nodes");
    cJSON_AddStringToObject(o, "unit", "ns");
    cJSON *rule = cJSON_AddObjectToObject(o, "rule");
    cJSON_AddNumberToObject(rule, "k", x->k);
    cJSON_AddNumberToObject(rule, "min_excess", x->min_excess);
    cJSON_AddNumberToObject(rule, "min_nodes", x->min_nodes);
    cJSON_AddNumberToObject(o, "nodes_measured", x->nodes_measured);
    cJSON_AddBoolToObject(o, "judged", x->judged == 1);
    harness_json_add_num(o, "center_ns", x->center_ns);
    harness_json_add_num(o, "mad_ns", x->mad_ns);
    harness_json_add_num(o, "threshold_ns", x->threshold_ns);
    cJSON *list = cJSON_AddArrayToObject(o, "list");
    for (size_t i = 0; i < x->n; i++)
        cJSON_AddItemToArray(list, node_json(&x->list[i]));
}

/* ---- reading ------------------------------------------------------------- */

void harness_job_nodes_free(harness_job_nodes *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->n; i++) {
        free(x->list[i].host);
        free(x->list[i].ranks);
    }
    free(x->list);
    memset(x, 0, sizeof *x);
    x->judged = -1;
}

/* An integer from 0 to 1e9 at prefix+key; absent or null gives dflt. */
static int whole(const cJSON *o, const char *prefix, const char *key, const char *path, int dflt, int *out,
                 harness_error *err)
{
    return harness_field_whole(o, prefix, key, path, dflt, "an integer >= 0", out, err);
}

static int read_ranks(const cJSON *o, const char *p, const char *path, harness_job_node_record *r,
                      harness_error *err)
{
    const cJSON *a = harness_field_need(o, p, "ranks", cJSON_IsArray, "an array", WHAT, path, err);
    if (!a)
        return err->code;
    size_t n = (size_t)cJSON_GetArraySize(a);
    if (!(r->ranks = calloc(n + 1, sizeof *r->ranks)))
        return harness_field_oom(err);
    for (const cJSON *v = a->child; v && r->n_ranks < n; v = v->next) {
        double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
        if (!(d >= 0 && d < 1e9 && d == floor(d)))
            return harness_field_bad(err, path, "%sranks[%zu]: expected a rank, got %s", p, r->n_ranks,
                                     cJSON_IsNumber(v) ? "a negative or fractional number" : harness_field_kind(v));
        r->ranks[r->n_ranks++] = (int)d;
    }
    return 0;
}

static int read_node(const cJSON *o, const char *p, const char *path, harness_job_node_record *r,
                     harness_error *err)
{
    int outlier;
    if (!cJSON_IsObject(o))
        return harness_field_bad(err, path, "%.*s: expected an object, got %s", (int)strlen(p) - 1, p,
                                 harness_field_kind(o));
    if (harness_field_string(o, p, "host", path, &r->host, err) != 0 || read_ranks(o, p, path, r, err) != 0 ||
        whole(o, p, "ranks_measured", path, 0, &r->ranks_measured, err) != 0 ||
        harness_field_number(o, p, "median_ns", path, &r->median_ns, err) != 0 ||
        whole(o, p, "slowest_rank", path, -1, &r->slowest_rank, err) != 0 ||
        harness_field_number(o, p, "slowest_median_ns", path, &r->slowest_median_ns, err) != 0 ||
        harness_field_number(o, p, "excess", path, &r->excess, err) != 0 ||
        harness_field_bool(o, p, "outlier", path, &outlier, err) != 0)
        return err->code;
    if (!r->host)
        return harness_field_bad(err, path, "%shost: missing; not a complete %s", p, WHAT);
    r->outlier = outlier == 1;
    return 0;
}

int harness_job_nodes_read(const cJSON *root, const char *path, harness_job_nodes *out, harness_error *err)
{
    memset(out, 0, sizeof *out);
    out->judged = -1;
    const cJSON *o, *rule;
    if (harness_field_object(root, "", "nodes", path, &o, err) != 0)
        return err->code;
    if (!o)
        return 0;
    const cJSON *list = harness_field_need(o, "nodes.", "list", cJSON_IsArray, "an array", WHAT, path, err);
    if (!list || harness_field_object(o, "nodes.", "rule", path, &rule, err) != 0 ||
        harness_field_number(rule, "nodes.rule.", "k", path, &out->k, err) != 0 ||
        harness_field_number(rule, "nodes.rule.", "min_excess", path, &out->min_excess, err) != 0 ||
        whole(rule, "nodes.rule.", "min_nodes", path, 0, &out->min_nodes, err) != 0 ||
        whole(o, "nodes.", "nodes_measured", path, 0, &out->nodes_measured, err) != 0 ||
        harness_field_bool(o, "nodes.", "judged", path, &out->judged, err) != 0 ||
        harness_field_number(o, "nodes.", "center_ns", path, &out->center_ns, err) != 0 ||
        harness_field_number(o, "nodes.", "mad_ns", path, &out->mad_ns, err) != 0 ||
        harness_field_number(o, "nodes.", "threshold_ns", path, &out->threshold_ns, err) != 0)
        return err->code;
    size_t n = (size_t)cJSON_GetArraySize(list);
    if (!(out->list = calloc(n + 1, sizeof *out->list)))
        return harness_field_oom(err);
    char p[48];
    for (const cJSON *v = list->child; v && out->n < n; v = v->next) {
        snprintf(p, sizeof p, "nodes.list[%zu].", out->n);
        if (read_node(v, p, path, &out->list[out->n++], err) != 0)
            return err->code;
    }
    return 0;
}
