/* services.h - the host side of the plugin ABI: the service table and the
 * context a plugin passes back to every service. */
#ifndef HARNESS_SERVICES_H
#define HARNESS_SERVICES_H

#include "alloc_tracker.h"
#include "config.h"
#include "datagen.h"
#include "harness/plugin.h"
#include "profiler.h"

struct harness_registry;

struct harness_ctx {
    /* During plugin init: where registered variants go. */
    struct harness_registry *registry;
    size_t plugin;

    /* During a component's life. */
    const harness_variant *variant;
    const harness_config *cfg;
    harness_alloc_tracker *mem;
    harness_datagen *gen;
    int rank, world_size, threads;
    int region_depth;              /* pushes minus pops, to catch unbalanced regions */
    harness_profiler *profiler;    /* NULL when this rank records nothing */
    int nvtx;                      /* also emit NVTX ranges (CUDA builds) */

    /* Set by fail() or by a service the plugin misused. */
    int failed;
    char message[1024];
};

const harness_services *harness_host_services(void);

/* A context for one component instance. */
void harness_ctx_init_instance(struct harness_ctx *ctx, const harness_variant *variant,
                               const harness_config *cfg, harness_alloc_tracker *mem,
                               harness_datagen *gen);

/* The plugin's message, or `fallback` when it left none. */
const char *harness_ctx_message(const struct harness_ctx *ctx, const char *fallback);

#endif
