/* The CUDA backend: a libtool module (backend/cuda_backend.la), the only
 * code of the harness linked with the CUDA runtime, loaded by
 * harness_backend_open("cuda") when a run uses a GPU. It times steps with
 * event pairs on the component's stream (backend/event_timer.h keeps the
 * books), allocates device memory for the tracked allocator, copies, and
 * reports the device's properties; the core computes the peaks from them
 * (backend/cuda_peaks.h). Timed launches queue behind the blocking kernel
 * (backend/blocking_kernel.h) unless schedule.blocking_kernel is off. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/blocking_kernel.h"
#include "backend/cuda_collectives.h"
#include "backend/event_timer.h"
#include "backend/gpu_clocks.h"
#include "util/monotonic.h"
#ifdef HAVE_CUPTI
#include "backend/cupti_collector.h"
#endif

/* Events per pool: read (one host wait) every 4096 steps at most. */
#define EVENT_POOL_PAIRS 4096
/* The blocking kernel gives up after 100 ms: far above any group's launch
 * time (the timer releases a group held half of it), and short enough that
 * a step() that synchronizes costs one tenth of a second, once. */
#define BLOCK_TIMEOUT_NS 100000000u

typedef struct cuda_state {
    int device;
    cudaStream_t stream;
    harness_event_timer timer;
    int timer_ready;
    void *l2_buf;                  /* flush_l2: written between steps */
    size_t l2_flush_bytes;
    unsigned flushes;
    harness_block_flags *block_flags;     /* mapped: the host's view; NULL: no blocking kernel */
    harness_block_flags *block_flags_dev; /* the same, as the device sees it */
    uint32_t block_ticket;         /* the last block enqueued */
    uint32_t block_timed_out_seen; /* the kernel's count at the last release */
    int told_fallback;             /* the fallback was said on stderr */
    cudaGraph_t graph;             /* cuda_graph: one captured step */
    cudaGraphExec_t graph_exec;
    harness_gpu_activity_list activity; /* the kernel timeline's records */
    int collecting;                /* the CUPTI collector is started */
    harness_gpu_clocks *clocks;    /* NVML's view of this device; NULL when it has none */
    int persisting_l2;             /* the device can set L2 lines aside as persisting (sm_80 on) */
#ifdef HAVE_NCCL
    cuda_collectives *nccl;        /* the communicator, from the first device collective on */
#endif
} cuda_state;

__attribute__((visibility("default"))) int cuda_backend_LTX_harness_cuda_backend_open(harness_backend *b,
                                                                                      harness_error *err);

static cuda_state *state_of(const harness_backend *b)
{
    return b->impl;
}

static int cuda_fail(harness_error *err, cudaError_t rc, const char *what)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cuda: %s: %s (%s)", what, cudaGetErrorString(rc),
                             cudaGetErrorName(rc)) ? -1 : -1;
}

/* ---- events, for the timer ------------------------------------------------ */

static int ev_create(void *self, void **ev)
{
    (void)self;
    return cudaEventCreate((cudaEvent_t *)ev) == cudaSuccess ? 0 : -1;
}
static void ev_destroy(void *self, void *ev)
{
    (void)self;
    cudaEventDestroy((cudaEvent_t)ev);
}
static int ev_record(void *self, void *ev)
{
    return cudaEventRecord((cudaEvent_t)ev, ((cuda_state *)self)->stream) == cudaSuccess ? 0 : -1;
}
static int ev_sync(void *self, void *ev)
{
    (void)self;
    return cudaEventSynchronize((cudaEvent_t)ev) == cudaSuccess ? 0 : -1;
}
static int ev_elapsed(void *self, void *a, void *b, float *ms)
{
    (void)self;
    return cudaEventElapsedTime(ms, (cudaEvent_t)a, (cudaEvent_t)b) == cudaSuccess ? 0 : -1;
}

/* ---- the blocking kernel, for the timer ----------------------------------- */

