#include "report/gpu_trace.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_string.h"

void harness_trace_put_us(FILE *f, int64_t ns)
{
    if (ns < 0) {
        fputc('-', f);
        ns = -ns;
    }
    fprintf(f, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
}

void harness_gpu_trace_device_properties(FILE *f, const harness_gpu_device_props *d, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++, d++) {
        fprintf(f, "%s{\"id\":%" PRIu32 ",\"name\":", i ? "," : "", d->id);
        harness_json_string(f, d->name);
        fprintf(f,
                ",\"totalGlobalMem\":%" PRIu64 ",\"computeMajor\":%d,\"computeMinor\":%d"
                ",\"maxThreadsPerBlock\":%" PRIu32 ",\"maxThreadsPerMultiprocessor\":%" PRIu32
                ",\"regsPerBlock\":%" PRIu32 ",\"regsPerMultiprocessor\":%" PRIu32 ",\"warpSize\":%" PRIu32
                ",\"sharedMemPerBlock\":%" PRIu64 ",\"sharedMemPerMultiprocessor\":%" PRIu64
                ",\"numSms\":%" PRIu32 ",\"sharedMemPerBlockOptin\":%" PRIu64 "}",
                d->total_global_mem, d->compute_major, d->compute_minor, d->max_threads_per_block,
                d->max_threads_per_sm, d->regs_per_block, d->regs_per_sm, d->warp_size, d->shared_mem_per_block,
                d->shared_mem_per_sm, d->num_sms, d->shared_mem_per_block_optin);
    }
    fputc(']', f);
}

/* ---- the timeline ------------------------------------------------------------ */

typedef struct start_entry {
    uint64_t start_ns;
    size_t index;
} start_entry;

/* Start order; the list's order breaks ties, so the output is deterministic. */
static int by_start(const void *a, const void *b)
{
    const start_entry *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

typedef struct corr_entry {
    uint32_t correlation;
    size_t index;
    harness_gpu_activity_kind kind;
} corr_entry;

static int by_correlation(const void *a, const void *b)
{
    const corr_entry *x = a, *y = b;
    if (x->correlation != y->correlation)
        return x->correlation < y->correlation ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static const corr_entry *find_correlation(const corr_entry *v, size_t n, uint32_t c)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].correlation < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].correlation == c ? &v[lo] : NULL;
}

static int is_device_work(harness_gpu_activity_kind k)
{
    return k == HARNESS_GPU_KERNEL || k == HARNESS_GPU_MEMCPY || k == HARNESS_GPU_MEMSET;
}

/* A host-side call: a runtime call, or a driver launch made by a library. */
static int is_host_call(harness_gpu_activity_kind k)
{
    return k == HARNESS_GPU_RUNTIME || k == HARNESS_GPU_DRIVER;
}

/* Launches by correlation, then runtime before driver: when a runtime call
 * and a driver call carry the same id, the flow starts on the runtime
 * call, the one the program made. */
