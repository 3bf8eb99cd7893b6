/* compare_replicates.c - what `harness compare` reads of a summary beyond
 * its samples: the window medians (the replicates of a single run), the
 * interference that says how far other work could have moved the median,
 * and the host (the series of --baseline-db). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strdup */
#endif
#include "compare/compare.h"
#include "compare/compare_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The run's windows: the median of every window that measured a step (an
 * interrupted run's last window may hold none). A summary from before
 * windows were written has none: its pair is then AMBIGUOUS.
 * The medians are recomputed from the samples, not read from
 * timing.windows[].median: the samples are the data (a side file's are
 * checked against their SHA-256), and the run's median is recomputed from
 * them too, so the window replicates and the run can never disagree, with
 * no tolerance to choose for a check. Each window is the slice
 * [first_sample, first_sample + n) (windows one after another when an older
 * summary lacks first_sample); a slice beyond the samples is exit 2. The
 * written median is used only when the run kept no samples (a failed run).
 * The slices are kept: --metric p90 reads each window's tail from them. */
static int parse_windows(const cJSON *timing, const char *path, harness_run_summary *out, harness_error *err)
{
    const cJSON *windows = cJSON_GetObjectItemCaseSensitive(timing, "windows");
    if (!windows)
        return 0;
    if (!cJSON_IsArray(windows))
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: timing.windows: expected an array", path);
    int n = cJSON_GetArraySize(windows);
    if (n == 0)
        return 0;
    out->window_medians = malloc((size_t)n * sizeof *out->window_medians);
    out->window_start = calloc((size_t)n, sizeof *out->window_start);
    out->window_len = calloc((size_t)n, sizeof *out->window_len);
    if (!out->window_medians || !out->window_start || !out->window_len)
        return harness_cmp_oom(err);
    size_t i = 0;
    double next = 0;               /* where the window starts when first_sample is absent */
    for (const cJSON *w = windows->child; w; w = w->next, i++) {
        const cJSON *wn = cJSON_IsObject(w) ? cJSON_GetObjectItemCaseSensitive(w, "n") : NULL;
        const cJSON *med = cJSON_IsObject(w) ? cJSON_GetObjectItemCaseSensitive(w, "median") : NULL;
        const cJSON *first = cJSON_IsObject(w) ? cJSON_GetObjectItemCaseSensitive(w, "first_sample") : NULL;
        if (!cJSON_IsNumber(wn) || !(wn->valuedouble >= 0 && wn->valuedouble <= 1e15) ||
            wn->valuedouble != floor(wn->valuedouble))
            return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: timing.windows[%zu].n: expected a count >= 0",
                                     path, i);
        if (first && (!cJSON_IsNumber(first) || !(first->valuedouble >= 0 && first->valuedouble <= 1e15) ||
                      first->valuedouble != floor(first->valuedouble)))
            return harness_error_set(err, HARNESS_EXIT_USAGE,
                                     "%s: timing.windows[%zu].first_sample: expected an index >= 0", path, i);
        double start = first ? first->valuedouble : next;
        next = start + wn->valuedouble;
        if (wn->valuedouble == 0)
            continue;
        if (out->n_samples) {
            if (next > (double)out->n_samples)
                return harness_error_set(err, HARNESS_EXIT_USAGE,
                                         "%s: timing.windows[%zu]: samples %.0f to %.0f, beyond the run's %zu "
                                         "samples; the windows do not match the samples", path, i, start,
                                         next - 1, out->n_samples);
            harness_stats st;
            if (harness_stats_compute(out->samples + (size_t)start, (size_t)wn->valuedouble, &st) != 0)
                return harness_cmp_oom(err);
            out->window_start[out->n_windows] = (size_t)start;
            out->window_len[out->n_windows] = (size_t)wn->valuedouble;
            out->window_medians[out->n_windows++] = st.median;
            continue;
        }
        if (!cJSON_IsNumber(med) || !isfinite(med->valuedouble) || med->valuedouble < 0)
            return harness_error_set(err, HARNESS_EXIT_USAGE,
                                     "%s: timing.windows[%zu].median: expected a duration in ns (a number >= 0)",
                                     path, i);
        out->window_medians[out->n_windows++] = med->valuedouble;
    }
    return 0;
}

/* The run's interference (report/summary_json.c's "noise"): the bound on
 * how far it could have raised the median, and its evidence in words. A
 * summary from before it was written says nothing (NAN). */
static int parse_noise(const cJSON *root, const char *path, harness_run_summary *out, harness_error *err)
{
    out->noise_bound = NAN;
    const cJSON *noise = cJSON_GetObjectItemCaseSensitive(root, "noise");
    if (!noise)
        return 0;
    const cJSON *bound = cJSON_IsObject(noise) ? cJSON_GetObjectItemCaseSensitive(noise, "median_shift_bound") : NULL;
    const cJSON *evidence = cJSON_IsObject(noise) ? cJSON_GetObjectItemCaseSensitive(noise, "evidence") : NULL;
    if (!cJSON_IsObject(noise) || (bound && !cJSON_IsNull(bound) && !(cJSON_IsNumber(bound) &&
                                   bound->valuedouble >= 0 && bound->valuedouble <= 1)))
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: noise.median_shift_bound: expected a share "
                                 "between 0 and 1, or null", path);
    if (evidence && !cJSON_IsString(evidence))
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: noise.evidence: expected a string", path);
    if (cJSON_IsNumber(bound))
        out->noise_bound = bound->valuedouble;
    if (evidence && !(out->noise_evidence = strdup(evidence->valuestring)))
        return harness_cmp_oom(err);
    return 0;
}

/* Whether the run's windows disagree (timing.across_windows.windows_disagree),
 * for a note beside the pair; a summary from before the flag says nothing. */
static int parse_disagreement(const cJSON *timing, const char *path, harness_run_summary *out, harness_error *err)
{
    const cJSON *across = cJSON_IsObject(timing) ? cJSON_GetObjectItemCaseSensitive(timing, "across_windows") : NULL;
    const cJSON *flag = cJSON_IsObject(across) ? cJSON_GetObjectItemCaseSensitive(across, "windows_disagree") : NULL;
    if (flag && !cJSON_IsBool(flag))
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: timing.across_windows.windows_disagree: expected "
                                 "true or false", path);
    out->windows_disagree = cJSON_IsTrue(flag);
    return 0;
}

int harness_cmp_parse_replicates(const cJSON *root, const char *path, harness_run_summary *out, harness_error *err)
{
    const cJSON *timing = cJSON_GetObjectItemCaseSensitive(root, "timing");
    if (cJSON_IsObject(timing) && parse_windows(timing, path, out, err) != 0)
        return err->code;
    /* the machine, for --baseline-db's series */
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(root, "env");
    const cJSON *host = cJSON_IsObject(env) ? cJSON_GetObjectItemCaseSensitive(env, "host") : NULL;
    if (cJSON_IsString(host) && host->valuestring[0] && !(out->host = strdup(host->valuestring)))
        return harness_cmp_oom(err);
    if (parse_noise(root, path, out, err) != 0)
        return err->code;
    return parse_disagreement(timing, path, out, err);
}
