/* rank_summary_extra.c - the parts of a summary that are records of their
 * own: a statistics block (the run's timing, each window), an energy
 * object, the noise, the environment, and an impossible figure. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strdup */
#endif
#include "folder/rank_summary_extra.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folder/json_fields.h"

/* The statistics read as numbers (or null), key -> field. */
#define STAT_FIELDS(X) X(index) X(first_sample) X(n) X(median) X(mean) X(stddev) X(cv) X(min) X(p5) X(p25) \
    X(p75) X(p90) X(p95) X(p99) X(max) X(iqr) X(outliers) X(ci_level) X(wall_ns) X(cpu_ns) X(cpu_per_wall)

int harness_rs_read_stats(const cJSON *obj, const char *prefix, const char *path, harness_stats_record *out,
                          harness_error *err)
{
#define READ(f) if (harness_field_number(obj, prefix, #f, path, &out->f, err) != 0) return err->code;
    STAT_FIELDS(READ)
#undef READ
    if (harness_field_string(obj, prefix, "stop_reason", path, &out->stop_reason, err) != 0 ||
        harness_field_bool(obj, prefix, "converged", path, &out->converged, err) != 0)
        return err->code;
    out->ci_lo = out->ci_hi = NAN;
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(obj, "ci95_median");
    if (ci && !cJSON_IsNull(ci)) {
        const cJSON *lo = cJSON_GetArrayItem(ci, 0), *hi = cJSON_GetArrayItem(ci, 1);
        if (!cJSON_IsArray(ci) || cJSON_GetArraySize(ci) != 2 || !(cJSON_IsNumber(lo) || cJSON_IsNull(lo)) ||
            !(cJSON_IsNumber(hi) || cJSON_IsNull(hi)))
            return harness_field_bad(err, path, "%sci95_median: expected [lo, hi] or null", prefix);
        out->ci_lo = cJSON_IsNumber(lo) ? lo->valuedouble : NAN;
        out->ci_hi = cJSON_IsNumber(hi) ? hi->valuedouble : NAN;
    }
    return harness_rs_read_energy(obj, prefix, path, &out->energy, err);
}

void harness_rs_stats_free(harness_stats_record *s)
{
    free(s->stop_reason);
    harness_rs_energy_free(&s->energy);
    memset(s, 0, sizeof *s);
}

/* joules_per_step and watts: absent or null is not measured (an older
 * summary, no counter, a window too short); said, a positive number. */
static int positive(const cJSON *e, const char *prefix, const char *key, const char *what, const char *path,
                    double *out, harness_error *err)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(e, key);
    *out = NAN;
    if (!j || cJSON_IsNull(j))
        return 0;
    if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble) || !(j->valuedouble > 0))
        return harness_field_bad(err, path, "%senergy.%s: expected a positive number%s or null", prefix, key, what);
    *out = j->valuedouble;
    return 0;
}

int harness_rs_read_energy(const cJSON *obj, const char *prefix, const char *path, harness_energy_record *out,
                           harness_error *err)
{
    memset(out, 0, sizeof *out);
    out->joules = out->seconds = out->joules_per_step = out->watts = NAN;
    out->flop_per_joule = out->bytes_per_joule = out->uncertainty = NAN;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(obj, "energy");
    if (!e || cJSON_IsNull(e))
        return 0;
    if (!cJSON_IsObject(e))
        return harness_field_bad(err, path, "%senergy.joules_per_step: expected a positive number of joules or null",
                                 prefix);
    char p[80];
    snprintf(p, sizeof p, "%senergy.", prefix);
    if (positive(e, prefix, "joules_per_step", " of joules", path, &out->joules_per_step, err) != 0 ||
        positive(e, prefix, "watts", "", path, &out->watts, err) != 0 ||
        harness_field_number(e, p, "joules", path, &out->joules, err) != 0 ||
        harness_field_number(e, p, "seconds", path, &out->seconds, err) != 0 ||
        harness_field_number(e, p, "flop_per_joule", path, &out->flop_per_joule, err) != 0 ||
        harness_field_number(e, p, "bytes_per_joule", path, &out->bytes_per_joule, err) != 0 ||
        harness_field_number(e, p, "uncertainty", path, &out->uncertainty, err) != 0 ||
        harness_field_string(e, p, "status", path, &out->status, err) != 0 ||
        harness_field_string(e, p, "source", path, &out->source, err) != 0 ||
        harness_field_string(e, p, "missing", path, &out->missing, err) != 0)
        return err->code;
    return 0;
}