static int by_launch(const void *a, const void *b)
{
    const corr_entry *x = a, *y = b;
    if (x->correlation != y->correlation)
        return x->correlation < y->correlation ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind == HARNESS_GPU_RUNTIME ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

typedef struct timeline {
    FILE *f;
    const harness_gpu_activity_list *l;
    const harness_gpu_trace_target *t;
    corr_entry *runtime, *work;    /* by correlation: the flows' two ends */
    size_t n_runtime, n_work;
    uint32_t *threads;             /* host threads in order of appearance: tid = first_host_tid + index */
    size_t n_threads;
    long events;
} timeline;

static int64_t rel_ns(const timeline *tl, uint64_t ns)
{
    /* A record a few ns before time zero (clock conversion) is clamped, as
     * Kineto does: viewers reject negative timestamps. */
    return ns >= tl->t->base_ns ? (int64_t)(ns - tl->t->base_ns) : 0;
}

/* The host thread's index in order of appearance, -1 when not seen yet. */
static int thread_index(const timeline *tl, uint32_t thread)
{
    for (size_t i = 0; i < tl->n_threads; i++)
        if (tl->threads[i] == thread)
            return (int)i;
    return -1;
}

static int host_tid(const timeline *tl, uint32_t thread)
{
    int i = thread_index(tl, thread);
    return tl->t->first_host_tid + (i < 0 ? 0 : i);
}

static void where(const timeline *tl, const harness_gpu_activity *a, int *pid, int *tid)
{
    if (is_host_call(a->kind)) {
        *pid = tl->t->host_pid;
        *tid = host_tid(tl, a->thread);
    } else {
        *pid = (int)a->device;
        *tid = (int)a->stream;
    }
}

static void meta_name(timeline *tl, const char *what, int pid, int tid, const char *key, const char *value)
{
    fprintf(tl->f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"%s\":", pid, tid, what, key);
    harness_json_string(tl->f, value);
    fputs("}},\n", tl->f);
    tl->events++;
}

static void meta_sort(timeline *tl, const char *what, int pid, int tid, long index)
{
    fprintf(tl->f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"sort_index\":%ld}},\n", pid, tid,
            what, index);
    tl->events++;
}

/* Names for every GPU process, stream and host thread the records use. */
static int write_metadata(timeline *tl, const start_entry *order)
{
    const harness_gpu_activity *items = tl->l->items;
    size_t n = tl->l->n;
    /* (device, stream) pairs seen, and devices: at most n of each. */
    uint64_t *tracks = malloc((n ? n : 1) * sizeof *tracks);
    tl->threads = malloc((n ? n : 1) * sizeof *tl->threads);
    if (!tracks || !tl->threads) {
        free(tracks);
        return -1;
    }
    size_t n_tracks = 0;
    char label[64];
    for (size_t k = 0; k < n; k++) {
        const harness_gpu_activity *a = &items[order[k].index];
        if (is_host_call(a->kind)) {
            if (thread_index(tl, a->thread) < 0) {
                tl->threads[tl->n_threads++] = a->thread;
                int tid = tl->t->first_host_tid + (int)tl->n_threads - 1;
                snprintf(label, sizeof label, "CUDA runtime (thread %" PRIu32 ")", a->thread);
                meta_name(tl, "thread_name", tl->t->host_pid, tid, "name", label);
                meta_sort(tl, "thread_sort_index", tl->t->host_pid, tid, tid);
            }
            continue;
        }
        uint64_t key = (uint64_t)a->device << 32 | a->stream;
        int seen = 0, device_seen = 0;
        for (size_t i = 0; i < n_tracks && !seen; i++) {
            seen = tracks[i] == key;
            device_seen |= (uint32_t)(tracks[i] >> 32) == a->device;
        }
        if (seen)
            continue;
        if (!device_seen) {
            snprintf(label, sizeof label, "GPU %" PRIu32, a->device);
            meta_name(tl, "process_name", (int)a->device, 0, "name", label);
            meta_name(tl, "process_labels", (int)a->device, 0, "labels", label);
            /* After the host processes, whose sort index is the rank. */
            meta_sort(tl, "process_sort_index", (int)a->device, 0, 0x1000000L + (long)a->device);
        }
        tracks[n_tracks++] = key;
        snprintf(label, sizeof label, "stream %" PRIu32, a->stream);
        meta_name(tl, "thread_name", (int)a->device, (int)a->stream, "name", label);
        meta_sort(tl, "thread_sort_index", (int)a->device, (int)a->stream, (long)a->stream);
    }
    free(tracks);
    return 0;
}

static void put_dim3(FILE *f, const char *key, const uint32_t v[3])
{
    fprintf(f, ",\"%s\":[%" PRIu32 ",%" PRIu32 ",%" PRIu32 "]", key, v[0], v[1], v[2]);
}

static void write_args(FILE *f, const harness_gpu_activity *a, int64_t dur)
{
    if (is_host_call(a->kind)) {
        fprintf(f, ",\"args\":{\"correlation\":%" PRIu32 ",\"thread\":%" PRIu32 "}", a->correlation, a->thread);
        return;
    }
    fprintf(f, ",\"args\":{\"device\":%" PRIu32 ",\"stream\":%" PRIu32 ",\"correlation\":%" PRIu32, a->device,
            a->stream, a->correlation);
    if (a->kind == HARNESS_GPU_KERNEL) {
        fprintf(f, ",\"registers per thread\":%" PRIu32 ",\"shared memory\":%" PRIu64
                   ",\"static shared memory\":%" PRIu32 ",\"dynamic shared memory\":%" PRIu32,
                a->registers_per_thread, (uint64_t)a->static_shared_bytes + a->dynamic_shared_bytes,
                a->static_shared_bytes, a->dynamic_shared_bytes);
        put_dim3(f, "grid", a->grid);
        put_dim3(f, "block", a->block);
    } else {
        fprintf(f, ",\"bytes\":%" PRIu64, a->bytes);
        /* bytes per ns is GB/s */
        if (dur > 0)
            fprintf(f, ",\"memory bandwidth (GB/s)\":%.6g", (double)a->bytes / (double)dur);
    }
    fputc('}', f);
}

static void write_span(timeline *tl, const harness_gpu_activity *a)
{
    static const char *const cats[] = {"", "kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver"};
    FILE *f = tl->f;
    int pid, tid;
    where(tl, a, &pid, &tid);
    int64_t ts = rel_ns(tl, a->start_ns);
    int64_t dur = a->end_ns > a->start_ns ? (int64_t)(a->end_ns - a->start_ns) : 0;
    fprintf(f, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":", cats[a->kind]);
    const char *name = a->name ? a->name : "?";
    if (a->kind == HARNESS_GPU_MEMCPY || a->kind == HARNESS_GPU_MEMSET) {
        char label[128];
        snprintf(label, sizeof label, "%s%s%s", a->kind == HARNESS_GPU_MEMCPY ? "Memcpy" : "Memset",
                 a->name ? " " : "", a->name ? a->name : "");
        name = label;
        harness_json_string(f, name);
    } else {
        harness_json_string(f, name);
    }
    fprintf(f, ",\"pid\":%d,\"tid\":%d,\"ts\":", pid, tid);
    harness_trace_put_us(f, ts);
    fputs(",\"dur\":", f);
    harness_trace_put_us(f, dur);
    write_args(f, a, dur);
    fputs("},\n", f);
    tl->events++;
}

/* The flow id of the k-th work item (in list order) of a correlation id: the
 * id itself for the first, as Kineto; under a CUDA graph one launch has many
 * kernels, and a flow id pairs one start with one end, so the others get
 * k << 32 | id (below 2^53 for k < 2^21: exact in a viewer's doubles). */
static uint64_t flow_id(uint32_t correlation, size_t k)
{
    return (uint64_t)k << 32 | correlation;
}

/* Kineto's "ac2g" flow: "s" on the runtime call, "f" bound to the enclosing
 * slice ("bp":"e") on the work it launched; both at their slice's start. */
static void write_flow(timeline *tl, const harness_gpu_activity *a, int start, uint64_t id)
{
    int pid, tid;
    where(tl, a, &pid, &tid);
    fprintf(tl->f, "{\"ph\":\"%s\",\"id\":%" PRIu64 ",\"pid\":%d,\"tid\":%d,\"ts\":", start ? "s" : "f",
            id, pid, tid);
    harness_trace_put_us(tl->f, rel_ns(tl, a->start_ns));
    fprintf(tl->f, ",\"cat\":\"ac2g\",\"name\":\"ac2g\"%s},\n", start ? "" : ",\"bp\":\"e\"");
    tl->events++;
}

static int build_correlations(timeline *tl)
{
    const harness_gpu_activity *items = tl->l->items;
    size_t n = tl->l->n;
    tl->runtime = malloc((n ? n : 1) * sizeof *tl->runtime);
    tl->work = malloc((n ? n : 1) * sizeof *tl->work);
    if (!tl->runtime || !tl->work)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (items[i].correlation == 0)
            continue;  /* CUPTI's "none" */
        if (is_host_call(items[i].kind))
            tl->runtime[tl->n_runtime++] = (corr_entry){items[i].correlation, i, items[i].kind};
        else if (is_device_work(items[i].kind))
            tl->work[tl->n_work++] = (corr_entry){items[i].correlation, i, items[i].kind};
    }
    qsort(tl->runtime, tl->n_runtime, sizeof *tl->runtime, by_launch);
    qsort(tl->work, tl->n_work, sizeof *tl->work, by_correlation);
    return 0;
}

