/* summary_ranks_N_rank_r.json: the keys of docs/ARCHITECTURE.md section 7 (never
 * rename them; add freely), with every measured sample. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/device_report.h"
#include "report/clock_report.h"
#include "report/energy_report.h"
#include "report/comm_report.h"
#include "report/gpu_trace.h"
#include "report/roofline.h"
#include "report/sample_array.h"
#include "report/summary.h"
#include "folder/rank_summary.h"
#include "util/interference.h"
#include "util/json_number.h"

static void add_stats(cJSON *o, const harness_stats *st)
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

/* One window's CPU and wall time: cpu/wall near the thread count says the
 * threads were busy, well below says they waited (for cores, locks, I/O);
 * null for a window too short to say (runner.h). */
static void add_window_times(cJSON *win, const harness_run_result *r, size_t w)
{
    harness_json_add_num(win, "wall_ns", r->window_wall_ns[w]);
    harness_json_add_num(win, "cpu_ns", r->window_cpu_ns[w]);
    harness_json_add_num(win, "cpu_per_wall", harness_cpu_per_wall(r->window_cpu_ns[w], r->window_wall_ns[w]));
}

/* Interference evidence (summary.h): counts, and the bound on how far it
 * could have moved the median, which `harness compare` weighs against a
 * change before calling it (structured, so no reader parses a sentence). */
static cJSON *noise_json(const harness_noise_evidence *e, const harness_env *env)
{
    cJSON *o = cJSON_CreateObject();
    harness_json_add_num(o, "involuntary_switches", e->involuntary_switches >= 0 ? (double)e->involuntary_switches : NAN);
    cJSON_AddNumberToObject(o, "measured_steps", (double)e->steps);
    harness_json_add_num(o, "steal_share", e->steal_share);
    harness_json_add_num(o, "sm_clock_mhz", e->sm_clock_mhz);             /* the lowest seen; null on the CPU */
    harness_json_add_num(o, "sm_clock_max_mhz", e->sm_clock_max_mhz);
    char names[128];
    cJSON_AddStringToObject(o, "throttle_reasons", harness_throttle_names(e->throttle_reasons, names, sizeof names));
    harness_json_add_num(o, "median_shift_bound", e->median_shift_bound);
    char text[512];
    cJSON_AddStringToObject(o, "evidence", harness_noise_text(e, text, sizeof text));
    if (env) {                     /* context only: the machine's load, not this run's */
        harness_json_add_num(o, "load_average_start", env->load_start[0]);
        harness_json_add_num(o, "load_average_end", env->load_end[0]);
    }
    return o;
}

/* Whether an auto window met its CI target; null for a fixed step count. */
static void add_converged(cJSON *win, const harness_summary *s, const char *stop_reason)
{
    if (harness_summary_measurement_steps(s) != 0)
        cJSON_AddNullToObject(win, "converged");
    else
        cJSON_AddBoolToObject(win, "converged", strcmp(stop_reason, "converged") == 0);
}

/* The windows' medians as the samples: the window is the unit of replication. */
static cJSON *across_windows_json(const harness_summary *s)
{
    const harness_stats *a = &s->across_windows;
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
    cJSON_AddBoolToObject(o, "windows_disagree", s->windows_disagree);
    return o;
}

static cJSON *params_json(const harness_config *cfg)
{
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < cfg->n_params; i++) {
        const harness_param_value *p = &cfg->params[i];
        switch (p->spec->type) {
        case HARNESS_PARAM_INT: cJSON_AddNumberToObject(o, p->spec->name, (double)p->i); break;
        case HARNESS_PARAM_FLOAT: harness_json_add_num(o, p->spec->name, p->f); break;
        case HARNESS_PARAM_BOOL: cJSON_AddBoolToObject(o, p->spec->name, p->i != 0); break;
        default: cJSON_AddStringToObject(o, p->spec->name, p->s ? p->s : ""); break;
        }
    }
    return o;
}

/* Always an object, {} when the component noted nothing, so readers look
 * up a key without first asking whether the object is there. */
static cJSON *notes_json(const harness_notes *notes)
{
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; notes && i < notes->n; i++)
        cJSON_AddStringToObject(o, notes->note[i].key, notes->note[i].value);
    return o;
}

