/* GPU figures in the summaries; see device_report.h. */
#include "report/device_report.h"
#include "folder/sample_array.h"

#include <cjson/cJSON.h>
#include <string.h>

static int is_gpu_run(const harness_summary *s)
{
    return s->backend && s->device && strcmp(s->device, "cuda") == 0;
}

static const char *timing_mode(const harness_backend *b)
{
    return b->opts.batch_timing ? "batch" : "per_step";
}

static const char *blocking_kernel(const harness_backend *b)
{
    return b->ops->blocking_kernel ? b->ops->blocking_kernel(b) : "off";
}

/* timing.full_sync_check: the events against a full device synchronize,
 * with the trace window's work off the timed stream (run/full_sync.h). */
static void full_sync_json(const harness_summary *s, cJSON *timing)
{
    const harness_full_sync_check *c = &s->full_sync;
    cJSON *f = cJSON_AddObjectToObject(timing, "full_sync_check");
    cJSON_AddBoolToObject(f, "ran", c->ran);
    if (!c->ran) {
        cJSON_AddStringToObject(f, "skipped", c->skipped ? c->skipped : "the run did not complete");
        return;
    }
    cJSON_AddNumberToObject(f, "sync_ns", c->sync_ns);
    cJSON_AddNumberToObject(f, "events_median_ns", c->events_median_ns);
    cJSON_AddNumberToObject(f, "launch_median_ns", c->launch_median_ns);
    cJSON_AddNumberToObject(f, "bound_ns", c->bound_ns);
    cJSON_AddBoolToObject(f, "agrees", c->agrees);
    if (!s->side_work_known) {
        cJSON_AddNullToObject(f, "side_stream_work");
        return;
    }
    cJSON *list = cJSON_AddArrayToObject(f, "side_stream_work");
    for (size_t i = 0; i < s->n_side_work; i++) {
        const harness_side_work *w = &s->side_work[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", w->kind == HARNESS_GPU_KERNEL ? "kernel"
                                           : w->kind == HARNESS_GPU_MEMCPY ? "memcpy" : "memset");
        cJSON_AddStringToObject(o, "name", w->name);
        cJSON_AddNumberToObject(o, "stream", w->stream);
        cJSON_AddNumberToObject(o, "calls", (double)w->calls);
        cJSON_AddNumberToObject(o, "total_ns", (double)w->total_ns);
        cJSON_AddItemToArray(list, o);
    }
}

