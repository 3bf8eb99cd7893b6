#include "report/trace_writer.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>

#include <unistd.h>

#include "util/fsutil.h"
#include "util/json_string.h"
#include "report/gpu_trace.h"
#include "run/comm_log.h"

enum { TID_STEPS = 1, TID_MEMORY = 2, TID_COMM = 3, TID_FIRST_RUNTIME = 4 };

/* Rounding to whole ns before splitting keeps nesting exact: a region that
 * starts no earlier and ends no later than its step in ticks does so in the
 * written numbers too. */
static int64_t to_ns(const harness_profiler *p, uint64_t ticks)
{
    return ticks >= p->base_ticks ? llround(harness_clock_ns(p->clk, ticks - p->base_ticks)) : 0;
}

#define put_us harness_trace_put_us

static void metadata(FILE *f, const char *what, int pid, int tid, const char *name)
{
    fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"name\":", pid, tid, what);
    harness_json_string(f, name);
    fputs("}},\n", f);
}

static void span(FILE *f, const harness_profiler *p, int pid, const harness_trace_event *e)
{
    int64_t t0 = to_ns(p, e->t0), t1 = to_ns(p, e->t1);
    fprintf(f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":", pid, TID_STEPS);
    put_us(f, t0);
    fputs(",\"dur\":", f);
    put_us(f, t1 - t0);
    if (e->kind == HARNESS_EVENT_STEP && e->window < 0) {   /* the trace window's (profiler.c) */
        fprintf(f, ",\"name\":\"step\",\"cat\":\"step\",\"args\":{\"phase\":\"trace\",\"step\":%" PRId64 "}}", e->step);
    } else if (e->kind == HARNESS_EVENT_STEP) {
        fprintf(f, ",\"name\":\"step\",\"cat\":\"step\",\"args\":{\"window\":%d,\"step\":%" PRId64 "}}", e->window,
                e->step);
    } else {
        fputs(",\"name\":", f);
        harness_json_string(f, p->names[e->name]);
        fputs(",\"cat\":\"region\"}", f);
    }
}

/* A trace cut at max_trace_events ends with its last whole step: the
 * memory and communication lines stop there too, or they would outgrow
 * the bound the user set (60,000 memory samples beside 100 spans). */
static int64_t trace_end_ns(const harness_profiler *p)
{
    if (!p->dropped_steps)
        return INT64_MAX;
    int64_t end = 0;
    for (size_t i = 0; i < p->n_events; i++) {
        int64_t t1 = to_ns(p, p->events[i].t1);
        end = t1 > end ? t1 : end;
    }
    return end;
}

/* The trace's header: its clock, the job, the device and what was kept. */
static void write_header(FILE *f, const harness_profiler *p, const harness_trace_meta *meta)
{
    fprintf(f, "{\"schemaVersion\":1,\"displayTimeUnit\":\"ms\",\"baseTimeNanoseconds\":%" PRIu64 ",\n",
            p->base_unix_ns);
    fprintf(f, "\"distributedInfo\":{\"rank\":%d,\"world_size\":%d},\n\"deviceProperties\":", meta->rank,
            meta->world_size);
    harness_gpu_trace_device_properties(f, meta->gpu_devices, meta->n_gpu_devices);
    fputs(",\n\"otherData\":{\"harness_version\":", f);
    harness_json_string(f, meta->harness_version);
    fputs(",\"variant_key\":", f);
    harness_json_string(f, meta->variant_key);
    fprintf(f, ",\"rank\":%d,\"world_size\":%d,\"base_time_unix_ns\":%" PRIu64 ",\"clock\":", meta->rank,
            meta->world_size, p->base_unix_ns);
    harness_json_string(f, p->clk->name);
    fprintf(f, ",\"events\":%zu,\"max_events\":%zu,\"steps_not_traced\":%zu,\"truncated\":%s", p->n_events,
            p->max_events, p->dropped_steps, p->dropped_steps ? "true" : "false");
    fprintf(f, ",\"gpu_activity_records\":%zu,\"gpu_activity_dropped\":%" PRIu64 ",\"gpu_activity_untimed\":%" PRIu64
               "},\n", meta->gpu ? meta->gpu->n : 0, meta->gpu ? meta->gpu->dropped : 0,
            meta->gpu ? meta->gpu->untimed : 0);
}