/* A launch (the one chosen for its id) starts a flow to each work item
 * with its id; a work item ends the flow of its rank among them. */
static void write_flows_of(timeline *tl, const harness_gpu_activity *a, size_t index)
{
    const corr_entry *launch = find_correlation(tl->runtime, tl->n_runtime, a->correlation);
    const corr_entry *first = find_correlation(tl->work, tl->n_work, a->correlation);
    if (!launch || !first)
        return;
    const corr_entry *end = tl->work + tl->n_work;
    if (is_host_call(a->kind)) {
        if (launch->index != index)
            return;                /* another call carries this id's flows */
        for (const corr_entry *w = first; w < end && w->correlation == a->correlation; w++)
            write_flow(tl, a, 1, flow_id(a->correlation, (size_t)(w - first)));
        return;
    }
    for (const corr_entry *w = first; w < end && w->correlation == a->correlation; w++)
        if (w->index == index)
            write_flow(tl, a, 0, flow_id(a->correlation, (size_t)(w - first)));
}

long harness_gpu_trace_events(FILE *f, const harness_gpu_activity_list *l, const harness_gpu_trace_target *t)
{
    timeline tl = {.f = f, .l = l, .t = t};
    size_t n = l->n;
    start_entry *order = malloc((n ? n : 1) * sizeof *order);
    if (!order || build_correlations(&tl) != 0)
        goto oom;
    for (size_t i = 0; i < n; i++)
        order[i] = (start_entry){l->items[i].start_ns, i};
    qsort(order, n, sizeof *order, by_start);
    if (write_metadata(&tl, order) != 0)
        goto oom;
    for (size_t k = 0; k < n; k++) {
        const harness_gpu_activity *a = &l->items[order[k].index];
        if (a->kind < HARNESS_GPU_KERNEL || a->kind > HARNESS_GPU_DRIVER)
            continue;
        write_span(&tl, a);
        if (a->correlation != 0)
            write_flows_of(&tl, a, order[k].index);
    }
    free(order);
    free(tl.runtime);
    free(tl.work);
    free(tl.threads);
    return tl.events;
oom:
    free(order);
    free(tl.runtime);
    free(tl.work);
    free(tl.threads);
    return -1;
}

