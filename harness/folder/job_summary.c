/* job_summary.c - summary.json's writer and reader (job_summary.h), side by
 * side so that a key is added to both at once. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strdup */
#endif
#include "folder/job_summary.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folder/folder_format.h"
#include "folder/json_fields.h"
#include "util/json_number.h"
#include "util/json_utf8.h"

#define WHAT "job summary"

/* ---- writing ------------------------------------------------------------- */

static void add_rank_or_null(cJSON *o, const char *key, int rank)
{
    if (rank >= 0)
        cJSON_AddNumberToObject(o, key, rank);
    else
        cJSON_AddNullToObject(o, key);
}

static cJSON *rank_json(const harness_job_rank_record *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "rank", r->rank);
    cJSON_AddStringToObject(o, "status", r->status);
    cJSON_AddStringToObject(o, "host", r->host);
    cJSON_AddNumberToObject(o, "n", r->n);
    cJSON_AddNumberToObject(o, "median_ns", r->median_ns);
    cJSON_AddNumberToObject(o, "p90_ns", r->p90_ns);
    cJSON_AddNumberToObject(o, "gb_per_s", r->gb_per_s);
    cJSON_AddNumberToObject(o, "gflop_per_s", r->gflop_per_s);
    cJSON *comm = cJSON_AddObjectToObject(o, "communication");
    cJSON_AddNumberToObject(comm, "calls", r->comm_calls);
    cJSON_AddNumberToObject(comm, "bytes", r->comm_bytes);
    cJSON_AddNumberToObject(comm, "total_ns", r->comm_ns);
    cJSON_AddNumberToObject(o, "clock_offset_ns", r->clock_offset_ns);
    harness_json_add_num(o, "clock_rtt_ns", r->clock_rtt_ns);
    harness_json_add_num(o, "straggler_steps", r->straggler_steps);
    cJSON *e = cJSON_AddObjectToObject(o, "energy");
    cJSON_AddStringToObject(e, "status", r->energy_status);
    cJSON_AddStringToObject(e, "counter", r->energy_counter);
    harness_json_add_num(e, "joules_per_step", r->joules_per_step);
    harness_json_add_num(e, "watts", r->watts);
    harness_json_add_num(e, "flop_per_joule", r->flop_per_joule);
    harness_json_add_num(e, "bytes_per_joule", r->bytes_per_joule);
    return o;
}

static void add_gather(cJSON *root, const harness_job_summary *x)
{
    cJSON_AddBoolToObject(root, "gathered", x->gathered == 1);
    if (x->gathered != 1) {
        cJSON_AddNullToObject(root, "gather");
        return;
    }
    cJSON *g = cJSON_AddObjectToObject(root, "gather");
    harness_json_add_num(g, "max_bytes", x->gather_max_bytes);
    cJSON *files = cJSON_AddArrayToObject(g, "files");
    for (size_t i = 0; i < x->n_gather_files; i++) {
        const harness_job_gather_record *f = &x->gather_files[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "rank", f->rank);
        cJSON_AddStringToObject(o, "name", f->name);
        cJSON_AddNumberToObject(o, "bytes", f->bytes);
        cJSON_AddBoolToObject(o, "sent", f->sent);
        if (f->sha256)
            cJSON_AddStringToObject(o, "sha256", f->sha256);
        else
            cJSON_AddNullToObject(o, "sha256");
        cJSON_AddItemToArray(files, o);
    }
}