static int ev_block(void *self)
{
    cuda_state *st = self;
    return harness_blocking_kernel_launch(st->stream, st->block_flags_dev, ++st->block_ticket, BLOCK_TIMEOUT_NS) == 0
               ? 0 : -1;
}

/* Lets every block enqueued so far go; a block that gave up waiting since
 * the last release raised the kernel's count. */
static int ev_release(void *self, int *timed_out)
{
    cuda_state *st = self;
    st->block_flags->released = st->block_ticket;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);   /* the store leaves before we read the count */
    uint32_t n = st->block_flags->timed_out;
    *timed_out = n != st->block_timed_out_seen;
    st->block_timed_out_seen = n;
    return 0;
}

static uint64_t ev_now_ns(void *self)
{
    (void)self;
    return harness_monotonic_ns();
}

/* The flag the kernel spins on, in mapped pinned memory. */
static int open_block_flags(cuda_state *st, harness_error *err)
{
    cudaError_t rc = cudaHostAlloc((void **)&st->block_flags, sizeof *st->block_flags, cudaHostAllocMapped);
    if (rc == cudaSuccess)
        rc = cudaHostGetDevicePointer((void **)&st->block_flags_dev, st->block_flags, 0);
    if (rc != cudaSuccess) {
        if (st->block_flags)
            cudaFreeHost(st->block_flags);
        st->block_flags = NULL;
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cuda: the blocking kernel's flag in mapped host memory: "
                                 "%s (schedule.blocking_kernel: false times without it)", cudaGetErrorString(rc))
                   ? -1 : -1;
    }
    st->block_flags->released = 0;
    st->block_flags->timed_out = 0;
    return 0;
}

/* A step synchronized behind a block: said once, as the timer fell back. */
static void tell_fallback(cuda_state *st)
{
    if (!st->timer.fell_back || st->told_fallback)
        return;
    st->told_fallback = 1;
    fprintf(stderr, "harness: %sstep() synchronized the stream; launch latency is included (timing goes on without "
            "the blocking kernel in front of the timed steps)\n", harness_error_rank_label());
}

/* The event timer, with the flush op under flush_l2 (after the buffer is
 * allocated) and the blocking kernel unless schedule.blocking_kernel is
 * off. batch with flush_l2 times each step alone: said on stderr. */
static int ev_flush(void *self);
static int start_timer(harness_backend *b, cuda_state *st)
{
    harness_event_ops ev = {.self = st, .create = ev_create, .destroy = ev_destroy, .record = ev_record,
                            .synchronize = ev_sync, .elapsed_ms = ev_elapsed, .flush = st->l2_buf ? ev_flush : NULL};
    if (st->block_flags) {
        ev.block = ev_block;
        ev.release = ev_release;
        ev.now_ns = ev_now_ns;
        ev.block_timeout_ns = BLOCK_TIMEOUT_NS;
    }
    if (harness_event_timer_init(&st->timer, &ev, b->opts.batch_timing ? HARNESS_TIMING_BATCH : HARNESS_TIMING_PER_STEP,
                                 EVENT_POOL_PAIRS) != 0)
        return -1;
    st->timer_ready = 1;
    if (st->timer.batch_per_step)
        fprintf(stderr, "harness: %stiming: batch with flush_l2: each step is timed alone (flush, wait, then an "
                "event pair), since one pair around the window would time the flushes too\n",
                harness_error_rank_label());
    return 0;
}

/* The timer's message, with the runtime's last error when there is one. */
static int timer_fail(harness_error *err, cuda_state *st)
{
    cudaError_t rc = cudaGetLastError();
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cuda event timer: %s%s%s", st->timer.error,
                             rc != cudaSuccess ? ": " : "", rc != cudaSuccess ? cudaGetErrorString(rc) : "") ? -1 : -1;
}

/* ---- the kernel timeline (CUPTI), during the windows only ------------------ *
 * CUPTI serves one tool per process: under nsys or compute-sanitizer it
 * refuses us. That costs the timeline, not the run: the collector is given
 * up with a note on stderr and the summaries say no kernel table. */

