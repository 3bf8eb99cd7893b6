/* harness/plugin.h - the plugin ABI of harness, version 2.5 (2.1 added the
 * device services at the end of harness_services, 2.2 the collectives after
 * them, 2.3 note, set_unload, the variant's step_cost and the parameter
 * helpers, 2.4 input and output for the checks after timing, 2.5 send_recv;
 * 2.0 to 2.4 plugins load as before).
 *
 * A plugin includes this header and nothing else of the harness, and links
 * against nothing of it: everything it needs from the host arrives in the
 * service table handed to its init function, which HARNESS_PLUGIN_INIT keeps
 * in `harness_host` for the callbacks (static in each file; one for all of a
 * plugin's files under HARNESS_SHARED_HOST, below).
 *
 *   #include <harness/plugin.h>
 *   static const harness_variant my_variant = { sizeof(harness_variant), ... };
 *   HARNESS_PLUGIN_INIT(my_plugin, svc, ctx) {
 *       return svc->register_variant(ctx, &my_variant);
 *   }
 *   ... and in a callback: harness_host->alloc(ctx, bytes, "tag")
 *
 * `my_plugin` must be the module's file name without extension (my_plugin.so):
 * libltdl finds the entry points as `my_plugin_LTX_harness_plugin_init`, which
 * also lets plugins be dlpreopened into a static harness.
 *
 * Versions. Every struct that crosses the boundary starts with `uint32_t size`,
 * the sizeof that its writer compiled against; within one major, structs and
 * the service table only grow at the end.
 *   - Another major: the plugin is refused, naming both versions.
 *   - An older minor (smaller structs): the host copies what the plugin gave
 *     into a zeroed struct of its own size, so fields the plugin never knew
 *     read as absent (NULL, 0).
 *   - A newer minor (larger structs): the plugin is loaded and the host reads
 *     only the fields it knows, but only when every byte past the host's size
 *     is zero; a plugin that sets a field this host does not know is refused
 *     ("built for ABI 2.3 sets fields this host (ABI 2.0) does not know"),
 *     since ignoring it would silently change what the plugin asked for.
 *     Such a plugin must test services with HARNESS_HAS_SERVICE, and write
 *     into host structs (harness_cost, harness_check) only the fields that
 *     lie within their `size`.
 *
 * Callback order, per instance: validate -> create -> cost (or step_cost) ->
 * check -> step (warmup, then the measurement windows) -> destroy. validate
 * also runs alone, for `harness validate`. Once create has returned 0,
 * destroy is called exactly once, also when cost, check or a step failed
 * later or the run was interrupted; when create fails destroy is not
 * called, so create frees what it allocated, or leaves it to the host,
 * which releases every tracked allocation left at the end of the instance.
 *
 * Threads. The callbacks are called from one thread. log may be called from
 * any thread (lines from different threads may interleave). rank, world_size
 * and num_threads only read and may be called from any thread. Every other
 * service (fail, param_*, alloc, free, fill, region_*) changes the instance's
 * state without a lock: call them from the thread that called the callback,
 * never from worker threads (OpenMP regions, pthreads) the plugin starts.
 *
 * CUDA graphs. With `schedule.cuda_graph: true` (harness-config(5)) the
 * host calls step() of a CUDA variant once more after check, inside a
 * stream capture of `stream(ctx)` (cudaStreamCaptureModeThreadLocal), and
 * from then on times replays of the captured graph: step() itself is not
 * called again for the warmup or the windows. So a step that may be
 * captured
 *   - launches all its device work on stream(ctx) (or on streams forked
 *     from it with events and joined back), never on the legacy default
 *     stream;
 *   - never waits for the device: no device_synchronize, copy_to_host or
 *     copy_to_device (both wait for the stream), no cudaStreamSynchronize,
 *     cudaMemcpy or event query; capture fails on them;
 *   - never allocates or frees (device_alloc, device_free, alloc,
 *     cudaMalloc): everything it uses comes from create;
 *   - takes no decision on the host that should differ between steps: a
 *     branch on device results (which it cannot read without a sync), a
 *     step counter, buffers swapped between steps, a fresh random seed,
 *     the kernels' arguments are all frozen as captured, and every replay
 *     repeats the one captured step;
 *   - does its host-side bookkeeping knowing it runs once: region_push and
 *     region_pop, note and the host-buffer collectives happen at capture
 *     only, not per replayed step.
 * A step that breaks these fails the run with "cuda_graph: capturing one
 * step" rather than timing something else. CPU variants are never captured.
 *
 * Lifetime. The host copies the structs (harness_variant and each
 * harness_param, into host-sized copies) and every string in them (key,
 * family, device, summary, parameter names, defaults, help, the choices
 * lists) when register_variant is called: a plugin may free or reuse them
 * after it returns. Keys and families are at most 255 bytes, the other texts
 * at most 4096, none with control characters, or the variant is refused.
 * Only the functions stay pointers into the module, which is closed at the
 * end of the process (after the callback it gave set_unload, if any).
 * Strings handed to services (tags, region names, log and fail formats) are
 * used during the call only.
 *
 * The context init is given is for init: a service called with it later
 * (register_variant from create) fails the callback that is running.
 *
 * Threads a plugin starts are its own to stop: in destroy, or, for a pool
 * kept across instances, in its unload callback. One still running after
 * destroy keeps the module mapped to the end of the process (and, without
 * an unload callback, the run warns): unmapping code a thread runs would
 * crash the process after the folder was written.
 *
 * Values. cost and step_cost give counts: finite, >= 0 and at most 1e30,
 * or the run fails naming the variant and the value. A check that sets
 * passed with mismatches > 0, or a NaN max_abs_err, fails.
 */
