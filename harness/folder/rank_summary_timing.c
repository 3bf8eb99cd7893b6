/* rank_summary_timing.c - a summary's timing: the samples (inline, or a
 * side file checked against the count and SHA-256 the summary gives), the
 * statistics as written (the run's and each window's), and the replicates
 * of a single run: each window's median, recomputed from its slice of the
 * samples. Then its writer (rank_summary_out.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* asprintf */
#endif
#include "folder/rank_summary_timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folder/json_fields.h"
#include "folder/rank_summary_extra.h"
#include "folder/rank_summary_gpu.h"
#include "folder/sample_array.h"
#include "folder/samples.h"
#include "util/json_number.h"

/* timing.samples: every sample inline, as runs of up to
 * HARNESS_SUMMARY_INLINE_SAMPLES steps (and every run before side files)
 * write them. */
static int inline_samples(const cJSON *samples, const char *path, harness_rank_summary *out, harness_error *err)
{
    int n = cJSON_GetArraySize(samples);
    if (n > 0 && !(out->samples = malloc((size_t)n * sizeof *out->samples)))
        return harness_field_oom(err);
    size_t i = 0;
    for (const cJSON *s = samples->child; s && i < (size_t)n; s = s->next, i++) {
        if (!cJSON_IsNumber(s) || !isfinite(s->valuedouble) || s->valuedouble < 0)
            return harness_field_bad(err, path, "timing.samples[%zu]: expected a duration in ns (a finite number "
                                     ">= 0), got %s", i, !cJSON_IsNumber(s) ? harness_field_kind(s)
                                     : isfinite(s->valuedouble) ? "a negative number" : "an infinite number");
        out->samples[i] = s->valuedouble;
    }
    out->n_samples = i;
    return 0;
}

/* A side file's name must be a plain file name in the summary's own folder:
 * a summary may come from anywhere, and must not make a reader open
 * /dev/zero or a file outside its folder. */
static int plain_file_name(const char *name)
{
    return name[0] && name[0] != '.' && !strchr(name, '/') && strlen(name) < 256;
}

#define NEED(obj, key, is, kind) \
    harness_field_need(obj, "timing.samples_file.", key, is, kind, "harness summary", path, err)

/* timing.samples_file: the samples in a binary side file beside the
 * summary (folder/samples.h); read unless flags say not to. */
static int samples_file(const cJSON *ref, const char *path, int flags, harness_rank_summary *out, harness_error *err)
{
    const cJSON *name = NEED(ref, "name", cJSON_IsString, "a string");
    const cJSON *format = name ? NEED(ref, "format", cJSON_IsString, "a string") : NULL;
    const cJSON *count = format ? NEED(ref, "count", cJSON_IsNumber, "an integer") : NULL;
    const cJSON *sha = count ? NEED(ref, "sha256", cJSON_IsString, "a string") : NULL;
    if (!sha)
        return err->code;
    const cJSON *unit = cJSON_GetObjectItemCaseSensitive(ref, "unit");
    if (unit && !cJSON_IsString(unit))
        return harness_field_bad(err, path, "timing.samples_file.unit: expected a string, got %s",
                                 harness_field_kind(unit));
    if (!plain_file_name(name->valuestring))
        return harness_field_bad(err, path, "timing.samples_file.name: \"%.200s\" is not a file name in the "
                                 "summary's folder", name->valuestring);
    if (strcmp(format->valuestring, HARNESS_SAMPLE_FILE_FORMAT) != 0)
        return harness_field_bad(err, path, "timing.samples_file.format: \"%.100s\" is not \"%s\"; written by "
                                 "another version of harness?", format->valuestring, HARNESS_SAMPLE_FILE_FORMAT);
    double c = count->valuedouble;
    if (!(c >= 0 && c <= 1e15) || c != floor(c))
        return harness_field_bad(err, path, "timing.samples_file.count: expected an integer >= 0, got %g", c);
    if (flags & HARNESS_RANK_SUMMARY_NO_SAMPLES)
        return 0;
    char *file = NULL;
    if (asprintf(&file, "%s/%s", out->folder, name->valuestring) < 0)
        return harness_field_oom(err);
    harness_sample_file_expect expect = {
        .count = (long long)c, .sha256_hex = sha->valuestring, .unit = unit ? unit->valuestring : "ns",
    };
    int rc = harness_sample_file_read(file, &expect, &out->samples, &out->n_samples, err);
    free(file);
    return rc;
}

