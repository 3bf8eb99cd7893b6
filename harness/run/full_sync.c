/* Events against a full device synchronize; see full_sync.h. */
#include "run/full_sync.h"

#include <stdlib.h>
#include <string.h>

#include "util/stats.h"

int harness_full_sync_judge(harness_full_sync_check *c)
{
    c->bound_ns = 2.0 * (c->events_median_ns + c->launch_ns) + HARNESS_FULL_SYNC_SLACK_NS;
    c->agrees = c->sync_ns <= c->bound_ns;
    return c->agrees;
}

/* The median of n values, on a copy (the samples stay in step order). */
static int median_of(const double *v, size_t n, double *out)
{
    double *copy = malloc(n * sizeof *copy);
    if (!copy)
        return -1;
    memcpy(copy, v, n * sizeof *copy);
    *out = harness_median(copy, n);
    free(copy);
    return 0;
}

int harness_full_sync_run(const harness_backend *b, harness_step_fn step, void *arg, const harness_run_result *r,
                          int collectives_called, harness_full_sync_check *c, harness_error *err)
{
    memset(c, 0, sizeof *c);
    if (!b->ops->full_sync_step)
        return 0;                  /* the CPU: its timer is the host's clock already */
    if (!r->n_samples) {
        c->skipped = "no measured steps";
        return 0;
    }
    if (collectives_called) {
        c->skipped = "the steps call collectives: a step waits on the other ranks";
        return 0;
    }
    if (median_of(r->samples_ns, r->n_samples, &c->events_median_ns) != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory for the full-synchronize check");
    for (int i = 0; i < HARNESS_FULL_SYNC_STEPS; i++) {
        double ns = 0, launch_ns = 0;
        if (b->ops->full_sync_step(b, step, arg, &ns, &launch_ns, err) != 0)
            return err->code;
        if (i == 0 || ns < c->sync_ns)
            c->sync_ns = ns, c->launch_ns = launch_ns;
    }
    c->ran = 1;
    harness_full_sync_judge(c);
    return 0;
}
