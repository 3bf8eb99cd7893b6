/* rank_summary_sections.c - the rest of summary_ranks_N_rank_r.json's
 * sections, each written from its record (rank_summary_out.h). What a
 * reader takes of them is little (rank_summary.c: validation's status,
 * throughput's two costs); a section's reader grows here, beside its
 * writer. */
#include "folder/rank_summary_sections.h"

#include <string.h>

#include "folder/rank_summary_gpu.h"
#include "util/json_number.h"

/* validation.after_timing (docs/timing-integrity.md, "Anti-cheat"). */
static cJSON *after_timing_json(const harness_validation_out *v)
{
    cJSON *o = cJSON_CreateObject();
    if (v->after_timing.status)
        cJSON_AddStringToObject(o, "status", v->after_timing.status);
    else
        cJSON_AddNullToObject(o, "status");   /* the run stopped before */
    harness_json_add_num(o, "inputs_declared", v->after_timing.inputs_declared);
    harness_json_add_num(o, "outputs_declared", v->after_timing.outputs_declared);
    harness_json_add_num(o, "probe_steps", v->after_timing.probe_steps);
    harness_json_add_num(o, "probe_wait_ns", v->after_timing.probe_wait_ns);
    cJSON_AddStringToObject(o, "recheck", v->after_timing.recheck);
    if (v->after_timing.rotate_sets >= 2) {
        cJSON *r = cJSON_AddObjectToObject(o, "rotate_inputs");
        harness_json_add_num(r, "sets", v->after_timing.rotate_sets);
        harness_json_add_num(r, "bytes", v->after_timing.rotate_bytes);
    } else {
        cJSON_AddNullToObject(o, "rotate_inputs");
    }
    return o;
}

cJSON *harness_rs_write_validation(const harness_validation_out *v)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "enabled", v->enabled);
    cJSON_AddStringToObject(o, "status", v->status);
    cJSON_AddItemToObject(o, "after_timing", after_timing_json(v));
    if (strcmp(v->status, "skipped") == 0) {
        cJSON_AddNullToObject(o, "passed");
        return o;
    }
    cJSON_AddBoolToObject(o, "passed", strcmp(v->status, "passed") == 0);
    harness_json_add_num(o, "checked", v->checked);
    harness_json_add_num(o, "mismatches", v->mismatches);
    harness_json_add_num(o, "max_abs_err", v->max_abs_err);
    harness_json_add_num(o, "max_rel_err", v->max_rel_err);
    harness_json_add_num(o, "tolerance", v->tolerance);
    cJSON_AddStringToObject(o, "detail", v->detail);
    return o;
}

/* A config's measurement_steps: a number, or "auto". */
static void add_steps(cJSON *o, const char *key, long long steps)
{
    if (steps == 0)
        cJSON_AddStringToObject(o, key, "auto");
    else
        cJSON_AddNumberToObject(o, key, (double)steps);
}

/* --time-budget: what was asked, what the pilot measured and what was
 * decided (run/time_budget.h); null without a budget. */
static cJSON *time_budget_json(const harness_budget_out *b)
{
    if (!b)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    harness_json_add_num(o, "budget_s", b->budget_s);
    harness_json_add_num(o, "step_ns", b->step_ns);
    harness_json_add_num(o, "pilot_steps", b->pilot_steps);
    harness_json_add_num(o, "spent_s", b->spent_s);
    harness_json_add_num(o, "windows_planned", b->windows_planned);
    harness_json_add_num(o, "steps_per_window", b->steps_per_window);
    add_steps(o, "config_measurement_steps", b->config_measurement_steps);
    harness_json_add_num(o, "config_repeat", b->config_repeat);
    return o;
}

/* What ran: with a time budget, measurement_steps is its size and repeat
 * the windows that ran. */