static void activity_give_up(cuda_state *st, const char *msg)
{
#ifdef HAVE_CUPTI
    fprintf(stderr, "harness: %sno kernel timeline: %s (another CUDA profiler, such as nsys or compute-sanitizer, "
            "may hold CUPTI; profiling.cupti: false skips it)\n", harness_error_rank_label(), msg);
    cupti_collector_stop();
#endif
    (void)msg;
    st->collecting = 0;
}

static void activity_resume(cuda_state *st)
{
#ifdef HAVE_CUPTI
    char msg[512] = "";
    if (st->collecting && cupti_collector_resume(msg, sizeof msg) != 0)
        activity_give_up(st, msg);
#endif
    (void)st;
}

/* A kernel's record is complete only once it has run: wait for the stream
 * before recording stops (the window's steps are over, nothing is timed). */
static int activity_pause(cuda_state *st, harness_error *err)
{
#ifdef HAVE_CUPTI
    char msg[512] = "";
    if (!st->collecting)
        return 0;
    cudaError_t rc = cudaStreamSynchronize(st->stream);
    if (rc != cudaSuccess)
        return cuda_fail(err, rc, "waiting for the window's kernels");
    if (cupti_collector_pause(msg, sizeof msg) != 0)
        activity_give_up(st, msg);
#endif
    (void)st, (void)err;
    return 0;
}

static int cu_activity_flush(const harness_backend *b)
{
    cuda_state *st = state_of(b);
#ifdef HAVE_CUPTI
    char msg[512] = "";
    if (st->collecting && cupti_collector_flush(msg, sizeof msg) != 0)
        activity_give_up(st, msg);
#endif
    return st->collecting;
}

/* The runner's trace window: recording never overlaps a measured window,
 * so no timed step pays for CUPTI (README "GPU timeline"). */
static int cu_activity_window(const harness_backend *b, int on, harness_error *err)
{
    cuda_state *st = state_of(b);
    if (on) {
        activity_resume(st);
        return 0;
    }
    return activity_pause(st, err);
}

/* Every timer call that may release a block may find it timed out. */
static int timer_done(cuda_state *st, int rc, harness_error *err)
{
    tell_fallback(st);
    return rc == 0 ? 0 : timer_fail(err, st);
}
static int cu_window_begin(const harness_backend *b, harness_error *err)
{
    cuda_state *st = state_of(b);
    return timer_done(st, harness_event_timer_window_begin(&st->timer), err);
}
static int cu_window_end(const harness_backend *b, harness_error *err)
{
    cuda_state *st = state_of(b);
    return timer_done(st, harness_event_timer_window_end(&st->timer), err);
}
static int cu_step_begin(const harness_backend *b, harness_error *err)
{
    cuda_state *st = state_of(b);
    return timer_done(st, harness_event_timer_step_begin(&st->timer), err);
}
static int cu_step_end(const harness_backend *b, harness_error *err)
{
    cuda_state *st = state_of(b);
    return timer_done(st, harness_event_timer_step_end(&st->timer), err);
}
static long cu_collect(const harness_backend *b, double *out, size_t max, harness_error *err)
{
    cuda_state *st = state_of(b);
    if (timer_done(st, harness_event_timer_drain(&st->timer), err) != 0)
        return -1;
    return (long)harness_event_timer_take(&st->timer, out, max);
}

/* The summary's timing.blocking_kernel. */
static const char *cu_blocking_kernel(const harness_backend *b)
{
    const cuda_state *st = state_of(b);
    if (st->timer.fell_back)
        return "fell back: step() synchronized";
    return st->block_flags ? "used" : "off";
}

/* One step timed by the host around a full device synchronize on either
 * side: whatever the step started, on any stream, is in it (the check of
 * the events against it, run/full_sync.h). */
