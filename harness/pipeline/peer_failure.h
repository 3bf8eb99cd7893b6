/* peer_failure.h - which other rank of the job failed, for this rank's
 * error. When one rank fails or crashes it writes its status file, then
 * MPI_Abort has mpirun stop the others with SIGTERM: without this their
 * errors would only say "Terminated". */
#ifndef HARNESS_CLI_PEER_FAILURE_H
#define HARNESS_CLI_PEER_FAILURE_H

#include <stddef.h>

#include "report/experiment.h"

/* "; rank 1 of 2 crashed first: <its error>" into buf when another rank's
 * status file in the folder says failed, crashed, timed_out or
 * validation_failed (the lowest such rank); "" otherwise. Returns buf. */
const char *harness_peer_failure(const harness_experiment *exp, int world_size, int self, char *buf, size_t cap);

#endif
