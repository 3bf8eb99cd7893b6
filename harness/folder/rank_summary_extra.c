/* rank_summary_extra.c - the parts of a summary that are records of their
 * own: a statistics block (the run's timing, each window), an energy
 * object, the noise, the environment, and an impossible figure: each
 * one's reader, then its writer (rank_summary_out.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strdup */
#endif
#include "folder/rank_summary_extra.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folder/json_fields.h"
#include "folder/rank_summary_gpu.h"
#include "folder/slurm_facts.h"
#include "util/json_number.h"

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

/* ---- writing (rank_summary_out.h) ---- */

/* A string member, null when NULL or "". */
static void add_str_or_null(cJSON *o, const char *key, const char *v)
{
    if (v && v[0])
        cJSON_AddStringToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

void harness_rs_write_stats(cJSON *o, const harness_stats *st)
{
    int empty = st->n == 0;
    cJSON_AddNumberToObject(o, "n", (double)st->n);
    const struct { const char *key; double v; } fields[] = {
        {"median", st->median}, {"mean", st->mean}, {"stddev", st->stddev}, {"cv", st->cv},
        {"min", st->min},       {"p5", st->p5},     {"p25", st->p25},       {"p75", st->p75},
        {"p90", st->p90},       {"p95", st->p95},   {"p99", st->p99},       {"max", st->max},
        {"iqr", st->iqr},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        harness_json_add_num(o, fields[i].key, empty ? NAN : fields[i].v);
    cJSON_AddNumberToObject(o, "outliers", (double)st->outliers);
    if (empty) {
        cJSON_AddNullToObject(o, "ci95_median");
    } else {
        double ci[2] = {st->ci95_lo, st->ci95_hi};
        cJSON_AddItemToObject(o, "ci95_median", cJSON_CreateDoubleArray(ci, 2));
    }
    /* ci95_median keeps its name for compatibility; this is its true level. */
    harness_json_add_num(o, "ci_level", empty ? NAN : st->ci_level);
}

cJSON *harness_rs_write_energy(const harness_energy_out *e)
{
    cJSON *o = cJSON_CreateObject();
    if (e->top) {
        cJSON_AddBoolToObject(o, "available", e->available);
        add_str_or_null(o, "source", e->source);
        add_str_or_null(o, "missing", e->missing);
        harness_json_add_num(o, "counter_period_s", e->counter_period_s);
        harness_json_add_num(o, "min_window_s", e->min_window_s);
    }
    cJSON_AddStringToObject(o, "status", e->status);
    harness_json_add_num(o, "joules", e->joules);
    harness_json_add_num(o, "seconds", e->seconds);
    harness_json_add_num(o, "steps", e->steps);
    harness_json_add_num(o, "joules_per_step", e->joules_per_step);
    harness_json_add_num(o, "watts", e->watts);
    harness_json_add_num(o, "flop_per_joule", e->flop_per_joule);
    harness_json_add_num(o, "bytes_per_joule", e->bytes_per_joule);
    harness_json_add_num(o, "uncertainty", e->uncertainty);
    if (e->top) {
        harness_json_add_num(o, "windows", e->windows);
        harness_json_add_num(o, "windows_measured", e->windows_measured);
    }
    return o;
}

/* Interference evidence: counts, and the bound on how far it could have
 * moved the median, which `harness compare` weighs against a change before
 * calling it (structured, so no reader parses a sentence). */
cJSON *harness_rs_write_noise(const harness_noise_out *n)
{
    cJSON *o = cJSON_CreateObject();
    harness_json_add_num(o, "involuntary_switches", n->involuntary_switches);
    harness_json_add_num(o, "measured_steps", n->measured_steps);
    harness_json_add_num(o, "steal_share", n->steal_share);
    harness_json_add_num(o, "sm_clock_mhz", n->sm_clock_mhz);             /* the lowest seen; null on the CPU */
    harness_json_add_num(o, "sm_clock_max_mhz", n->sm_clock_max_mhz);
    cJSON_AddStringToObject(o, "throttle_reasons", n->throttle_reasons);
    harness_json_add_num(o, "median_shift_bound", n->median_shift_bound);
    cJSON_AddStringToObject(o, "evidence", n->evidence);
    if (n->has_load) {             /* context only: the machine's load, not this run's */
        harness_json_add_num(o, "load_average_start", n->load_average_start);
        harness_json_add_num(o, "load_average_end", n->load_average_end);
    }
    return o;
}

/* env.distributed: strings only (a variable's value is text, whatever it
 * looks like), null where a fact is unknown. */
static cJSON *write_distributed(const harness_dist_env_out *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "mpi_library", d->mpi_library);
    cJSON_AddStringToObject(o, "nccl", d->nccl);
    cJSON_AddItemToObject(o, "slurm", harness_slurm_json(&d->slurm));
    cJSON *vars = cJSON_AddObjectToObject(o, "variables");
    for (size_t i = 0; i < d->n_vars; i++)
        cJSON_AddStringToObject(vars, d->var_names[i], d->var_values[i]);
    harness_json_add_num(o, "variables_left_out", d->vars_left_out);
    cJSON *addrs = cJSON_AddArrayToObject(o, "interfaces");
    for (size_t i = 0; i < d->n_addrs; i++) {
        cJSON *a = cJSON_CreateObject();
        cJSON_AddStringToObject(a, "name", d->addrs[i].name);
        cJSON_AddStringToObject(a, "family", d->addrs[i].family);
        cJSON_AddStringToObject(a, "address", d->addrs[i].address);
        add_str_or_null(a, "pci_path", d->addrs[i].pci_path);
        cJSON_AddItemToArray(addrs, a);
    }
    add_str_or_null(o, "tcp_if_include", d->tcp_if_include);
    cJSON_AddStringToObject(o, "gpu_nic_topology", d->gpu_nic_topology);
    return o;
}

cJSON *harness_rs_write_env(const harness_env_out *e)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "host", e->host);
    cJSON_AddStringToObject(o, "os", e->os);
    /* the CPU itself: what decides whether two figures are comparable at all */
    cJSON_AddStringToObject(o, "cpu", e->cpu);
    cJSON_AddStringToObject(o, "cpu_family", e->cpu_family);
    cJSON_AddStringToObject(o, "cpu_model_number", e->cpu_model_number);
    cJSON_AddStringToObject(o, "cpu_stepping", e->cpu_stepping);
    cJSON *caches = cJSON_AddObjectToObject(o, "caches");
    cJSON_AddStringToObject(caches, "l1d", e->l1d);
    cJSON_AddStringToObject(caches, "l1i", e->l1i);
    cJSON_AddStringToObject(caches, "l2", e->l2);
    cJSON_AddStringToObject(caches, "l3", e->l3);
    cJSON_AddStringToObject(o, "scaling_governor", e->scaling_governor);
    harness_json_add_num(o, "logical_cpus", e->logical_cpus);
    harness_json_add_num(o, "affinity_cpus", e->affinity_cpus);
    harness_json_add_num(o, "omp_threads", e->omp_threads);
    cJSON *loads = cJSON_AddObjectToObject(o, "load_average");
    cJSON_AddItemToObject(loads, "start", cJSON_CreateDoubleArray(e->load_start, 3));
    cJSON_AddItemToObject(loads, "end", cJSON_CreateDoubleArray(e->load_end, 3));
    cJSON_AddStringToObject(o, "gpu", e->gpu_name);
    cJSON_AddStringToObject(o, "driver", e->driver);
    cJSON_AddStringToObject(o, "cuda", e->cuda);
    cJSON_AddStringToObject(o, "compiler", e->compiler);
    cJSON_AddStringToObject(o, "cflags", e->cflags);
    cJSON_AddStringToObject(o, "sanitizers", e->sanitizers);
    cJSON_AddStringToObject(o, "configure_args", e->configure_args);
    cJSON_AddStringToObject(o, "executable", e->executable);
    cJSON_AddStringToObject(o, "git_commit", e->git_commit);
    cJSON_AddStringToObject(o, "harness_version", e->harness_version);
    cJSON_AddStringToObject(o, "clock", e->clock);
    cJSON_AddStringToObject(o, "kernel_clocksource", e->kernel_clocksource);
    harness_json_add_num(o, "clock_resolution_ns", e->clock_resolution_ns);
    cJSON_AddStringToObject(o, "started_at", e->started_at);
    if (e->gpu_device)
        cJSON_AddItemToObject(o, "gpu_device", harness_rs_write_gpu_device(e->gpu_device));
    if (e->distributed)
        cJSON_AddItemToObject(o, "distributed", write_distributed(e->distributed));
    return o;
}

/* null, or the figure a run failed on (or kept by --allow-above-peak):
 * what compare, ab and history read to refuse it. */
cJSON *harness_rs_write_impossible(const harness_impossible_out *i)
{
    if (!i->figure || !i->figure[0])
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "figure", i->figure);
    harness_json_add_num(o, "rate_per_s", i->rate_per_s);
    harness_json_add_num(o, "peak_per_s", i->peak_per_s);
    harness_json_add_num(o, "limit_per_s", i->limit_per_s);
    harness_json_add_num(o, "margin", i->margin);
    cJSON_AddBoolToObject(o, "allowed", i->allowed);
    cJSON_AddStringToObject(o, "message", i->message);
    return o;
}