/* ---- the per-kernel table ------------------------------------------------- */

static int by_total(const void *a, const void *b)
{
    const harness_gpu_kernel_row *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

int harness_gpu_kernel_table(const harness_gpu_activity_list *l, harness_gpu_kernel_row **rows, size_t *n,
                             double *kernel_ns)
{
    *rows = NULL;
    *n = 0;
    double all = 0;
    harness_gpu_kernel_row *r = NULL;
    size_t nr = 0, cap = 0;
    for (size_t i = 0; l && i < l->n; i++) {
        const harness_gpu_activity *a = &l->items[i];
        if (a->kind != HARNESS_GPU_KERNEL)
            continue;
        const char *name = a->name ? a->name : "?";
        double ns = a->end_ns > a->start_ns ? (double)(a->end_ns - a->start_ns) : 0;
        all += ns;
        size_t k = 0;
        /* Interned names: equal text is the same pointer. */
        while (k < nr && r[k].name != name && strcmp(r[k].name, name) != 0)
            k++;
        if (k == nr) {
            if (nr == cap) {
                cap = cap ? 2 * cap : 16;
                harness_gpu_kernel_row *grown = realloc(r, cap * sizeof *grown);
                if (!grown) {
                    free(r);
                    return -1;
                }
                r = grown;
            }
            r[nr++] = (harness_gpu_kernel_row){.name = name, .min_ns = ns, .max_ns = ns};
        }
        r[k].calls++;
        r[k].total_ns += ns;
        if (ns < r[k].min_ns)
            r[k].min_ns = ns;
        if (ns > r[k].max_ns)
            r[k].max_ns = ns;
    }
    for (size_t k = 0; k < nr; k++) {
        r[k].mean_ns = r[k].total_ns / (double)r[k].calls;
        r[k].share = all > 0 ? r[k].total_ns / all : 0;
    }
    if (nr)
        qsort(r, nr, sizeof *r, by_total);
    *rows = r;
    *n = nr;
    if (kernel_ns)
        *kernel_ns = all;
    return 0;
}