void harness_rs_energy_free(harness_energy_record *e)
{
    free(e->status);
    free(e->source);
    free(e->missing);
    e->status = e->source = e->missing = NULL;
}

/* The run's interference (report/summary_json.c's "noise"): the bound on
 * how far it could have raised the median, and its evidence in words. A
 * summary from before it was written says nothing (NAN). */
int harness_rs_read_noise(const cJSON *root, const char *path, harness_rank_summary *out, harness_error *err)
{
    out->noise_bound = NAN;
    const cJSON *noise;
    if (harness_field_object(root, "", "noise", path, &noise, err) != 0 ||
        harness_field_number(noise, "noise.", "median_shift_bound", path, &out->noise_bound, err) != 0 ||
        harness_field_string(noise, "noise.", "evidence", path, &out->noise_evidence, err) != 0)
        return err->code;
    if (!isnan(out->noise_bound) && !(out->noise_bound >= 0 && out->noise_bound <= 1))
        return harness_field_bad(err, path, "noise.median_shift_bound: expected a share between 0 and 1, or null");
    return 0;
}

/* env: its keys grow with every harness, so the whole object is kept for
 * export; the ones record keys runs by are read by name ("" when absent,
 * so that an older summary still finds its machine row). */
int harness_rs_read_env(const cJSON *root, const char *path, harness_rank_summary *out, harness_error *err)
{
    const cJSON *env;
    if (harness_field_object(root, "", "env", path, &env, err) != 0)
        return err->code;
    struct { const char *key; char **field; } named[] = {
        {"host", &out->host}, {"cpu", &out->env_cpu}, {"gpu", &out->env_gpu},
        {"git_commit", &out->env_git_commit}, {"harness_version", &out->env_harness_version},
        {"started_at", &out->env_started_at},
    };
    for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
        if (harness_field_string(env, "env.", named[i].key, path, named[i].field, err) != 0)
            return err->code;
        if (!*named[i].field && !(*named[i].field = strdup("")))
            return harness_field_oom(err);
    }
    if (!out->host[0]) {           /* no host: --baseline-db matches any */
        free(out->host);
        out->host = NULL;
    }
    if (env && !(out->env = cJSON_Duplicate(env, 1)))
        return harness_field_oom(err);
    return 0;
}

/* impossible_figure: null, or the figure with its message and whether its
 * run kept it (--allow-above-peak). */
int harness_rs_read_impossible(const cJSON *root, const char *path, harness_rank_summary *out, harness_error *err)
{
    const cJSON *imp = cJSON_GetObjectItemCaseSensitive(root, "impossible_figure");
    if (!imp || cJSON_IsNull(imp))
        return 0;
    const cJSON *msg = cJSON_IsObject(imp) ? cJSON_GetObjectItemCaseSensitive(imp, "message") : NULL;
    const cJSON *allowed = cJSON_IsObject(imp) ? cJSON_GetObjectItemCaseSensitive(imp, "allowed") : NULL;
    if (!cJSON_IsString(msg) || !cJSON_IsBool(allowed))
        return harness_field_bad(err, path, "impossible_figure: expected null or an object with a message and "
                                 "allowed");
    out->impossible_allowed_flag = cJSON_IsTrue(allowed);
    if (!(out->impossible_message = strdup(msg->valuestring)))
        return harness_field_oom(err);
    if (out->impossible_allowed_flag && !(out->impossible_allowed = strdup(msg->valuestring)))
        return harness_field_oom(err);
    return 0;
}