static int cu_full_sync_step(const harness_backend *b, int (*step)(void *), void *arg, double *ns, double *launch_ns,
                             harness_error *err)
{
    (void)b;
    cudaError_t rc = cudaDeviceSynchronize();
    if (rc != cudaSuccess)
        return cuda_fail(err, rc, "synchronizing the device before the full-synchronize step");
    uint64_t t0 = harness_monotonic_ns();
    int step_rc = step(arg);
    uint64_t returned = harness_monotonic_ns();
    rc = cudaDeviceSynchronize();
    uint64_t t1 = harness_monotonic_ns();
    if (step_rc != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "the step timed by a full device synchronize failed")
                   ? -1 : -1;
    if (rc != cudaSuccess)
        return cuda_fail(err, rc, "synchronizing the device after the full-synchronize step");
    *ns = (double)(t1 - t0);
    *launch_ns = (double)(returned - t0);
    return 0;
}

/* Cold cache (the event timer's flush op): overwrite twice the L2's size,
 * then wait for it, as nvbench does, so the timed step neither queues behind
 * the memset nor shares the device with it. The timer calls it before the
 * step's start event, never inside a pair (backend/event_timer.h). */
static int ev_flush(void *self)
{
    cuda_state *st = self;
    cudaError_t rc = cudaMemsetAsync(st->l2_buf, (int)(++st->flushes & 0xff), st->l2_flush_bytes, st->stream);
    if (rc == cudaSuccess)
        rc = cudaStreamSynchronize(st->stream);
    return rc == cudaSuccess ? 0 : -1;
}

/* ---- memory ------------------------------------------------------------- */

static void *cu_alloc(void *self, size_t bytes)
{
    (void)self;
    void *p = NULL;
    return cudaMalloc(&p, bytes) == cudaSuccess ? p : NULL;
}
static void cu_free(void *self, void *p)
{
    (void)self;
    cudaFree(p);
}

/* Ordered after the stream's work, and complete when it returns. */
/* Before any host wait on the stream: a held blocking kernel is let go
 * (backend/event_timer.h), and a step that waited is said once. */
static int before_host_wait(cuda_state *st, harness_error *err)
{
    if (!st->timer_ready)
        return 0;
    int rc = harness_event_timer_host_wait(&st->timer);
    tell_fallback(st);
    return rc == 0 ? 0 : timer_fail(err, st);
}

static int cu_copy(const harness_backend *b, void *dst, const void *src, size_t bytes, int to_device,
                   harness_error *err)
{
    cuda_state *st = state_of(b);
    if (before_host_wait(st, err) != 0)
        return -1;
    cudaError_t rc = cudaMemcpyAsync(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                                     st->stream);
    if (rc == cudaSuccess)
        rc = cudaStreamSynchronize(st->stream);
    return rc == cudaSuccess ? 0 : cuda_fail(err, rc, to_device ? "copy to the device" : "copy to the host");
}
static int cu_synchronize(const harness_backend *b, harness_error *err)
{
    if (before_host_wait(state_of(b), err) != 0)
        return -1;
    cudaError_t rc = cudaStreamSynchronize(state_of(b)->stream);
    return rc == cudaSuccess ? 0 : cuda_fail(err, rc, "synchronizing the stream");
}

static int cu_copy_on_stream(const harness_backend *b, void *dst, const void *src, size_t bytes, harness_error *err)
{
    cudaError_t rc = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, state_of(b)->stream);
    return rc == cudaSuccess ? 0 : cuda_fail(err, rc, "copying an input set on the stream");
}

static int cu_synchronize_device(const harness_backend *b, harness_error *err)
{
    if (before_host_wait(state_of(b), err) != 0)
        return -1;
    cudaError_t rc = cudaDeviceSynchronize();
    return rc == cudaSuccess ? 0 : cuda_fail(err, rc, "synchronizing the device");
}

static uint64_t cu_reserved_bytes(const harness_backend *b)
{
    (void)b;
    size_t free_b = 0, total = 0;
    return cudaMemGetInfo(&free_b, &total) == cudaSuccess ? (uint64_t)(total - free_b) : 0;
}

/* ---- CUDA graphs ---------------------------------------------------------- */

