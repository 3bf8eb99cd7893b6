/* waiting.h - whether this process's main thread is waiting on the other
 * ranks right now (inside a collective, a meeting, a gather).
 *
 * Why: a rank whose peer died waits there for ever, and the launcher's
 * SIGTERM (then SIGKILL one second later, Open MPI's odls_base_sigkill_timeout)
 * finds it where "stop after the current step" never comes. The guard's
 * watchdog (run/guard.c) reads this flag to abandon such a wait at once and
 * write what was measured. Only the main thread writes it; the watchdog and
 * signal handlers read it. */
#ifndef HARNESS_DIST_WAITING_H
#define HARNESS_DIST_WAITING_H

#include <signal.h>

/* Nonzero while the main thread waits on other ranks. */
extern volatile sig_atomic_t harness_dist_waiting;

/* Around every blocking call that needs another rank. They nest: a wait
 * inside a wait counts once. Returns the previous value for leave. */
static inline int harness_dist_wait_begin(void)
{
    int was = harness_dist_waiting;
    harness_dist_waiting = 1;
    return was;
}

static inline void harness_dist_wait_end(int was)
{
    harness_dist_waiting = was;
}

#endif
