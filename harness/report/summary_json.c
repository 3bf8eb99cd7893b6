/* summary_ranks_N_rank_r.json: the live run turned into the record the
 * folder stage writes (folder/rank_summary_out.h, its writer beside its
 * reader). The keys of docs/ARCHITECTURE.md section 7 are the writer's
 * (never rename them; add freely); this file only says what each holds. */
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
#include "report/summary.h"
#include "folder/rank_summary.h"
#include "util/interference.h"
#include "util/json_number.h"

/* Interference evidence (summary.h): counts, and the bound on how far it
 * could have moved the median. env: the run's (the machine's load beside
 * it); NULL a window's. texts: room for the throttle names and evidence. */
static harness_noise_out noise_out(const harness_noise_evidence *e, const harness_env *env, char names[128],
                                   char text[512])
{
    harness_noise_out o = {
        .involuntary_switches = e->involuntary_switches >= 0 ? (double)e->involuntary_switches : NAN,
        .measured_steps = (double)e->steps, .steal_share = e->steal_share,
        .sm_clock_mhz = e->sm_clock_mhz, .sm_clock_max_mhz = e->sm_clock_max_mhz,
        .throttle_reasons = harness_throttle_names(e->throttle_reasons, names, 128),
        .median_shift_bound = e->median_shift_bound, .evidence = harness_noise_text(e, text, 512),
        .has_load = env != NULL,
    };
    if (env) {
        o.load_average_start = env->load_start[0];
        o.load_average_end = env->load_end[0];
    }
    return o;
}

/* Owned by harness_summary_json while the writer runs: the windows and the
 * arrays each section points into. */
typedef struct held {
    harness_window_out *windows;
    harness_noise_out *window_noise;
    char (*window_texts)[640];
    harness_memory_point_out *points;
    harness_live_out *live;
    harness_region_out *regions;
    harness_gpu_kernel_out *kernels;
    harness_comm_out *comm;
    harness_clock_figures_out *window_clocks;
    harness_device_clocks_out clocks;
    harness_device_out device;
    harness_dist_env_out distributed;
    harness_iface_addr_out addrs[HARNESS_DIST_ENV_MAX_ADDRS];
} held;

static void held_free(held *h)
{
    free(h->windows);
    free(h->window_noise);
    free(h->window_texts);
    free(h->points);
    free(h->live);
    free(h->regions);
    free(h->kernels);
    free(h->comm);
    free(h->window_clocks);
    harness_device_report_free(&h->device);
}

/* calloc of n (at least one, so that NULL means out of memory). */
static void *cells(size_t n, size_t size)
{
    return calloc(n ? n : 1, size);
}

static int windows_out(const harness_summary *s, harness_timing_out *t, held *h)
{
    const harness_run_result *r = s->run;
    size_t n = r ? r->n_windows : 0;
    if (!(h->windows = cells(n, sizeof *h->windows)) || !(h->window_noise = cells(n, sizeof *h->window_noise)) ||
        !(h->window_texts = cells(n, sizeof *h->window_texts)) ||
        !(h->window_clocks = cells(n, sizeof *h->window_clocks)))
        return -1;
    for (size_t w = 0; w < n; w++) {
        harness_window_out *win = &h->windows[w];
        win->index = (double)w;
        win->first_sample = (double)r->window_start[w];
        win->stop_reason = r->stop_reason[w];
        /* whether an auto window met its CI target; null for a fixed step count */
        win->converged = harness_summary_measurement_steps(s) != 0 ? -1 : strcmp(r->stop_reason[w], "converged") == 0;
        win->stats = s->windows[w];
        win->wall_ns = r->window_wall_ns[w];
        win->cpu_ns = r->window_cpu_ns[w];
        win->cpu_per_wall = harness_cpu_per_wall(r->window_cpu_ns[w], r->window_wall_ns[w]);
        if (s->window_noise) {
            h->window_noise[w] = noise_out(&s->window_noise[w], NULL, h->window_texts[w], h->window_texts[w] + 128);
            win->noise = &h->window_noise[w];
        }
        if (harness_clock_report_window_out(s, w, &h->window_clocks[w]))
            win->clocks = &h->window_clocks[w];
        harness_window_energy_out_of(s, w, &win->energy);
    }
    t->windows = h->windows;
    t->n_windows = n;
    return 0;
}

