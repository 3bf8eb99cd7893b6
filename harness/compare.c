/* compare.c - load summaries, match runs, judge pairs (DESIGN.md section 8).
 * The reports are in compare_report.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* vasprintf, before any system header */
#endif
#include "compare.h"

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

#define MAX_DEPTH 4                /* folders below the root searched for experiment folders */

static int oom(harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
}

/* ---- one summary ------------------------------------------------------------- */

void harness_run_summary_free(harness_run_summary *r)
{
    if (!r)
        return;
    free(r->path);
    free(r->folder);
    free(r->variant_key);
    cJSON_Delete(r->config);
    free(r->config_text);
    free(r->device_name);
    free(r->status);
    free(r->error);
    free(r->samples);
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

static int parse_timing(const cJSON *root, const char *path, harness_run_summary *out, harness_error *err)
{
    const cJSON *timing = need(root, "timing", "timing", cJSON_IsObject, "an object", path, err);
    if (!timing)
        return err->code;
    const cJSON *samples = need(timing, "samples", "timing.samples", cJSON_IsArray, "an array of ns", path, err);
    if (!samples)
        return err->code;
    int n = cJSON_GetArraySize(samples);
    if (n > 0) {
        out->samples = malloc((size_t)n * sizeof *out->samples);
        if (!out->samples)
            return oom(err);
    }
    size_t i = 0;
    for (const cJSON *s = samples->child; s && i < (size_t)n; s = s->next, i++) {
        if (!cJSON_IsNumber(s) || !isfinite(s->valuedouble) || s->valuedouble < 0)
            return bad(err, path, "timing.samples[%zu]: expected a duration in ns (a number >= 0), got %s", i,
                       cJSON_IsNumber(s) ? "a negative number" : type_name(s));
        out->samples[i] = s->valuedouble;
    }
    out->n_samples = i;
    if (out->n_samples == 0 && strcmp(out->status, "ok") == 0)
        return bad(err, path, "timing.samples: empty in a run whose status is \"ok\"; nothing to compare");
    if (harness_stats_compute(out->samples, out->n_samples, &out->stats) != 0)
        return oom(err);
    return 0;
}

static int parse_root(const cJSON *root, const char *path, harness_run_summary *out, harness_error *err)
{
    if (!cJSON_IsObject(root))
        return bad(err, path, "expected a JSON object, got %s; not a harness summary", type_name(root));
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!schema)
        return bad(err, path, "no \"schema\" key; not a harness summary (expected \"%s\")", HARNESS_SUMMARY_SCHEMA);
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, HARNESS_SUMMARY_SCHEMA) != 0) {
        if (cJSON_IsString(schema))
            return bad(err, path, "schema \"%.200s\" is not \"%s\"; written by another version of harness?",
                       schema->valuestring, HARNESS_SUMMARY_SCHEMA);
        return bad(err, path, "schema: expected the string \"%s\", got %s", HARNESS_SUMMARY_SCHEMA,
                   type_name(schema));
    }
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
        return oom(err);

    const cJSON *val = cJSON_GetObjectItemCaseSensitive(root, "validation");
    if (val && !cJSON_IsObject(val))
        return bad(err, path, "validation: expected an object, got %s", type_name(val));
    const cJSON *passed = val ? cJSON_GetObjectItemCaseSensitive(val, "passed") : NULL;
    const cJSON *vstatus = val ? cJSON_GetObjectItemCaseSensitive(val, "status") : NULL;
    out->validation_failed = cJSON_IsFalse(passed) ||
                             (cJSON_IsString(vstatus) && strcmp(vstatus->valuestring, "failed") == 0) ||
                             strcmp(out->status, "validation_failed") == 0;
    return parse_timing(root, path, out, err);
}