cJSON *harness_rs_write_schedule(const harness_schedule_out *s)
{
    cJSON *o = cJSON_CreateObject();
    harness_json_add_num(o, "warmup_steps", s->warmup_steps);
    harness_json_add_num(o, "wait_steps", s->wait_steps);
    add_steps(o, "measurement_steps", s->measurement_steps);
    harness_json_add_num(o, "repeat", s->repeat);
    cJSON_AddItemToObject(o, "time_budget", time_budget_json(s->time_budget));
    harness_json_add_num(o, "warmup_steps_run", s->warmup_steps_run);
    harness_json_add_num(o, "wait_steps_run", s->wait_steps_run);
    harness_json_add_num(o, "trace_steps_run", s->trace_steps_run);
    harness_json_add_num(o, "measured_steps", s->measured_steps);
    harness_json_add_num(o, "wall_s", s->wall_s);
    return o;
}

cJSON *harness_rs_write_throughput(const harness_throughput_out *t)
{
    cJSON *o = cJSON_CreateObject();
    harness_json_add_num(o, "bytes_per_step", t->bytes_per_step);
    harness_json_add_num(o, "flops_per_step", t->flops_per_step);
    /* bytes per ns is GB/s (1e9 bytes per second); flops per ns is GFLOP/s. */
    harness_json_add_num(o, "gb_per_s", t->gb_per_s);
    harness_json_add_num(o, "gflop_per_s", t->gflop_per_s);
    cJSON_AddStringToObject(o, "at", "median");
    return o;
}

static void add_str_or_null(cJSON *o, const char *key, const char *v)
{
    if (v)
        cJSON_AddStringToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

cJSON *harness_rs_write_roofline(const harness_roofline_out *r)
{
    cJSON *o = cJSON_CreateObject();
    harness_json_add_num(o, "peak_bytes_per_s", r->peak_bytes_per_s);
    harness_json_add_num(o, "peak_flops_per_s", r->peak_flops_per_s);
    harness_json_add_num(o, "percent_of_peak_bandwidth", r->percent_of_peak_bandwidth);
    harness_json_add_num(o, "percent_of_peak_flops", r->percent_of_peak_flops);
    harness_json_add_num(o, "peak_fp16_flops_per_s", r->peak_fp16_flops_per_s);
    harness_json_add_num(o, "peak_bf16_flops_per_s", r->peak_bf16_flops_per_s);
    harness_json_add_num(o, "percent_of_peak_fp16_flops", r->percent_of_peak_fp16_flops);
    harness_json_add_num(o, "percent_of_peak_bf16_flops", r->percent_of_peak_bf16_flops);
    add_str_or_null(o, "peak_source", r->peak_source);
    add_str_or_null(o, "missing", r->missing);
    /* Tools need not re-derive which figures are impossible. */
    cJSON *above = cJSON_AddArrayToObject(o, "above_peak");
    for (size_t i = 0; i < r->n_above_peak; i++)
        cJSON_AddItemToArray(above, cJSON_CreateString(r->above_peak[i]));
    /* How far past a peak a figure may go before it is impossible, and the
     * cache that widens the bandwidth's allowance. */
    harness_json_add_num(o, "bytes_margin", r->bytes_margin);
    add_str_or_null(o, "bytes_margin_why", r->bytes_margin_why);
    harness_json_add_num(o, "flops_margin", r->flops_margin);
    add_str_or_null(o, "flops_margin_why", r->flops_margin_why);
    harness_json_add_num(o, "cache_bytes", r->cache_bytes);
    cJSON_AddStringToObject(o, "at", "median");
    return o;
}

/* Every collective of the run, by op, dtype and size; null without one. */
cJSON *harness_rs_write_communication(const harness_comm_out *c, size_t n)
{
    if (!c)
        return cJSON_CreateNull();
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "op", c[i].op);
        cJSON_AddStringToObject(o, "dtype", c[i].dtype);
        if (c[i].peer >= 0)
            cJSON_AddNumberToObject(o, "peer", c[i].peer);
        harness_json_add_num(o, "bytes", c[i].bytes);
        harness_json_add_num(o, "calls", c[i].calls);
        harness_json_add_num(o, "total_ns", c[i].total_ns);
        harness_json_add_num(o, "mean_ns", c[i].mean_ns);
        harness_json_add_num(o, "min_ns", c[i].min_ns);
        harness_json_add_num(o, "max_ns", c[i].max_ns);
        harness_json_add_num(o, "algbw_gbps", c[i].algbw_gbps);
        harness_json_add_num(o, "busbw_gbps", c[i].busbw_gbps);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *memory_samples_json(const harness_memory_point_out *p, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        const harness_memory_point_out *m = &p[i];
        cJSON *o = cJSON_CreateObject();
        harness_json_add_num(o, "t_us", m->t_us);
        harness_json_add_num(o, "step", m->step);
        cJSON_AddStringToObject(o, "phase", m->phase);
        harness_json_add_num(o, "window", m->window);
        harness_json_add_num(o, "allocated_bytes", m->allocated_bytes);
        harness_json_add_num(o, "peak_allocated_bytes", m->peak_allocated_bytes);
        harness_json_add_num(o, "reserved_bytes", m->reserved_bytes);
        /* A point that stands for several samples: the max above, the min here. */
        harness_json_add_num(o, "allocated_min_bytes", m->allocated_min_bytes);
        harness_json_add_num(o, "reserved_min_bytes", m->reserved_min_bytes);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

cJSON *harness_rs_write_memory(const harness_memory_out *m)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "allocated_means", m->allocated_means);
    cJSON_AddStringToObject(o, "reserved_means", m->reserved_means);
    harness_json_add_num(o, "peak_allocated_bytes", m->peak_allocated_bytes);
    harness_json_add_num(o, "peak_reserved_bytes", m->peak_reserved_bytes);
    harness_json_add_num(o, "log_every_steps", m->log_every_steps);
    /* The log is bounded (run/memory_log.h): how many points at most, the
     * stride the last ones were taken at, and how many samples they hold. */
    harness_json_add_num(o, "samples_bound", m->samples_bound);
    harness_json_add_num(o, "samples_every_steps", m->samples_every_steps);
    harness_json_add_num(o, "samples_taken", m->samples_taken);
    cJSON_AddItemToObject(o, "samples", memory_samples_json(m->samples, m->n_samples));
    harness_json_add_num(o, "allocations", m->allocations);
    cJSON_AddItemToObject(o, "live_at_peak", harness_rs_write_live(m->live_at_peak, m->n_live));
    if (m->device)
        cJSON_AddItemToObject(o, "device", harness_rs_write_device_memory(m->device));
    return o;
}