char *harness_job_summary_write(const harness_job_summary *x)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", HARNESS_SCHEMA_JOB_SUMMARY);
    cJSON_AddStringToObject(root, "variant_key", x->variant_key);
    cJSON_AddNumberToObject(root, "world_size", x->world_size);
    cJSON *ranks = cJSON_AddArrayToObject(root, "ranks");
    for (size_t i = 0; i < x->n_ranks; i++)
        cJSON_AddItemToArray(ranks, rank_json(&x->ranks[i]));
    cJSON_AddStringToObject(root, "status", x->status);
    cJSON_AddItemToObject(root, "slurm", harness_slurm_json(&x->slurm));
    cJSON *a = cJSON_AddObjectToObject(root, "across_ranks");
    cJSON_AddStringToObject(a, "unit", "ns");
    cJSON_AddNumberToObject(a, "ranks_measured", x->ranks_measured);
    cJSON_AddNumberToObject(a, "min_median", x->min_median);
    cJSON_AddNumberToObject(a, "median_median", x->median_median);
    cJSON_AddNumberToObject(a, "max_median", x->max_median);
    cJSON_AddNumberToObject(a, "skew", x->skew);
    add_rank_or_null(a, "slowest_rank", x->slowest_rank);
    add_rank_or_null(a, "fastest_rank", x->fastest_rank);
    cJSON *win = cJSON_AddArrayToObject(root, "windows");
    for (size_t w = 0; w < x->n_windows; w++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "window", x->windows[w].window);
        add_rank_or_null(o, "slowest_rank", x->windows[w].slowest_rank);
        cJSON_AddNumberToObject(o, "slowest_median_ns", x->windows[w].slowest_median_ns);
        cJSON_AddItemToArray(win, o);
    }
    cJSON *e = cJSON_AddObjectToObject(root, "energy");
    cJSON_AddNumberToObject(e, "ranks_measured", x->energy_ranks_measured);
    cJSON_AddNumberToObject(e, "counters", x->energy_counters);
    harness_json_add_num(e, "watts", x->energy_watts);
    harness_json_add_num(e, "joules_per_step", x->energy_joules_per_step);
    if (x->pairs.n > 0)
        cJSON_AddItemToObject(root, "pairs", harness_job_pairs_json(&x->pairs));
    add_gather(root, x);
    harness_job_nodes_write(root, &x->nodes);
    harness_json_scrub_utf8(root);  /* names from file names: any bytes */
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}

/* ---- reading ------------------------------------------------------------- */

void harness_job_summary_free(harness_job_summary *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->n_ranks; i++) {
        free(x->ranks[i].status);
        free(x->ranks[i].host);
        free(x->ranks[i].energy_status);
        free(x->ranks[i].energy_counter);
    }
    free(x->ranks);
    free(x->windows);
    free(x->variant_key);
    free(x->status);
    harness_slurm_free(&x->slurm);
    harness_job_pairs_free(&x->pairs);
    for (size_t i = 0; i < x->n_gather_files; i++) {
        free(x->gather_files[i].name);
        free(x->gather_files[i].sha256);
    }
    free(x->gather_files);
    harness_job_nodes_free(&x->nodes);
    memset(x, 0, sizeof *x);
}

/* A rank number, or -1 for null or absent. */
static int rank_or_none(const cJSON *o, const char *prefix, const char *key, const char *path, int *out,
                        harness_error *err)
{
    return harness_field_whole(o, prefix, key, path, -1, "a rank or null", out, err);
}

/* A count or rank number (an integer from 0 to 1e9), or 0 for null or absent. */
static int count(const cJSON *o, const char *prefix, const char *key, const char *path, int *out, harness_error *err)
{
    return harness_field_whole(o, prefix, key, path, 0, "an integer >= 0", out, err);
}