void harness_device_report_json(const harness_summary *s, cJSON *timing, cJSON *memory, cJSON *env)
{
    if (!is_gpu_run(s))
        return;
    const harness_backend *b = s->backend;
    cJSON *t = cJSON_AddObjectToObject(timing, "device_timer");
    cJSON_AddStringToObject(t, "clock", "cuda events on the component's stream");
    cJSON_AddStringToObject(t, "mode", timing_mode(b));
    cJSON_AddBoolToObject(t, "cuda_graph", b->opts.cuda_graph);
    cJSON_AddBoolToObject(t, "flush_l2", b->opts.flush_l2);
    /* used | off | fell back: step() synchronized (docs/timing-integrity.md) */
    cJSON_AddStringToObject(timing, "blocking_kernel", blocking_kernel(b));
    full_sync_json(s, timing);
    const harness_run_result *r = s->run;
    if (r && r->host_samples_ns && r->n_samples) {
        /* The host's time in each step() call: what launching costs, which
         * the device time (samples) does not show. */
        cJSON *h = cJSON_AddObjectToObject(timing, "host_launch");
        harness_stats st;
        if (harness_stats_compute(r->host_samples_ns, r->n_samples, &st) == 0) {
            cJSON_AddNumberToObject(h, "median", st.median);
            cJSON_AddNumberToObject(h, "mean", st.mean);
            cJSON_AddNumberToObject(h, "min", st.min);
            cJSON_AddNumberToObject(h, "max", st.max);
        }
        if (s->host_samples_file[0])
            cJSON_AddItemToObject(h, "samples_file", harness_sample_file_ref_json(s->host_samples_file, r->n_samples,
                                                                                  "ns", s->host_samples_sha256));
        else
            cJSON_AddItemToObject(h, "samples", harness_sample_array_json(r->host_samples_ns, r->n_samples));
    }
    const harness_alloc_tracker *dm = s->device_mem;
    cJSON *d = cJSON_AddObjectToObject(memory, "device");
    cJSON_AddNumberToObject(d, "peak_tracked_bytes", dm ? (double)dm->peak_bytes : 0);
    cJSON_AddNumberToObject(d, "tracked_allocations", dm ? (double)dm->n_allocs : 0);
    cJSON_AddNumberToObject(d, "used_bytes", (double)b->ops->reserved_bytes(b));
    cJSON_AddNumberToObject(d, "total_bytes", (double)b->info.total_bytes);
    cJSON *tags = cJSON_AddArrayToObject(d, "live_at_peak");
    for (size_t i = 0; dm && i < dm->n_at_peak; i++) {
        cJSON *a = cJSON_CreateObject();
        cJSON_AddStringToObject(a, "tag", dm->at_peak[i].tag);
        cJSON_AddStringToObject(a, "owner", dm->at_peak[i].owner);
        cJSON_AddNumberToObject(a, "bytes", (double)dm->at_peak[i].bytes);
        cJSON_AddItemToArray(tags, a);
    }
    const harness_device_info *i = &b->info;
    cJSON *g = cJSON_AddObjectToObject(env, "gpu_device");
    cJSON_AddStringToObject(g, "name", b->device_name);
    cJSON_AddNumberToObject(g, "index", i->index);
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", i->cc_major, i->cc_minor);
    cJSON_AddStringToObject(g, "compute_capability", cc);
    cJSON_AddStringToObject(g, "arch", i->arch);
    cJSON_AddNumberToObject(g, "sm_count", i->sm_count);
    cJSON_AddNumberToObject(g, "sm_clock_mhz", i->sm_clock_mhz);
    cJSON_AddNumberToObject(g, "memory_clock_mhz", i->mem_clock_mhz);
    cJSON_AddNumberToObject(g, "memory_bus_width_bits", i->bus_width_bits);
    cJSON_AddNumberToObject(g, "memory_bytes", (double)i->total_bytes);
    cJSON_AddNumberToObject(g, "l2_bytes", (double)i->l2_bytes);
    cJSON_AddStringToObject(g, "driver", i->driver);
    cJSON_AddStringToObject(g, "runtime", i->runtime);
}

void harness_device_report_print(FILE *f, const harness_summary *s)
{
    if (!is_gpu_run(s))
        return;
    const harness_backend *b = s->backend;
    const harness_device_info *i = &b->info;
    char a[32], c[32], d[32];
    fprintf(f, "gpu %d: %s (sm_%d%d %s, %d SMs at %.0f MHz, %s, driver %s, runtime %s)\n", i->index,
            b->device_name, i->cc_major, i->cc_minor, i->arch, i->sm_count, i->sm_clock_mhz,
            harness_format_bytes((double)i->total_bytes, a, sizeof a), i->driver, i->runtime);
    fprintf(f, "device timing: cuda events, %s%s%s, blocking kernel %s\n", timing_mode(b),
            b->opts.cuda_graph ? ", graph launches" : "", b->opts.flush_l2 ? ", L2 flushed between steps" : "",
            blocking_kernel(b));
    const harness_run_result *r = s->run;
    harness_stats st;
    if (r && r->host_samples_ns && r->n_samples && harness_stats_compute(r->host_samples_ns, r->n_samples, &st) == 0)
        fprintf(f, "host time per step() call (launch): median %s, max %s; the table above is device time\n",
                harness_format_ns(st.median, a, sizeof a), harness_format_ns(st.max, c, sizeof c));
    const harness_full_sync_check *fs = &s->full_sync;
    if (fs->ran)
        fprintf(f, "one step by a full device synchronize: %s, within the bound %s of the events: %s\n",
                harness_format_ns(fs->sync_ns, a, sizeof a), harness_format_ns(fs->bound_ns, c, sizeof c),
                fs->agrees ? "yes" : "no");
    const harness_alloc_tracker *dm = s->device_mem;
    fprintf(f, "device memory: peak tracked %s in %zu allocation(s); in use on the device %s of %s\n",
            harness_format_bytes(dm ? (double)dm->peak_bytes : 0, a, sizeof a), dm ? dm->n_allocs : 0,
            harness_format_bytes((double)b->ops->reserved_bytes(b), c, sizeof c),
            harness_format_bytes((double)i->total_bytes, d, sizeof d));
}