#ifndef HARNESS_PLUGIN_H
#define HARNESS_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HARNESS_ABI_MAJOR 2
#define HARNESS_ABI_MINOR 5

#if defined(__GNUC__)
#define HARNESS_EXPORT __attribute__((visibility("default")))
#define HARNESS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define HARNESS_EXPORT
#define HARNESS_PRINTF(f, a)
#endif

/* Opaque host state: the registration in init, one component instance in the
 * variant callbacks. Plugins pass it back to services and never look inside. */
typedef struct harness_ctx harness_ctx;

/* ---- parameters ------------------------------------------------------- */

typedef enum harness_param_type {
    HARNESS_PARAM_INT = 1,   /* int64 */
    HARNESS_PARAM_FLOAT,     /* double; YAML 1e-6 and 1.0e-6 both accepted */
    HARNESS_PARAM_BOOL,
    HARNESS_PARAM_STRING,
    HARNESS_PARAM_ENUM       /* a string out of `choices` */
} harness_param_type;

/* Which of min/max apply (inclusive bounds, INT and FLOAT only). */
enum { HARNESS_PARAM_MIN = 1u, HARNESS_PARAM_MAX = 2u };

typedef struct harness_param {
    uint32_t size;                 /* sizeof(harness_param) as the plugin saw it; the
                                    * array's stride is params[0].size */
    const char *name;
    harness_param_type type;
    const char *default_value;     /* YAML scalar text; NULL: the user must set it */
    unsigned bounds;               /* HARNESS_PARAM_MIN | HARNESS_PARAM_MAX */
    double min, max;
    const char *const *choices;    /* ENUM: NULL-terminated list */
    const char *help;              /* one line, shown by `harness list` */
} harness_param;

/* Parameter tables by name rather than by position (ABI 2.3; plain C99
 * designated initializers, so a table built with them loads on any 2.x
 * host). Each expands to one harness_param with its size set; DEFAULT is
 * YAML scalar text, NULL when the user must set the parameter; MIN and MAX
 * are inclusive bounds:
 *   static const char *const dtypes[] = {"fp32", "bf16", NULL};
 *   static const harness_param params[] = {
 *       HARNESS_INT_PARAM_MIN("rows", "8", 1, "rows of the matrix"),
 *       HARNESS_FLOAT_PARAM_RANGE("eps", "1e-6", 1e-30, 1, "added to the variance"),
 *       HARNESS_BOOL_PARAM("causal", "true", "mask out later keys"),
 *       HARNESS_ENUM_PARAM("dtype", "fp32", dtypes, "element type"),
 *   };
 * The fields are in declaration order, so C++20 accepts them too. */
#define HARNESS_PARAM_HEAD_(NAME, TYPE, DEFAULT) \
    .size = sizeof(harness_param), .name = (NAME), .type = (TYPE), .default_value = (DEFAULT)
#define HARNESS_INT_PARAM(NAME, DEFAULT, HELP) \
    {HARNESS_PARAM_HEAD_(NAME, HARNESS_PARAM_INT, DEFAULT), .help = (HELP)}
#define HARNESS_INT_PARAM_MIN(NAME, DEFAULT, MIN, HELP) \
    {HARNESS_PARAM_HEAD_(NAME, HARNESS_PARAM_INT, DEFAULT), .bounds = HARNESS_PARAM_MIN, .min = (MIN), .help = (HELP)}
