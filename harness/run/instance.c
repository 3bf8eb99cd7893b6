/* A component instance's starting state (run/instance.h). */
#include "run/instance.h"

#include <omp.h>
#include <string.h>

void harness_instance_init(harness_instance *in, const harness_variant *variant, const harness_config *cfg,
                           harness_alloc_tracker *mem, harness_datagen *gen)
{
    memset(in, 0, sizeof *in);
    in->ctx.kind = HARNESS_CTX_INSTANCE;
    in->ctx.variant = variant;
    in->cfg = cfg;
    in->mem = mem;
    in->gen = gen;
    in->rank = 0;
    in->world_size = 1;
    in->threads = omp_get_max_threads();
    harness_ctx_set_live(&in->ctx);  /* a kept init context's misuse fails this instance */
}
