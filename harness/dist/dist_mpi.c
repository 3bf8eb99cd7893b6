/* Ranks over MPI (HAVE_MPI): the world is MPI_COMM_WORLD, the local rank is
 * the rank among the processes of this node (MPI_Comm_split_type shared),
 * and every collective returns MPI's error text rather than aborting:
 * MPI_ERRORS_RETURN on the communicators, so a broken collective is an
 * error the run reports. Only the main thread calls MPI (MPI_THREAD_FUNNELED:
 * OpenMP threads inside components never do). */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dist/collective.h"
#include "dist/join_watchdog.h"
#include "dist/waiting.h"
#include "util/monotonic.h"

/* The signal told to the others: MPI_Isend's buffer, alive until MPI_Finalize. */
static int notice;

/* One of the schedule's meetings: an all-reduce (max) of each rank's stop
 * request, so that all ranks learn together whether any was signalled. */
typedef struct meeting {
    MPI_Request req;               /* MPI_REQUEST_NULL: none under way */
    int mine, all;
    int last;                      /* posted as this rank's last meeting */
} meeting;

typedef struct mpi_state {
    MPI_Comm local;                /* this node's ranks */
    MPI_Datatype half;             /* 2 bytes: bf16 and fp16, which MPI has no type for */
    MPI_Op half_ops[2][3];         /* [bf16, fp16][sum, max, min]: reduce in fp32 */
    MPI_Comm stop_comm;            /* meetings and stop notices, apart from the plugins' traffic */
    meeting m;
    int decided;                   /* the job stops: no more meetings (one may still be under way) */
    int told, heard;               /* this rank's stop sent to the others; another's received */
    int sig;                       /* once decided: the signal the job stops for */
    uint64_t last_poll_ns;
} mpi_state;

static int mpi_fail(harness_error *err, int rc, const harness_dist *d, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", rc);
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "rank %d of %d: %s: %s", d->rank, d->world_size, what, text);
}

/* ---- stopping together ------------------------------------------------- *
 *
 * A signal may reach one rank only (kill, a node's own limit) or every rank
 * at a slightly different step (mpirun and Slurm forward theirs), and a rank
 * that stops must leave no other waiting at a meeting it will never come to.
 * So a rank that is asked to stop (a) tells the others at once, with a small
 * message each looks for between steps (every 10 ms) and while waiting, so
 * that they stop within a step rather than at the end of their window; (b) still
 * comes to one more meeting, carrying its signal: meetings are matched in
 * order, so that one completes whichever meeting the others are at, and its
 * maximum tells every rank that the job stops. Every rank thus comes to as
 * many meetings as the others, and MPI_Finalize finds none half done.
 *
 * A rank whose stop is in a meeting it posted knows the outcome (the max is
 * nonzero) and need not wait for it: it writes its files first and finishes
 * the meeting in finalize. A rank asked to stop while waiting at a meeting it
 * posted before waits STOP_WAIT_NS for the others (they have been told), then
 * writes its files too: when a rank dies (kill -9), mpirun gives the others
 * one second between SIGTERM and SIGKILL, and the files must fit in it.
 * Not in lockstep (dist.h): there a live peer always comes, and one that
 * came late would be left inside a collective. */
#define POLL_NS 10000000ull              /* a notice is looked for every 10 ms of steps */
#define STOP_WAIT_NS 250000000ull        /* a quarter of mpirun's second before SIGKILL */
#define FINAL_WAIT_S 30                  /* finalize: the others' slowest step, generously */
#define NOTICE_TAG 1
#define SEND_RECV_TAG 9                  /* a plugin's send_recv (7 and 8: the clock pings) */

/* This rank's own signal, to every other rank, once. MPI_Request_free: the
 * send completes on its own, and a rank that died is no reason to wait. */