#define HARNESS_INT_PARAM_RANGE(NAME, DEFAULT, MIN, MAX, HELP)                                          \
    {HARNESS_PARAM_HEAD_(NAME, HARNESS_PARAM_INT, DEFAULT), .bounds = HARNESS_PARAM_MIN | HARNESS_PARAM_MAX, \
     .min = (MIN), .max = (MAX), .help = (HELP)}
#define HARNESS_FLOAT_PARAM(NAME, DEFAULT, HELP) \
    {HARNESS_PARAM_HEAD_(NAME, HARNESS_PARAM_FLOAT, DEFAULT), .help = (HELP)}
#define HARNESS_FLOAT_PARAM_MIN(NAME, DEFAULT, MIN, HELP) \
    {HARNESS_PARAM_HEAD_(NAME, HARNESS_PARAM_FLOAT, DEFAULT), .bounds = HARNESS_PARAM_MIN, .min = (MIN), .help = (HELP)}
#define HARNESS_FLOAT_PARAM_RANGE(NAME, DEFAULT, MIN, MAX, HELP)                                          \
    {HARNESS_PARAM_HEAD_(NAME, HARNESS_PARAM_FLOAT, DEFAULT), .bounds = HARNESS_PARAM_MIN | HARNESS_PARAM_MAX, \
     .min = (MIN), .max = (MAX), .help = (HELP)}
#define HARNESS_BOOL_PARAM(NAME, DEFAULT, HELP) \
    {HARNESS_PARAM_HEAD_(NAME, HARNESS_PARAM_BOOL, DEFAULT), .help = (HELP)}
#define HARNESS_STRING_PARAM(NAME, DEFAULT, HELP) \
    {HARNESS_PARAM_HEAD_(NAME, HARNESS_PARAM_STRING, DEFAULT), .help = (HELP)}
/* CHOICES: a NULL-terminated array of strings, DEFAULT one of them. */
#define HARNESS_ENUM_PARAM(NAME, DEFAULT, CHOICES, HELP) \
    {HARNESS_PARAM_HEAD_(NAME, HARNESS_PARAM_ENUM, DEFAULT), .choices = (CHOICES), .help = (HELP)}

/* ---- data ------------------------------------------------------------- */

typedef enum harness_dtype {
    HARNESS_DTYPE_F32 = 1,
    HARNESS_DTYPE_BF16,            /* stored as uint16_t, upper half of an f32 */
    HARNESS_DTYPE_F16,
    HARNESS_DTYPE_F64,
    HARNESS_DTYPE_I32
} harness_dtype;

/* Reductions of the collectives (ABI 2.2). */
typedef enum harness_reduce_op {
    HARNESS_REDUCE_SUM = 1,
    HARNESS_REDUCE_MAX,
    HARNESS_REDUCE_MIN
} harness_reduce_op;

/* Work done by one step, for throughput and roofline. */
typedef struct harness_cost {
    uint32_t size;                 /* sizeof(harness_cost), set by the host */
    double bytes;                  /* bytes moved to and from memory */
    double flops;                  /* floating-point operations */
} harness_cost;

/* Outcome of comparing a component's output with its reference. */
typedef struct harness_check {
    uint32_t size;                 /* sizeof(harness_check), set by the host */
    int passed;
    uint64_t checked;              /* elements compared; 0 fails the check even when passed is set */
    uint64_t mismatches;           /* elements over tolerance */
    double max_abs_err;
    double max_rel_err;
    double tolerance;              /* the bound max_abs_err was held to */
    char detail[256];              /* how the tolerance was derived, first bad index, ... */
} harness_check;

/* ---- variants --------------------------------------------------------- */

/* Callbacks return 0 on success; on failure they return nonzero and leave a
 * message with services->fail(). They must never exit() or abort(). */
