/* One call for both forms of a variant's cost (variant_cost.h). */
#include "plugin/variant_cost.h"

#include "plugin/context.h"

int harness_variant_cost(const harness_variant *v, harness_ctx *ctx, void *state, harness_cost *out)
{
    if (!v->step_cost) {
        v->cost(state, out);
        return 0;
    }
    if (v->step_cost(ctx, state, out) != 0 || ctx->failed) {
        /* Kept only when the plugin failed without saying why (context.h). */
        harness_ctx_failf(ctx, "step_cost returned an error without a message");
        return -1;
    }
    return 0;
}
