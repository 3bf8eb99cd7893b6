/* compare_energy.c - what `harness compare --metric energy` reads of a
 * summary: energy.joules_per_step (and watts, for record) over the run,
 * and each window's (timing.windows[].energy.joules_per_step) beside the
 * window medians that compare_replicates.c keeps. Absent or null: not measured (an older
 * summary, no counter, a window too short), which the metric reads as
 * unknown; present, it must be a positive number, or the summary is refused
 * (exit 2) like any other bad field. */
#include "compare/compare.h"
#include "compare/compare_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

/* obj.energy.KEY into *out: NAN when absent or null; -1 when it is
 * something else than a positive finite number. */
static int energy_field(const cJSON *obj, const char *key, double *out)
{
    *out = NAN;
    const cJSON *e = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, "energy") : NULL;
    if (!e || cJSON_IsNull(e))
        return 0;
    if (!cJSON_IsObject(e))
        return -1;
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(e, key);
    if (!j || cJSON_IsNull(j))
        return 0;
    if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble) || !(j->valuedouble > 0))
        return -1;
    *out = j->valuedouble;
    return 0;
}

int harness_cmp_parse_energy(const cJSON *root, const char *path, harness_run_summary *out, harness_error *err)
{
    if (energy_field(root, "joules_per_step", &out->energy_j_per_step) != 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: energy.joules_per_step: expected a positive number "
                                 "of joules or null", path);
    if (energy_field(root, "watts", &out->energy_watts) != 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: energy.watts: expected a positive number or null",
                                 path);
    const cJSON *timing = cJSON_GetObjectItemCaseSensitive(root, "timing");
    const cJSON *windows = cJSON_IsObject(timing) ? cJSON_GetObjectItemCaseSensitive(timing, "windows") : NULL;
    if (!cJSON_IsArray(windows) || out->n_windows == 0)
        return 0;
    if (!(out->window_energy = malloc(out->n_windows * sizeof *out->window_energy)))
        return harness_cmp_oom(err);
    /* the windows compare_replicates.c kept: those with n > 0, in order */
    size_t i = 0, kept = 0;
    for (const cJSON *w = windows->child; w && kept < out->n_windows; w = w->next, i++) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(w, "n");
        if (!cJSON_IsNumber(n) || n->valuedouble == 0)
            continue;
        if (energy_field(w, "joules_per_step", &out->window_energy[kept++]) != 0)
            return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: timing.windows[%zu].energy.joules_per_step: "
                                     "expected a positive number of joules or null", path, i);
    }
    for (; kept < out->n_windows; kept++)
        out->window_energy[kept] = NAN;
    return 0;
}
