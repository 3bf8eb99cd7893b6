/* guard.h - what happens when a plugin callback crashes, hangs or exits,
 * and when the user stops a run: the measurements so far are kept.
 *
 * The design is in-process, not a supervising parent. A parent that forks
 * the run would have to fork after the CUDA runtime is initialised (which
 * CUDA does not support) or run everything in the child, and under mpirun
 * each rank must stay the process the launcher started. So each process
 * guards itself:
 *
 *  - status.json (folder/status.h) says "running" from the moment the
 *    folder exists; nothing that dies can leave a folder that looks complete.
 *  - A fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS) raised
 *    while a callback runs rewrites status.json as "crashed" with only
 *    async-signal-safe calls, then siglongjmps to the landing the run point
 *    set before its first callback; from there ordinary code writes both
 *    summaries with the samples measured so far. The plugin is never called
 *    again (no destroy: its state is suspect), and the process ends after the
 *    folder is written. A crash on another thread (an OpenMP worker) is
 *    handed to the main thread, which owns the landing. If writing the
 *    summaries crashes too, status.json already says "crashed".
 *  - exit() inside a callback runs the guard's on_exit hook, which writes the
 *    summaries the same way and ends the process with exit code 3.
 *  - A watchdog thread sends the main thread SIGALRM when one callback has
 *    not returned for its timeout (schedule.step_timeout_s for step,
 *    schedule.callback_timeout_s for create, cost, check and destroy): the
 *    same path, status "timed_out". It reads counters the wrappers bump, so
 *    a measured step costs no clock read or syscall more.
 *  - When the main thread does not answer that SIGALRM within
 *    HARNESS_GUARD_ANSWER_GRACE_S (the plugin blocked or replaced it, or a
 *    crash on a worker thread cannot reach it), the watchdog itself marks
 *    status.json final (timed_out, interrupted or crashed, summaries not
 *    written) and ends the process with _exit: no plugin can keep a run
 *    going past its timeout, or a stop past its grace, by any signal trick.
 *  - After every callback the guard takes the process back
 *    (run/process_state.h): the working directory, the main thread's
 *    signal mask, its own signal dispositions; and a child a callback
 *    forked that returns into the harness ends there (_exit, nothing
 *    written). While a callback runs, the watchdog puts back the stop
 *    signals' and SIGALRM's handlers if the plugin replaced them.
 *  - SIGINT, SIGTERM and SIGHUP stop the run after the current step. A
 *    callback that has not returned HARNESS_GUARD_STOP_GRACE_S after the
 *    stop was asked for is abandoned the same way (status "interrupted",
 *    naming the callback): Slurm and mpirun send SIGKILL seconds after
 *    SIGTERM, and a plugin hung in create or destroy must not keep the
 *    folder saying "running" for ever. A second signal leaves at once,
 *    marking status.json "interrupted" and removing a half-written
 *    temporary file.
 *
 * One run point at a time per process. */
#ifndef HARNESS_RUN_GUARD_H
#define HARNESS_RUN_GUARD_H

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>

#include "run/phase.h"
#include "run/process_state.h"
#include "folder/status.h"

/* How the guard saw the run end, for the run point's summary. */
typedef enum {
    HARNESS_GUARD_NONE,            /* no callback misbehaved */
    HARNESS_GUARD_CRASHED,         /* a fatal signal */
    HARNESS_GUARD_TIMED_OUT,       /* step_timeout_s passed */
    HARNESS_GUARD_EXITED,          /* exit() from a callback */
    HARNESS_GUARD_INTERRUPTED,     /* a stop was asked for and the callback did not return */
} harness_guard_outcome;

/* How long a callback may go on after SIGINT/SIGTERM/SIGHUP before it is
 * abandoned: well inside the 30 s Slurm and mpirun wait before SIGKILL,
 * long enough for a step that is merely slow. */
#define HARNESS_GUARD_STOP_GRACE_S 3

/* How long the main thread has to answer the watchdog's SIGALRM (or a
 * crash handed over from a worker thread) before the watchdog ends the
 * process itself: answering takes microseconds, so this is only for a
 * thread that cannot (the signal blocked, ignored or taken over). */
#define HARNESS_GUARD_ANSWER_GRACE_S 2

/* How long a stop signalled to this process may find the main thread
 * waiting on other ranks (a collective, a meeting) before that wait is
 * abandoned and the summaries written: under mpirun a rank's death brings
 * SIGTERM and, one second later, SIGKILL (odls_base_sigkill_timeout 1 in
 * Open MPI 4), so this plus writing the files must fit in a second; live
 * ranks of a job that is stopping meet within milliseconds. */