typedef struct harness_variant {
    uint32_t size;                 /* sizeof(harness_variant) as the plugin saw it; it must
                                    * cover the required members, through destroy */
    const char *key;               /* "rms_norm/cpu": unique across all plugins */
    const char *family;            /* "rms_norm": what configs usually name */
    const char *device;            /* "cpu" or "cuda" */
    const char *summary;           /* one line */
    const harness_param *params;
    uint32_t n_params;
    /* Allocate buffers (services->alloc), fill inputs (services->fill). */
    int (*create)(harness_ctx *ctx, void **state);
    /* One unit of work; timed by the host around the call. A CUDA variant's
     * step may be captured into a CUDA graph and replayed instead of called
     * (see "CUDA graphs" above): no host sync, no allocation, no host-side
     * decision that differs between steps. */
    int (*step)(harness_ctx *ctx, void *state);
    /* Bytes and FLOPs of one step: the form of ABI 2.0 to 2.2, which can
     * neither log nor fail. A variant sets this or step_cost (ABI 2.3),
     * not both. */
    void (*cost)(void *state, harness_cost *out);
    /* Optional: run one step, compare with the reference, fill *out. */
    int (*check)(harness_ctx *ctx, void *state, harness_check *out);
    /* Free everything create allocated. Called once create succeeded, even
     * when a later stage failed. */
    void (*destroy)(harness_ctx *ctx, void *state);
    /* Optional: check what the schema cannot express, such as "num_heads is a
     * multiple of num_kv_heads". Runs before anything is allocated or
     * written (also for `harness validate`), so a failure is reported as a
     * config error. Reads parameters with param_*, fails with fail(). */
    int (*validate)(harness_ctx *ctx);
    /* ABI 2.3: cost with the instance's context: bytes and FLOPs of one
     * step, computed where parameters can be read (param_*), facts logged
     * and a size that overflows refused: return 0, or nonzero after fail(),
     * which fails the run before the check. Called once, after create.
     * Set this or cost, not both. A host older than 2.3 refuses a plugin
     * that sets it (a field it does not know), naming both versions. */
    int (*step_cost)(harness_ctx *ctx, void *state, harness_cost *out);
} harness_variant;

/* ---- host services ---------------------------------------------------- */

enum { HARNESS_LOG_ERROR = 0, HARNESS_LOG_WARN, HARNESS_LOG_INFO, HARNESS_LOG_DEBUG };