static int cu_capture(const harness_backend *b, int (*step)(void *), void *arg, harness_error *err)
{
    cuda_state *st = state_of(b);
    cudaError_t rc = cudaStreamBeginCapture(st->stream, cudaStreamCaptureModeThreadLocal);
    if (rc != cudaSuccess)
        return cuda_fail(err, rc, "cuda_graph: beginning stream capture");
    int step_rc = step(arg);
    rc = cudaStreamEndCapture(st->stream, &st->graph);
    if (step_rc != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cuda_graph: the step failed while being captured") ? -1 : -1;
    if (rc != cudaSuccess)
        return cuda_fail(err, rc, "cuda_graph: capturing one step (a step that synchronizes or copies cannot be captured)");
    rc = cudaGraphInstantiate(&st->graph_exec, st->graph, 0);
    return rc == cudaSuccess ? 0 : cuda_fail(err, rc, "cuda_graph: instantiating the captured step");
}
static int cu_replay(const harness_backend *b, harness_error *err)
{
    cuda_state *st = state_of(b);
    cudaError_t rc = cudaGraphLaunch(st->graph_exec, st->stream);
    return rc == cudaSuccess ? 0 : cuda_fail(err, rc, "cuda_graph: launching the graph");
}

/* ---- the backend ---------------------------------------------------------- */

static uint64_t host_wall_ns(const harness_backend *b);
static uint64_t host_cpu_ns(const harness_backend *b);
static const harness_backend_ops *host_ops;  /* the CPU backend's, for wall and CPU time */

static uint64_t host_wall_ns(const harness_backend *b)
{
    return host_ops->wall_ns(b);
}
static uint64_t host_cpu_ns(const harness_backend *b)
{
    return host_ops->cpu_ns(b);
}

/* The clocks this process locked (schedule.lock_clocks), for the restore
 * that runs from a signal handler or exit (backend/device_restore.h). */
static harness_gpu_clocks *volatile locked_clocks;

static void cu_restore_device(void)
{
    harness_gpu_clocks *c = locked_clocks;
    locked_clocks = NULL;
    harness_gpu_clocks_unlock(c);
}

static void cu_close(harness_backend *b)
{
    cuda_state *st = state_of(b);
    if (!st)
        return;
#ifdef HAVE_CUPTI
    if (st->collecting)
        cupti_collector_stop();
#endif
    harness_gpu_activity_list_free(&st->activity);
    if (locked_clocks == st->clocks)
        cu_restore_device();
    harness_gpu_clocks_close(st->clocks);
#ifdef HAVE_NCCL
    cuda_nccl_close(st->nccl);
#endif
    if (st->timer_ready)
        harness_event_timer_destroy(&st->timer);   /* releases a held block first */
    if (st->block_flags)
        cudaFreeHost(st->block_flags);
    if (st->graph_exec)
        cudaGraphExecDestroy(st->graph_exec);
    if (st->graph)
        cudaGraphDestroy(st->graph);
    if (st->l2_buf)
        cudaFree(st->l2_buf);
    if (st->stream)
        cudaStreamDestroy(st->stream);
    free(st);
    b->impl = NULL;
    b->gpu_activity = NULL;
}

static int cu_is_device_memory(const harness_backend *b, const void *p)
{
    (void)b;
    return cuda_is_device_memory(p);
}

#ifdef HAVE_NCCL
static int cu_device_collective(const harness_backend *b, harness_dist *d, const harness_collective *c,
                                harness_error *err)
{
    cuda_state *st = state_of(b);
    return cuda_nccl_collective(&st->nccl, st->stream, d, c, err);
}
#endif

static int cu_device_state(const harness_backend *b, harness_device_state *out)
{
    cuda_state *st = state_of(b);
    return harness_gpu_clocks_read(st->clocks, &out->sm_clock_mhz, &out->sm_clock_max_mhz, &out->throttle_reasons);
}

/* NVML's total energy counter: one counter that never wraps (64 bits of mJ). */
static int cu_energy_read(const harness_backend *b, harness_energy_reading *out)
{
    cuda_state *st = state_of(b);
    memset(out, 0, sizeof *out);
    if (harness_gpu_clocks_energy_mj(st->clocks, &out->mj[0]) != 0)
        return -1;
    out->n = 1;
    return 0;
}

/* Whether this GPU's NVML has the energy counter (Volta on), into
 * b->energy; without one the summary says "not available" and why. */
static void open_energy(harness_backend *b, cuda_state *st)
{
    memset(&b->energy, 0, sizeof b->energy);
    double mj;
    if (!st->clocks)
        snprintf(b->energy.missing, sizeof b->energy.missing, "not available: NVML could not be opened");
    else if (harness_gpu_clocks_energy_mj(st->clocks, &mj) != 0)
        snprintf(b->energy.missing, sizeof b->energy.missing, "not available: NVML has no total energy counter "
                 "for this GPU (nvmlDeviceGetTotalEnergyConsumption: Volta or newer)");
    else {
        snprintf(b->energy.name, sizeof b->energy.name, "NVML total energy consumption");
        b->energy.period_s = 0.1;  /* NVML updates it every 20-100 ms: the worst case */
    }
}

/* NVML for the clocks, found by the device's PCI bus id (NVML's device
 * order need not be CUDA's); without it the clocks are unknown, said once. */
static void open_clocks(cuda_state *st, int dev)
{
    char bus[32], why[256];
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, dev) != cudaSuccess)
        return;
    if (!(st->clocks = harness_gpu_clocks_open(bus, why, sizeof why)))
        fprintf(stderr, "harness: cuda: the SM clock and its throttle reasons are not recorded: %s\n", why);
}