static void tell_others(harness_dist *d, mpi_state *st, volatile sig_atomic_t *stop)
{
    if (!*stop || st->told || st->heard)
        return;
    st->told = 1;
    notice = *stop;
    for (int r = 0; r < d->world_size; r++) {
        MPI_Request req;
        if (r != d->rank && MPI_Isend(&notice, 1, MPI_INT, r, NOTICE_TAG, st->stop_comm, &req) == MPI_SUCCESS)
            MPI_Request_free(&req);
    }
}

/* Another rank's notice, if one came: into *stop (unless this rank has a
 * signal of its own). Returns whether one was read. */
static int read_notice(mpi_state *st, volatile sig_atomic_t *stop)
{
    int here = 0, sig = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, NOTICE_TAG, st->stop_comm, &here, &status) != MPI_SUCCESS || !here)
        return 0;
    if (MPI_Recv(&sig, 1, MPI_INT, status.MPI_SOURCE, NOTICE_TAG, st->stop_comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return 0;
    if (!st->told && !st->heard && !*stop)
        *stop = sig > 0 ? sig : SIGTERM;
    st->heard = 1;
    return 1;
}

static void mpi_poll_stop(harness_dist *d, volatile sig_atomic_t *stop)
{
    mpi_state *st = d->impl;
    uint64_t now = harness_monotonic_ns();
    if (now - st->last_poll_ns < POLL_NS)
        return;
    st->last_poll_ns = now;
    tell_others(d, st, stop);
    read_notice(st, stop);
}

static int post_meeting(mpi_state *st, int mine, int last)
{
    st->m = (meeting){.mine = mine, .last = last};
    /* On the stop communicator: a meeting left under way must not be matched
     * with a plugin's collective on the world's. */
    return MPI_Iallreduce(&st->m.mine, &st->m.all, 1, MPI_INT, MPI_MAX, st->stop_comm, &st->m.req);
}

/* Waits for the meeting under way, reading notices meanwhile. Returns 1
 * when it completed, 0 when `limit` passed first (limit_ns 0: none; it
 * starts when *stop is first seen set if stop_limit_ns), or an MPI error. */
static int wait_meeting_here(harness_dist *d, mpi_state *st, volatile sig_atomic_t *stop, uint64_t limit_ns,
                             uint64_t stop_limit_ns, int *rc)
{
    uint64_t start = harness_monotonic_ns(), stopped_at = 0;
    for (unsigned long spins = 0;; spins++) {
        int done = 0;
        if ((*rc = MPI_Test(&st->m.req, &done, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            return -1;
        if (done)
            return 1;
        read_notice(st, stop);
        tell_others(d, st, stop);
        uint64_t now = harness_monotonic_ns();
        if (*stop && stop_limit_ns) {
            if (!stopped_at)
                stopped_at = now;
            if (now - stopped_at >= stop_limit_ns)
                return 0;
        }
        if (limit_ns && now - start >= limit_ns)
            return 0;
        if (spins > 10000)         /* a long wait: let a rank sharing this core run */
            sched_yield();
    }
}

static int wait_meeting(harness_dist *d, mpi_state *st, volatile sig_atomic_t *stop, uint64_t limit_ns,
                        uint64_t stop_limit_ns, int *rc)
{
    int was = harness_dist_wait_begin();
    int got = wait_meeting_here(d, st, stop, limit_ns, stop_limit_ns, rc);
    harness_dist_wait_end(was);
    return got;
}

/* The job stops: no more meetings. Returns what mpi_meet returns then. */
static int decided(mpi_state *st, int sig)
{
    st->decided = 1;
    st->sig = sig;
    return 1;
}

static int mpi_meet(harness_dist *d, volatile sig_atomic_t *stop, int last, harness_error *err)
{
    mpi_state *st = d->impl;
    tell_others(d, st, stop);
    if (st->decided)
        return 1;
    int rc = post_meeting(st, *stop, last);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, d, "meeting the other ranks");
    /* The value posted, not *stop read again: a signal in between would
     * have this rank stop while the others hear "go on" from it. */
    if (st->m.mine)                /* the max is this rank's stop at least: finished in finalize */
        return decided(st, st->m.mine);
    /* No time limit for a last meeting posted with nothing to stop: this
     * rank's run is complete, only the outcome says whether it counts as
     * interrupted, and every rank must hear the same one. */
    int got = wait_meeting(d, st, stop, 0, last || d->lockstep ? 0 : STOP_WAIT_NS, &rc);
    if (got < 0)
        return mpi_fail(err, rc, d, "meeting the other ranks");
    if (got == 0)                  /* stopped, and the others are late: finished in finalize */
        return decided(st, *stop);
    if (st->m.all) {
        if (!*stop)
            *stop = st->m.all;
        return decided(st, st->m.all);
    }
    /* Go on; or, after the last meeting, the job is complete (a signal that
     * came while waiting in it is too late to count). */
    return 0;
}

/* In finalize: the meeting this rank left under way, so that MPI_Finalize
 * finds none, and one more after it if the others went on (they were late
 * and had not stopped): this rank's stop, at their next meeting. A rank that
 * does not come within FINAL_WAIT_S is dead or hung: stop the whole job
 * rather than wait for it in MPI_Finalize. */
static void finish_meetings(harness_dist *d, mpi_state *st)
{
    int rc;
    while (st->m.req != MPI_REQUEST_NULL) {
        volatile sig_atomic_t ignored = 0;
        int got = wait_meeting(d, st, &ignored, (uint64_t)FINAL_WAIT_S * 1000000000u, 0, &rc);
        if (got <= 0) {
            fprintf(stderr, "harness: rank %d of %d: the other ranks did not stop within %d s (one died or hangs); "
                    "stopping every rank\n", d->rank, d->world_size, FINAL_WAIT_S);
            fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, 128 + st->sig);
        }
        if (!st->m.all && !st->m.last && post_meeting(st, st->sig, 1) != MPI_SUCCESS)
            break;
    }
    /* Notices that came after this rank stopped looking: read, not left behind. */
    volatile sig_atomic_t ignored = 1;
    while (read_notice(st, &ignored))
        ;
}

static int mpi_broadcast_string(harness_dist *d, int root, char *buf, size_t cap, harness_error *err)
{
    if (cap > (size_t)1 << 30)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "broadcast of %zu bytes: too large", cap);
    int was = harness_dist_wait_begin();
    int rc = MPI_Bcast(buf, (int)cap, MPI_CHAR, root, MPI_COMM_WORLD);
    harness_dist_wait_end(was);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, d, "broadcast");
    buf[cap - 1] = '\0';
    return 0;
}