typedef struct harness_services {
    uint32_t size;                 /* sizeof(harness_services) of the host */
    uint16_t abi_major, abi_minor;

    /* Registration (init only). Fails on a duplicate key or a bad table. */
    int (*register_variant)(harness_ctx *ctx, const harness_variant *variant);

    void (*log)(harness_ctx *ctx, int level, const char *fmt, ...) HARNESS_PRINTF(3, 4);
    /* Record why a callback failed; returns -1 so `return H->fail(ctx, ...)` reads well. */
    int (*fail)(harness_ctx *ctx, const char *fmt, ...) HARNESS_PRINTF(2, 3);

    /* Parameters of this instance, already validated against the schema. */
    int64_t (*param_int)(harness_ctx *ctx, const char *name);
    double (*param_float)(harness_ctx *ctx, const char *name);
    int (*param_bool)(harness_ctx *ctx, const char *name);
    const char *(*param_string)(harness_ctx *ctx, const char *name); /* STRING and ENUM */

    /* Tracked host memory, 64-byte aligned; the tag names it in memory reports.
     * Returns NULL (with a message recorded) when out of memory. */
    void *(*alloc)(harness_ctx *ctx, size_t bytes, const char *tag);
    void (*free)(harness_ctx *ctx, void *ptr);

    /* Fill `count` elements with the config's data generator (data.generator,
     * data.seed). Each call draws a fresh deterministic stream. */
    int (*fill)(harness_ctx *ctx, void *buf, size_t count, harness_dtype dtype);

    /* Named ranges nested inside a step: trace events and NVTX ranges when
     * profiling, near-free when not. Pops must match pushes within one call
     * of create, check or step: one that returns with a region open fails,
     * blamed by name. */
    void (*region_push)(harness_ctx *ctx, const char *name);
    void (*region_pop)(harness_ctx *ctx);

    /* Where this instance runs. */
    int (*rank)(harness_ctx *ctx);
    int (*world_size)(harness_ctx *ctx);
    int (*num_threads)(harness_ctx *ctx);  /* CPU threads the component may use */

    /* ---- ABI 2.1: device memory and the stream ------------------------
     * For variants whose device is "cuda"; in an instance on the CPU they
     * fail (NULL or nonzero, with a message recorded). A plugin built for
     * 2.1 that may meet a 2.0 host tests them with HARNESS_HAS_SERVICE. */

    /* Tracked device memory (cudaMalloc behind it), 256-byte aligned; the
     * tag names it in the memory report and summary, beside host memory.
     * NULL (with a message recorded) when out of device memory. */
    void *(*device_alloc)(harness_ctx *ctx, size_t bytes, const char *tag);
    void (*device_free)(harness_ctx *ctx, void *ptr);
    /* Copies between host and device memory, for inputs and checks. Both wait
     * for the work already on the component's stream, so copy_to_host after
     * a step sees its results. 0, or nonzero with a message recorded. */
    int (*copy_to_device)(harness_ctx *ctx, void *dst_device, const void *src_host, size_t bytes);
    int (*copy_to_host)(harness_ctx *ctx, void *dst_host, const void *src_device, size_t bytes);
    /* fill for device buffers: the same generator and values as fill gives
     * on the host for the same seed (generated on the host, then copied). */
    int (*device_fill)(harness_ctx *ctx, void *buf_device, size_t count, harness_dtype dtype);
    /* The stream to launch on (a cudaStream_t): the host times steps with
     * events on it, so work launched elsewhere is not timed. */
    void *(*stream)(harness_ctx *ctx);
    /* Wait until the stream's work is done (checks; never in step, which
     * may be captured into a CUDA graph). */
    int (*device_synchronize)(harness_ctx *ctx);

    /* ---- ABI 2.2: collectives among the job's ranks --------------------
     * Host buffers over MPI (a world of one copies); device buffers (from
     * device_alloc) over NCCL on the component's stream, in CUDA builds
     * with NCCL; the call returns when the collective is done, so a step
     * holding one is timed with it. Every rank calls the
     * same collective with the same count, dtype and op, in the same order.
     * Each call is timed and logged: the trace's "communication" thread and
     * the summaries' table per operation and size (algbw, busbw as
     * nccl-tests defines them). 0, or nonzero with a message recorded.
     * Counts are elements; in place when send == recv (all_gather: when send
     * is this rank's slice of recv). */
    int (*all_reduce)(harness_ctx *ctx, const void *send, void *recv, size_t count, harness_dtype dtype,
                      harness_reduce_op op);
    /* recv holds world_size slices of count elements, in rank order. */
    int (*all_gather)(harness_ctx *ctx, const void *send, void *recv, size_t count, harness_dtype dtype);
    /* send holds world_size slices of count elements; recv gets this rank's
     * slice of their reduction. */
    int (*reduce_scatter)(harness_ctx *ctx, const void *send, void *recv, size_t count, harness_dtype dtype,
                          harness_reduce_op op);
    int (*broadcast)(harness_ctx *ctx, void *buf, size_t count, harness_dtype dtype, int root);
    int (*barrier)(harness_ctx *ctx);

    /* ---- ABI 2.3 -------------------------------------------------------- */

    /* Record a fact about this instance as two strings, written into the
     * summary's `component_notes` object: which ISA path or algorithm the
     * kernels chose, a tile size, a library version. Noting a key again
     * replaces its value. Keys up to 63 bytes, values up to 255, at most 16
     * keys; anything else, or a call from init, fails the callback. From
     * the callbacks of an instance (create, step_cost, check, step,
     * destroy). */
    void (*note)(harness_ctx *ctx, const char *key, const char *value);

    /* Init only: `unload` is called once when the host is done with the
     * plugin, after the last instance was destroyed and before the module
     * is closed; also after an init that failed, so what init acquired
     * before failing can be released. For what outlives instances: a
     * library the plugin opened (dlopen of cuBLAS), a cache, a thread pool.
     * NULL (the default) for none; a second call replaces the first. */
    void (*set_unload)(harness_ctx *ctx, void (*unload)(void));

    /* ---- ABI 2.4: what step reads and writes, for the checks after timing
     * The host times what step() does between its start and end; a
     * component that skips, replays or defers its work would time well and
     * compute nothing. Declaring the buffers lets the host check, after the
     * last timed window (validate_after_timing, harness-config(5)), that
     * step() really does its work: see "Anti-cheat" in
     * docs/timing-integrity.md. From create only; host or device memory
     * (device memory from device_alloc), at most 16 of each. */

    /* fill (or device_fill, for device memory), and declare the buffer an
     * input that step() reads afresh on every call. The host may write new
     * values into it between steps (schedule.rotate_inputs) and before the
     * check after timing, which then must see the output for the new
     * values: so declare what a step reads and nothing create derives state
     * from (weights that create packs or converts: fill those). 0, or
     * nonzero with a message recorded. */
    int (*input)(harness_ctx *ctx, void *buf, size_t count, harness_dtype dtype);
    /* Declare the buffer the output that step() writes in full on every
     * call, complete when step returns (on a device: when the component's
     * stream reaches the step's end). After timing the host overwrites it,
     * runs one step, and reads it when the step is over and again after a
     * full wait: an element still overwritten, or changed in between,
     * fails the run. 0, or nonzero with a message recorded. */
    int (*output)(harness_ctx *ctx, const void *buf, size_t count, harness_dtype dtype);

    /* ---- ABI 2.5: point to point ----------------------------------------
     * Exchange count elements with rank `peer`, which makes the same call
     * with this rank as its peer: send goes to peer, and peer's send lands
     * in recv (MPI_Sendrecv for host buffers; ncclSend and ncclRecv in one
     * group for device buffers, on the component's stream). A peer equal to
     * this rank copies. Timed and logged as the collectives are, with the
     * peer: the summaries then give each pair's time, and a job's summary
     * the matrix of every pair that exchanged (docs/guide/mpi.md, "Pairwise").
     * 0, or nonzero with a message recorded. */
    int (*send_recv)(harness_ctx *ctx, const void *send, void *recv, size_t count, harness_dtype dtype, int peer);
} harness_services;