/* validation.after_timing (docs/timing-integrity.md, "Anti-cheat"). */
static cJSON *after_timing_json(const harness_summary *s)
{
    const harness_after_timing_summary *a = &s->after_timing;
    cJSON *o = cJSON_CreateObject();
    if (a->state)
        cJSON_AddStringToObject(o, "status", a->state);
    else
        cJSON_AddNullToObject(o, "status");   /* the run stopped before */
    cJSON_AddNumberToObject(o, "inputs_declared", a->inputs);
    cJSON_AddNumberToObject(o, "outputs_declared", a->outputs);
    cJSON_AddNumberToObject(o, "probe_steps", a->probe_steps);
    harness_json_add_num(o, "probe_wait_ns", a->probe_steps ? a->probe_wait_ns : NAN);
    cJSON_AddStringToObject(o, "recheck", a->recheck ? a->recheck : "none");
    if (a->rotate_sets >= 2) {
        cJSON *r = cJSON_AddObjectToObject(o, "rotate_inputs");
        cJSON_AddNumberToObject(r, "sets", (double)a->rotate_sets);
        cJSON_AddNumberToObject(r, "bytes", (double)a->rotate_bytes);
    } else {
        cJSON_AddNullToObject(o, "rotate_inputs");
    }
    return o;
}

static cJSON *validation_json(const harness_summary *s)
{
    static const char *const names[] = {"skipped", "passed", "failed"};
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "enabled", s->cfg->validate);
    cJSON_AddStringToObject(o, "status", names[s->validation]);
    cJSON_AddItemToObject(o, "after_timing", after_timing_json(s));
    if (s->validation == HARNESS_VALIDATION_SKIPPED) {
        cJSON_AddNullToObject(o, "passed");
        return o;
    }
    cJSON_AddBoolToObject(o, "passed", s->validation == HARNESS_VALIDATION_PASSED);
    cJSON_AddNumberToObject(o, "checked", (double)s->check.checked);
    cJSON_AddNumberToObject(o, "mismatches", (double)s->check.mismatches);
    harness_json_add_num(o, "max_abs_err", s->check.max_abs_err);
    harness_json_add_num(o, "max_rel_err", s->check.max_rel_err);
    harness_json_add_num(o, "tolerance", s->check.tolerance);
    cJSON_AddStringToObject(o, "detail", s->check.detail);
    return o;
}

static cJSON *timing_json(const harness_summary *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "unit", "ns");
    cJSON_AddStringToObject(o, "clock", s->clock ? s->clock->name : "none");
    harness_json_add_num(o, "clock_read_overhead_ns", s->clock ? s->clock->read_overhead_ns : NAN);
    harness_json_add_num(o, "clock_resolution_ns", s->clock ? s->clock->resolution_ns : NAN);
    cJSON_AddStringToObject(o, "clock_why", s->clock ? s->clock->why : "");
    add_stats(o, &s->overall);
    const harness_run_result *r = s->run;
    if (r && s->samples_file[0])
        cJSON_AddItemToObject(o, "samples_file",
                              harness_sample_file_ref_json(s->samples_file, r->n_samples, "ns", s->samples_sha256));
    else
        cJSON_AddItemToObject(o, "samples", r && r->n_samples ? harness_sample_array_json(r->samples_ns,
                                                                                          r->n_samples)
                                                              : cJSON_CreateArray());
    cJSON *windows = cJSON_AddArrayToObject(o, "windows");
    for (size_t w = 0; r && w < r->n_windows; w++) {
        cJSON *win = cJSON_CreateObject();
        cJSON_AddNumberToObject(win, "index", (double)w);
        cJSON_AddNumberToObject(win, "first_sample", (double)r->window_start[w]);
        cJSON_AddStringToObject(win, "stop_reason", r->stop_reason[w]);
        add_converged(win, s, r->stop_reason[w]);
        add_stats(win, &s->windows[w]);
        add_window_times(win, r, w);
        if (s->window_noise)
            cJSON_AddItemToObject(win, "noise", noise_json(&s->window_noise[w], NULL));
        harness_clock_report_window_json(s, w, win);
        cJSON_AddItemToObject(win, "energy", harness_window_energy_json(s, w));
        cJSON_AddItemToArray(windows, win);
    }
    cJSON_AddItemToObject(o, "across_windows", across_windows_json(s));
    return o;
}

/* A config's measurement_steps: a number, or "auto". */
static void add_steps(cJSON *o, const char *key, int64_t steps)
{
    if (steps == 0)
        cJSON_AddStringToObject(o, key, "auto");
    else
        cJSON_AddNumberToObject(o, key, (double)steps);
}

/* --time-budget: what was asked, what the pilot measured and what was
 * decided (run/time_budget.h); null without a budget. A budget too small
 * leaves no run (the error says why), so this is null then too. */