/* ---- what a run changes on the device, and puts back ------------------------ */

/* Persisting L2 (docs/timing-integrity.md): lines a plugin marked
 * persisting through an access-policy window outlive the flush between
 * cold steps, since the flush's ordinary writes do not evict them. So
 * before each window: the stream's window cleared, every persisting line
 * made ordinary again, and with flush_l2 no L2 set aside for them at all,
 * so a window set again inside step() cannot keep any either. After the
 * wait steps have run, so nothing they left persists. */
static int cu_window_prepare(const harness_backend *b, harness_error *err)
{
    cuda_state *st = state_of(b);
    if (!st->persisting_l2)
        return 0;
    cudaStreamAttrValue none;
    memset(&none, 0, sizeof none);   /* an access-policy window of 0 bytes: none */
    cudaError_t rc = cudaStreamSynchronize(st->stream);
    if (rc == cudaSuccess)
        rc = cudaStreamSetAttribute(st->stream, cudaStreamAttributeAccessPolicyWindow, &none);
    if (rc == cudaSuccess)
        rc = cudaCtxResetPersistingL2Cache();
    if (rc == cudaSuccess && b->opts.flush_l2)
        rc = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    return rc == cudaSuccess ? 0 : cuda_fail(err, rc, "resetting the persisting L2 before a window");
}

/* schedule.lock_clocks, before the warmup (the backend opens before the
 * instance exists). Not permitted (no root) or impossible: said on stderr
 * and in the summary, and the run goes on with the clocks floating. */
static void lock_clocks(harness_backend *b, cuda_state *st)
{
    int want = b->opts.lock_clocks;
    if (want == HARNESS_LOCK_CLOCKS_OFF)
        return;
    const char *name = want == HARNESS_LOCK_CLOCKS_MAX ? "max" : "base";
    char why[256] = "not possible: NVML is not available (the line above says why)";
    double mhz = 0;
    harness_device_info *i = &b->info;
    if (st->clocks && harness_gpu_clocks_lock(st->clocks, want == HARNESS_LOCK_CLOCKS_MAX, &mhz, why, sizeof why) == 0) {
        locked_clocks = st->clocks;
        i->clocks_locked = 1;
        if (mhz > 0)
            snprintf(i->clock_lock, sizeof i->clock_lock, "%s: SM clock locked at %.0f MHz", name, mhz);
        else
            snprintf(i->clock_lock, sizeof i->clock_lock, "%s: SM clock locked at the base (TDP) clock", name);
        return;
    }
    snprintf(i->clock_lock, sizeof i->clock_lock, "%s %s; clocks float", name, why);
    fprintf(stderr, "harness: %slock_clocks: %s\n", harness_error_rank_label(), i->clock_lock);
}

