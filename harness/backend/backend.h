/* backend.h - where a component runs, behind one interface: the step timer,
 * the allocator, the memory probe and the device's peaks.
 *
 * The runner times steps only through the timer here, the allocation
 * services allocate only through the allocator, and the profiler reads
 * "reserved" memory only through the probe; so a second backend (CUDA:
 * events, device memory, used device memory) slots in without touching
 * them. The CPU backend is always built; the CUDA runtime is never linked
 * into the core (backend/gpu_probe.h loads it lazily). */
#ifndef HARNESS_BACKEND_H
#define HARNESS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "backend/alloc_tracker.h"
#include "backend/clock.h"
#include "backend/gpu_activity.h"
#include "util/error.h"

/* What the device can do at best, for the roofline; 0 when unknown. */
typedef struct harness_peaks {
    double bytes_per_s;            /* memory bandwidth */
    double flops_per_s;            /* fp32 FMA throughput (2 flops per FMA) */
    double fp16_flops_per_s;       /* dense fp16 / bf16 (tensor cores on a GPU); 0 when unknown */
    double bf16_flops_per_s;
    /* The CPU's bf16 units (machine file; 0 where absent): the roofline
     * judges a component against the one its "isa" note names
     * (report/roofline_cpu.c). */
    double cpu_bf16_dot_flops_per_s, cpu_amx_bf16_flops_per_s;
    char source[512];              /* where they came from (the machine file) */
    char missing[512];             /* why they are unknown, when they are */
    int from_machine_file;         /* measured by harness calibrate (so possibly stale or low), not a datasheet's */
    /* The peaks' uncertainty (backend/peak_margin.h): a figure above
     * peak x margin is impossible (report/impossible_figure.h). 0: not set,
     * then the default of where the peaks came from. The FLOP/s margin
     * holds for every FLOP/s peak above. */
    double flops_margin, bytes_margin;
    char flops_margin_why[192], bytes_margin_why[192];
    /* Bytes of on-chip cache a step's data can stay in between steps: all
     * of the CPU's caches (util/cpu_caches.h), a GPU's L2; 0 unknown. */
    double cache_bytes;
} harness_peaks;

typedef struct harness_backend harness_backend;
struct harness_dist;                /* dist/dist.h */
struct harness_collective;

/* What a device says of its own state, as nvbench reads it: the SM clock,
 * its most, and NVML's reason bits for holding it down (util/interference.h). */
typedef struct harness_device_state {
    double sm_clock_mhz, sm_clock_max_mhz;
    uint64_t throttle_reasons;
} harness_device_state;

/* One read of a device's energy counters: a GPU has one (NVML's total
 * energy), a CPU one per package (powercap's intel-rapl:N). Each counter
 * only grows, except that a counter with a range wraps to 0 there; the
 * difference of two reads is taken counter by counter, so each wrap is
 * undone where it happened (run/window_energy.h). */
#define HARNESS_ENERGY_MAX_COUNTERS 16
typedef struct harness_energy_reading {
    int n;                                       /* counters read */
    double mj[HARNESS_ENERGY_MAX_COUNTERS];       /* each one's value, millijoules */
    double range_mj[HARNESS_ENERGY_MAX_COUNTERS]; /* where it wraps to 0; 0: it never wraps */
} harness_energy_reading;

/* What a backend's energy counter is, or why it has none: set when the
 * backend opens, said once in the summary. */
typedef struct harness_energy_source {
    char name[192];                /* "NVML total energy consumption", "powercap package-0 + package-1"; "" none */
    char missing[320];             /* why there is none ("" when there is one) */
    double period_s;               /* how often the counter updates: the time resolution of a read */
    char root[256];                /* powercap: the tree the CPU backend reads (HARNESS_POWERCAP_ROOT in tests) */
} harness_energy_source;

