/* interrupt.h - the request to stop a run, set by a signal (run/guard.h) or
 * by another rank's stop (dist/dist.h), read by the runner between steps. */
#ifndef HARNESS_RUN_INTERRUPT_H
#define HARNESS_RUN_INTERRUPT_H

#include <signal.h>
#include <stdint.h>

/* The signal (SIGINT, SIGTERM, SIGHUP) that asked the run to stop, or 0;
 * the runner stops after the current step. A second one leaves at once. */
extern volatile sig_atomic_t harness_interrupt_requested;
/* Whether that signal came to this process (not a stop another rank told). */
extern volatile sig_atomic_t harness_interrupt_signalled_here;
/* When that signal came (harness_monotonic_ns), set before the flag above:
 * read it only once the flag says 1. */
extern volatile uint64_t harness_interrupt_signalled_ns;

#endif