static const harness_backend_ops cuda_ops = {
    .stamp = NULL, /* the host clock, inline: the launch time of each step() */
    .step_ns = NULL,
    .wall_ns = host_wall_ns,
    .cpu_ns = host_cpu_ns,
    .reserved_bytes = cu_reserved_bytes,
    .close = cu_close,
    .window_begin = cu_window_begin,
    .step_begin = cu_step_begin,
    .step_end = cu_step_end,
    .window_end = cu_window_end,
    .collect = cu_collect,
    .between_steps = NULL,         /* flush_l2 is the timer's flush op */
    .copy = cu_copy,
    .synchronize = cu_synchronize,
    .synchronize_device = cu_synchronize_device,
    .copy_on_stream = cu_copy_on_stream,
    .capture = cu_capture,
    .replay = cu_replay,
    .activity_flush = cu_activity_flush,
    .activity_window = cu_activity_window,
    .is_device_memory = cu_is_device_memory,
    .device_state = cu_device_state,
    .blocking_kernel = cu_blocking_kernel,
    .full_sync_step = cu_full_sync_step,
    .window_prepare = cu_window_prepare,
    .restore_device = cu_restore_device,
    .energy_read = cu_energy_read,
#ifdef HAVE_NCCL
    .device_collective = cu_device_collective,
#endif
};

static void version_text(int v, char *out, size_t cap)
{
    snprintf(out, cap, "%d.%d", v / 1000, v % 1000 / 10);
}

static int attr(enum cudaDeviceAttr a, int dev)
{
    int v = 0;
    return cudaDeviceGetAttribute(&v, a, dev) == cudaSuccess ? v : 0;
}

/* The trace header's deviceProperties, with the names Kineto gives them. */
static void device_props(harness_gpu_device_props *d, const struct cudaDeviceProp *p, int dev)
{
    d->id = (uint32_t)dev;
    snprintf(d->name, sizeof d->name, "%s", p->name);
    d->compute_major = p->major;
    d->compute_minor = p->minor;
    d->total_global_mem = p->totalGlobalMem;
    d->num_sms = (uint32_t)p->multiProcessorCount;
    d->max_threads_per_block = (uint32_t)p->maxThreadsPerBlock;
    d->max_threads_per_sm = (uint32_t)p->maxThreadsPerMultiProcessor;
    d->regs_per_block = (uint32_t)p->regsPerBlock;
    d->regs_per_sm = (uint32_t)p->regsPerMultiprocessor;
    d->warp_size = (uint32_t)p->warpSize;
    d->shared_mem_per_block = p->sharedMemPerBlock;
    d->shared_mem_per_sm = p->sharedMemPerMultiprocessor;
    d->shared_mem_per_block_optin = p->sharedMemPerBlockOptin;
}

/* Starts the CUPTI collector, paused until the first window. A build
 * without CUPTI runs without the timeline (configure said so). */
static void start_activity(harness_backend *b, cuda_state *st)
{
#ifdef HAVE_CUPTI
    char msg[512] = "";
    harness_gpu_activity_list_init(&st->activity);
    st->collecting = 1;
    if (cupti_collector_start(&st->activity, NULL, msg, sizeof msg) != 0) {
        st->collecting = 0;
        fprintf(stderr, "harness: %sno kernel timeline: %s\n", harness_error_rank_label(), msg);
        return;
    }
    b->gpu_activity = &st->activity;
    /* The timed stream as the records name it, for the side-stream check. */
    if (cupti_collector_stream_id(st->stream, &st->activity.timed_stream, msg, sizeof msg) == 0)
        st->activity.timed_stream_known = 1;
    else
        fprintf(stderr, "harness: %sthe trace window's work off the timed stream is not checked: %s\n",
                harness_error_rank_label(), msg);
#endif
    (void)b, (void)st;
}