static int timing_out(const harness_summary *s, harness_timing_out *t, held *h)
{
    const harness_run_result *r = s->run;
    *t = (harness_timing_out){
        .clock = s->clock ? s->clock->name : "none", .clock_why = s->clock ? s->clock->why : "",
        .clock_read_overhead_ns = s->clock ? s->clock->read_overhead_ns : NAN,
        .clock_resolution_ns = s->clock ? s->clock->resolution_ns : NAN,
        .overall = s->overall, .samples = r ? r->samples_ns : NULL, .n_samples = r ? r->n_samples : 0,
        .samples_file = r ? s->samples_file : NULL, .samples_sha256 = s->samples_sha256,
        .across = s->across_windows, .windows_disagree = s->windows_disagree,
    };
    return windows_out(s, t, h);
}

/* component.config: the variant's own parameters, whose schema is the
 * plugin's, so open-ended: a cJSON subtree the record carries. */
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

/* component_notes: the plugin's own keys, open-ended like the config.
 * Always an object, {} when the component noted nothing, so readers look
 * up a key without first asking whether the object is there. */
static cJSON *notes_json(const harness_notes *notes)
{
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; notes && i < notes->n; i++)
        cJSON_AddStringToObject(o, notes->note[i].key, notes->note[i].value);
    return o;
}

static harness_validation_out validation_out(const harness_summary *s)
{
    static const char *const names[] = {"skipped", "passed", "failed"};
    const harness_after_timing_summary *a = &s->after_timing;
    harness_validation_out v = {
        .enabled = s->cfg->validate, .status = names[s->validation],
        .checked = (double)s->check.checked, .mismatches = (double)s->check.mismatches,
        .max_abs_err = s->check.max_abs_err, .max_rel_err = s->check.max_rel_err,
        .tolerance = s->check.tolerance, .detail = s->check.detail,
    };
    v.after_timing.status = a->state;
    v.after_timing.inputs_declared = a->inputs;
    v.after_timing.outputs_declared = a->outputs;
    v.after_timing.probe_steps = a->probe_steps;
    v.after_timing.probe_wait_ns = a->probe_steps ? a->probe_wait_ns : NAN;
    v.after_timing.recheck = a->recheck ? a->recheck : "none";
    v.after_timing.rotate_sets = (double)a->rotate_sets;
    v.after_timing.rotate_bytes = (double)a->rotate_bytes;
    return v;
}

/* --time-budget: what was asked, what the pilot measured and what was
 * decided (run/time_budget.h); none without a budget. A budget too small
 * leaves no run (the error says why), so none then too. */
static const harness_budget_out *budget_out(const harness_run_result *r, harness_budget_out *o)
{
    if (!r || !(r->budget.budget_s > 0))
        return NULL;
    const harness_budget *b = &r->budget;
    *o = (harness_budget_out){
        .budget_s = b->budget_s, .step_ns = b->step_s * 1e9, .pilot_steps = (double)b->pilot_steps,
        .spent_s = b->spent_s, .windows_planned = (double)b->windows, .steps_per_window = (double)b->steps,
        .config_measurement_steps = b->config_steps, .config_repeat = (double)b->config_repeat,
    };
    return o;
}

/* What ran: with a time budget, measurement_steps is its size and repeat
 * the windows that ran (time_budget keeps the config's). */
static harness_schedule_out schedule_out(const harness_summary *s, harness_budget_out *budget)
{
    const harness_run_result *r = s->run;
    return (harness_schedule_out){
        .warmup_steps = (double)s->cfg->warmup_steps, .wait_steps = (double)s->cfg->wait_steps,
        .measurement_steps = harness_summary_measurement_steps(s), .repeat = (double)harness_summary_repeat(s),
        .time_budget = budget_out(r, budget),
        .warmup_steps_run = r ? (double)r->warmup_steps_run : 0, .wait_steps_run = r ? (double)r->wait_steps_run : 0,
        .trace_steps_run = r ? (double)r->trace_steps_run : 0, .measured_steps = r ? (double)r->n_samples : 0,
        .wall_s = r ? r->wall_s : NAN,
    };
}

static harness_throughput_out throughput_out(const harness_summary *s)
{
    double median = s->overall.n ? s->overall.median : NAN;
    return (harness_throughput_out){
        .bytes_per_step = s->cost.bytes, .flops_per_step = s->cost.flops,
        .gb_per_s = median > 0 && s->cost.bytes > 0 ? s->cost.bytes / median : NAN,
        .gflop_per_s = median > 0 && s->cost.flops > 0 ? s->cost.flops / median : NAN,
    };
}

