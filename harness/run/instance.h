/* instance.h - one component instance as plugins see it through their
 * context, and the full service table handed to plugins. */
#ifndef HARNESS_RUN_INSTANCE_H
#define HARNESS_RUN_INSTANCE_H

#include "backend/alloc_tracker.h"
#include "backend/backend.h"
#include "config/config.h"
#include "harness/plugin.h"
#include "plugin/context.h"
#include "dist/dist.h"
#include "run/comm_log.h"
#include "run/datagen.h"
#include "run/declared_io.h"
#include "run/profiler.h"

typedef struct harness_instance {
    harness_ctx ctx;               /* first: a service turns its ctx back into the instance */
    const harness_config *cfg;
    harness_alloc_tracker *mem;    /* NULL while only validating parameters */
    harness_datagen *gen;          /* likewise */
    int rank, world_size, threads;
    int region_depth;              /* pushes minus pops, to catch unbalanced regions */
    int64_t collectives_called;    /* every call, in any phase: its steps need every rank */
    char outer_region[64];         /* the name pushed at depth 0: open whenever depth > 0 */
    harness_profiler *profiler;    /* NULL when this rank records nothing */
    int nvtx;                      /* also emit NVTX ranges (CUDA builds) */
    const harness_backend *backend;/* device services (ABI 2.1); NULL while validating */
    harness_alloc_tracker *device_mem; /* tracked device memory; NULL on the CPU */
    harness_dist *dist;            /* the job's ranks, for collectives (ABI 2.2); NULL while validating */
    harness_comm_log *comm;        /* where collectives are logged; NULL: not logged */
    harness_declared_io io;        /* input and output (ABI 2.4) */
} harness_instance;

void harness_instance_init(harness_instance *in, const harness_variant *variant, const harness_config *cfg,
                           harness_alloc_tracker *mem, harness_datagen *gen);

#endif
