/* compare_load.c - the reading side of `harness compare` (docs/ARCHITECTURE.md section 8):
 * loading one summary_ranks_N_rank_r.json and checking that it is a complete
 * harness summary (naming the bad key, or the line and column of bad JSON),
 * and finding the summaries of one side: an experiment folder or a folder of
 * them, searched to a few levels with folder names in natural order (digit
 * runs compared as numbers, so that newer folders sort later). Matching runs
 * and judging them is in compare.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* open_memstream, strndup, asprintf, before any system header */
#endif
#include "compare/compare.h"
#include "compare/compare_internal.h"
#include "util/input_file.h"
#include "compare/experiment_folders.h"
#include "compare/folder_ranks.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/json_strict.h"
#include "util/folder_format.h"
#include "util/sample_file.h"


/* ---- one summary ------------------------------------------------------------- */

void harness_run_summary_free(harness_run_summary *r)
{
    if (!r)
        return;
    free(r->path);
    free(r->folder);
    free(r->variant_key);
    free(r->experiment_name);
    cJSON_Delete(r->config);
    free(r->config_text);
    free(r->device_name);
    free(r->status);
    free(r->error);
    free(r->impossible_allowed);
    free(r->samples);
    free(r->window_medians);
    free(r->window_start);
    free(r->window_len);
    free(r->noise_evidence);
    free(r->host);
    free(r->window_energy);
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

static int bad(harness_error *err, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(harness_error *err, const char *path, const char *fmt, ...)
{
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: %s", path, msg);
}

static const char *type_name(const cJSON *j)
{
    if (!j) return "missing";
    if (cJSON_IsObject(j)) return "an object";
    if (cJSON_IsArray(j)) return "an array";
    if (cJSON_IsString(j)) return "a string";
    if (cJSON_IsNumber(j)) return "a number";
    if (cJSON_IsBool(j)) return "a boolean";
    if (cJSON_IsNull(j)) return "null";
    return "invalid";
}

/* A required member of the given kind; its dotted name in messages. */
static const cJSON *need(const cJSON *obj, const char *key, const char *dotted, cJSON_bool (*is)(const cJSON *),
                         const char *kind, const char *path, harness_error *err)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!j) {
        bad(err, path, "%s: missing; not a complete harness summary", dotted);
        return NULL;
    }
    if (!is(j)) {
        bad(err, path, "%s: expected %s, got %s", dotted, kind, type_name(j));
        return NULL;
    }
    return j;
}

static int need_int(const cJSON *obj, const char *key, int min, const char *path, int *out, harness_error *err)
{
    const cJSON *j = need(obj, key, key, cJSON_IsNumber, "an integer", path, err);
    if (!j)
        return err->code;
    double v = j->valuedouble;
    if (!(v >= min && v <= INT32_MAX) || v != floor(v))
        return bad(err, path, "%s: expected an integer >= %d, got %g", key, min, v);
    *out = (int)v;
    return 0;
}

