/* rank_summary_gpu.c - a CUDA run's members of summary_ranks_N_rank_r.json,
 * each written from its record (rank_summary_out.h): the device timer and
 * its checks, the SM clock, the device's memory and its facts. No reader
 * takes them back yet; when one does, it goes here beside the writer. */
#include "folder/rank_summary_gpu.h"

#include "folder/sample_array.h"
#include "util/json_number.h"

/* The samples inline, or the side file that holds them. */
static void add_samples(cJSON *o, const double *v, size_t n, const char *unit, const char *file, const char *sha)
{
    if (file && file[0])
        cJSON_AddItemToObject(o, "samples_file", harness_sample_file_ref_json(file, n, unit, sha));
    else
        cJSON_AddItemToObject(o, "samples", harness_sample_array_json(v, n));
}

/* timing.full_sync_check: the events against a full device synchronize,
 * with the trace window's work off the timed stream. */
static void full_sync_json(cJSON *timing, const harness_device_timing_out *d)
{
    cJSON *f = cJSON_AddObjectToObject(timing, "full_sync_check");
    cJSON_AddBoolToObject(f, "ran", d->full_sync.ran);
    if (!d->full_sync.ran) {
        cJSON_AddStringToObject(f, "skipped", d->full_sync.skipped);
        return;
    }
    harness_json_add_num(f, "sync_ns", d->full_sync.sync_ns);
    harness_json_add_num(f, "events_median_ns", d->full_sync.events_median_ns);
    harness_json_add_num(f, "launch_ns", d->full_sync.launch_ns);
    harness_json_add_num(f, "bound_ns", d->full_sync.bound_ns);
    cJSON_AddBoolToObject(f, "agrees", d->full_sync.agrees);
    if (!d->full_sync.side_work_known) {
        cJSON_AddNullToObject(f, "side_stream_work");
        return;
    }
    cJSON *list = cJSON_AddArrayToObject(f, "side_stream_work");
    for (size_t i = 0; i < d->full_sync.n_side_work; i++) {
        const harness_side_work_out *w = &d->full_sync.side_work[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", w->kind);
        cJSON_AddStringToObject(o, "name", w->name);
        harness_json_add_num(o, "stream", w->stream);
        harness_json_add_num(o, "calls", w->calls);
        harness_json_add_num(o, "total_ns", w->total_ns);
        cJSON_AddItemToArray(list, o);
    }
}

void harness_rs_write_device_timing(cJSON *o, const harness_device_timing_out *d)
{
    cJSON *t = cJSON_AddObjectToObject(o, "device_timer");
    cJSON_AddStringToObject(t, "clock", "cuda events on the component's stream");
    cJSON_AddStringToObject(t, "mode", d->mode);
    cJSON_AddBoolToObject(t, "cuda_graph", d->cuda_graph);
    cJSON_AddBoolToObject(t, "flush_l2", d->flush_l2);
    /* used | off | fell back: step() synchronized (docs/timing-integrity.md) */
    cJSON_AddStringToObject(o, "blocking_kernel", d->blocking_kernel);
    full_sync_json(o, d);
    if (!d->has_host_launch)
        return;
    /* The host's time in each step() call: what launching costs, which the
     * device time (samples) does not show. */
    cJSON *h = cJSON_AddObjectToObject(o, "host_launch");
    if (d->host_stats) {
        harness_json_add_num(h, "median", d->host_median);
        harness_json_add_num(h, "mean", d->host_mean);
        harness_json_add_num(h, "min", d->host_min);
        harness_json_add_num(h, "max", d->host_max);
    }
    add_samples(h, d->host_samples, d->n_host_samples, "ns", d->host_samples_file, d->host_samples_sha256);
}

static void add_clock_figures(cJSON *o, const harness_clock_figures_out *f)
{
    harness_json_add_num(o, "sm_clock_min_mhz", f->sm_clock_min_mhz);
    harness_json_add_num(o, "sm_clock_median_mhz", f->sm_clock_median_mhz);
    harness_json_add_num(o, "readings", f->readings);
    harness_json_add_num(o, "throttled_steps_dropped", f->throttled_steps_dropped);
    harness_json_add_num(o, "throttled_steps_kept", f->throttled_steps_kept);
    harness_json_add_num(o, "pause_ms", f->pause_ms);
    cJSON_AddStringToObject(o, "throttle_reasons", f->throttle_reasons);
}

cJSON *harness_rs_write_clock_figures(const harness_clock_figures_out *f)
{
    cJSON *o = cJSON_CreateObject();
    add_clock_figures(o, f);
    return o;
}

cJSON *harness_rs_write_device_clocks(const harness_device_clocks_out *c)
{
    cJSON *o = cJSON_CreateObject();
    harness_json_add_num(o, "read_every_ns", c->read_every_ns);
    harness_json_add_num(o, "throttle_threshold", c->throttle_threshold);
    harness_json_add_num(o, "sm_clock_max_mhz", c->sm_clock_max_mhz);
    add_clock_figures(o, &c->figures);
    cJSON_AddStringToObject(o, "lock_clocks", c->lock_clocks);
    cJSON_AddBoolToObject(o, "clocks_locked", c->clocks_locked);
    cJSON_AddStringToObject(o, "lock", c->lock);
    add_samples(o, c->samples, c->n_samples, "MHz", c->samples_file, c->samples_sha256);
    return o;
}

cJSON *harness_rs_write_live(const harness_live_out *live, size_t n)
{
    cJSON *tags = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *a = cJSON_CreateObject();
        cJSON_AddStringToObject(a, "tag", live[i].tag);
        cJSON_AddStringToObject(a, "owner", live[i].owner);
        harness_json_add_num(a, "bytes", live[i].bytes);
        cJSON_AddItemToArray(tags, a);
    }
    return tags;
}

cJSON *harness_rs_write_device_memory(const harness_device_memory_out *m)
{
    cJSON *d = cJSON_CreateObject();
    harness_json_add_num(d, "peak_tracked_bytes", m->peak_tracked_bytes);
    harness_json_add_num(d, "tracked_allocations", m->tracked_allocations);
    harness_json_add_num(d, "used_bytes", m->used_bytes);
    harness_json_add_num(d, "total_bytes", m->total_bytes);
    cJSON_AddItemToObject(d, "live_at_peak", harness_rs_write_live(m->live_at_peak, m->n_live));
    return d;
}

cJSON *harness_rs_write_gpu_device(const harness_gpu_device_out *g)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", g->name);
    harness_json_add_num(o, "index", g->index);
    cJSON_AddStringToObject(o, "compute_capability", g->compute_capability);
    cJSON_AddStringToObject(o, "arch", g->arch);
    harness_json_add_num(o, "sm_count", g->sm_count);
    harness_json_add_num(o, "sm_clock_mhz", g->sm_clock_mhz);
    harness_json_add_num(o, "memory_clock_mhz", g->memory_clock_mhz);
    harness_json_add_num(o, "memory_bus_width_bits", g->memory_bus_width_bits);
    harness_json_add_num(o, "memory_bytes", g->memory_bytes);
    harness_json_add_num(o, "l2_bytes", g->l2_bytes);
    cJSON_AddStringToObject(o, "driver", g->driver);
    cJSON_AddStringToObject(o, "runtime", g->runtime);
    return o;
}
