/* A world of one: every collective is trivially complete. */
#include <stdio.h>
#include <string.h>

#include "dist/collective.h"

/* Alone, a stop concerns no one else: the runner sees the signal itself. */
static int single_meet(harness_dist *d, volatile sig_atomic_t *stop, int last, harness_error *err)
{
    (void)d;
    (void)stop;
    (void)last;
    (void)err;
    return 0;
}

static void single_poll_stop(harness_dist *d, volatile sig_atomic_t *stop)
{
    (void)d;
    (void)stop;
}

static int single_broadcast_string(harness_dist *d, int root, char *buf, size_t cap, harness_error *err)
{
    (void)buf;
    (void)cap;
    if (root != d->rank)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "broadcast from rank %d in a world of one", root);
    return 0;
}

static int single_gather(harness_dist *d, const void *mine, size_t bytes, void *all, harness_error *err)
{
    (void)d;
    (void)err;
    if (all && all != mine)
        memcpy(all, mine, bytes);
    return 0;
}

static int single_collective(harness_dist *d, const harness_collective *c, harness_error *err)
{
    (void)d;
    return harness_collective_alone(c, err);
}

static void single_abort(harness_dist *d, int code, const char *msg)
{
    (void)code;
    fprintf(stderr, "harness: rank %d: %s\n", d->rank, msg);
}

static void single_finalize(harness_dist *d)
{
    (void)d;
}

static const harness_dist_ops single_ops = {
    .meet = single_meet,
    .poll_stop = single_poll_stop,
    .broadcast_string = single_broadcast_string,
    .gather = single_gather,
    .collective = single_collective,
    .abort = single_abort,
    .finalize = single_finalize,
};

void harness_dist_single_init(harness_dist *d)
{
    *d = (harness_dist){.rank = 0, .world_size = 1, .local_rank = 0, .local_size = 1, .name = "single", .ops = &single_ops};
}