/* "k=v, k=v": strings bare, anything else as compact JSON. */
static char *config_text(const cJSON *config)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int first = 1;
    for (const cJSON *c = config->child; c; c = c->next) {
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

/* timing.samples: every sample inline, as runs of up to
 * HARNESS_SUMMARY_INLINE_SAMPLES steps (and every run before side files)
 * write them. */
static int parse_inline_samples(const cJSON *samples, const char *path, harness_run_summary *out,
                                harness_error *err)
{
    int n = cJSON_GetArraySize(samples);
    if (n > 0) {
        out->samples = malloc((size_t)n * sizeof *out->samples);
        if (!out->samples)
            return harness_cmp_oom(err);
    }
    size_t i = 0;
    for (const cJSON *s = samples->child; s && i < (size_t)n; s = s->next, i++) {
        if (!cJSON_IsNumber(s) || !isfinite(s->valuedouble) || s->valuedouble < 0)
            return bad(err, path, "timing.samples[%zu]: expected a duration in ns (a finite number >= 0), got %s",
                       i, !cJSON_IsNumber(s) ? type_name(s) : isfinite(s->valuedouble) ? "a negative number"
                                                                                        : "an infinite number");
        out->samples[i] = s->valuedouble;
    }
    out->n_samples = i;
    return 0;
}

/* A side file's name must be a plain file name in the summary's own folder:
 * a summary may come from anywhere, and must not make compare read
 * /dev/zero or a file outside its folder. */
static int plain_file_name(const char *name)
{
    return name[0] && name[0] != '.' && !strchr(name, '/') && strlen(name) < 256;
}

/* timing.samples_file: the samples in a binary side file beside the
 * summary (util/sample_file.h), checked against the count and SHA-256 the
 * summary holds. */
static int parse_samples_file(const cJSON *ref, const char *path, harness_run_summary *out, harness_error *err)
{
    const cJSON *name = need(ref, "name", "timing.samples_file.name", cJSON_IsString, "a string", path, err);
    if (!name)
        return err->code;
    const cJSON *format = need(ref, "format", "timing.samples_file.format", cJSON_IsString, "a string", path, err);
    if (!format)
        return err->code;
    const cJSON *count = need(ref, "count", "timing.samples_file.count", cJSON_IsNumber, "an integer", path, err);
    if (!count)
        return err->code;
    const cJSON *sha = need(ref, "sha256", "timing.samples_file.sha256", cJSON_IsString, "a string", path, err);
    if (!sha)
        return err->code;
    const cJSON *unit = cJSON_GetObjectItemCaseSensitive(ref, "unit");
    if (unit && !cJSON_IsString(unit))
        return bad(err, path, "timing.samples_file.unit: expected a string, got %s", type_name(unit));
    if (!plain_file_name(name->valuestring))
        return bad(err, path, "timing.samples_file.name: \"%.200s\" is not a file name in the summary's folder",
                   name->valuestring);
    if (strcmp(format->valuestring, HARNESS_SAMPLE_FILE_FORMAT) != 0)
        return bad(err, path, "timing.samples_file.format: \"%.100s\" is not \"%s\"; written by another version "
                   "of harness?", format->valuestring, HARNESS_SAMPLE_FILE_FORMAT);
    double c = count->valuedouble;
    if (!(c >= 0 && c <= 1e15) || c != floor(c))
        return bad(err, path, "timing.samples_file.count: expected an integer >= 0, got %g", c);
    char *file = NULL;
    if (asprintf(&file, "%s/%s", out->folder, name->valuestring) < 0)
        return harness_cmp_oom(err);
    harness_sample_file_expect expect = {
        .count = (long long)c, .sha256_hex = sha->valuestring, .unit = unit ? unit->valuestring : "ns",
    };
    int rc = harness_sample_file_read(file, &expect, &out->samples, &out->n_samples, err);
    free(file);
    return rc;
}

static int parse_timing(const cJSON *root, const char *path, harness_run_summary *out, harness_error *err)
{
    const cJSON *timing = need(root, "timing", "timing", cJSON_IsObject, "an object", path, err);
    if (!timing)
        return err->code;
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(timing, "samples_file");
    int rc;
    if (ref) {
        if (!cJSON_IsObject(ref))
            return bad(err, path, "timing.samples_file: expected an object, got %s", type_name(ref));
        if (cJSON_GetObjectItemCaseSensitive(timing, "samples"))
            return bad(err, path, "timing: both samples and samples_file; a summary holds one or the other");
        rc = parse_samples_file(ref, path, out, err);
    } else {
        const cJSON *samples = need(timing, "samples", "timing.samples", cJSON_IsArray, "an array of ns", path,
                                    err);
        rc = samples ? parse_inline_samples(samples, path, out, err) : err->code;
    }
    if (rc != 0)
        return rc;
    if (out->n_samples == 0 && strcmp(out->status, "ok") == 0)
        return bad(err, path, "timing.samples: empty in a run whose status is \"ok\"; nothing to compare");
    if (harness_stats_compute(out->samples, out->n_samples, &out->stats) != 0)
        return harness_cmp_oom(err);
    return 0;
}

/* A run that measured an impossible figure is not judged: its figures
 * say a measurement or the component is wrong, so any verdict on them
 * would be too. Refused (exit 2, naming the folder and the figure), unless
 * its run kept it with --allow-above-peak: then kept, and the figure noted
 * for the caller to say. */
static int impossible_figure(const cJSON *root, const char *path, harness_run_summary *out, harness_error *err)
{
    const cJSON *imp = cJSON_GetObjectItemCaseSensitive(root, "impossible_figure");
    if (!imp || cJSON_IsNull(imp))
        return 0;
    const cJSON *msg = cJSON_IsObject(imp) ? cJSON_GetObjectItemCaseSensitive(imp, "message") : NULL;
    const cJSON *allowed = cJSON_IsObject(imp) ? cJSON_GetObjectItemCaseSensitive(imp, "allowed") : NULL;
    if (!cJSON_IsString(msg) || !cJSON_IsBool(allowed))
        return bad(err, path, "impossible_figure: expected null or an object with a message and allowed");
    if (cJSON_IsTrue(allowed))
        return (out->impossible_allowed = strdup(msg->valuestring)) ? 0 : harness_cmp_oom(err);
    return bad(err, path, "%s. Not judged: a figure the hardware cannot reach makes every verdict on the run "
               "wrong too (a run made with --allow-above-peak is judged, and said to be)", msg->valuestring);
}

static int parse_root(const cJSON *root, const char *path, harness_run_summary *out, harness_error *err)
{
    if (!cJSON_IsObject(root))
        return bad(err, path, "expected a JSON object, got %s; not a harness summary", type_name(root));
    char why[512];
    if (harness_schema_check(root, HARNESS_SCHEMA_SUMMARY, why, sizeof why) != 0)
        return bad(err, path, "%s", why);
    if (need_int(root, "world_size", 1, path, &out->world_size, err) != 0 ||
        need_int(root, "rank", 0, path, &out->rank, err) != 0)
        return err->code;
    if (out->rank >= out->world_size)
        return bad(err, path, "rank %d is not below world_size %d", out->rank, out->world_size);

    const cJSON *comp = need(root, "component", "component", cJSON_IsObject, "an object", path, err);
    if (!comp)
        return err->code;
    const cJSON *key = need(comp, "variant_key", "component.variant_key", cJSON_IsString, "a string", path, err);
    if (!key)
        return err->code;
    const cJSON *config = need(comp, "config", "component.config", cJSON_IsObject, "an object", path, err);
    if (!config)
        return err->code;
    const cJSON *status = need(root, "status", "status", cJSON_IsString, "a string", path, err);
    if (!status)
        return err->code;
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(root, "error");
    const cJSON *device = cJSON_GetObjectItemCaseSensitive(root, "device");
    const cJSON *device_name = cJSON_IsObject(device) ? cJSON_GetObjectItemCaseSensitive(device, "name") : NULL;

    const cJSON *exp = cJSON_GetObjectItemCaseSensitive(root, "experiment");
    const cJSON *exp_name = cJSON_IsObject(exp) ? cJSON_GetObjectItemCaseSensitive(exp, "name") : NULL;
    if (cJSON_IsString(exp_name) && !(out->experiment_name = strdup(exp_name->valuestring)))
        return harness_cmp_oom(err);
    out->variant_key = strdup(key->valuestring);
    out->status = strdup(status->valuestring);
    out->config = cJSON_Duplicate(config, 1);
    out->config_text = out->config ? config_text(out->config) : NULL;
    if (cJSON_IsString(error) && error->valuestring[0])
        out->error = strdup(error->valuestring);
    if (cJSON_IsString(device_name))
        out->device_name = strdup(device_name->valuestring);
    if (!out->variant_key || !out->status || !out->config || !out->config_text ||
        (cJSON_IsString(error) && error->valuestring[0] && !out->error) ||
        (cJSON_IsString(device_name) && !out->device_name))
        return harness_cmp_oom(err);

    const cJSON *val = cJSON_GetObjectItemCaseSensitive(root, "validation");
    if (val && !cJSON_IsObject(val))
        return bad(err, path, "validation: expected an object, got %s", type_name(val));
    const cJSON *passed = val ? cJSON_GetObjectItemCaseSensitive(val, "passed") : NULL;
    const cJSON *vstatus = val ? cJSON_GetObjectItemCaseSensitive(val, "status") : NULL;
    out->validation_failed = cJSON_IsFalse(passed) ||
                             (cJSON_IsString(vstatus) && strcmp(vstatus->valuestring, "failed") == 0) ||
                             strcmp(out->status, "validation_failed") == 0;
    if (impossible_figure(root, path, out, err) != 0 || parse_timing(root, path, out, err) != 0)
        return err->code;
    if (harness_cmp_parse_replicates(root, path, out, err) != 0)
        return err->code;
    return harness_cmp_parse_energy(root, path, out, err);
}

int harness_run_summary_parse(const char *path, const char *text, size_t len, harness_run_summary *out,
                              harness_error *err)
{
    memset(out, 0, sizeof *out);
    if (len == 0)
        return bad(err, path, "empty file; not a harness summary");
    harness_json_problem problem;
    if (harness_json_check_strict(text, len, &problem) != 0) {
        int line, col;
        line_col(text, problem.offset, &line, &col);
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s:%d:%d: invalid JSON (%s); not a harness summary",
                                 path, line, col, problem.why);
    }
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        size_t off = at && at >= text && at <= text + len ? (size_t)(at - text) : 0;
        int line, col;
        line_col(text, off, &line, &col);
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s:%d:%d: invalid JSON; not a harness summary", path,
                                 line, col);
    }
    out->path = strdup(path);
    const char *slash = strrchr(path, '/');
    out->folder = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    int rc = out->path && out->folder ? parse_root(root, path, out, err) : harness_cmp_oom(err);
    cJSON_Delete(root);
    if (rc != 0)
        harness_run_summary_free(out);
    return rc;
}

