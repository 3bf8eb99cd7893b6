/* harness/plugin.h - the plugin ABI of harness, version 1.
 *
 * A plugin includes this header and nothing else of the harness, and links
 * against nothing of it: everything it needs from the host arrives in the
 * service table handed to its init function.
 *
 *   #include <harness/plugin.h>
 *   static const harness_services *H;
 *   static const harness_variant my_variant = { sizeof(harness_variant), ... };
 *   HARNESS_PLUGIN_INIT(my_plugin, svc, ctx) {
 *       H = svc;
 *       return svc->register_variant(ctx, &my_variant);
 *   }
 *
 * `my_plugin` must be the module's file name without extension (my_plugin.so):
 * libltdl finds the entry points as `my_plugin_LTX_harness_plugin_init`, which
 * also lets plugins be dlpreopened into a static harness.
 *
 * Compatibility: the host refuses a plugin whose ABI major differs from its
 * own. Within one major, the service table and every struct only grow at the
 * end, and each struct starts with its size, so a plugin built against an
 * older minor keeps working with a newer host.
 */
#ifndef HARNESS_PLUGIN_H
#define HARNESS_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HARNESS_ABI_MAJOR 1
#define HARNESS_ABI_MINOR 1

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
    const char *name;
    harness_param_type type;
    const char *default_value;     /* YAML scalar text; NULL: the user must set it */
    unsigned bounds;               /* HARNESS_PARAM_MIN | HARNESS_PARAM_MAX */
    double min, max;
    const char *const *choices;    /* ENUM: NULL-terminated list */
    const char *help;              /* one line, shown by `harness list` */
} harness_param;

/* ---- data ------------------------------------------------------------- */

typedef enum harness_dtype {
    HARNESS_DTYPE_F32 = 1,
    HARNESS_DTYPE_BF16,            /* stored as uint16_t, upper half of an f32 */
    HARNESS_DTYPE_F16,
    HARNESS_DTYPE_F64,
    HARNESS_DTYPE_I32
} harness_dtype;

/* Work done by one step, for throughput and roofline. */
typedef struct harness_cost {
    double bytes;                  /* bytes moved to and from memory */
    double flops;                  /* floating-point operations */
} harness_cost;

/* Outcome of comparing a component's output with its reference. */
typedef struct harness_check {
    uint32_t size;                 /* sizeof(harness_check), set by the host */
    int passed;
    uint64_t checked;              /* elements compared */
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
    uint32_t size;                 /* sizeof(harness_variant) as the plugin saw it */
    const char *key;               /* "rms_norm/cpu": unique across all plugins */
    const char *family;            /* "rms_norm": what configs usually name */
    const char *device;            /* "cpu" or "cuda" */
    const char *summary;           /* one line */
    const harness_param *params;
    uint32_t n_params;
    /* Allocate buffers (services->alloc), fill inputs (services->fill). */
    int (*create)(harness_ctx *ctx, void **state);
    /* One unit of work; timed by the host around the call. */
    int (*step)(harness_ctx *ctx, void *state);
    /* Bytes and FLOPs of one step. */
    void (*cost)(void *state, harness_cost *out);
    /* Optional: run one step, compare with the reference, fill *out. */
    int (*check)(harness_ctx *ctx, void *state, harness_check *out);
    /* Free everything create allocated. Called even when a later stage failed. */
    void (*destroy)(harness_ctx *ctx, void *state);

    /* ---- ABI 1.1 ---- */
    /* Optional: check what the schema cannot express, such as "num_heads is a
     * multiple of num_kv_heads". Runs before anything is allocated or
     * written (also for `harness validate`), so a failure is reported as a
     * config error. Reads parameters with param_*, fails with fail(). */
    int (*validate)(harness_ctx *ctx);
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
     * profiling, near-free when not. Pops must match pushes within a step. */
    void (*region_push)(harness_ctx *ctx, const char *name);
    void (*region_pop)(harness_ctx *ctx);

    /* Where this instance runs. */
    int (*rank)(harness_ctx *ctx);
    int (*world_size)(harness_ctx *ctx);
    int (*num_threads)(harness_ctx *ctx);  /* CPU threads the component may use */
} harness_services;

/* ---- entry point ------------------------------------------------------ */

typedef struct harness_plugin_abi {
    uint16_t major, minor;
} harness_plugin_abi;

typedef int (*harness_plugin_init_fn)(const harness_services *svc, harness_ctx *ctx);

/* Declares the ABI the plugin was built against and opens the definition of
 * its init function; `name` is the module's file name without extension. */
#define HARNESS_PLUGIN_INIT(name, svc, ctx)                                          \
    HARNESS_EXPORT extern const harness_plugin_abi name##_LTX_harness_plugin_abi;    \
    const harness_plugin_abi name##_LTX_harness_plugin_abi = {HARNESS_ABI_MAJOR,     \
                                                              HARNESS_ABI_MINOR};    \
    HARNESS_EXPORT int name##_LTX_harness_plugin_init(const harness_services *svc,   \
                                                      harness_ctx *ctx);             \
    int name##_LTX_harness_plugin_init(const harness_services *svc, harness_ctx *ctx)

#ifdef __cplusplus
}
#endif
#endif
