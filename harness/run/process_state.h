/* process_state.h - what of the process the harness owns, taken at
 * start-up before any plugin code runs, and taken back after every plugin
 * callback (run/guard.c; issue 38, items 2 to 6):
 *
 *  - the working directory (util/start_dir.h);
 *  - the main thread's signal mask: a plugin that blocks every signal must
 *    not keep the watchdog's SIGALRM or the stop signals from the harness;
 *  - standard output and error (a plugin that closes them, dup2s over them
 *    or makes them non-blocking must not lose the printed path or the
 *    messages) and the umask (the next folder must stay writable);
 *  - SIGXFSZ ignored, so a file-size limit (`ulimit -f`) makes a write fail
 *    with EFBIG and takes the write-error path (a message naming the file,
 *    status failed, no temporary left, exit 3) instead of killing the
 *    process half-way through a file;
 *  - the process itself: a step that forks and whose child returns into
 *    the harness is caught (harness_process_forked) and the child ends
 *    without touching the folder the parent writes. */
#ifndef HARNESS_RUN_PROCESS_STATE_H
#define HARNESS_RUN_PROCESS_STATE_H

#include <signal.h>
#include <sys/types.h>

/* Set in a child of fork() (a pthread_atfork handler): one load to test,
 * so the step wrapper can look after every step at no measurable cost. */
extern volatile sig_atomic_t harness_process_fork_seen;

/* Take the state above; later calls do nothing. First thing in main. */
void harness_process_take(void);

/* The harness's pid, as taken. */
pid_t harness_process_pid(void);

/* Whether this process is a child forked by plugin code (not the harness
 * the folder belongs to). Async-signal-safe. */
int harness_process_forked(void);

/* Back to the state taken: working directory, the calling thread's mask
 * (call it on the main thread), standard output and error, umask, SIGXFSZ
 * ignored. A few syscalls: called after callbacks, never per step. */
void harness_process_restore(void);

/* The mask the harness's threads run with: the one it started with, less
 * the signals the guard needs (fatal ones, SIGALRM, the stop signals). */
void harness_process_mask(sigset_t *out);

#endif