int harness_run_summary_load(const char *path, harness_run_summary *out, harness_error *err)
{
    memset(out, 0, sizeof *out);
    char *buf = NULL;
    size_t len = 0;
    /* The one reader: a FIFO, a device or a 3 GB sparse file is refused
     * (exit 2, naming it), never waited on or read whole. */
    if (harness_read_input_file(path, "summary", HARNESS_MAX_READ_BACK_BYTES, HARNESS_EXIT_USAGE, &buf, &len,
                                err) != 0)
        return err->code;
    int rc = harness_run_summary_parse(path, buf, len, out, err);
    free(buf);
    return rc;
}

void harness_run_summaries_note_allowed(const harness_run_summary *runs, size_t n, const char *command, FILE *f)
{
    for (size_t i = 0; i < n; i++)
        if (runs[i].impossible_allowed)
            fprintf(f, "harness: warning: %s: %s: judged although its run measured an impossible figure, kept by "
                    "--allow-above-peak: %s\n", command, runs[i].folder, runs[i].impossible_allowed);
}

/* ---- one side: a folder of summaries, or of experiment folders --------------- */

int harness_compare_side_add(harness_compare_side *side, harness_run_summary *run, harness_error *err)
{
    if (side->n_runs == side->cap) {
        size_t ncap = side->cap ? side->cap * 2 : 8;
        harness_run_summary *grown = realloc(side->runs, ncap * sizeof *grown);
        if (!grown)
            return harness_cmp_oom(err);
        side->runs = grown;
        side->cap = ncap;
    }
    side->runs[side->n_runs++] = *run;
    memset(run, 0, sizeof *run);
    return 0;
}