static int read_rank(const cJSON *o, const char *p, const char *path, harness_job_rank_record *r, harness_error *err)
{
    char q[64];
    const cJSON *comm, *e;
    if (rank_or_none(o, p, "rank", path, &r->rank, err) != 0 || harness_field_string(o, p, "status", path,
        &r->status, err) != 0 || harness_field_string(o, p, "host", path, &r->host, err) != 0 ||
        harness_field_number(o, p, "n", path, &r->n, err) != 0 ||
        harness_field_number(o, p, "median_ns", path, &r->median_ns, err) != 0 ||
        harness_field_number(o, p, "p90_ns", path, &r->p90_ns, err) != 0 ||
        harness_field_number(o, p, "gb_per_s", path, &r->gb_per_s, err) != 0 ||
        harness_field_number(o, p, "gflop_per_s", path, &r->gflop_per_s, err) != 0 ||
        harness_field_number(o, p, "clock_offset_ns", path, &r->clock_offset_ns, err) != 0 ||
        harness_field_number(o, p, "clock_rtt_ns", path, &r->clock_rtt_ns, err) != 0 ||
        harness_field_number(o, p, "straggler_steps", path, &r->straggler_steps, err) != 0 ||
        harness_field_object(o, p, "communication", path, &comm, err) != 0 ||
        harness_field_object(o, p, "energy", path, &e, err) != 0)
        return err->code;
    snprintf(q, sizeof q, "%scommunication.", p);
    if (harness_field_number(comm, q, "calls", path, &r->comm_calls, err) != 0 ||
        harness_field_number(comm, q, "bytes", path, &r->comm_bytes, err) != 0 ||
        harness_field_number(comm, q, "total_ns", path, &r->comm_ns, err) != 0)
        return err->code;
    snprintf(q, sizeof q, "%senergy.", p);
    if (harness_field_string(e, q, "status", path, &r->energy_status, err) != 0 ||
        harness_field_string(e, q, "counter", path, &r->energy_counter, err) != 0 ||
        harness_field_number(e, q, "joules_per_step", path, &r->joules_per_step, err) != 0 ||
        harness_field_number(e, q, "watts", path, &r->watts, err) != 0 ||
        harness_field_number(e, q, "flop_per_joule", path, &r->flop_per_joule, err) != 0 ||
        harness_field_number(e, q, "bytes_per_joule", path, &r->bytes_per_joule, err) != 0)
        return err->code;
    return 0;
}

/* "gathered" and "gather" (absent in files of a harness before them). */
static int read_gather(const cJSON *root, const char *path, harness_job_summary *out, harness_error *err)
{
    const cJSON *g, *files;
    out->gather_max_bytes = NAN;
    if (harness_field_bool(root, "", "gathered", path, &out->gathered, err) != 0 ||
        harness_field_object(root, "", "gather", path, &g, err) != 0 ||
        harness_field_number(g, "gather.", "max_bytes", path, &out->gather_max_bytes, err) != 0)
        return err->code;
    if (!g || !(files = cJSON_GetObjectItemCaseSensitive(g, "files")) || cJSON_IsNull(files))
        return 0;
    if (!cJSON_IsArray(files))
        return harness_field_bad(err, path, "gather.files: expected an array, got %s", harness_field_kind(files));
    size_t n = (size_t)cJSON_GetArraySize(files);
    if (!(out->gather_files = calloc(n + 1, sizeof *out->gather_files)))
        return harness_field_oom(err);
    char p[48];
    for (const cJSON *o = files->child; o && out->n_gather_files < n; o = o->next) {
        harness_job_gather_record *f = &out->gather_files[out->n_gather_files];
        snprintf(p, sizeof p, "gather.files[%zu].", out->n_gather_files++);
        if (rank_or_none(o, p, "rank", path, &f->rank, err) != 0 ||
            harness_field_string(o, p, "name", path, &f->name, err) != 0 ||
            harness_field_number(o, p, "bytes", path, &f->bytes, err) != 0 ||
            harness_field_bool(o, p, "sent", path, &f->sent, err) != 0 ||
            harness_field_string(o, p, "sha256", path, &f->sha256, err) != 0)
            return err->code;
    }
    return 0;
}

