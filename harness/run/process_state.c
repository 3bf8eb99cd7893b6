/* The process state the harness owns (run/process_state.h). */
#include "run/process_state.h"

#include <pthread.h>
#include <unistd.h>

#include "util/start_dir.h"

volatile sig_atomic_t harness_process_fork_seen;

static int taken;
static pid_t pid;
static sigset_t mask;

static void in_child(void)
{
    harness_process_fork_seen = 1;
}

void harness_process_take(void)
{
    if (taken)
        return;
    taken = 1;
    harness_start_dir_take();
    pid = getpid();
    pthread_atfork(NULL, NULL, in_child);
    pthread_sigmask(SIG_BLOCK, NULL, &mask);
    /* Whatever a launcher left blocked, the guard needs these delivered. */
    static const int needed[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGALRM, SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        sigdelset(&mask, needed[i]);
    signal(SIGXFSZ, SIG_IGN);
}

pid_t harness_process_pid(void)
{
    return pid;
}

int harness_process_forked(void)
{
    return taken && getpid() != pid;
}

void harness_process_restore(void)
{
    if (!taken)
        return;
    harness_start_dir_restore();
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    signal(SIGXFSZ, SIG_IGN);
}

void harness_process_mask(sigset_t *out)
{
    *out = mask;
}