const char *harness_summary_bench_name(const char *experiment, const char *key, const cJSON *config, char *buf,
                                       size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "%s %s", experiment ? experiment : "?", key ? key : "?");
    for (const cJSON *p = cJSON_IsObject(config) ? config->child : NULL; p && len < cap; p = p->next) {
        char *v = cJSON_IsString(p) ? NULL : cJSON_PrintUnformatted(p);
        len += (size_t)snprintf(buf + len, cap - len, " %s=%s", p->string, v ? v : p->valuestring);
        free(v);
    }
    return buf;
}

const char *harness_run_summary_name(const harness_run_summary *r, char *buf, size_t cap)
{
    return harness_summary_bench_name(r->experiment_name, r->variant_key, r->config, buf, cap);
}

size_t harness_compare_side_keep(harness_compare_side *side, int (*keep)(const char *name, void *arg), void *arg)
{
    char name[1024];
    size_t k = 0;
    for (size_t i = 0; i < side->n_runs; i++) {
        if (keep(harness_run_summary_name(&side->runs[i], name, sizeof name), arg))
            side->runs[k++] = side->runs[i];
        else
            harness_run_summary_free(&side->runs[i]);
    }
    side->n_runs = k;
    k = 0;
    for (size_t i = 0; i < side->n_incomplete; i++) {
        harness_incomplete_run *r = &side->incomplete[i];
        snprintf(name, sizeof name, "? %s", r->variant_key ? r->variant_key : "");
        if (!r->variant_key || keep(name, arg)) {
            side->incomplete[k++] = *r;
            continue;
        }
        free(r->folder);
        free(r->status);
        free(r->error);
        free(r->variant_key);
    }
    side->n_incomplete = k;
    return side->n_runs + side->n_incomplete;
}

