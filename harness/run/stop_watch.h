/* stop_watch.h - a process stopped while it measures (SIGSTOP, Ctrl-Z's
 * SIGTSTP, a debugger, a job scheduler suspending it) and later continued
 * times the stop into the step it was in: a 5 s stop becomes a 5 s sample.
 * The stop itself cannot be caught, but SIGCONT can: each measured step
 * during which one came is noted, and the summary warns, naming them;
 * but not the SIGCONT that comes with a cancellation (stop_watch.c). */
#ifndef HARNESS_RUN_STOP_WATCH_H
#define HARNESS_RUN_STOP_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "run/runner.h"

/* Before the schedule: install the SIGCONT handler (once) and forget what
 * an earlier run point saw. */
void harness_stop_watch_begin(void);

/* After each step (the runner's step_end hook). */
void harness_stop_watch_step_end(harness_phase phase, int window, int64_t index);

/* The warning for the summary (report/warnings.h) into buf, when a
 * measured step was continued from a stop: returns 1, else 0. */
int harness_stop_watch_warning(char *buf, size_t cap);

#endif