static int mpi_gather(harness_dist *d, const void *mine, size_t bytes, void *all, harness_error *err)
{
    if (bytes > (size_t)1 << 30)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "gather of %zu bytes per rank: too large", bytes);
    int was = harness_dist_wait_begin();
    int rc = MPI_Gather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    harness_dist_wait_end(was);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(err, rc, d, "gather");
}

/* ---- plugin collectives ------------------------------------------------ */

/* MPI's user ops carry no context: one function per (dtype, op). */
#define HALF_OP(NAME, DTYPE, OP)                                                         \
    static void NAME(void *in, void *inout, int *len, MPI_Datatype *type)               \
    {                                                                                    \
        (void)type;                                                                      \
        harness_reduce_half(DTYPE, OP, in, inout, (size_t)*len);                          \
    }
HALF_OP(bf16_sum, HARNESS_DTYPE_BF16, HARNESS_REDUCE_SUM)
HALF_OP(bf16_max, HARNESS_DTYPE_BF16, HARNESS_REDUCE_MAX)
HALF_OP(bf16_min, HARNESS_DTYPE_BF16, HARNESS_REDUCE_MIN)
HALF_OP(f16_sum, HARNESS_DTYPE_F16, HARNESS_REDUCE_SUM)
HALF_OP(f16_max, HARNESS_DTYPE_F16, HARNESS_REDUCE_MAX)
HALF_OP(f16_min, HARNESS_DTYPE_F16, HARNESS_REDUCE_MIN)