int harness_run_summary_parse(const char *path, const char *text, size_t len, harness_run_summary *out,
                              harness_error *err)
{
    memset(out, 0, sizeof *out);
    if (len == 0)
        return bad(err, path, "empty file; not a harness summary");
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
    int rc = out->path && out->folder ? parse_root(root, path, out, err) : oom(err);
    cJSON_Delete(root);
    if (rc != 0)
        harness_run_summary_free(out);
    return rc;
}

int harness_run_summary_load(const char *path, harness_run_summary *out, harness_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return bad(err, path, "cannot read: %s", strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int failed = 0;
    for (;;) {
        if (cap - len < 65536) {
            size_t ncap = cap ? cap * 2 : 65536;
            char *grown = realloc(buf, ncap + 1);
            if (!grown) {
                failed = 1;
                break;
            }
            buf = grown;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int read_error = ferror(f);
    int e = errno;
    fclose(f);
    if (failed) {
        free(buf);
        return oom(err);
    }
    if (read_error) {
        free(buf);
        return bad(err, path, "cannot read: %s", strerror(e));
    }
    buf[len] = '\0';
    int rc = harness_run_summary_parse(path, buf, len, out, err);
    free(buf);
    return rc;
}

/* ---- one side: a folder of summaries, or of experiment folders --------------- */

int harness_compare_side_add(harness_compare_side *side, harness_run_summary *run, harness_error *err)
{
    if (side->n_runs == side->cap) {
        size_t ncap = side->cap ? side->cap * 2 : 8;
        harness_run_summary *grown = realloc(side->runs, ncap * sizeof *grown);
        if (!grown)
            return oom(err);
        side->runs = grown;
        side->cap = ncap;
    }
    side->runs[side->n_runs++] = *run;
    memset(run, 0, sizeof *run);
    return 0;
}

void harness_compare_side_free(harness_compare_side *side)
{
    if (!side)
        return;
    for (size_t i = 0; i < side->n_runs; i++)
        harness_run_summary_free(&side->runs[i]);
    free(side->runs);
    free(side->root);
    memset(side, 0, sizeof *side);
}

/* strcmp, except that runs of digits compare as numbers: "x-10" > "x-2". */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0' && isdigit((unsigned char)a[1]))
                a++;
            while (*b == '0' && isdigit((unsigned char)b[1]))
                b++;
            size_t la = 0, lb = 0;
            while (isdigit((unsigned char)a[la]))
                la++;
            while (isdigit((unsigned char)b[lb]))
                lb++;
            if (la != lb)
                return la < lb ? -1 : 1;
            int c = strncmp(a, b, la);
            if (c)
                return c;
            a += la;
            b += lb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return (*a != 0) - (*b != 0);
}

static int natural_cmp_qsort(const void *pa, const void *pb)
{
    return natural_cmp(*(char *const *)pa, *(char *const *)pb);
}

static int is_summary_name(const char *name)
{
    int ws, rank, end = 0;
    if (sscanf(name, "summary_ranks_%d_rank_%d.json%n", &ws, &rank, &end) != 2)
        return 0;
    return end > 0 && name[end] == '\0';
}

static char *join(const char *dir, const char *name)
{
    size_t ld = strlen(dir);
    int slash = ld > 0 && dir[ld - 1] == '/';
    char *p = malloc(ld + strlen(name) + 2);
    if (p)
        sprintf(p, "%s%s%s", dir, slash ? "" : "/", name);
    return p;
}

/* The entries of dir (no hidden ones), in natural order. */
static int list_dir(const char *dir, char ***names, size_t *n, harness_error *err)
{
    *names = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return bad(err, dir, "cannot open folder: %s", strerror(errno));
    size_t cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (*n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            char **grown = realloc(*names, ncap * sizeof *grown);
            if (!grown) {
                rc = oom(err);
                break;
            }
            *names = grown;
            cap = ncap;
        }
        if (!((*names)[*n] = strdup(e->d_name))) {
            rc = oom(err);
            break;
        }
        ++*n;
    }
    closedir(d);
    if (*n > 1)
        qsort(*names, *n, sizeof **names, natural_cmp_qsort);
    return rc;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Load the summaries in dir; when it has none, look in its subfolders.
 * *found: whether dir itself held summaries. */
static int scan(harness_compare_side *side, const char *dir, int depth, int *found, harness_error *err)
{
    char **names;
    size_t n;
    *found = 0;
    if (list_dir(dir, &names, &n, err) != 0) {
        free_names(names, n);
        return err->code;
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!is_summary_name(names[i]))
            continue;
        char *path = join(dir, names[i]);
        struct stat st;
        if (!path) {
            rc = oom(err);
        } else if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            harness_run_summary run;
            rc = harness_run_summary_load(path, &run, err);
            if (rc == 0) {
                *found = 1;
                rc = harness_compare_side_add(side, &run, err);
                harness_run_summary_free(&run);
            }
        }
        free(path);
    }
    for (size_t i = 0; i < n && rc == 0 && !*found && depth < MAX_DEPTH; i++) {
        char *path = join(dir, names[i]);
        struct stat st;
        int sub;
        if (!path)
            rc = oom(err);
        else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            rc = scan(side, path, depth + 1, &sub, err);
        free(path);
    }
    free_names(names, n);
    return rc;
}

