/* rank_summary.c - reading summary_ranks_N_rank_r.json into its record
 * (rank_summary.h): the file (strict JSON, naming the line and column of a
 * fault), its schema, and the top level: who ran what, and how it ended.
 * The timing is rank_summary_timing.c's, energy, noise and env
 * rank_summary_extra.c's. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* open_memstream, strndup */
#endif
#include "folder/rank_summary.h"
#include "folder/rank_summary_extra.h"
#include "folder/rank_summary_timing.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folder/folder_format.h"
#include "folder/json_fields.h"
#include "util/input_file.h"
#include "util/json_strict.h"
#include "util/sha256.h"

#define WHAT "harness summary"     /* "missing; not a complete harness summary" */

void harness_rank_summary_free(harness_rank_summary *r)
{
    if (!r)
        return;
    free(r->path);
    free(r->folder);
    free(r->variant_key);
    free(r->experiment_name);
    free(r->plugin);
    cJSON_Delete(r->config);
    free(r->config_text);
    free(r->device_type);
    free(r->device_name);
    free(r->status);
    free(r->error);
    free(r->validation_status);
    free(r->samples);
    harness_rs_stats_free(&r->timing);
    for (size_t i = 0; i < r->n_written_windows; i++)
        harness_rs_stats_free(&r->windows[i]);
    free(r->windows);
    free(r->window_medians);
    free(r->window_start);
    free(r->window_len);
    free(r->window_energy);
    free(r->noise_evidence);
    harness_rs_energy_free(&r->energy);
    free(r->impossible_message);
    free(r->impossible_allowed);
    free(r->host);
    free(r->env_cpu);
    free(r->env_gpu);
    free(r->env_git_commit);
    free(r->env_harness_version);
    free(r->env_started_at);
    cJSON_Delete(r->env);
    memset(r, 0, sizeof *r);
}

