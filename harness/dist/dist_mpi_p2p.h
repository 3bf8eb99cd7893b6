/* dist_mpi_p2p.h - point-to-point messages with a time limit, for the files
 * ranks send to rank 0 (dist/gather.c) through dist_mpi.c's table. */
#ifndef HARNESS_DIST_MPI_P2P_H
#define HARNESS_DIST_MPI_P2P_H

#include "dist/dist.h"

int harness_mpi_send(harness_dist *d, int to, const void *buf, size_t len, int timeout_s, harness_error *err);
int harness_mpi_recv(harness_dist *d, int from, void *buf, size_t cap, size_t *len, int timeout_s,
                     harness_error *err);

#endif