static int read_samples(const cJSON *timing, const char *path, int flags, harness_rank_summary *out,
                        harness_error *err)
{
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(timing, "samples_file");
    if (ref) {
        if (!cJSON_IsObject(ref))
            return harness_field_bad(err, path, "timing.samples_file: expected an object, got %s",
                                     harness_field_kind(ref));
        if (cJSON_GetObjectItemCaseSensitive(timing, "samples"))
            return harness_field_bad(err, path, "timing: both samples and samples_file; a summary holds one or "
                                     "the other");
        return samples_file(ref, path, flags, out, err);
    }
    const cJSON *samples = harness_field_need(timing, "timing.", "samples", cJSON_IsArray, "an array of ns",
                                              "harness summary", path, err);
    if (!samples)
        return err->code;
    return flags & HARNESS_RANK_SUMMARY_NO_SAMPLES ? 0 : inline_samples(samples, path, out, err);
}

/* A count or index: an integer from 0 to 1e15. */
static int is_count(double v)
{
    return v >= 0 && v <= 1e15 && v == floor(v);
}

/* The written statistics of every window, then the replicates: the median
 * of every window that measured a step (an interrupted run's last window
 * may hold none), recomputed from its slice [first_sample, first_sample + n)
 * of the samples (windows one after another when an older summary lacks
 * first_sample): the samples are the data, and the run's median is
 * recomputed from them too, so the window replicates and the run never
 * disagree. The written median is used only when the run kept no samples
 * (a failed run, or samples left unread). A summary from before windows
 * has none: compare then calls its pair AMBIGUOUS. */
static int read_windows(const cJSON *timing, const char *path, int flags, harness_rank_summary *out,
                        harness_error *err)
{
    const cJSON *windows = cJSON_GetObjectItemCaseSensitive(timing, "windows");
    if (!windows)
        return 0;
    if (!cJSON_IsArray(windows))
        return harness_field_bad(err, path, "timing.windows: expected an array");
    size_t n = (size_t)cJSON_GetArraySize(windows);
    if (n == 0)
        return 0;
    out->windows = calloc(n, sizeof *out->windows);
    out->window_medians = malloc(n * sizeof *out->window_medians);
    out->window_start = calloc(n, sizeof *out->window_start);
    out->window_len = calloc(n, sizeof *out->window_len);
    out->window_energy = malloc(n * sizeof *out->window_energy);
    if (!out->windows || !out->window_medians || !out->window_start || !out->window_len || !out->window_energy)
        return harness_field_oom(err);
    double next = 0;               /* where the window starts when first_sample is absent */
    size_t i = 0;
    for (const cJSON *w = windows->child; w && i < n; w = w->next, i++) {
        char prefix[48];
        snprintf(prefix, sizeof prefix, "timing.windows[%zu].", i);
        if (!cJSON_IsObject(w))
            return harness_field_bad(err, path, "timing.windows[%zu]: expected an object, got %s", i,
                                     harness_field_kind(w));
        harness_stats_record *s = &out->windows[i];
        out->n_written_windows = i + 1;
        if (harness_rs_read_stats(w, prefix, path, s, err) != 0)
            return err->code;
        if (!is_count(s->n))
            return harness_field_bad(err, path, "timing.windows[%zu].n: expected a count >= 0", i);
        if (!isnan(s->first_sample) && !is_count(s->first_sample))
            return harness_field_bad(err, path, "timing.windows[%zu].first_sample: expected an index >= 0", i);
        double start = isnan(s->first_sample) ? next : s->first_sample;
        next = start + s->n;
        if (s->n == 0 || (flags & HARNESS_RANK_SUMMARY_NO_SAMPLES))
            continue;              /* no replicate: nothing measured, or the samples left unread */
        size_t k = out->n_windows;
        out->window_energy[k] = s->energy.joules_per_step;
        if (out->n_samples) {
            if (next > (double)out->n_samples)
                return harness_field_bad(err, path, "timing.windows[%zu]: samples %.0f to %.0f, beyond the run's "
                                         "%zu samples; the windows do not match the samples", i, start, next - 1,
                                         out->n_samples);
            harness_stats st;
            if (harness_stats_compute(out->samples + (size_t)start, (size_t)s->n, &st) != 0)
                return harness_field_oom(err);
            out->window_start[k] = (size_t)start;
            out->window_len[k] = (size_t)s->n;
            out->window_medians[out->n_windows++] = st.median;
            continue;
        }
        if (!isfinite(s->median) || s->median < 0)
            return harness_field_bad(err, path, "timing.windows[%zu].median: expected a duration in ns (a number "
                                     ">= 0)", i);
        out->window_medians[out->n_windows++] = s->median;
    }
    return 0;
}

