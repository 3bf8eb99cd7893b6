/* GPU figures in the summaries; see device_report.h. */
#include "report/device_report.h"

#include <stdlib.h>
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
static void full_sync_out(const harness_summary *s, harness_device_out *o)
{
    const harness_full_sync_check *c = &s->full_sync;
    harness_device_timing_out *t = &o->timing;
    t->full_sync.ran = c->ran;
    t->full_sync.skipped = c->skipped ? c->skipped : "the run did not complete";
    t->full_sync.sync_ns = c->sync_ns;
    t->full_sync.events_median_ns = c->events_median_ns;
    t->full_sync.launch_ns = c->launch_ns;
    t->full_sync.bound_ns = c->bound_ns;
    t->full_sync.agrees = c->agrees;
    t->full_sync.side_work_known = s->side_work_known;
    size_t n = s->n_side_work < 8 ? s->n_side_work : 8;
    for (size_t i = 0; i < n; i++) {
        const harness_side_work *w = &s->side_work[i];
        o->side_work[i] = (harness_side_work_out){
            .kind = w->kind == HARNESS_GPU_KERNEL ? "kernel" : w->kind == HARNESS_GPU_MEMCPY ? "memcpy" : "memset",
            .name = w->name, .stream = w->stream, .calls = (double)w->calls, .total_ns = (double)w->total_ns,
        };
    }
    t->full_sync.side_work = o->side_work;
    t->full_sync.n_side_work = n;
}

/* The host's time in each step() call: what launching costs, which the
 * device time (samples) does not show. */
static void host_launch_out(const harness_summary *s, harness_device_timing_out *t)
{
    const harness_run_result *r = s->run;
    if (!(r && r->host_samples_ns && r->n_samples))
        return;
    t->has_host_launch = 1;
    harness_stats st;
    if (harness_stats_compute(r->host_samples_ns, r->n_samples, &st) == 0) {
        t->host_stats = 1;
        t->host_median = st.median, t->host_mean = st.mean, t->host_min = st.min, t->host_max = st.max;
    }
    t->host_samples = r->host_samples_ns;
    t->n_host_samples = r->n_samples;
    t->host_samples_file = s->host_samples_file;
    t->host_samples_sha256 = s->host_samples_sha256;
}

static int memory_out(const harness_summary *s, harness_device_out *o)
{
    const harness_backend *b = s->backend;
    const harness_alloc_tracker *dm = s->device_mem;
    size_t n = dm ? dm->n_at_peak : 0;
    if (!(o->live = calloc(n ? n : 1, sizeof *o->live)))
        return -1;
    for (size_t i = 0; i < n; i++)
        o->live[i] = (harness_live_out){dm->at_peak[i].tag, dm->at_peak[i].owner, (double)dm->at_peak[i].bytes};
    o->memory = (harness_device_memory_out){
        .peak_tracked_bytes = dm ? (double)dm->peak_bytes : 0, .tracked_allocations = dm ? (double)dm->n_allocs : 0,
        .used_bytes = (double)b->ops->reserved_bytes(b), .total_bytes = (double)b->info.total_bytes,
        .live_at_peak = o->live, .n_live = n,
    };
    return 0;
}

static void env_out(const harness_backend *b, harness_gpu_device_out *g)
{
    const harness_device_info *i = &b->info;
    *g = (harness_gpu_device_out){
        .name = b->device_name, .index = i->index, .arch = i->arch, .sm_count = i->sm_count,
        .sm_clock_mhz = i->sm_clock_mhz, .memory_clock_mhz = i->mem_clock_mhz,
        .memory_bus_width_bits = i->bus_width_bits, .memory_bytes = (double)i->total_bytes,
        .l2_bytes = (double)i->l2_bytes, .driver = i->driver, .runtime = i->runtime,
    };
    snprintf(g->compute_capability, sizeof g->compute_capability, "%d.%d", i->cc_major, i->cc_minor);
}

int harness_device_report_out(const harness_summary *s, harness_device_out *o)
{
    memset(o, 0, sizeof *o);
    if (!is_gpu_run(s))
        return 0;
    const harness_backend *b = s->backend;
    o->timing.mode = timing_mode(b);
    o->timing.cuda_graph = b->opts.cuda_graph;
    o->timing.flush_l2 = b->opts.flush_l2;
    o->timing.blocking_kernel = blocking_kernel(b);
    full_sync_out(s, o);
    host_launch_out(s, &o->timing);
    if (memory_out(s, o) != 0)
        return -1;
    env_out(b, &o->env);
    return 1;
}

void harness_device_report_free(harness_device_out *o)
{
    free(o->live);
    o->live = NULL;
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