static int create_half_ops(mpi_state *st)
{
    static MPI_User_function *const fns[2][3] = {{bf16_sum, bf16_max, bf16_min}, {f16_sum, f16_max, f16_min}};
    int rc = MPI_Type_contiguous(2, MPI_BYTE, &st->half);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(&st->half);
    for (int t = 0; t < 2 && rc == MPI_SUCCESS; t++)
        for (int o = 0; o < 3 && rc == MPI_SUCCESS; o++)
            rc = MPI_Op_create(fns[t][o], 1, &st->half_ops[t][o]);
    return rc;
}

static MPI_Datatype mpi_type(const mpi_state *st, harness_dtype dtype)
{
    switch (dtype) {
    case HARNESS_DTYPE_F32: return MPI_FLOAT;
    case HARNESS_DTYPE_F64: return MPI_DOUBLE;
    case HARNESS_DTYPE_I32: return MPI_INT32_T;
    case HARNESS_DTYPE_BF16: case HARNESS_DTYPE_F16: return st->half;
    }
    return MPI_DATATYPE_NULL;
}

static MPI_Op mpi_op(const mpi_state *st, harness_dtype dtype, harness_reduce_op op)
{
    int o = op == HARNESS_REDUCE_MAX ? 1 : op == HARNESS_REDUCE_MIN ? 2 : 0;
    if (dtype == HARNESS_DTYPE_BF16 || dtype == HARNESS_DTYPE_F16)
        return st->half_ops[dtype == HARNESS_DTYPE_F16][o];
    return o == 1 ? MPI_MAX : o == 2 ? MPI_MIN : MPI_SUM;
}

static int mpi_collective(harness_dist *d, const harness_collective *c, harness_error *err)
{
    const mpi_state *st = d->impl;
    size_t elem = harness_dtype_size(c->dtype);
    if (c->count > (size_t)INT32_MAX)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "a collective of %zu elements: MPI counts stop at %d",
                                 c->count, INT32_MAX);
    int n = (int)c->count, rc;
    MPI_Datatype t = mpi_type(st, c->dtype);
    MPI_Op op = mpi_op(st, c->dtype, c->op);
    const void *send = c->send;
    int was = harness_dist_wait_begin();
    switch (c->kind) {
    case HARNESS_COLL_ALL_REDUCE:
        rc = MPI_Allreduce(send == c->recv ? MPI_IN_PLACE : send, c->recv, n, t, op, MPI_COMM_WORLD);
        break;
    case HARNESS_COLL_ALL_GATHER:
        if (send == (const char *)c->recv + (size_t)d->rank * c->count * elem)
            send = MPI_IN_PLACE;
        rc = MPI_Allgather(send, n, t, c->recv, n, t, MPI_COMM_WORLD);
        break;
    case HARNESS_COLL_REDUCE_SCATTER:
        rc = MPI_Reduce_scatter_block(send == c->recv ? MPI_IN_PLACE : send, c->recv, n, t, op, MPI_COMM_WORLD);
        break;
    case HARNESS_COLL_BROADCAST:
        rc = MPI_Bcast(c->recv, n, t, c->root, MPI_COMM_WORLD);
        break;
    case HARNESS_COLL_BARRIER:
        rc = MPI_Barrier(MPI_COMM_WORLD);
        break;
    case HARNESS_COLL_SEND_RECV:
        /* Both sides name each other: one tag serves every exchange, and
         * MPI's ordering between a pair keeps successive calls apart. */
        if (c->root == d->rank) {
            if (c->recv != send)
                memmove(c->recv, send, c->count * elem);
            rc = MPI_SUCCESS;
        } else {
            rc = MPI_Sendrecv(send, n, t, c->root, SEND_RECV_TAG, c->recv, n, t, c->root, SEND_RECV_TAG,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        break;
    default:
        harness_dist_wait_end(was);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "unknown collective %d", (int)c->kind);
    }
    harness_dist_wait_end(was);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(err, rc, d, "collective");
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
        finish_meetings(d, st);
        MPI_Comm_free(&st->stop_comm);
        for (int t = 0; t < 2; t++)
            for (int o = 0; o < 3; o++)
                if (st->half_ops[t][o] != MPI_OP_NULL)
                    MPI_Op_free(&st->half_ops[t][o]);
        if (st->half != MPI_DATATYPE_NULL)
            MPI_Type_free(&st->half);
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
    .meet = mpi_meet,
    .poll_stop = mpi_poll_stop,
    .broadcast_string = mpi_broadcast_string,
    .gather = mpi_gather,
    .collective = mpi_collective,
    .abort = mpi_abort,
    .finalize = mpi_finalize,
};

