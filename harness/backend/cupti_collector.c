/* CUPTI's activity API, kept thin: enable, take buffers, translate each
 * record into a harness_gpu_activity. What the records mean for the trace
 * and the summaries is report/gpu_trace.c's business. */
#include "backend/cupti_collector.h"

#include <cupti.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/monotonic.h"

/* The record layouts this toolkit writes for the kinds we enable. */
#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 kernel_record;
#else
typedef CUpti_ActivityKernel9 kernel_record;
#endif
#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityMemcpy6 memcpy_record;
#else
typedef CUpti_ActivityMemcpy5 memcpy_record;
#endif
typedef CUpti_ActivityMemset4 memset_record;

#ifdef HAVE_CXA_DEMANGLE
/* libstdc++'s demangler, callable from C. */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);
#endif

static const CUpti_ActivityKind kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
};

static struct {
    harness_gpu_activity_list *list;
    pthread_mutex_t lock;          /* buffers complete on CUPTI's thread too */
    size_t buffer_bytes;
    int64_t offset_ns;             /* host ns - CUPTI ns */
    int started, recording;
} c = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int fail(char *err, size_t cap, CUptiResult r, const char *what)
{
    const char *msg = "unknown error";
    cuptiGetResultString(r, &msg);
    if (err && cap)
        snprintf(err, cap, "CUPTI: %s: %s", what, msg);
    return -1;
}


uint64_t cupti_collector_to_host_ns(uint64_t cupti_ns)
{
    return (uint64_t)((int64_t)cupti_ns + c.offset_ns);
}

/* ---- buffers --------------------------------------------------------------- */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    /* CUPTI wants 8-byte aligned buffers. */
    void *p = NULL;
    *buffer = posix_memalign(&p, 8, c.buffer_bytes) == 0 ? p : NULL;
    *size = *buffer ? c.buffer_bytes : 0;
    *max_records = 0;              /* as many as fit */
}

/* "cudaLaunchKernel_v7000" -> "cudaLaunchKernel", as the PyTorch profiler
 * names runtime (and driver) calls. */
static void api_name(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, char *out, size_t cap)
{
    const char *name = NULL;
    if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || !name) {
        snprintf(out, cap, "cuda %s %u", domain == CUPTI_CB_DOMAIN_DRIVER_API ? "driver" : "runtime",
                 (unsigned)cbid);
        return;
    }
    snprintf(out, cap, "%s", name);
    char *v = strstr(out, "_v");
    if (v && v[2] >= '0' && v[2] <= '9' && strspn(v + 2, "0123456789") == strlen(v + 2))
        *v = '\0';
}

static const char *copy_kind(uint8_t kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "unknown";
    }
}

/* One CUPTI record as a harness record; 0 when it is of a kind we skip. */
static int translate(const CUpti_Activity *r, harness_gpu_activity *a, char *name, size_t cap, char **demangled)
{
    memset(a, 0, sizeof *a);
    *demangled = NULL;
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const kernel_record *k = (const kernel_record *)r;
        a->kind = HARNESS_GPU_KERNEL;
        a->start_ns = k->start, a->end_ns = k->end;
        a->device = k->deviceId, a->stream = k->streamId, a->correlation = k->correlationId;
        a->grid[0] = (uint32_t)k->gridX, a->grid[1] = (uint32_t)k->gridY, a->grid[2] = (uint32_t)k->gridZ;
        a->block[0] = (uint32_t)k->blockX, a->block[1] = (uint32_t)k->blockY, a->block[2] = (uint32_t)k->blockZ;
        a->registers_per_thread = k->registersPerThread;
        a->static_shared_bytes = (uint32_t)k->staticSharedMemory;
        a->dynamic_shared_bytes = (uint32_t)k->dynamicSharedMemory;
        a->name = k->name ? k->name : "?";
#ifdef HAVE_CXA_DEMANGLE
        int status = -1;
        if (k->name && k->name[0] == '_' && k->name[1] == 'Z')
            *demangled = __cxa_demangle(k->name, NULL, NULL, &status);
        if (*demangled && status == 0)
            a->name = *demangled;
#endif
        return 1;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const memcpy_record *m = (const memcpy_record *)r;
        a->kind = HARNESS_GPU_MEMCPY;
        a->start_ns = m->start, a->end_ns = m->end;
        a->device = m->deviceId, a->stream = m->streamId, a->correlation = m->correlationId;
        a->bytes = m->bytes;
        a->name = copy_kind(m->copyKind);
        return 1;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const memset_record *m = (const memset_record *)r;
        a->kind = HARNESS_GPU_MEMSET;
        a->start_ns = m->start, a->end_ns = m->end;
        a->device = m->deviceId, a->stream = m->streamId, a->correlation = m->correlationId;
        a->bytes = m->bytes;
        return 1;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        /* Driver records: cuBLASLt launches through cuLaunchKernel, so its
         * kernels' correlation ids lead to a driver call, not a runtime one. */
        const CUpti_ActivityAPI *api = (const CUpti_ActivityAPI *)r;
        int driver = r->kind == CUPTI_ACTIVITY_KIND_DRIVER;
        a->kind = driver ? HARNESS_GPU_DRIVER : HARNESS_GPU_RUNTIME;
        a->start_ns = api->start, a->end_ns = api->end;
        a->correlation = api->correlationId;
        a->thread = api->threadId;
        api_name(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, api->cbid, name, cap);
        a->name = name;
        return !driver || harness_gpu_driver_call_kept(name);
    }
    default:
        return 0;
    }
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)size;
    pthread_mutex_lock(&c.lock);
    CUpti_Activity *r = NULL;
    char name[256];
    while (c.list && cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
        harness_gpu_activity a;
        char *demangled;
        if (!translate(r, &a, name, sizeof name, &demangled))
            continue;
        /* Untimed records (start = end = 0) are counted, not placed. */
        if (harness_gpu_activity_add_cupti(c.list, &a, c.offset_ns) < 0)
            c.list->dropped++;     /* out of memory: counted like CUPTI's own losses */
        free(demangled);
    }
    size_t dropped = 0;
    if (c.list && cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
        c.list->dropped += dropped;
    pthread_mutex_unlock(&c.lock);
    free(buffer);
}