int harness_compare_side_load(const char *root, harness_compare_side *side, harness_error *err)
{
    memset(side, 0, sizeof *side);
    struct stat st;
    if (stat(root, &st) != 0)
        return bad(err, root, "%s; expected an experiment folder written by `harness run` or a folder of them",
                   errno == ENOENT ? "no such folder" : strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return bad(err, root, "not a folder; expected an experiment folder written by `harness run` or a folder "
                   "of them");
    if (!(side->root = strdup(root)))
        return oom(err);
    int found;
    if (scan(side, root, 0, &found, err) != 0) {
        harness_compare_side_free(side);
        return err->code;
    }
    side->is_parent = !found;
    if (side->n_runs == 0) {
        harness_compare_side_free(side);
        return bad(err, root, "no summary_ranks_N_rank_r.json in this folder or its subfolders (to depth %d); "
                   "expected an experiment folder written by `harness run` or a folder of them", MAX_DEPTH);
    }
    return 0;
}

/* ---- statistics and verdicts ------------------------------------------------- */

const char *harness_verdict_label(harness_verdict v)
{
    static const char *const names[] = {"no change", "IMPROVEMENT", "REGRESSION", "FAILED"};
    return v < HARNESS_VERDICT_COUNT ? names[v] : "?";
}

const char *harness_verdict_token(harness_verdict v)
{
    static const char *const names[] = {"no_change", "improvement", "regression", "failed"};
    return v < HARNESS_VERDICT_COUNT ? names[v] : "?";
}

harness_verdict harness_compare_verdict(double ratio, double p, const harness_compare_options *o)
{
    if (!(p < o->alpha))
        return HARNESS_VERDICT_NO_CHANGE;
    if (ratio > 1.0 + o->threshold)
        return HARNESS_VERDICT_REGRESSION;
    if (ratio < 1.0 - o->threshold)
        return HARNESS_VERDICT_IMPROVEMENT;
    return HARNESS_VERDICT_NO_CHANGE;
}

/* x / y for durations: 0 / 0 is no change, x / 0 is infinitely slower. */
static double div_ns(double x, double y)
{
    if (y > 0)
        return x / y;
    if (y == 0)
        return x == 0 ? 1.0 : INFINITY;
    return NAN;
}

static void ratio_of(const harness_stats *b, const harness_stats *c, harness_compare_stats *out)
{
    out->base_median = b->n ? b->median : NAN;
    out->base_lo = b->n ? b->ci95_lo : NAN;
    out->base_hi = b->n ? b->ci95_hi : NAN;
    out->cand_median = c->n ? c->median : NAN;
    out->cand_lo = c->n ? c->ci95_lo : NAN;
    out->cand_hi = c->n ? c->ci95_hi : NAN;
    if (b->n && c->n) {
        out->ratio = div_ns(c->median, b->median);
        /* Conservative: the extreme quotients of the two medians' 95% CIs.
         * It covers the true ratio whenever both CIs cover their medians, so
         * with probability >= 0.95^2 = 0.9025 for independent runs under any
         * distribution; adding the two half-widths rather than combining them
         * in quadrature makes its actual coverage much higher (about 99% for
         * two equally wide, roughly normal intervals). */
        out->ratio_lo = div_ns(c->ci95_lo, b->ci95_hi);
        out->ratio_hi = div_ns(c->ci95_hi, b->ci95_lo);
    } else {
        out->ratio = out->ratio_lo = out->ratio_hi = NAN;
    }
}

int harness_compare_samples(const double *base, size_t nb, const double *cand, size_t nc,
                            const harness_compare_options *o, harness_compare_stats *out)
{
    harness_stats b, c;
    if (harness_stats_compute(base, nb, &b) != 0 || harness_stats_compute(cand, nc, &c) != 0)
        return -1;
    ratio_of(&b, &c, out);
    out->p = NAN;
    out->verdict = HARNESS_VERDICT_NO_CHANGE;
    if (nb == 0 || nc == 0)
        return 0;
    out->p = harness_mann_whitney_p(base, nb, cand, nc);
    if (isnan(out->p))
        return -1;
    out->verdict = harness_compare_verdict(out->ratio, out->p, o);
    return 0;
}

/* ---- matching ---------------------------------------------------------------- */

static int add_note(harness_comparison *c, harness_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int add_note(harness_comparison *c, harness_error *err, const char *fmt, ...)
{
    char **grown = realloc(c->notes, (c->n_notes + 1) * sizeof *grown);
    if (!grown)
        return oom(err);
    c->notes = grown;
    va_list ap;
    va_start(ap, fmt);
    int rc = vasprintf(&c->notes[c->n_notes], fmt, ap);
    va_end(ap);
    if (rc < 0)
        return oom(err);
    c->n_notes++;
    return 0;
}

static int same_key(const harness_run_summary *a, const harness_run_summary *b, int by_rank)
{
    if (a->rank != b->rank || a->world_size != b->world_size)
        return 0;
    if (by_rank)
        return 1;
    return strcmp(a->variant_key, b->variant_key) == 0 && cJSON_Compare(a->config, b->config, 1);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

/* Newer: the greater folder name (timestamps, then the "-2" suffixes), then path. */
static int newer(const harness_run_summary *a, const harness_run_summary *b)
{
    int c = natural_cmp(base_name(a->folder), base_name(b->folder));
    if (c == 0)
        c = strcmp(a->path, b->path);
    return c > 0;
}

/* Sort order of the report: variant, config, world size, rank. */
static int run_order(const void *pa, const void *pb)
{
    const harness_run_summary *a = *(const harness_run_summary *const *)pa;
    const harness_run_summary *b = *(const harness_run_summary *const *)pb;
    int c = strcmp(a->variant_key, b->variant_key);
    if (c == 0)
        c = natural_cmp(a->config_text, b->config_text);
    if (c == 0)
        c = (a->world_size > b->world_size) - (a->world_size < b->world_size);
    if (c == 0)
        c = (a->rank > b->rank) - (a->rank < b->rank);
    if (c == 0)
        c = strcmp(a->path, b->path);
    return c;
}

/* The newest run of each key on one side, sorted; notes for the others. */
static int pick_newest(harness_comparison *c, const harness_compare_side *side, const char *label,
                       const harness_run_summary ***out, size_t *n_out, harness_error *err)
{
    *n_out = 0;
    *out = malloc((side->n_runs ? side->n_runs : 1) * sizeof **out);
    if (!*out)
        return oom(err);
    for (size_t i = 0; i < side->n_runs; i++) {
        const harness_run_summary *r = &side->runs[i];
        size_t same = 0, newer_ones = 0;
        for (size_t j = 0; j < side->n_runs; j++) {
            if (!same_key(r, &side->runs[j], 0))
                continue;
            same++;
            newer_ones += j != i && newer(&side->runs[j], r);
        }
        if (newer_ones)
            continue;
        (*out)[(*n_out)++] = r;
        if (same > 1 && add_note(c, err, "%s: %zu runs of %s {%s} rank %d/%d; using the newest by folder name, %s",
                                 label, same, r->variant_key, r->config_text, r->rank, r->world_size,
                                 r->folder) != 0)
            return err->code;
    }
    qsort(*out, *n_out, sizeof **out, run_order);
    return 0;
}

static void judge_failed(harness_compare_pair *p)
{
    const harness_run_summary *sides[2] = {p->base, p->cand};
    static const char *const labels[2] = {"base", "cand"};
    size_t len = 0;
    for (int i = 0; i < 2; i++) {
        const harness_run_summary *r = sides[i];
        const char *why = NULL;
        if (strcmp(r->status, "ok") != 0)
            why = r->status;
        else if (r->validation_failed)
            why = "validation failed";
        if (!why || len >= sizeof p->reason)
            continue;
        len += (size_t)snprintf(p->reason + len, sizeof p->reason - len, "%s%s %s%s%s%.400s", len ? "; " : "",
                                labels[i], strcmp(r->status, "ok") != 0 ? "status " : "", why,
                                r->error ? " (" : "", r->error ? r->error : "");
        if (r->error && len < sizeof p->reason)
            len += (size_t)snprintf(p->reason + len, sizeof p->reason - len, ")");
    }
    if (p->reason[0])
        p->s.verdict = HARNESS_VERDICT_FAILED;
}

static int judge(harness_comparison *c, harness_compare_pair *p, harness_error *err)
{
    const harness_run_summary *b = p->base, *k = p->cand;
    ratio_of(&b->stats, &k->stats, &p->s);
    p->s.p = NAN;
    p->s.verdict = HARNESS_VERDICT_NO_CHANGE;
    if (b->n_samples && k->n_samples) {
        p->s.p = harness_mann_whitney_p(b->samples, b->n_samples, k->samples, k->n_samples);
        if (isnan(p->s.p))
            return oom(err);
        p->s.verdict = harness_compare_verdict(p->s.ratio, p->s.p, &c->opts);
    }
    judge_failed(p);
    if (p->s.verdict != HARNESS_VERDICT_FAILED && (b->n_samples < 8 || k->n_samples < 8) &&
        add_note(c, err, "%s {%s} rank %d/%d: only %zu and %zu samples; the U test's normal approximation is "
                 "rough below 8", b->variant_key, b->config_text, b->rank, b->world_size, b->n_samples,
                 k->n_samples) != 0)
        return err->code;
    if (c->by_rank && (strcmp(b->variant_key, k->variant_key) != 0 || !cJSON_Compare(b->config, k->config, 1)) &&
        add_note(c, err, "rank %d/%d: base is %s {%s}, cand is %s {%s}; compared as given (two experiment folders)",
                 b->rank, b->world_size, b->variant_key, b->config_text, k->variant_key, k->config_text) != 0)
        return err->code;
    if (b->device_name && k->device_name && strcmp(b->device_name, k->device_name) != 0 &&
        add_note(c, err, "%s {%s} rank %d/%d: base ran on %s, cand on %s", b->variant_key, b->config_text, b->rank,
                 b->world_size, b->device_name, k->device_name) != 0)
        return err->code;
    return 0;
}

static int match(harness_comparison *c, harness_error *err)
{
    const harness_run_summary **base = NULL, **cand = NULL;
    size_t nb = 0, nc = 0;
    int rc = pick_newest(c, &c->base, "base", &base, &nb, err);
    if (rc == 0)
        rc = pick_newest(c, &c->cand, "cand", &cand, &nc, err);
    char *taken = rc == 0 ? calloc(nc ? nc : 1, 1) : NULL;
    c->pairs = rc == 0 ? malloc((nb ? nb : 1) * sizeof *c->pairs) : NULL;
    c->unmatched_base = rc == 0 ? malloc((nb ? nb : 1) * sizeof *c->unmatched_base) : NULL;
    c->unmatched_cand = rc == 0 ? malloc((nc ? nc : 1) * sizeof *c->unmatched_cand) : NULL;
    if (rc == 0 && (!taken || !c->pairs || !c->unmatched_base || !c->unmatched_cand))
        rc = oom(err);
    for (size_t i = 0; rc == 0 && i < nb; i++) {
        size_t j = 0;
        while (j < nc && (taken[j] || !same_key(base[i], cand[j], c->by_rank)))
            j++;
        if (j == nc) {
            c->unmatched_base[c->n_unmatched_base++] = base[i];
            continue;
        }
        taken[j] = 1;
        harness_compare_pair *p = &c->pairs[c->n_pairs++];
        memset(p, 0, sizeof *p);
        p->base = base[i];
        p->cand = cand[j];
        rc = judge(c, p, err);
    }
    for (size_t j = 0; rc == 0 && j < nc; j++)
        if (!taken[j])
            c->unmatched_cand[c->n_unmatched_cand++] = cand[j];
    free(taken);
    free(base);
    free(cand);
    return rc;
}

int harness_compare_sides(harness_compare_side *base, harness_compare_side *cand, const harness_compare_options *o,
                          harness_comparison *out, harness_error *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *o;
    out->base = *base;
    out->cand = *cand;
    memset(base, 0, sizeof *base);
    memset(cand, 0, sizeof *cand);
    out->by_rank = !out->base.is_parent && !out->cand.is_parent;
    if (match(out, err) != 0)
        return err->code;
    if (out->n_pairs == 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE,
                                 "%s: no run matches a run of %s (%zu and %zu runs; runs match by variant key, "
                                 "component config, rank and world size); nothing to compare",
                                 out->cand.root ? out->cand.root : "CAND", out->base.root ? out->base.root : "BASE",
                                 out->cand.n_runs, out->base.n_runs);
    out->overall = HARNESS_VERDICT_NO_CHANGE;
    for (size_t i = 0; i < out->n_pairs; i++)
        out->counts[out->pairs[i].s.verdict]++;
    if (out->counts[HARNESS_VERDICT_REGRESSION])
        out->overall = HARNESS_VERDICT_REGRESSION;
    else if (out->counts[HARNESS_VERDICT_FAILED])
        out->overall = HARNESS_VERDICT_FAILED;
    else if (out->counts[HARNESS_VERDICT_IMPROVEMENT])
        out->overall = HARNESS_VERDICT_IMPROVEMENT;
    return 0;
}

int harness_compare_dirs(const char *base, const char *cand, const harness_compare_options *o,
                         harness_comparison *out, harness_error *err)
{
    memset(out, 0, sizeof *out);
    harness_compare_side b, c;
    if (harness_compare_side_load(base, &b, err) != 0)
        return err->code;
    if (harness_compare_side_load(cand, &c, err) != 0) {
        harness_compare_side_free(&b);
        return err->code;
    }
    return harness_compare_sides(&b, &c, o, out, err);
}

int harness_comparison_exit_code(const harness_comparison *c)
{
    return c->counts[HARNESS_VERDICT_REGRESSION] || c->counts[HARNESS_VERDICT_FAILED] ? HARNESS_EXIT_VERDICT
                                                                                       : HARNESS_EXIT_OK;
}

void harness_comparison_free(harness_comparison *c)
{
    if (!c)
        return;
    harness_compare_side_free(&c->base);
    harness_compare_side_free(&c->cand);
    free(c->pairs);
    free(c->unmatched_base);
    free(c->unmatched_cand);
    for (size_t i = 0; i < c->n_notes; i++)
        free(c->notes[i]);
    free(c->notes);
    memset(c, 0, sizeof *c);
}