void harness_compare_side_free(harness_compare_side *side)
{
    if (!side)
        return;
    for (size_t i = 0; i < side->n_runs; i++)
        harness_run_summary_free(&side->runs[i]);
    free(side->runs);
    for (size_t i = 0; i < side->n_incomplete; i++) {
        free(side->incomplete[i].folder);
        free(side->incomplete[i].status);
        free(side->incomplete[i].error);
        free(side->incomplete[i].variant_key);
    }
    free(side->incomplete);
    free(side->root);
    memset(side, 0, sizeof *side);
}

/* Rank rf of dir left no summary: keep what its status file says, so that
 * the comparison fails rather than skip a killed rank. */
static int add_incomplete(harness_compare_side *side, const char *dir, int world_size, const harness_rank_files *rf,
                          harness_error *err)
{
    harness_incomplete_run run = {
        .folder = strdup(dir), .rank = rf->rank, .world_size = world_size,
        .status = strdup(rf->status ? rf->status : "missing"),
        .error = rf->error ? strdup(rf->error) : NULL,
        .variant_key = rf->variant_key ? strdup(rf->variant_key) : NULL,
    };
    /* doubling: a folder of a 40,000-rank job must not cost 40,000 copies of the list */
    harness_incomplete_run *grown = side->incomplete;
    if (side->n_incomplete == side->incomplete_cap) {
        size_t cap = side->incomplete_cap ? 2 * side->incomplete_cap : 8;
        if ((grown = realloc(side->incomplete, cap * sizeof *grown)) != NULL) {
            side->incomplete = grown;
            side->incomplete_cap = cap;
        }
    }
    if (!grown || !run.folder || !run.status || (rf->error && !run.error) || (rf->variant_key && !run.variant_key)) {
        free(run.folder), free(run.status), free(run.error), free(run.variant_key);
        return harness_cmp_oom(err);
    }
    side->incomplete[side->n_incomplete++] = run;
    return 0;
}

/* Every rank of the experiment folder dir: its summary, settled by its
 * status file, or an incomplete run. */
static int load_experiment(harness_compare_side *side, const char *dir, const harness_folder_ranks *fr,
                           harness_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < fr->n && rc == 0; i++) {
        const harness_rank_files *rf = &fr->ranks[i];
        char *path = NULL;
        if (rf->summary[0] && asprintf(&path, "%s/%s", dir, rf->summary) < 0)
            path = NULL;
        struct stat st;
        if (rf->summary[0] && !path) {
            rc = harness_cmp_oom(err);
        } else if (path && lstat(path, &st) == 0) {
            /* Whatever it is: the reader refuses what is not a regular
             * file (exit 2, naming it) rather than call the rank missing. */
            harness_run_summary run;
            rc = harness_run_summary_load(path, &run, err);
            if (rc == 0 && (rc = harness_rank_files_settle(rf, dir, &run, err)) == 0)
                rc = harness_compare_side_add(side, &run, err);
            harness_run_summary_free(&run);   /* zeroed once added or failed to load */
        } else {
            rc = add_incomplete(side, dir, fr->world_size, rf, err);
        }
        free(path);
    }
    return rc;
}

int harness_compare_side_load(const char *root, harness_compare_side *side, harness_error *err)
{
    memset(side, 0, sizeof *side);
    harness_experiment_folders found;
    if (harness_experiment_folders_find(root, &found, err) != 0)
        return err->code;
    int rc = (side->root = strdup(root)) ? 0 : harness_cmp_oom(err);
    side->is_parent = !found.root_is_experiment;
    for (size_t i = 0; rc == 0 && i < found.n; i++) {
        harness_folder_ranks fr;
        rc = harness_folder_ranks_read(found.paths[i], &fr, err);
        if (rc == 0)
            rc = load_experiment(side, found.paths[i], &fr, err);
        harness_folder_ranks_free(&fr);
    }
    harness_experiment_folders_free(&found);
    if (rc == 0 && side->n_runs == 0 && side->n_incomplete == 0)
        rc = bad(err, root, "no summary_ranks_N_rank_r.json in this folder or its subfolders (to depth %d); "
                 "expected an experiment folder written by `harness run` or a folder of them",
                 HARNESS_EXPERIMENT_SEARCH_DEPTH);
    if (rc != 0)
        harness_compare_side_free(side);
    return rc;
}
