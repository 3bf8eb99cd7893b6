/* variant_cost.h - calling a variant's cost in the form its plugin gave:
 * step_cost(ctx, state, out) of ABI 2.3, or cost(state, out) of ABI 2.0 to
 * 2.2 (the registry has checked that exactly one is set), and checking
 * what it gave. */
#ifndef HARNESS_PLUGIN_VARIANT_COST_H
#define HARNESS_PLUGIN_VARIANT_COST_H

#include "harness/plugin.h"

/* The most bytes or FLOPs one step may claim: 1e30 is a million times a
 * zettabyte, beyond any step of any machine, yet far from where a double
 * prints or parses badly. */
#define HARNESS_COST_MAX 1e30

/* Fills *out (its size set by the caller). 0, or -1 with a message recorded
 * on ctx: the plugin's, or ours when a value is not finite, negative or
 * above HARNESS_COST_MAX ("cost() gave bytes = nan; ..."). */
int harness_variant_cost(const harness_variant *v, harness_ctx *ctx, void *state, harness_cost *out);

#endif