/* ---- the API ------------------------------------------------------------------ */

/* The tightest of a few (host, CUPTI, host) reads: the offset to within the
 * read's own cost, tens of ns. */
static int sync_clocks(uint64_t (*host_ns)(void), char *err, size_t cap)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 7; i++) {
        uint64_t t0 = host_ns(), g = 0;
        CUptiResult r = cuptiGetTimestamp(&g);
        uint64_t t1 = host_ns();
        if (r != CUPTI_SUCCESS)
            return fail(err, cap, r, "cuptiGetTimestamp");
        if (t1 - t0 < best) {
            best = t1 - t0;
            c.offset_ns = (int64_t)(t0 + (t1 - t0) / 2) - (int64_t)g;
        }
    }
    return 0;
}

int cupti_collector_start(harness_gpu_activity_list *list, const cupti_collector_options *opts, char *err,
                          size_t cap)
{
    if (c.started) {
        if (err && cap)
            snprintf(err, cap, "CUPTI: the collector is already started");
        return -1;
    }
    c.buffer_bytes = opts && opts->buffer_bytes ? opts->buffer_bytes : (size_t)8 << 20;
    if (sync_clocks(opts && opts->host_ns ? opts->host_ns : harness_monotonic_ns, err, cap) != 0)
        return -1;
    CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r != CUPTI_SUCCESS)
        return fail(err, cap, r, "cuptiActivityRegisterCallbacks");
    pthread_mutex_lock(&c.lock);
    c.list = list;
    pthread_mutex_unlock(&c.lock);
    c.started = 1;
    c.recording = 0;
    return 0;
}

int cupti_collector_stream_id(void *stream, uint32_t *id, char *err, size_t cap)
{
    CUptiResult r = cuptiGetStreamIdEx(NULL, (CUstream)stream, 0, id);
    return r == CUPTI_SUCCESS ? 0 : fail(err, cap, r, "cuptiGetStreamIdEx");
}

int cupti_collector_resume(char *err, size_t cap)
{
    if (!c.started || c.recording)
        return 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        CUptiResult r = cuptiActivityEnable(kinds[i]);
        if (r != CUPTI_SUCCESS) {
            for (size_t j = 0; j < i; j++)
                cuptiActivityDisable(kinds[j]);
            return fail(err, cap, r, "cuptiActivityEnable");
        }
    }
    c.recording = 1;
    return 0;
}

int cupti_collector_pause(char *err, size_t cap)
{
    if (!c.started || !c.recording)
        return 0;
    c.recording = 0;
    int rc = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        CUptiResult r = cuptiActivityDisable(kinds[i]);
        if (r != CUPTI_SUCCESS && rc == 0)
            rc = fail(err, cap, r, "cuptiActivityDisable");
    }
    return rc;
}

int cupti_collector_flush(char *err, size_t cap)
{
    if (!c.started)
        return 0;
    /* FORCED: also the buffers still being filled, so nothing of the last
     * window is left behind. */
    CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    return r == CUPTI_SUCCESS ? 0 : fail(err, cap, r, "cuptiActivityFlushAll");
}

void cupti_collector_stop(void)
{
    if (!c.started)
        return;
    cupti_collector_pause(NULL, 0);
    cupti_collector_flush(NULL, 0);
    pthread_mutex_lock(&c.lock);
    c.list = NULL;
    pthread_mutex_unlock(&c.lock);
    c.started = 0;
}
