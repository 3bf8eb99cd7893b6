/* One call for both forms of a variant's cost, and the values checked
 * (variant_cost.h). */
#include "plugin/variant_cost.h"

#include <math.h>

#include "plugin/context.h"

/* A step's bytes or FLOPs are a count: NaN, an infinity or a negative
 * number is a plugin bug (an uninitialised field, an overflow, a
 * subtraction the wrong way), and so is anything near DBL_MAX: it would
 * print as a 307-digit GB/s, and as JSON it reads back as infinity. */
static int check_value(harness_ctx *ctx, const char *form, const char *field, double x)
{
    if (isfinite(x) && x >= 0 && x <= HARNESS_COST_MAX)
        return 0;
    harness_ctx_failf(ctx, "%s gave %s = %g; a step's cost must be finite, >= 0 and at most %g (a count of bytes "
                      "or FLOPs: more is an overflow or an uninitialised value)", form, field, x, HARNESS_COST_MAX);
    return -1;
}

int harness_variant_cost(const harness_variant *v, harness_ctx *ctx, void *state, harness_cost *out)
{
    const char *form = v->step_cost ? "step_cost()" : "cost()";
    if (!v->step_cost) {
        v->cost(state, out);
    } else if (v->step_cost(ctx, state, out) != 0 || ctx->failed) {
        /* Kept only when the plugin failed without saying why (context.h). */
        harness_ctx_failf(ctx, "step_cost returned an error without a message");
        return -1;
    }
    if (check_value(ctx, form, "bytes", out->bytes) != 0 || check_value(ctx, form, "flops", out->flops) != 0)
        return -1;
    return 0;
}
