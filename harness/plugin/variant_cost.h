/* variant_cost.h - calling a variant's cost in the form its plugin gave:
 * step_cost(ctx, state, out) of ABI 2.3, or cost(state, out) of ABI 2.0 to
 * 2.2 (the registry has checked that exactly one is set). */
#ifndef HARNESS_PLUGIN_VARIANT_COST_H
#define HARNESS_PLUGIN_VARIANT_COST_H

#include "harness/plugin.h"

/* Fills *out (its size set by the caller). 0, or -1 with the plugin's
 * message (or one of ours) recorded on ctx. */
int harness_variant_cost(const harness_variant *v, harness_ctx *ctx, void *state, harness_cost *out);

#endif