static int read_lists(const cJSON *root, const char *path, harness_job_summary *out, harness_error *err)
{
    const cJSON *ranks = harness_field_need(root, "", "ranks", cJSON_IsArray, "an array", WHAT, path, err);
    const cJSON *windows = ranks ? harness_field_need(root, "", "windows", cJSON_IsArray, "an array", WHAT, path,
                                                      err) : NULL;
    if (!windows)
        return err->code;
    size_t nr = (size_t)cJSON_GetArraySize(ranks), nw = (size_t)cJSON_GetArraySize(windows);
    if (!(out->ranks = calloc(nr + 1, sizeof *out->ranks)) || !(out->windows = calloc(nw + 1, sizeof *out->windows)))
        return harness_field_oom(err);
    char p[48];
    for (const cJSON *r = ranks->child; r && out->n_ranks < nr; r = r->next) {
        snprintf(p, sizeof p, "ranks[%zu].", out->n_ranks);
        if (read_rank(r, p, path, &out->ranks[out->n_ranks++], err) != 0)
            return err->code;
    }
    for (const cJSON *w = windows->child; w && out->n_windows < nw; w = w->next) {
        harness_job_window_record *x = &out->windows[out->n_windows];
        snprintf(p, sizeof p, "windows[%zu].", out->n_windows++);
        if (rank_or_none(w, p, "window", path, &x->window, err) != 0 ||
            rank_or_none(w, p, "slowest_rank", path, &x->slowest_rank, err) != 0 ||
            harness_field_number(w, p, "slowest_median_ns", path, &x->slowest_median_ns, err) != 0)
            return err->code;
    }
    return 0;
}

static int read_root(const cJSON *root, const char *path, harness_job_summary *out, harness_error *err)
{
    char why[512];
    if (!cJSON_IsObject(root))
        return harness_field_bad(err, path, "expected a JSON object, got %s", harness_field_kind(root));
    if (harness_schema_check(root, HARNESS_SCHEMA_JOB_SUMMARY, why, sizeof why) != 0)
        return harness_field_bad(err, path, "%s", why);
    const cJSON *a, *e;
    if (count(root, "", "world_size", path, &out->world_size, err) != 0 || harness_field_string(root, "", "variant_key", path, &out->variant_key, err) != 0 ||
        harness_field_string(root, "", "status", path, &out->status, err) != 0 ||
        harness_slurm_read(root, "", path, &out->slurm, err) != 0 ||
        read_lists(root, path, out, err) != 0 ||
        harness_field_object(root, "", "across_ranks", path, &a, err) != 0 ||
        count(a, "across_ranks.", "ranks_measured", path, &out->ranks_measured, err) != 0 ||
        harness_field_number(a, "across_ranks.", "min_median", path, &out->min_median, err) != 0 ||
        harness_field_number(a, "across_ranks.", "median_median", path, &out->median_median, err) != 0 ||
        harness_field_number(a, "across_ranks.", "max_median", path, &out->max_median, err) != 0 ||
        harness_field_number(a, "across_ranks.", "skew", path, &out->skew, err) != 0 ||
        rank_or_none(a, "across_ranks.", "slowest_rank", path, &out->slowest_rank, err) != 0 ||
        rank_or_none(a, "across_ranks.", "fastest_rank", path, &out->fastest_rank, err) != 0 ||
        harness_field_object(root, "", "energy", path, &e, err) != 0 ||
        count(e, "energy.", "ranks_measured", path, &out->energy_ranks_measured, err) != 0 ||
        count(e, "energy.", "counters", path, &out->energy_counters, err) != 0 ||
        harness_field_number(e, "energy.", "watts", path, &out->energy_watts, err) != 0 ||
        harness_field_number(e, "energy.", "joules_per_step", path, &out->energy_joules_per_step, err) != 0 ||
        harness_job_pairs_read(cJSON_GetObjectItemCaseSensitive(root, "pairs"), path, &out->pairs, err) != 0 ||
        read_gather(root, path, out, err) != 0 ||
        harness_job_nodes_read(root, path, &out->nodes, err) != 0)
        return err->code;
    return 0;
}

int harness_job_summary_parse(const char *path, const char *text, size_t len, harness_job_summary *out,
                              harness_error *err)
{
    memset(out, 0, sizeof *out);
    cJSON *root = cJSON_ParseWithLength(text, len);
    int rc = root ? read_root(root, path, out, err) : harness_field_bad(err, path, "invalid JSON; not a %s", WHAT);
    cJSON_Delete(root);
    if (rc != 0)
        harness_job_summary_free(out);
    return rc;
}