/* ---- entry point ------------------------------------------------------ */

/* The ABI a plugin was built against. ABI 1 declared only {major, minor}
 * (two uint16_t); the host tells the layouts apart by `size`. */
typedef struct harness_plugin_abi {
    uint32_t size;                 /* sizeof(harness_plugin_abi) */
    uint16_t major, minor;
} harness_plugin_abi;

typedef int (*harness_plugin_init_fn)(const harness_services *svc, harness_ctx *ctx);

/* Whether the host's service table has `member` (svc->member exists in a host
 * of this minor or newer and is set): a plugin built against a newer minor
 * than the host tests services added after 2.0 with it before calling them. */
#define HARNESS_HAS_SERVICE(svc, member)                                             \
    ((svc) != NULL &&                                                                \
     (size_t)(svc)->size >= offsetof(harness_services, member) + sizeof((svc)->member) && \
     (svc)->member != NULL)

/* The service table, for the plugin's callbacks: HARNESS_PLUGIN_INIT sets it
 * before the body of init runs.
 *
 * A plugin of one file: harness_host is static in that file.
 * A plugin of several files: define HARNESS_SHARED_HOST before including
 * this header in every one of its files (`-DHARNESS_SHARED_HOST` in the
 * plugin's CFLAGS, or a header of the plugin's own). Then every file sees one
 * harness_host, defined by the file with HARNESS_PLUGIN_INIT and hidden from
 * other modules, so two plugins never share (or interpose) it. A file
 * compiled without the macro has a static harness_host of its own that is
 * never set: define it for all files or for none. */
#if defined(__GNUC__)
#define HARNESS_HIDDEN_ __attribute__((visibility("hidden")))
#define HARNESS_UNUSED_ __attribute__((unused))
#else
#define HARNESS_HIDDEN_
#define HARNESS_UNUSED_
#endif
#ifdef HARNESS_SHARED_HOST
extern HARNESS_HIDDEN_ const harness_services *harness_host;
#define HARNESS_HOST_DEFINITION_ HARNESS_HIDDEN_ const harness_services *harness_host = NULL;
#else
HARNESS_UNUSED_ static const harness_services *harness_host;
#define HARNESS_HOST_DEFINITION_
#endif

/* Declares the ABI the plugin was built against and opens the definition of
 * its init function; `name` is the module's file name without extension.
 * The exported init stores the table in harness_host (which it also defines
 * under HARNESS_SHARED_HOST), then runs the body. */
#define HARNESS_PLUGIN_INIT(name, svc, ctx)                                                   \
    HARNESS_HOST_DEFINITION_                                                                  \
    HARNESS_EXPORT extern const harness_plugin_abi name##_LTX_harness_plugin_abi;             \
    const harness_plugin_abi name##_LTX_harness_plugin_abi = {                                \
        sizeof(harness_plugin_abi), HARNESS_ABI_MAJOR, HARNESS_ABI_MINOR};                    \
    static int name##_harness_plugin_body(const harness_services *svc, harness_ctx *ctx);     \
    HARNESS_EXPORT int name##_LTX_harness_plugin_init(const harness_services *svc,            \
                                                      harness_ctx *ctx);                      \
    int name##_LTX_harness_plugin_init(const harness_services *svc, harness_ctx *ctx)         \
    {                                                                                         \
        harness_host = svc;                                                                   \
        return name##_harness_plugin_body(svc, ctx);                                          \
    }                                                                                         \
    static int name##_harness_plugin_body(const harness_services *svc, harness_ctx *ctx)

#ifdef __cplusplus
}
#endif
#endif