/* Collectives: what each call moved and how fast, as nccl-tests counts. */
static void write_collectives(FILE *f, const harness_profiler *p, const harness_comm_log *comm, int pid,
                              int world_size, int64_t end)
{
    for (size_t i = 0; comm && i < comm->n; i++) {
        const harness_comm_record *c = &comm->records[i];
        int64_t t0 = to_ns(p, c->t0), t1 = to_ns(p, c->t1);
        if (t0 > end)
            break;                 /* in time order: the rest are later still */
        fprintf(f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"cat\":\"communication\",\"name\":\"%s\",\"ts\":", pid,
                TID_COMM, harness_coll_name(c->kind));
        put_us(f, t0);
        fputs(",\"dur\":", f);
        put_us(f, t1 - t0);
        fprintf(f, ",\"args\":{\"dtype\":\"%s\",\"bytes\":%" PRIu64 ",\"world_size\":%d}},\n",
                harness_dtype_name(c->dtype), c->bytes, world_size);
    }
}

/* The memory samples as counters. */
static void write_memory(FILE *f, const harness_memory_log *m, int pid, int64_t end)
{
    for (size_t i = 0; i < m->n; i++) {
        int64_t ns = llround(m->samples[i].t_us * 1000.0);
        if (ns > end)
            break;
        fprintf(f, "{\"ph\":\"C\",\"pid\":%d,\"tid\":%d,\"name\":\"memory\",\"ts\":", pid, TID_MEMORY);
        put_us(f, ns < 0 ? 0 : ns);
        fprintf(f, ",\"args\":{\"allocated_bytes\":%" PRIu64 ",\"reserved_bytes\":%" PRIu64 "}},\n",
                m->samples[i].allocated, m->samples[i].reserved);
    }
}

/* The measured steps and regions; the last event ends the list. */
static void write_spans(FILE *f, const harness_profiler *p, int pid)
{
    for (size_t i = 0; i < p->n_events; i++) {
        span(f, p, pid, &p->events[i]);
        fputs(i + 1 < p->n_events ? ",\n" : "\n", f);
    }
    if (p->n_events == 0)  /* the list before ends with a comma after the metadata */
        fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":0}}\n",
                pid, TID_STEPS);
}

int harness_trace_write(const harness_profiler *p, const harness_trace_meta *meta, const char *path,
                        harness_error *err)
{
    char tmp[4096];
    FILE *f = harness_atomic_open(path, tmp, err);
    if (!f)
        return err->code;
    const harness_gpu_activity_list *gpu = meta->gpu && meta->gpu->n ? meta->gpu : NULL;
    int pid = gpu ? (int)getpid() : meta->rank;
    char label[512];
    snprintf(label, sizeof label, "rank %d of %d: %s on %s", meta->rank, meta->world_size, meta->variant_key,
             meta->device_name);
    write_header(f, p, meta);
    fputs("\"traceEvents\":[\n", f);
    metadata(f, "process_name", pid, 0, label);
    fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}},\n",
            pid, meta->rank);
    metadata(f, "thread_name", pid, TID_STEPS, "measured steps");
    metadata(f, "thread_name", pid, TID_MEMORY, "memory");
    const harness_comm_log *comm = meta->comm && meta->comm->n ? meta->comm : NULL;
    if (comm)
        metadata(f, "thread_name", pid, TID_COMM, "communication");
    const int64_t end = trace_end_ns(p);
    write_collectives(f, p, comm, pid, meta->world_size, end);
    write_memory(f, &p->memory, pid, end);
    if (gpu) {
        harness_gpu_trace_target target = {.base_ns = p->base_monotonic_ns, .host_pid = pid,
                                           .first_host_tid = TID_FIRST_RUNTIME};
        if (harness_gpu_trace_events(f, gpu, &target) < 0) {
            harness_atomic_abort(f, tmp);
            return harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: out of memory writing the GPU timeline", path);
        }
    }
    write_spans(f, p, pid);
    fputs("]}\n", f);
    return harness_atomic_commit(f, tmp, path, err);
}
