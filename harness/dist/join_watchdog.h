/* join_watchdog.h - a rank whose peers never join the job (one of an MPMD
 * launch runs `harness validate`, which never starts MPI, or died before
 * MPI_Init) would wait in MPI_Init for ever: Open MPI's startup waits for
 * every process. A thread ends such a rank after a limit, saying why. */
#ifndef HARNESS_DIST_JOIN_WATCHDOG_H
#define HARNESS_DIST_JOIN_WATCHDOG_H

/* Seconds joining may take: $HARNESS_MPI_JOIN_TIMEOUT_S, else this.
 * Generous: a large job on a busy cluster starts in tens of seconds. */
#define HARNESS_MPI_JOIN_TIMEOUT_S 120

/* Before MPI_Init: start the thread. Returns 0, or -1 when no thread could
 * start (then there is no limit). */
int harness_join_watchdog_start(void);

/* After MPI_Init and a first exchange of every rank with rank 0 (a rank
 * that never started MPI lets the others through MPI_Init at times, then
 * never answers): the thread ends. */
void harness_join_watchdog_stop(void);

#endif