/* Clock offsets to rank 0, as NTP does it on a LAN: rank r sends, rank 0
 * answers with its clock, and r takes rank 0's time to be at the middle of
 * the round trip; of PINGS tries the one with the shortest trip wins, since
 * its middle is the least uncertain. Rank 0 serves the ranks in turn. */
#define PINGS 16

static int estimate_clock_offsets(harness_dist *d)
{
    int rc = MPI_SUCCESS;
    if (d->rank == 0) {
        for (int r = 1; r < d->world_size && rc == MPI_SUCCESS; r++)
            for (int i = 0; i < PINGS && rc == MPI_SUCCESS; i++) {
                char ping;
                rc = MPI_Recv(&ping, 1, MPI_CHAR, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                uint64_t now = harness_monotonic_ns();
                if (rc == MPI_SUCCESS)
                    rc = MPI_Send(&now, 1, MPI_UINT64_T, r, 8, MPI_COMM_WORLD);
            }
        return rc;
    }
    double best = -1;
    for (int i = 0; i < PINGS && rc == MPI_SUCCESS; i++) {
        char ping = 0;
        uint64_t theirs = 0, t0 = harness_monotonic_ns();
        rc = MPI_Send(&ping, 1, MPI_CHAR, 0, 7, MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS)
            rc = MPI_Recv(&theirs, 1, MPI_UINT64_T, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        uint64_t t1 = harness_monotonic_ns();
        if (rc == MPI_SUCCESS && (best < 0 || (double)(t1 - t0) < best)) {
            best = (double)(t1 - t0);
            d->clock_offset_ns = (int64_t)(t0 + (t1 - t0) / 2) - (int64_t)theirs;
        }
    }
    d->clock_rtt_ns = best;
    return rc;
}

int harness_dist_mpi_init(harness_dist *d, harness_error *err)
{
    int provided = 0;
    /* Until every rank has answered rank 0 (the clock offsets below). */
    harness_join_watchdog_start();
    int init = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (init != MPI_SUCCESS) {
        harness_join_watchdog_stop();
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "MPI_Init_thread failed");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mpi_state *st = calloc(1, sizeof *st);
    *d = (harness_dist){.name = "mpi", .ops = &mpi_ops, .impl = st};
    MPI_Comm_rank(MPI_COMM_WORLD, &d->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d->world_size);
    if (st) {
        st->half = MPI_DATATYPE_NULL;
        st->stop_comm = MPI_COMM_NULL;
        st->m.req = MPI_REQUEST_NULL;
        for (int t = 0; t < 2; t++)
            for (int o = 0; o < 3; o++)
                st->half_ops[t][o] = MPI_OP_NULL;
    }
    int rc = st ? MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, d->rank, MPI_INFO_NULL, &st->local)
                : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = create_half_ops(st);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_dup(MPI_COMM_WORLD, &st->stop_comm);
    if (rc != MPI_SUCCESS) {
        harness_join_watchdog_stop();
        mpi_fail(err, rc, d, "finding the ranks of this node");
        free(st);
        d->impl = NULL;
        MPI_Finalize();
        return err->code;
    }
    MPI_Comm_set_errhandler(st->local, MPI_ERRORS_RETURN);
    MPI_Comm_rank(st->local, &d->local_rank);
    MPI_Comm_size(st->local, &d->local_size);
    rc = estimate_clock_offsets(d);
    harness_join_watchdog_stop();
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, d, "estimating the clock offset to rank 0");
    return 0;
}