typedef struct harness_backend_ops {
    /* Step timer: a stamp right before and right after each measured step
     * (host clock ticks, also the trace's timeline), and the step's
     * duration from the two. NULL stamp: the runner reads `clock` inline,
     * so the timed interval holds the step's call and no call of ours, and
     * converts ticks with it (the CPU backend; a device timer that records
     * events sets both). */
    uint64_t (*stamp)(const harness_backend *b);
    double (*step_ns)(const harness_backend *b, uint64_t t0, uint64_t t1);
    /* Wall and CPU time for whole windows and schedules, in ns. */
    uint64_t (*wall_ns)(const harness_backend *b);
    uint64_t (*cpu_ns)(const harness_backend *b);
    /* Memory probe: what the device has reserved now (the process's resident
     * set on the CPU), 0 when unknown. */
    uint64_t (*reserved_bytes)(const harness_backend *b);
    void (*close)(harness_backend *b);

    /* Device timer; all NULL on the CPU. A device runs steps asynchronously,
     * so a step's time is known only after the host waits: the runner marks
     * each measured step (step_begin/step_end, no host wait between steps),
     * and `collect` waits once and hands over the durations (ns, in step
     * order) of every step marked since its last call, up to max; it returns
     * how many, or -1 with err set. The runner calls it at the window's end
     * and at each stopping check of measurement_steps: auto. window_begin
     * and window_end frame each measurement window (timing: batch records
     * its event pair there). between_steps, when set, runs before each
     * measured step, outside the timed region (the CUDA backend's flush_l2
     * is the event timer's flush op instead: flush, wait, then the start
     * event). Each returns 0 or -1 with err. */
    int (*window_begin)(const harness_backend *b, harness_error *err);
    int (*step_begin)(const harness_backend *b, harness_error *err);
    int (*step_end)(const harness_backend *b, harness_error *err);
    int (*window_end)(const harness_backend *b, harness_error *err);
    long (*collect)(const harness_backend *b, double *out, size_t max, harness_error *err);
    int (*between_steps)(const harness_backend *b, harness_error *err);

    /* Device memory for plugins (ABI 2.1), NULL on the CPU: copies between
     * host and device (dir: 1 host to device, 0 device to host; they wait
     * for the stream first, so the plugin's results are complete), and a
     * wait until the stream's work is done. */
    int (*copy)(const harness_backend *b, void *dst, const void *src, size_t bytes, int to_device,
                harness_error *err);
    int (*synchronize)(const harness_backend *b, harness_error *err);
    /* dst <- src, both device memory, enqueued on the component's stream
     * without a wait (schedule.rotate_inputs, between steps). */
    int (*copy_on_stream)(const harness_backend *b, void *dst, const void *src, size_t bytes, harness_error *err);
    /* Wait until every stream of the device is done, not only the
     * component's (the check after timing: run/after_timing.h). */
    int (*synchronize_device)(const harness_backend *b, harness_error *err);

    /* cuda_graph: capture one call of step into a graph (stream capture on
     * the component's stream), then replay launches it, in place of step. */
    int (*capture)(const harness_backend *b, int (*step)(void *), void *arg, harness_error *err);
    int (*replay)(const harness_backend *b, harness_error *err);

    /* The kernel timeline (options.gpu_activity): the device's records are
     * taken during the trace window only (activity_window, after the
     * measured windows) into b->gpu_activity; this hands over whatever the
     * device still holds, before the list is read. 1: the list holds the
     * run's records; 0: no timeline (off, or CUPTI refused us because
     * another profiler holds it; stderr said so). NULL on the CPU. */
    int (*activity_flush)(const harness_backend *b);
    /* Recording on (on = 1) or off (0, once the recorded work is complete):
     * the runner's trace window (schedule.trace_steps), never a measured
     * one. 0, or -1 with err. NULL on the CPU. */
    int (*activity_window)(const harness_backend *b, int on, harness_error *err);

    /* The plugin collectives on device buffers; NULL on the CPU. Whether p
     * is device memory; and the collective among d's ranks on the
     * component's stream, waited for (so the time logged around it is its
     * own): NULL in a build without NCCL. 0, or nonzero with err. */
    int (*is_device_memory)(const harness_backend *b, const void *p);
    int (*device_collective)(const harness_backend *b, struct harness_dist *d, const struct harness_collective *c,
                             harness_error *err);

    /* The device's clocks now (read at each window's start and end, outside
     * the timed steps): 0, or -1 when unknown. NULL on the CPU. */
    int (*device_state)(const harness_backend *b, harness_device_state *out);

    /* Whether the device timer kept launch latency out with the blocking
     * kernel (backend/event_timer.h): "used", "off" (schedule.blocking_kernel:
     * false) or "fell back: step() synchronized". NULL on the CPU. */
    const char *(*blocking_kernel)(const harness_backend *b);
    /* One call of step timed by the host between two full device
     * synchronizes, so work on any stream is in it (*ns, host ns), and the
     * host's time in the step() call itself (*launch_ns): the check of the
     * events against it (run/full_sync.h). 0, or -1 with err. NULL on the
     * CPU, where the timer is the host's clock already. */
    int (*full_sync_step)(const harness_backend *b, int (*step)(void *), void *arg, double *ns, double *launch_ns,
                          harness_error *err);
    /* Before each measurement window's first step, after its wait steps
     * and outside any timed region: device state a plugin (or an earlier
     * run of the process) could leave behind on purpose is reset (CUDA:
     * persisting L2 lines and the stream's access-policy window), so
     * "cold" steps are cold. 0, or -1 with err. NULL on the CPU. */
    int (*window_prepare)(const harness_backend *b, harness_error *err);
    /* Put back what the backend changed on the device that outlives the
     * process (schedule.lock_clocks), also from a signal handler; close
     * does it too. NULL when nothing is (backend/device_restore.h). */
    void (*restore_device)(void);
    /* The device's energy counters now (read at each window's start and
     * end, beside device_state, outside the timed steps; run/
     * window_energy.h turns two reads into joules): 0, or -1 when they
     * cannot be read now. Used only when b->energy.name is set
     * (harness_backend_has_energy); else b->energy.missing says why not. */
    int (*energy_read)(const harness_backend *b, struct harness_energy_reading *out);
} harness_backend_ops;

