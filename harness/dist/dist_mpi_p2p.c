/* See dist_mpi_p2p.h. Nonblocking calls tested in a loop rather than
 * MPI_Send/MPI_Recv: a peer that died or never comes must be an error after
 * the time limit, not a wait for ever (a large MPI_Send waits for the
 * matching receive). */
#include "dist/dist_mpi_p2p.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "util/monotonic.h"

#define FILE_TAG 20                /* apart from the clock's ping-pong (7, 8) */

/* 0 when req completed, 1 when timeout_s passed first (req cancelled), or an MPI error code. */
static int wait_for(MPI_Request *req, MPI_Status *status, int timeout_s)
{
    uint64_t start = harness_monotonic_ns(), limit = (uint64_t)timeout_s * 1000000000u;
    for (unsigned long spins = 0;; spins++) {
        int done = 0, rc = MPI_Test(req, &done, status);
        if (rc != MPI_SUCCESS)
            return rc;
        if (done)
            return 0;
        if (harness_monotonic_ns() - start >= limit) {
            MPI_Cancel(req);
            MPI_Request_free(req);
            return 1;
        }
        if (spins > 1000)          /* a long wait: leave the core to a rank that shares it */
            nanosleep(&(struct timespec){0, 200000}, NULL);
    }
}

static int failed(harness_error *err, int rc, const char *what, int peer, int timeout_s)
{
    if (rc == 1)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s rank %d: nothing within %d s (it died or hangs)",
                                 what, peer, timeout_s);
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", rc);
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s rank %d: %s", what, peer, text);
}

int harness_mpi_send(harness_dist *d, int to, const void *buf, size_t len, int timeout_s, harness_error *err)
{
    (void)d;
    if (len > INT32_MAX)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "a message of %zu bytes: MPI counts stop at %d", len,
                                 INT32_MAX);
    MPI_Request req;
    int rc = MPI_Isend(buf, (int)len, MPI_BYTE, to, FILE_TAG, MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS)
        rc = wait_for(&req, MPI_STATUS_IGNORE, timeout_s);
    return rc ? failed(err, rc, "sending to", to, timeout_s) : 0;
}

int harness_mpi_recv(harness_dist *d, int from, void *buf, size_t cap, size_t *len, int timeout_s,
                     harness_error *err)
{
    (void)d;
    MPI_Request req;
    MPI_Status status;
    int count = 0;
    int rc = MPI_Irecv(buf, cap > INT32_MAX ? INT32_MAX : (int)cap, MPI_BYTE, from, FILE_TAG, MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS)
        rc = wait_for(&req, &status, timeout_s);
    if (rc == MPI_SUCCESS)
        rc = MPI_Get_count(&status, MPI_BYTE, &count);
    if (rc)
        return failed(err, rc, "receiving from", from, timeout_s);
    *len = (size_t)count;
    return 0;
}