static cJSON *time_budget_json(const harness_run_result *r)
{
    if (!r || !(r->budget.budget_s > 0))
        return cJSON_CreateNull();
    const harness_budget *b = &r->budget;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "budget_s", b->budget_s);
    harness_json_add_num(o, "step_ns", b->step_s * 1e9);
    cJSON_AddNumberToObject(o, "pilot_steps", (double)b->pilot_steps);
    harness_json_add_num(o, "spent_s", b->spent_s);
    cJSON_AddNumberToObject(o, "windows_planned", (double)b->windows);
    cJSON_AddNumberToObject(o, "steps_per_window", (double)b->steps);
    add_steps(o, "config_measurement_steps", b->config_steps);
    cJSON_AddNumberToObject(o, "config_repeat", (double)b->config_repeat);
    return o;
}

/* What ran: with a time budget, measurement_steps is its size and repeat
 * the windows that ran (time_budget keeps the config's). */
static cJSON *schedule_json(const harness_summary *s)
{
    const harness_config *c = s->cfg;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "warmup_steps", (double)c->warmup_steps);
    cJSON_AddNumberToObject(o, "wait_steps", (double)c->wait_steps);
    add_steps(o, "measurement_steps", harness_summary_measurement_steps(s));
    cJSON_AddNumberToObject(o, "repeat", (double)harness_summary_repeat(s));
    const harness_run_result *r = s->run;
    cJSON_AddItemToObject(o, "time_budget", time_budget_json(r));
    cJSON_AddNumberToObject(o, "warmup_steps_run", r ? (double)r->warmup_steps_run : 0);
    cJSON_AddNumberToObject(o, "wait_steps_run", r ? (double)r->wait_steps_run : 0);
    cJSON_AddNumberToObject(o, "trace_steps_run", r ? (double)r->trace_steps_run : 0);
    cJSON_AddNumberToObject(o, "measured_steps", r ? (double)r->n_samples : 0);
    harness_json_add_num(o, "wall_s", r ? r->wall_s : NAN);
    return o;
}

static cJSON *throughput_json(const harness_summary *s)
{
    cJSON *o = cJSON_CreateObject();
    double median = s->overall.n ? s->overall.median : NAN;
    cJSON_AddNumberToObject(o, "bytes_per_step", s->cost.bytes);
    cJSON_AddNumberToObject(o, "flops_per_step", s->cost.flops);
    /* bytes per ns is GB/s (1e9 bytes per second); flops per ns is GFLOP/s. */
    harness_json_add_num(o, "gb_per_s", median > 0 && s->cost.bytes > 0 ? s->cost.bytes / median : NAN);
    harness_json_add_num(o, "gflop_per_s", median > 0 && s->cost.flops > 0 ? s->cost.flops / median : NAN);
    cJSON_AddStringToObject(o, "at", "median");
    return o;
}

