/* Ranks over MPI (HAVE_MPI): the world is MPI_COMM_WORLD, the local rank is
 * the rank among the processes of this node (MPI_Comm_split_type shared),
 * and every collective returns MPI's error text rather than aborting:
 * MPI_ERRORS_RETURN on the communicators, so a broken barrier is an error
 * the run reports. Only the main thread calls MPI (MPI_THREAD_FUNNELED:
 * OpenMP threads inside components never do). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "dist/dist.h"

typedef struct mpi_state {
    MPI_Comm local;                /* this node's ranks */
} mpi_state;

static int mpi_fail(harness_error *err, int rc, const harness_dist *d, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", rc);
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "rank %d of %d: %s: %s", d->rank, d->world_size, what, text);
}

static int mpi_barrier(harness_dist *d, harness_error *err)
{
    int rc = MPI_Barrier(MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(err, rc, d, "barrier");
}

static int mpi_broadcast_string(harness_dist *d, int root, char *buf, size_t cap, harness_error *err)
{
    if (cap > (size_t)1 << 30)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "broadcast of %zu bytes: too large", cap);
    int rc = MPI_Bcast(buf, (int)cap, MPI_CHAR, root, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, d, "broadcast");
    buf[cap - 1] = '\0';
    return 0;
}

static int mpi_gather(harness_dist *d, const void *mine, size_t bytes, void *all, harness_error *err)
{
    if (bytes > (size_t)1 << 30)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "gather of %zu bytes per rank: too large", bytes);
    int rc = MPI_Gather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(err, rc, d, "gather");
}

static void mpi_abort(harness_dist *d, int code, const char *msg)
{
    fprintf(stderr, "harness: rank %d of %d: %s; stopping every rank\n", d->rank, d->world_size, msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
}

static void mpi_finalize(harness_dist *d)
{
    mpi_state *st = d->impl;
    if (st) {
        MPI_Comm_free(&st->local);
        free(st);
        d->impl = NULL;
    }
    int done = 0;
    MPI_Finalized(&done);
    if (!done)
        MPI_Finalize();
}

static const harness_dist_ops mpi_ops = {
    .barrier = mpi_barrier,
    .broadcast_string = mpi_broadcast_string,
    .gather = mpi_gather,
    .abort = mpi_abort,
    .finalize = mpi_finalize,
};

int harness_dist_mpi_init(harness_dist *d, harness_error *err)
{
    int provided = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "MPI_Init_thread failed");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mpi_state *st = calloc(1, sizeof *st);
    *d = (harness_dist){.name = "mpi", .ops = &mpi_ops, .impl = st};
    MPI_Comm_rank(MPI_COMM_WORLD, &d->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d->world_size);
    int rc = st ? MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, d->rank, MPI_INFO_NULL, &st->local)
                : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        mpi_fail(err, rc, d, "finding the ranks of this node");
        free(st);
        d->impl = NULL;
        MPI_Finalize();
        return err->code;
    }
    MPI_Comm_set_errhandler(st->local, MPI_ERRORS_RETURN);
    MPI_Comm_rank(st->local, &d->local_rank);
    MPI_Comm_size(st->local, &d->local_size);
    return 0;
}