int cuda_backend_LTX_harness_cuda_backend_open(harness_backend *b, harness_error *err)
{
    harness_error_set_rank(b->opts.rank, b->opts.world_size);
    int n = 0, dev = b->opts.device_index;
    cudaError_t rc = cudaGetDeviceCount(&n);
    if (rc != cudaSuccess || n == 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "device cuda: no CUDA device is visible (%s); use "
                                 "--device cpu or auto", rc != cudaSuccess ? cudaGetErrorString(rc) : "none found");
    if (dev < 0 || dev >= n)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "device_index %d: %d CUDA device%s visible (0..%d); "
                                 "choose one of them, or check CUDA_VISIBLE_DEVICES", dev, n, n == 1 ? " is" : "s are",
                                 n - 1);
    /* The ranks of a node take the GPUs in turn from device_index on. */
    dev = (dev + b->opts.local_rank) % n;
    if ((rc = cudaSetDevice(dev)) != cudaSuccess)
        return cuda_fail(err, rc, "selecting the device");
    cuda_state *st = calloc(1, sizeof *st);
    if (!st)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    st->device = dev;
    host_ops = b->ops;
    b->impl = st;
    b->name = "cuda";
    b->ops = &cuda_ops;
    b->device_allocator = (harness_allocator){st, cu_alloc, cu_free};
    if ((rc = cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking)) != cudaSuccess) {
        cu_close(b);
        return cuda_fail(err, rc, "creating the component's stream");
    }
    b->stream = st->stream;

    struct cudaDeviceProp prop;
    if ((rc = cudaGetDeviceProperties(&prop, dev)) != cudaSuccess) {
        cu_close(b);
        return cuda_fail(err, rc, "reading the device's properties");
    }
    harness_device_info *i = &b->info;
    snprintf(b->device_name, sizeof b->device_name, "%s", prop.name);
    i->index = dev;
    i->cc_major = prop.major;
    i->cc_minor = prop.minor;
    i->sm_count = prop.multiProcessorCount;
    i->sm_clock_mhz = attr(cudaDevAttrClockRate, dev) / 1e3;
    i->mem_clock_mhz = attr(cudaDevAttrMemoryClockRate, dev) / 1e3;
    i->bus_width_bits = attr(cudaDevAttrGlobalMemoryBusWidth, dev);
    i->total_bytes = prop.totalGlobalMem;
    i->l2_bytes = (uint64_t)prop.l2CacheSize;
    int v = 0;
    version_text(cudaDriverGetVersion(&v) == cudaSuccess ? v : 0, i->driver, sizeof i->driver);
    version_text(cudaRuntimeGetVersion(&v) == cudaSuccess ? v : 0, i->runtime, sizeof i->runtime);
#ifdef HAVE_NCCL
    cuda_nccl_version(i->nccl, sizeof i->nccl);
#endif

    device_props(&b->gpu_props, &prop, dev);
    st->persisting_l2 = attr(cudaDevAttrMaxPersistingL2CacheSize, dev) > 0;
    open_clocks(st, dev);
    lock_clocks(b, st);
    open_energy(b, st);
    if (b->opts.gpu_activity)
        start_activity(b, st);

    if (b->opts.flush_l2) {
        st->l2_flush_bytes = 2 * (size_t)(prop.l2CacheSize > 0 ? prop.l2CacheSize : 64 << 20);
        if ((rc = cudaMalloc(&st->l2_buf, st->l2_flush_bytes)) != cudaSuccess) {
            cu_close(b);
            return cuda_fail(err, rc, "flush_l2: allocating twice the L2's size");
        }
    }
    if (b->opts.blocking_kernel && open_block_flags(st, err) != 0) {
        cu_close(b);
        return -1;
    }
    if (start_timer(b, st) != 0) {
        timer_fail(err, st);
        cu_close(b);
        return -1;
    }
    return 0;
}