static cJSON *memory_samples_json(const harness_memory_log *log)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; log && i < log->n; i++) {
        const harness_memory_sample *m = &log->samples[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "t_us", m->t_us);
        cJSON_AddNumberToObject(o, "step", (double)m->step);
        cJSON_AddStringToObject(o, "phase", harness_phase_file_name(m->phase));
        cJSON_AddNumberToObject(o, "window", m->window);
        cJSON_AddNumberToObject(o, "allocated_bytes", (double)m->allocated);
        cJSON_AddNumberToObject(o, "peak_allocated_bytes", (double)m->peak_allocated);
        cJSON_AddNumberToObject(o, "reserved_bytes", (double)m->reserved);
        /* A point that stands for several samples: the max above, the min here. */
        cJSON_AddNumberToObject(o, "allocated_min_bytes", (double)m->allocated_min);
        cJSON_AddNumberToObject(o, "reserved_min_bytes", (double)m->reserved_min);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *memory_json(const harness_summary *s)
{
    cJSON *o = cJSON_CreateObject();
    const harness_alloc_tracker *m = s->mem;
    const harness_memory_log *log = s->profiler && s->profiler->memory_enabled ? &s->profiler->memory : NULL;
    cJSON_AddStringToObject(o, "allocated_means", "bytes live through the harness's tracked allocator");
    cJSON_AddStringToObject(o, "reserved_means", strcmp(s->device, "cuda") == 0 ? "device memory in use"
                                                                                : "resident set of the process");
    cJSON_AddNumberToObject(o, "peak_allocated_bytes", m ? (double)m->peak_bytes : 0);
    if (log)
        cJSON_AddNumberToObject(o, "peak_reserved_bytes", (double)log->peak_reserved);
    else
        cJSON_AddNullToObject(o, "peak_reserved_bytes");
    cJSON_AddNumberToObject(o, "log_every_steps", (double)s->cfg->memory_log_steps);
    /* The log is bounded (run/memory_log.h): how many points at most, the
     * stride the last ones were taken at, and how many samples they hold. */
    cJSON_AddNumberToObject(o, "samples_bound", HARNESS_MEMORY_LOG_MAX);
    if (log) {
        cJSON_AddNumberToObject(o, "samples_every_steps", (double)log->every_steps);
        cJSON_AddNumberToObject(o, "samples_taken", (double)log->taken);
    } else {
        cJSON_AddNullToObject(o, "samples_every_steps");
        cJSON_AddNumberToObject(o, "samples_taken", 0);
    }
    cJSON_AddItemToObject(o, "samples", memory_samples_json(log));
    cJSON_AddNumberToObject(o, "allocations", m ? (double)m->n_allocs : 0);
    cJSON *tags = cJSON_AddArrayToObject(o, "live_at_peak");
    for (size_t i = 0; m && i < m->n_at_peak; i++) {
        cJSON *a = cJSON_CreateObject();
        cJSON_AddStringToObject(a, "tag", m->at_peak[i].tag);
        cJSON_AddStringToObject(a, "owner", m->at_peak[i].owner);
        cJSON_AddNumberToObject(a, "bytes", (double)m->at_peak[i].bytes);
        cJSON_AddItemToArray(tags, a);
    }
    return o;
}

static cJSON *trace_json(const harness_summary *s)
{
    cJSON *o = cJSON_CreateObject();
    const harness_profiler *p = s->profiler;
    int on = p && p->trace_enabled;
    cJSON_AddBoolToObject(o, "written", on);
    cJSON_AddNumberToObject(o, "events", on ? (double)p->n_events : 0);
    cJSON_AddNumberToObject(o, "max_events", (double)s->cfg->max_trace_events);
    cJSON_AddNumberToObject(o, "steps_not_traced", on ? (double)p->dropped_steps : 0);
    cJSON_AddBoolToObject(o, "truncated", on && p->dropped_steps > 0);
    return o;
}

static cJSON *regions_json(const harness_summary *s)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < s->n_regions; i++) {
        const harness_region_stats *r = &s->regions[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", r->name);
        cJSON_AddNumberToObject(o, "count", (double)r->per_call.n);
        harness_json_add_num(o, "total_ns", r->total_ns);
        harness_json_add_num(o, "median_ns", r->per_call.median);
        harness_json_add_num(o, "mean_ns", r->per_call.mean);
        harness_json_add_num(o, "share_of_steps", r->share_of_steps);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

/* The per-kernel table (report/gpu_trace.h), longest total first; null
 * without GPU records. */
static cJSON *gpu_kernels_json(const harness_summary *s)
{
    harness_gpu_kernel_row *rows;
    size_t n;
    if (!s->gpu_activity || harness_gpu_kernel_table(s->gpu_activity, &rows, &n, NULL) != 0)
        return cJSON_CreateNull();
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", rows[i].name);
        cJSON_AddNumberToObject(o, "calls", (double)rows[i].calls);
        cJSON_AddNumberToObject(o, "total_ns", rows[i].total_ns);
        cJSON_AddNumberToObject(o, "mean_ns", rows[i].mean_ns);
        cJSON_AddNumberToObject(o, "min_ns", rows[i].min_ns);
        cJSON_AddNumberToObject(o, "max_ns", rows[i].max_ns);
        cJSON_AddNumberToObject(o, "share", rows[i].share);
        cJSON_AddItemToArray(a, o);
    }
    free(rows);
    return a;
}

static cJSON *load_json(const double load[3])
{
    return cJSON_CreateDoubleArray(load, 3);
}

/* The CPU itself: what decides whether two figures are comparable at all. */
static void add_cpu_env(cJSON *o, const harness_env *e)
{
    cJSON_AddStringToObject(o, "cpu", e->cpu_model);
    cJSON_AddStringToObject(o, "cpu_family", e->cpu_family);
    cJSON_AddStringToObject(o, "cpu_model_number", e->cpu_model_number);
    cJSON_AddStringToObject(o, "cpu_stepping", e->cpu_stepping);
    cJSON *caches = cJSON_AddObjectToObject(o, "caches");
    cJSON_AddStringToObject(caches, "l1d", e->cache_l1d);
    cJSON_AddStringToObject(caches, "l1i", e->cache_l1i);
    cJSON_AddStringToObject(caches, "l2", e->cache_l2);
    cJSON_AddStringToObject(caches, "l3", e->cache_l3);
    cJSON_AddStringToObject(o, "scaling_governor", e->governor);
    cJSON_AddNumberToObject(o, "logical_cpus", e->logical_cpus);
    cJSON_AddNumberToObject(o, "affinity_cpus", e->affinity_cpus);
    cJSON_AddNumberToObject(o, "omp_threads", e->omp_threads);
    cJSON *loads = cJSON_AddObjectToObject(o, "load_average");
    cJSON_AddItemToObject(loads, "start", load_json(e->load_start));
    cJSON_AddItemToObject(loads, "end", load_json(e->load_end));
}

static void add_build_env(cJSON *o, const harness_env *e)
{
    cJSON_AddStringToObject(o, "compiler", e->compiler);
    cJSON_AddStringToObject(o, "cflags", e->cflags);
    cJSON_AddStringToObject(o, "sanitizers", e->sanitizers);
    cJSON_AddStringToObject(o, "configure_args", e->configure_args);
    cJSON_AddStringToObject(o, "executable", e->executable);
    cJSON_AddStringToObject(o, "git_commit", e->git_commit);
    cJSON_AddStringToObject(o, "harness_version", e->version);
}

static cJSON *env_json(const harness_env *e)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "host", e->host);
    cJSON_AddStringToObject(o, "os", e->os);
    add_cpu_env(o, e);
    cJSON_AddStringToObject(o, "gpu", e->gpu);
    cJSON_AddStringToObject(o, "driver", e->driver);
    cJSON_AddStringToObject(o, "cuda", e->cuda);
    add_build_env(o, e);
    cJSON_AddStringToObject(o, "clock", e->clock);
    cJSON_AddStringToObject(o, "kernel_clocksource", e->kernel_clocksource);
    harness_json_add_num(o, "clock_resolution_ns", e->clock_resolution_ns);
    cJSON_AddStringToObject(o, "started_at", e->started_at);
    return o;
}

