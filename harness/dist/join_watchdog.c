/* See join_watchdog.h. The thread only waits and, past the limit, writes
 * one line and _exit(3)s: mpirun then ends the job (a process that leaves
 * without MPI_Init or MPI_Finalize stops the others). No MPI call is made
 * from it, and nothing else of the process is touched. */
#define _GNU_SOURCE                /* sem_clockwait */
#include "dist/join_watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"

static struct {
    pthread_t thread;
    sem_t done;
    int running;
    long limit_s;
} jw;

static long limit_s(void)
{
    const char *env = getenv("HARNESS_MPI_JOIN_TIMEOUT_S");
    char *end = NULL;
    long v = env && *env ? strtol(env, &end, 10) : 0;
    return end && *end == '\0' && v > 0 && v <= 86400 ? v : HARNESS_MPI_JOIN_TIMEOUT_S;
}

static void *watch_join(void *arg)
{
    (void)arg;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += jw.limit_s;
    int rc;
    while ((rc = sem_clockwait(&jw.done, CLOCK_MONOTONIC, &until)) != 0 && errno == EINTR)
        ;
    if (rc == 0)
        return NULL;
    /* The launcher's own variables say who this is: MPI cannot yet. */
    const char *rank = getenv("OMPI_COMM_WORLD_RANK"), *size = getenv("OMPI_COMM_WORLD_SIZE");
    fprintf(stderr, "harness: rank %s of %s: the other ranks did not join the job within %ld s (MPI_Init and a first "
            "exchange with rank 0); every "
            "rank must run `harness run` (one may run another command, such as validate, or have failed before "
            "starting: see its message); stopping (the limit is $HARNESS_MPI_JOIN_TIMEOUT_S)\n",
            rank ? rank : "?", size ? size : "?", jw.limit_s);
    fflush(stderr);
    _exit(HARNESS_EXIT_RUNTIME);
}

int harness_join_watchdog_start(void)
{
    jw.limit_s = limit_s();
    if (sem_init(&jw.done, 0, 0) != 0)
        return -1;
    if (pthread_create(&jw.thread, NULL, watch_join, NULL) != 0) {
        sem_destroy(&jw.done);
        return -1;
    }
    jw.running = 1;
    return 0;
}

void harness_join_watchdog_stop(void)
{
    if (!jw.running)
        return;
    sem_post(&jw.done);
    pthread_join(jw.thread, NULL);
    sem_destroy(&jw.done);
    jw.running = 0;
}