/* The live set at a tracker's peak (NULL tracker: none). */
static int live_out(const harness_alloc_tracker *m, harness_live_out **out, size_t *n)
{
    *n = m ? m->n_at_peak : 0;
    if (!(*out = cells(*n, sizeof **out)))
        return -1;
    for (size_t i = 0; i < *n; i++)
        (*out)[i] = (harness_live_out){m->at_peak[i].tag, m->at_peak[i].owner, (double)m->at_peak[i].bytes};
    return 0;
}

static int memory_out(const harness_summary *s, harness_memory_out *o, held *h)
{
    const harness_alloc_tracker *m = s->mem;
    const harness_memory_log *log = s->profiler && s->profiler->memory_enabled ? &s->profiler->memory : NULL;
    *o = (harness_memory_out){
        .allocated_means = "bytes live through the harness's tracked allocator",
        .reserved_means = strcmp(s->device, "cuda") == 0 ? "device memory in use" : "resident set of the process",
        .peak_allocated_bytes = m ? (double)m->peak_bytes : 0, .peak_reserved_bytes = log ? (double)log->peak_reserved
                                                                                          : NAN,
        .log_every_steps = (double)s->cfg->memory_log_steps, .samples_bound = HARNESS_MEMORY_LOG_MAX,
        .samples_every_steps = log ? (double)log->every_steps : NAN, .samples_taken = log ? (double)log->taken : 0,
        .n_samples = log ? log->n : 0, .allocations = m ? (double)m->n_allocs : 0,
    };
    if (!(h->points = cells(o->n_samples, sizeof *h->points)) || live_out(m, &h->live, &o->n_live) != 0)
        return -1;
    for (size_t i = 0; i < o->n_samples; i++) {
        const harness_memory_sample *p = &log->samples[i];
        h->points[i] = (harness_memory_point_out){
            .t_us = p->t_us, .step = (double)p->step, .phase = harness_phase_file_name(p->phase),
            .window = p->window, .allocated_bytes = (double)p->allocated,
            .peak_allocated_bytes = (double)p->peak_allocated, .reserved_bytes = (double)p->reserved,
            .allocated_min_bytes = (double)p->allocated_min, .reserved_min_bytes = (double)p->reserved_min,
        };
    }
    o->samples = h->points;
    o->live_at_peak = h->live;
    return 0;
}

static harness_trace_out trace_out(const harness_summary *s)
{
    const harness_profiler *p = s->profiler;
    int on = p && p->trace_enabled;
    return (harness_trace_out){
        .written = on, .truncated = on && p->dropped_steps > 0, .events = on ? (double)p->n_events : 0,
        .max_events = (double)s->cfg->max_trace_events, .steps_not_traced = on ? (double)p->dropped_steps : 0,
    };
}

static int regions_out(const harness_summary *s, harness_rank_summary_out *o, held *h)
{
    if (!(h->regions = cells(s->n_regions, sizeof *h->regions)))
        return -1;
    for (size_t i = 0; i < s->n_regions; i++) {
        const harness_region_stats *r = &s->regions[i];
        h->regions[i] = (harness_region_out){
            .name = r->name, .count = (double)r->per_call.n, .total_ns = r->total_ns,
            .median_ns = r->per_call.median, .mean_ns = r->per_call.mean, .share_of_steps = r->share_of_steps,
        };
    }
    o->regions = h->regions;
    o->n_regions = s->n_regions;
    return 0;
}

/* The per-kernel table (report/gpu_trace.h), longest total first; none
 * without GPU records. */
