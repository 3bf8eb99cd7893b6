/* dist.h - the ranks of a run: who this process is, and the few collective
 * steps the harness itself needs (a meeting before each window, the
 * experiment folder's name from rank 0, every rank's result at rank 0, and
 * an abort that takes the whole job down with a message naming the rank).
 *
 * One process is a world of one (dist_single.c); an MPI implementation
 * plugs in behind the same table. Every collective returns 0 or fills err:
 * a broken meeting is an error the run reports, not a hang or a crash. */
#ifndef HARNESS_DIST_H
#define HARNESS_DIST_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/plugin.h"
#include "util/error.h"

typedef struct harness_dist harness_dist;

/* A collective of the plugin API (harness/plugin.h, ABI 2.2). */
typedef enum harness_coll_kind {
    HARNESS_COLL_ALL_REDUCE = 1,
    HARNESS_COLL_ALL_GATHER,
    HARNESS_COLL_REDUCE_SCATTER,
    HARNESS_COLL_BROADCAST,
    HARNESS_COLL_BARRIER,
    HARNESS_COLL_SEND_RECV         /* ABI 2.5: an exchange with one peer */
} harness_coll_kind;

typedef struct harness_collective {
    harness_coll_kind kind;
    const void *send;
    void *recv;                    /* broadcast: the buffer */
    size_t count;                  /* elements, as the service was given it */
    harness_dtype dtype;
    harness_reduce_op op;          /* reductions */
    int root;                      /* broadcast; send_recv: the peer */
} harness_collective;

/* Bytes of one element of dtype; 0 for an unknown dtype. */
size_t harness_dtype_size(harness_dtype dtype);

typedef struct harness_dist_ops {
    /* The schedule's meetings: before each window, before each measured
     * step with sync_steps, and once when this rank's schedule ends (last).
     * They are where the ranks agree to stop, so that a signal to one rank
     * stops them all and none is left waiting. *stop is the process's stop
     * request (a signal number, 0 none): this rank's is told to the others;
     * another rank's is stored into it, and the runner then stops as if
     * this rank had been signalled. Returns 0 to go on, 1 when the ranks
     * agreed to stop here (when last: every rank's run then counts as
     * interrupted), or fills err and returns its code. Only the agreement
     * counts: a signal that comes while this rank waits, after it told its
     * own "go on", stops it at the next meeting, with the others. */
    int (*meet)(harness_dist *d, volatile sig_atomic_t *stop, int last, harness_error *err);
    /* Between meetings (after each step): another rank's stop, if one was
     * told, into *stop. Cheap: it looks at the network every few ms. */
    void (*poll_stop)(harness_dist *d, volatile sig_atomic_t *stop);
    /* root's buf (cap bytes, a NUL-terminated string) to every rank. */
    int (*broadcast_string)(harness_dist *d, int root, char *buf, size_t cap, harness_error *err);
    /* Each rank's `bytes` at `mine`; at rank 0 `all` receives world_size of
     * them in rank order (other ranks may pass NULL). */
    int (*gather)(harness_dist *d, const void *mine, size_t bytes, void *all, harness_error *err);
    /* Stop every rank: the message names this rank. Does not return when
     * there are other ranks to stop; returns after printing in a world of one. */
    /* A plugin's collective (harness_collective above). */
    int (*collective)(harness_dist *d, const harness_collective *c, harness_error *err);
    void (*abort)(harness_dist *d, int code, const char *msg);
    void (*finalize)(harness_dist *d);
} harness_dist_ops;

struct harness_dist {
    int rank, world_size, local_rank;
    int local_size;                /* ranks on this node (they share its cores and GPUs) */
    /* This rank's monotonic clock minus rank 0's (harness_monotonic_ns),
     * estimated at start from the ping-pong with the smallest round trip;
     * its error is at most half that round trip. 0 on rank 0. */
    int64_t clock_offset_ns;
    double clock_rtt_ns;
    const char *name;              /* "single", "mpi" */
    const harness_dist_ops *ops;
    void *impl;
    /* The component's steps call collectives: no rank may leave a meeting
     * alone (dist_mpi.c, STOP_WAIT_NS), since the others, told "go on",
     * would wait for it inside the next step's collective. */
    int lockstep;
};

/* A world of one process. */
void harness_dist_single_init(harness_dist *d);

/* The ranks of an MPI job (HAVE_MPI builds): MPI_Init_thread, the world and
 * this node's ranks. 0, or err (exit 3). */
int harness_dist_mpi_init(harness_dist *d, harness_error *err);

static inline int harness_dist_meet(harness_dist *d, volatile sig_atomic_t *stop, int last, harness_error *err)
{
    return d->ops->meet(d, stop, last, err);
}

#endif