/* What the summary's env says of a GPU (zero on the CPU). */
typedef struct harness_device_info {
    int index;                     /* device_index */
    int cc_major, cc_minor;
    int sm_count;
    double sm_clock_mhz, mem_clock_mhz;
    int bus_width_bits;
    uint64_t total_bytes;          /* device memory */
    uint64_t l2_bytes;
    char driver[32], runtime[32];  /* CUDA versions, "13.0" */
    char nccl[32];                 /* NCCL's version ("2.21.5") in a build with it; "" without */
    char arch[48];                 /* from the peak table, "unknown" when not in it */
    /* schedule.lock_clocks: what became of it, "" when off ("max: SM clock
     * locked at 1980 MHz", "max not permitted: ...; clocks float"). */
    char clock_lock[320];
    int clocks_locked;             /* the lock holds */
} harness_device_info;

/* schedule.lock_clocks, in the order of its choices (config/config.c). */
enum { HARNESS_LOCK_CLOCKS_OFF, HARNESS_LOCK_CLOCKS_BASE, HARNESS_LOCK_CLOCKS_MAX };

/* What a run asks of its backend beyond the device's name (config keys). */
typedef struct harness_backend_options {
    int device_index;              /* device_index, default 0 */
    int batch_timing;              /* schedule.timing: batch */
    int flush_l2;                  /* schedule.flush_l2 */
    int blocking_kernel;           /* schedule.blocking_kernel */
    int cuda_graph;                /* schedule.cuda_graph */
    int lock_clocks;               /* schedule.lock_clocks: HARNESS_LOCK_CLOCKS_* */
    int gpu_activity;              /* profiling.cupti on a profiled rank: the kernel timeline */
    int local_rank;                /* this rank's place on its node: GPU device_index + local_rank */
    int rank, world_size;          /* for its messages: a backend module has its own copy of util/error */
} harness_backend_options;

struct harness_backend {
    const char *name;              /* "cpu" | "cuda" */
    char device_name[256];
    const harness_backend_ops *ops;
    harness_allocator allocator;   /* raw memory for the tracked allocator */
    harness_clock clock;           /* the host clock behind stamps */
    harness_peaks peaks;
    harness_device_info info;
    harness_backend_options opts;
    harness_allocator device_allocator; /* device memory; alloc NULL on the CPU */
    void *stream;                  /* the component's stream (cudaStream_t); NULL on the CPU */
    harness_gpu_device_props gpu_props; /* the trace header's deviceProperties (CUDA) */
    /* The records of the measurement windows, when options.gpu_activity is
     * set and the build has CUPTI; NULL otherwise. Owned by the backend;
     * the caller clears it before a run. */
    harness_gpu_activity_list *gpu_activity;
    void *impl;                    /* the backend's own state */
    harness_energy_source energy;  /* its energy counter (ops->energy_read), or why none */
};

/* Whether steps are timed by device events (the runner's second path). */
static inline int harness_backend_has_device_timer(const harness_backend *b)
{
    return b->ops->step_begin != NULL;
}

/* Whether the backend reads an energy counter (else b->energy.missing
 * says why not). */
static inline int harness_backend_has_energy(const harness_backend *b)
{
    return b->ops->energy_read != NULL && b->energy.name[0] != '\0';
}

/* Open the backend for a resolved device ("cpu" or "cuda"; opts may be
 * NULL: the defaults). On the CPU this calibrates the clock (~20 ms); for
 * "cuda" it loads the CUDA backend module (backend/cuda_backend.la), the
 * only code of the harness that links the CUDA runtime. */
int harness_backend_open(harness_backend *b, const char *device, const harness_backend_options *opts,
                         harness_error *err);

/* The CUDA module's entry point (cuda_backend.c); the host clock is already
 * calibrated in b->clock. */
typedef int (*harness_cuda_backend_open_fn)(harness_backend *b, harness_error *err);
void harness_backend_close(harness_backend *b);

/* The peaks of an opened CUDA backend from b->info (backend/cuda_peaks.h). */
void harness_backend_cuda_peaks(harness_backend *b);

/* The CPU backend; `force_gettime` skips the TSC (tests). */
void harness_cpu_backend_init(harness_backend *b, int force_gettime);

/* "auto" -> "cuda" when a GPU is visible, else "cpu"; "cpu" and "cuda" are
 * checked. *out is a static string. */
int harness_device_resolve(const char *wanted, const char **out, harness_error *err);

#endif