#define HARNESS_GUARD_WAITING_GRACE_MS 300

/* What the guard shares with the step wrapper; volatile because handlers
 * and the watchdog read it while the main thread writes it. */
typedef struct harness_guard_state {
    volatile sig_atomic_t armed;   /* a callback is running on the main thread */
    volatile sig_atomic_t in_step;
    volatile uint64_t steps_started;
    volatile uint64_t calls_started;  /* callbacks entered: the watchdog's sign of progress */
    volatile uint64_t phase_first;  /* steps_started when the current phase began */
    volatile int phase;             /* harness_phase */
    volatile int window;
    const char *volatile callback;
} harness_guard_state;

extern harness_guard_state harness_guard;

/* Where a crash lands: harness_run_point's sigsetjmp. */
extern sigjmp_buf harness_guard_landing;

/* Called on the exit() path (in normal context) to write what was measured;
 * it must write the summaries and the final status.json. */
typedef void (*harness_guard_salvage_fn)(void *arg, harness_guard_outcome outcome);

/* Install the handlers (once per process) and start guarding a run point
 * whose folder has `status`; a timeout of 0 is none (the watchdog still
 * runs, for stop requests). Returns nonzero (err set) when the watchdog
 * cannot start. */
int harness_guard_begin(harness_status_file *status, const char *variant_key, int64_t step_timeout_s,
                        int64_t callback_timeout_s, harness_guard_salvage_fn salvage, void *salvage_arg,
                        harness_error *err);

/* Stop guarding (the watchdog ends); the run point's folder is done. */
void harness_guard_end(void);

/* Around each callback (the landing must be set). */
static inline void harness_guard_enter(const char *callback)
{
    harness_guard.callback = callback;
    harness_guard.calls_started = harness_guard.calls_started + 1;
    harness_guard.armed = 1;
}
/* The callback returned: the process is taken back (working directory,
 * signal mask, dispositions) and a forked child that returned ends here. */
void harness_guard_leave(void);

/* A child forked by the plugin returned into the harness: it ends here,
 * writing nothing (the folder is the parent's). */
void harness_guard_end_forked_child(void);

/* Around each step() call, inside harness_guard_enter("step"). */
static inline void harness_guard_step_begin(void)
{
    harness_guard.steps_started = harness_guard.steps_started + 1;
    harness_guard.in_step = 1;
}
static inline void harness_guard_step_end(void)
{
    harness_guard.in_step = 0;
    if (harness_process_fork_seen)  /* one load per step; the check itself is a syscall */
        harness_guard_end_forked_child();
}

/* Inside a step of the measurement phase: what the communication table and
 * trace count (warmup, wait and the reference check are not measured). */
static inline int harness_guard_in_measured_step(void)
{
    return harness_guard.in_step && harness_guard.phase == HARNESS_PHASE_MEASURE;
}

/* A phase of the schedule begins (between steps). */
void harness_guard_phase(harness_phase phase, int window);

/* After landing: what happened, and where ("step" in the measurement phase,
 * step 12 of window 0). `signal` is the fatal signal or 0. */
typedef struct harness_guard_report {
    harness_guard_outcome outcome;
    int signal;
    int exit_status;               /* HARNESS_GUARD_EXITED: the plugin's exit() argument */
    int stop_signal;               /* HARNESS_GUARD_INTERRUPTED: the stop that was asked for */
    int on_worker_thread;
    int waiting_on_ranks;          /* HARNESS_GUARD_INTERRUPTED while waiting on other ranks */
    const char *callback;
    const char *phase;             /* NULL unless the callback was step */
    int window;
    int64_t step;                  /* index within the phase, or -1 */
} harness_guard_report;

harness_guard_report harness_guard_what_happened(void);

/* "step crashed with SIGSEGV (segmentation fault) in the measurement phase,
 * window 0, step 12" into buf. */
const char *harness_guard_describe(const harness_guard_report *r, char *buf, size_t cap);

/* A stop signal came: the watchdog looks at once (async-signal-safe). */
void harness_guard_wake(void);

/* A second SIGINT/SIGTERM/SIGHUP: mark the folder interrupted, remove any
 * half-written temporary file, and _exit(128 + sig). Async-signal-safe. */
void harness_guard_leave_now(int sig);

/* From here on SIGINT, SIGTERM and SIGHUP ask the run to stop after the
 * current step (run/interrupt.h); a second one leaves at once. */
void harness_guard_catch_stop_signals(void);

/* Put back what plugin code may have changed outside a guarded callback
 * (its init at load time, validate, its unload callback): the process
 * state of run/process_state.h and the guard's signal dispositions. */
void harness_guard_take_back(void);

#endif