/* "impossible_figure": null, or the figure a run failed on (or kept by
 * --allow-above-peak): what compare, ab and history read to refuse it. */
static cJSON *impossible_json(const harness_impossible_figure *i)
{
    if (!i->what[0])
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "figure", i->what);
    harness_json_add_num(o, "rate_per_s", i->rate);
    harness_json_add_num(o, "peak_per_s", i->peak);
    harness_json_add_num(o, "limit_per_s", i->limit);
    harness_json_add_num(o, "margin", i->margin);
    cJSON_AddBoolToObject(o, "allowed", i->allowed);
    cJSON_AddStringToObject(o, "message", i->message);
    return o;
}

static cJSON *warnings_json(const harness_warnings *w)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < w->n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(w->text[i]));
    return a;
}

/* The summary as the folder stage writes it (folder/rank_summary.h): the
 * head typed, each section built here. */
char *harness_summary_json(const harness_summary *s)
{
    harness_rank_summary_out o = {
        .status = s->status, .error = s->error,
        /* Also a run whose callback a stop abandoned (run/guard.h): the
         * runner never returned to say so. */
        .interrupted = (s->run && s->run->interrupted) || strcmp(s->status, "interrupted") == 0,
        .rank = s->rank, .world_size = s->world_size, .experiment_name = s->cfg->name,
        .variant_key = s->variant_key, .requested = s->cfg->variant_key, .plugin = s->plugin_path,
        .device_type = s->device, .device_name = s->device_name,
        .gpu_activity_dropped = s->gpu_activity ? (double)s->gpu_activity->dropped : NAN,
        .gpu_activity_untimed = s->gpu_activity ? (double)s->gpu_activity->untimed : NAN,
    };
    /* the sections, built in the order they are written (one statement
     * each: an initializer list's order of evaluation is unspecified) */
    o.config = params_json(s->cfg);
    o.component_notes = notes_json(s->notes);
    o.validation = validation_json(s);
    o.schedule = schedule_json(s);
    o.timing = timing_json(s);
    o.throughput = throughput_json(s);
    o.energy = harness_energy_json(s);
    o.roofline = harness_roofline_json(s);
    o.regions = regions_json(s);
    o.memory = memory_json(s);
    o.trace = trace_json(s);
    o.communication = harness_comm_json(s);
    o.gpu_kernels = gpu_kernels_json(s);
    o.env = env_json(&s->env);
    /* the device's and the clock's facts go into three of the sections */
    harness_device_report_json(s, o.timing, o.memory, o.env);
    harness_clock_report_json(s, o.timing);
    o.warnings = warnings_json(&s->warnings);
    o.impossible_figure = impossible_json(&s->impossible);
    o.noise = noise_json(&s->noise, &s->env);
    return harness_rank_summary_write(&o);
}