cJSON *harness_rs_write_trace(const harness_trace_out *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "written", t->written);
    harness_json_add_num(o, "events", t->events);
    harness_json_add_num(o, "max_events", t->max_events);
    harness_json_add_num(o, "steps_not_traced", t->steps_not_traced);
    cJSON_AddBoolToObject(o, "truncated", t->truncated);
    return o;
}

cJSON *harness_rs_write_regions(const harness_region_out *r, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", r[i].name);
        harness_json_add_num(o, "count", r[i].count);
        harness_json_add_num(o, "total_ns", r[i].total_ns);
        harness_json_add_num(o, "median_ns", r[i].median_ns);
        harness_json_add_num(o, "mean_ns", r[i].mean_ns);
        harness_json_add_num(o, "share_of_steps", r[i].share_of_steps);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

/* The per-kernel table, longest total first; null without GPU records. */
cJSON *harness_rs_write_gpu_kernels(int known, const harness_gpu_kernel_out *k, size_t n)
{
    if (!known)
        return cJSON_CreateNull();
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", k[i].name);
        harness_json_add_num(o, "calls", k[i].calls);
        harness_json_add_num(o, "total_ns", k[i].total_ns);
        harness_json_add_num(o, "mean_ns", k[i].mean_ns);
        harness_json_add_num(o, "min_ns", k[i].min_ns);
        harness_json_add_num(o, "max_ns", k[i].max_ns);
        harness_json_add_num(o, "share", k[i].share);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

cJSON *harness_rs_write_warnings(const char *const *text, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(text[i]));
    return a;
}