/* 1-based line and column of byte `off` of text. */
static void line_col(const char *text, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (text[i] == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

static int need_int(const cJSON *obj, const char *key, int min, const char *path, int *out, harness_error *err)
{
    const cJSON *j = harness_field_need(obj, "", key, cJSON_IsNumber, "an integer", WHAT, path, err);
    if (!j)
        return err->code;
    double v = j->valuedouble;
    if (!(v >= min && v <= INT32_MAX) || v != floor(v))
        return harness_field_bad(err, path, "%s: expected an integer >= %d, got %g", key, min, v);
    *out = (int)v;
    return 0;
}

char *harness_rank_summary_config_text(const cJSON *config)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int first = 1;
    for (const cJSON *c = config ? config->child : NULL; c; c = c->next) {
        fprintf(f, "%s%s=", first ? "" : ", ", c->string ? c->string : "?");
        first = 0;
        if (cJSON_IsString(c)) {
            fputs(c->valuestring, f);
        } else {
            char *v = cJSON_PrintUnformatted(c);
            fputs(v ? v : "?", f);
            free(v);
        }
    }
    if (first)
        fputs("-", f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* component: what ran, with which parameters. */
static int read_component(const cJSON *root, const char *path, harness_rank_summary *out, harness_error *err)
{
    const cJSON *comp = harness_field_need(root, "", "component", cJSON_IsObject, "an object", WHAT, path, err);
    const cJSON *key = comp ? harness_field_need(comp, "component.", "variant_key", cJSON_IsString, "a string", WHAT,
                                                 path, err) : NULL;
    const cJSON *config = key ? harness_field_need(comp, "component.", "config", cJSON_IsObject, "an object", WHAT,
                                                   path, err) : NULL;
    if (!config)
        return err->code;
    if (harness_field_string(comp, "component.", "plugin", path, &out->plugin, err) != 0)
        return err->code;
    out->variant_key = strdup(key->valuestring);
    out->config = cJSON_Duplicate(config, 1);
    out->config_text = out->config ? harness_rank_summary_config_text(out->config) : NULL;
    return out->variant_key && out->config && out->config_text ? 0 : harness_field_oom(err);
}

/* status, error, validation: how the run ended. */
static int read_outcome(const cJSON *root, const char *path, harness_rank_summary *out, harness_error *err)
{
    const cJSON *status = harness_field_need(root, "", "status", cJSON_IsString, "a string", WHAT, path, err);
    if (!status)
        return err->code;
    if (!(out->status = strdup(status->valuestring)))
        return harness_field_oom(err);
    if (harness_field_string(root, "", "error", path, &out->error, err) != 0)
        return err->code;
    if (out->error && !out->error[0]) {   /* "" says no more than null */
        free(out->error);
        out->error = NULL;
    }
    const cJSON *val;
    int passed;
    if (harness_field_object(root, "", "validation", path, &val, err) != 0 ||
        harness_field_string(val, "validation.", "status", path, &out->validation_status, err) != 0 ||
        harness_field_bool(val, "validation.", "passed", path, &passed, err) != 0)
        return err->code;
    out->validation_failed = passed == 0 ||
                             (out->validation_status && strcmp(out->validation_status, "failed") == 0) ||
                             strcmp(out->status, "validation_failed") == 0;
    return 0;
}

/* experiment, device, throughput: where and what it measured. */
static int read_context(const cJSON *root, const char *path, harness_rank_summary *out, harness_error *err)
{
    const cJSON *exp, *device, *tp;
    if (harness_field_object(root, "", "experiment", path, &exp, err) != 0 ||
        harness_field_string(exp, "experiment.", "name", path, &out->experiment_name, err) != 0 ||
        harness_field_object(root, "", "device", path, &device, err) != 0 ||
        harness_field_string(device, "device.", "type", path, &out->device_type, err) != 0 ||
        harness_field_string(device, "device.", "name", path, &out->device_name, err) != 0 ||
        harness_field_object(root, "", "throughput", path, &tp, err) != 0 ||
        harness_field_number(tp, "throughput.", "bytes_per_step", path, &out->bytes_per_step, err) != 0 ||
        harness_field_number(tp, "throughput.", "flops_per_step", path, &out->flops_per_step, err) != 0)
        return err->code;
    return 0;
}

static int read_root(const cJSON *root, const char *path, int flags, harness_rank_summary *out, harness_error *err)
{
    if (!cJSON_IsObject(root))
        return harness_field_bad(err, path, "expected a JSON object, got %s; not a harness summary",
                                 harness_field_kind(root));
    char why[512];
    if (harness_schema_check(root, HARNESS_SCHEMA_SUMMARY, why, sizeof why) != 0)
        return harness_field_bad(err, path, "%s", why);
    if (need_int(root, "world_size", 1, path, &out->world_size, err) != 0 ||
        need_int(root, "rank", 0, path, &out->rank, err) != 0)
        return err->code;
    if (out->rank >= out->world_size)
        return harness_field_bad(err, path, "rank %d is not below world_size %d", out->rank, out->world_size);
    if (read_component(root, path, out, err) != 0 || read_outcome(root, path, out, err) != 0 ||
        read_context(root, path, out, err) != 0 || harness_rs_read_impossible(root, path, out, err) != 0 ||
        harness_rs_read_timing(root, path, flags, out, err) != 0 || harness_rs_read_env(root, path, out, err) != 0 ||
        harness_rs_read_noise(root, path, out, err) != 0)
        return err->code;
    if (harness_rs_read_energy(root, "", path, &out->energy, err) != 0)
        return err->code;
    out->energy_j_per_step = out->energy.joules_per_step;
    out->energy_watts = out->energy.watts;
    return 0;
}

/* Where a fault of the text lies, as "PATH:LINE:COL". */
static int bad_json(const char *path, const char *text, size_t off, const char *why, harness_error *err)
{
    int line, col;
    line_col(text, off, &line, &col);
    if (why)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s:%d:%d: invalid JSON (%s); not a harness summary", path,
                                 line, col, why);
    return harness_error_set(err, HARNESS_EXIT_USAGE, "%s:%d:%d: invalid JSON; not a harness summary", path, line,
                             col);
}

int harness_rank_summary_parse(const char *path, const char *text, size_t len, int flags, harness_rank_summary *out,
                               harness_error *err)
{
    memset(out, 0, sizeof *out);
    if (len == 0)
        return harness_field_bad(err, path, "empty file; not a harness summary");
    harness_json_problem problem;
    if (harness_json_check_strict(text, len, &problem) != 0)
        return bad_json(path, text, problem.offset, problem.why, err);
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        return bad_json(path, text, at && at >= text && at <= text + len ? (size_t)(at - text) : 0, NULL, err);
    }
    uint8_t d[32];
    harness_sha256_digest(text, len, d);
    for (int i = 0; i < 32; i++)
        snprintf(out->sha256 + 2 * i, 3, "%02x", d[i]);
    out->path = strdup(path);
    const char *slash = strrchr(path, '/');
    out->folder = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    int rc = out->path && out->folder ? read_root(root, path, flags, out, err) : harness_field_oom(err);
    cJSON_Delete(root);
    if (rc != 0)
        harness_rank_summary_free(out);
    return rc;
}

int harness_rank_summary_read(const char *path, int flags, harness_rank_summary *out, harness_error *err)
{
    memset(out, 0, sizeof *out);
    char *buf = NULL;
    size_t len = 0;
    /* A FIFO, a device or a 3 GB sparse file is refused (exit 2, naming
     * it), never waited on or read whole. */
    if (harness_read_input_file(path, "summary", HARNESS_MAX_READ_BACK_BYTES, HARNESS_EXIT_USAGE, &buf, &len,
                                err) != 0)
        return err->code;
    int rc = harness_rank_summary_parse(path, buf, len, flags, out, err);
    free(buf);
    return rc;
}