static int gpu_kernels_out(const harness_summary *s, harness_rank_summary_out *o, held *h)
{
    harness_gpu_kernel_row *rows;
    size_t n;
    if (!s->gpu_activity || harness_gpu_kernel_table(s->gpu_activity, &rows, &n, NULL) != 0)
        return 0;                  /* null, as before (out of memory included) */
    if (!(h->kernels = cells(n, sizeof *h->kernels))) {
        free(rows);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        h->kernels[i] = (harness_gpu_kernel_out){
            .name = rows[i].name, .calls = (double)rows[i].calls, .total_ns = rows[i].total_ns,
            .mean_ns = rows[i].mean_ns, .min_ns = rows[i].min_ns, .max_ns = rows[i].max_ns, .share = rows[i].share,
        };
    free(rows);                    /* the names are the activity list's */
    o->has_gpu_kernels = 1;
    o->gpu_kernels = h->kernels;
    o->n_gpu_kernels = n;
    return 0;
}

static harness_env_out env_out(const harness_env *e)
{
    harness_env_out o = {
        .host = e->host, .os = e->os, .cpu = e->cpu_model, .cpu_family = e->cpu_family,
        .cpu_model_number = e->cpu_model_number, .cpu_stepping = e->cpu_stepping,
        .l1d = e->cache_l1d, .l1i = e->cache_l1i, .l2 = e->cache_l2, .l3 = e->cache_l3,
        .scaling_governor = e->governor, .logical_cpus = e->logical_cpus, .affinity_cpus = e->affinity_cpus,
        .omp_threads = e->omp_threads, .gpu_name = e->gpu, .driver = e->driver, .cuda = e->cuda,
        .compiler = e->compiler, .cflags = e->cflags, .sanitizers = e->sanitizers,
        .configure_args = e->configure_args, .executable = e->executable, .git_commit = e->git_commit,
        .harness_version = e->version, .clock = e->clock, .kernel_clocksource = e->kernel_clocksource,
        .clock_resolution_ns = e->clock_resolution_ns, .started_at = e->started_at,
    };
    memcpy(o.load_start, e->load_start, sizeof o.load_start);
    memcpy(o.load_end, e->load_end, sizeof o.load_end);
    return o;
}

/* "impossible_figure": none, or the figure a run failed on (or kept by
 * --allow-above-peak). */
static harness_impossible_out impossible_out(const harness_impossible_figure *i)
{
    return (harness_impossible_out){
        .figure = i->what, .rate_per_s = i->rate, .peak_per_s = i->peak, .limit_per_s = i->limit,
        .margin = i->margin, .allowed = i->allowed, .message = i->message,
    };
}

/* The sections, filled in the order they are written (one statement each:
 * an initializer list's order of evaluation is unspecified). */
static int sections_out(const harness_summary *s, harness_rank_summary_out *o, harness_budget_out *budget,
                        const char **warnings, char noise_text[640], held *h)
{
    o->config = params_json(s->cfg);
    o->component_notes = notes_json(s->notes);
    o->validation = validation_out(s);
    o->schedule = schedule_out(s, budget);
    if (timing_out(s, &o->timing, h) != 0)
        return -1;
    o->throughput = throughput_out(s);
    harness_energy_out_of(s, &o->energy);
    harness_roofline_out_of(s, &o->roofline);
    if (regions_out(s, o, h) != 0 || memory_out(s, &o->memory, h) != 0)
        return -1;
    o->trace = trace_out(s);
    if (harness_comm_out_of(s, &h->comm, &o->n_communication) != 0 || gpu_kernels_out(s, o, h) != 0)
        return -1;
    o->communication = h->comm;
    o->env = env_out(&s->env);
    harness_dist_env_out_of(&s->dist_env, &h->distributed, h->addrs);
    o->env.distributed = &h->distributed;
    /* a CUDA run's device and clock facts, in three of the sections */
    int gpu = harness_device_report_out(s, &h->device);
    if (gpu < 0)
        return -1;
    if (gpu) {
        o->timing.device = &h->device.timing;
        o->memory.device = &h->device.memory;
        o->env.gpu_device = &h->device.env;
    }
    if (harness_clock_report_out(s, &h->clocks))
        o->timing.clocks = &h->clocks;
    for (size_t i = 0; i < s->warnings.n; i++)
        warnings[i] = s->warnings.text[i];
    o->warnings = warnings;
    o->n_warnings = s->warnings.n;
    o->impossible_figure = impossible_out(&s->impossible);
    o->noise = noise_out(&s->noise, &s->env, noise_text, noise_text + 128);
    return 0;
}

/* The cJSON parts a record carries, when the writer did not take them. */
static void out_free(harness_rank_summary_out *o)
{
    cJSON_Delete(o->config);
    cJSON_Delete(o->component_notes);
}

/* The summary as the folder stage writes it (folder/rank_summary.h); NULL
 * out of memory. */
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
    held h = {0};
    harness_budget_out budget;
    const char *warnings[HARNESS_MAX_WARNINGS];
    char noise_text[640];
    char *text = NULL;
    if (sections_out(s, &o, &budget, warnings, noise_text, &h) == 0)
        text = harness_rank_summary_write(&o);
    else
        out_free(&o);
    held_free(&h);
    return text;
}