int harness_rs_read_timing(const cJSON *root, const char *path, int flags, harness_rank_summary *out,
                           harness_error *err)
{
    const cJSON *timing = harness_field_need(root, "", "timing", cJSON_IsObject, "an object", "harness summary", path,
                                             err);
    if (!timing || read_samples(timing, path, flags, out, err) != 0)
        return err->code;
    if (harness_stats_compute(out->samples, out->n_samples, &out->stats) != 0)
        return harness_field_oom(err);
    if (harness_rs_read_stats(timing, "timing.", path, &out->timing, err) != 0 ||
        read_windows(timing, path, flags, out, err) != 0)
        return err->code;
    /* Whether the windows disagree, for a note beside compare's pair; a
     * summary from before the flag says nothing. */
    const cJSON *across = cJSON_GetObjectItemCaseSensitive(timing, "across_windows");
    const cJSON *flag = cJSON_IsObject(across) ? cJSON_GetObjectItemCaseSensitive(across, "windows_disagree") : NULL;
    if (flag && !cJSON_IsBool(flag))
        return harness_field_bad(err, path, "timing.across_windows.windows_disagree: expected true or false");
    out->windows_disagree = cJSON_IsTrue(flag);
    return 0;
}

/* ---- writing (rank_summary_out.h) ---- */

static cJSON *window_json(const harness_window_out *w)
{
    cJSON *win = cJSON_CreateObject();
    harness_json_add_num(win, "index", w->index);
    harness_json_add_num(win, "first_sample", w->first_sample);
    cJSON_AddStringToObject(win, "stop_reason", w->stop_reason);
    /* whether an auto window met its CI target; null for a fixed step count */
    if (w->converged < 0)
        cJSON_AddNullToObject(win, "converged");
    else
        cJSON_AddBoolToObject(win, "converged", w->converged);
    harness_rs_write_stats(win, &w->stats);
    /* cpu/wall near the thread count says the threads were busy, well below
     * that they waited (for cores, locks, I/O); null for a window too short */
    harness_json_add_num(win, "wall_ns", w->wall_ns);
    harness_json_add_num(win, "cpu_ns", w->cpu_ns);
    harness_json_add_num(win, "cpu_per_wall", w->cpu_per_wall);
    if (w->noise)
        cJSON_AddItemToObject(win, "noise", harness_rs_write_noise(w->noise));
    if (w->clocks)
        cJSON_AddItemToObject(win, "device_clocks", harness_rs_write_clock_figures(w->clocks));
    cJSON_AddItemToObject(win, "energy", harness_rs_write_energy(&w->energy));
    return win;
}

/* The windows' medians as the samples: the window is the unit of replication. */
static cJSON *across_windows_json(const harness_stats *a, int windows_disagree)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "unit_of_replication", "window");
    cJSON_AddNumberToObject(o, "n", (double)a->n);
    harness_json_add_num(o, "median_of_window_medians", a->n ? a->median : NAN);
    if (a->n) {
        double ci[2] = {a->ci95_lo, a->ci95_hi};
        cJSON_AddItemToObject(o, "ci_median", cJSON_CreateDoubleArray(ci, 2));
    } else {
        cJSON_AddNullToObject(o, "ci_median");
    }
    harness_json_add_num(o, "ci_level", a->n ? a->ci_level : NAN);
    /* for readers that act on it (compare's note), not a sentence to match */
    cJSON_AddBoolToObject(o, "windows_disagree", windows_disagree);
    return o;
}

cJSON *harness_rs_write_timing(const harness_timing_out *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "unit", "ns");
    cJSON_AddStringToObject(o, "clock", t->clock);
    harness_json_add_num(o, "clock_read_overhead_ns", t->clock_read_overhead_ns);
    harness_json_add_num(o, "clock_resolution_ns", t->clock_resolution_ns);
    cJSON_AddStringToObject(o, "clock_why", t->clock_why);
    harness_rs_write_stats(o, &t->overall);
    if (t->samples_file && t->samples_file[0])
        cJSON_AddItemToObject(o, "samples_file", harness_sample_file_ref_json(t->samples_file, t->n_samples, "ns",
                                                                              t->samples_sha256));
    else
        cJSON_AddItemToObject(o, "samples", t->n_samples ? harness_sample_array_json(t->samples, t->n_samples)
                                                         : cJSON_CreateArray());
    cJSON *windows = cJSON_AddArrayToObject(o, "windows");
    for (size_t w = 0; w < t->n_windows; w++)
        cJSON_AddItemToArray(windows, window_json(&t->windows[w]));
    cJSON_AddItemToObject(o, "across_windows", across_windows_json(&t->across, t->windows_disagree));
    if (t->device)
        harness_rs_write_device_timing(o, t->device);
    if (t->clocks)
        cJSON_AddItemToObject(o, "device_clocks", harness_rs_write_device_clocks(t->clocks));
    return o;
}
