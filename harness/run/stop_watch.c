/* See stop_watch.h. The handler only counts (async-signal-safe); the steps
 * compare the count with the one they last saw. A SIGCONT without a stop
 * (mpirun sends one before its SIGTERM) is counted too: that run is being
 * stopped anyway, and the warning says what was seen, not more. */
#include "run/stop_watch.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t continued;

#define KEPT 8                     /* steps named in the warning */

static struct {
    int installed;
    sig_atomic_t seen;             /* `continued` at the last step's end */
    int n;                         /* measured steps a SIGCONT came in */
    int window[KEPT];
    int64_t step[KEPT];
} sw;

static void on_continue(int sig)
{
    (void)sig;
    continued = continued + 1;
}

void harness_stop_watch_begin(void)
{
    if (!sw.installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_continue;
        sa.sa_flags = SA_RESTART;  /* a step's read() or nanosleep() must not fail for it */
        sigemptyset(&sa.sa_mask);
        sigaction(SIGCONT, &sa, NULL);
        sw.installed = 1;
    }
    sw.seen = continued;
    sw.n = 0;
}

void harness_stop_watch_step_end(harness_phase phase, int window, int64_t index)
{
    sig_atomic_t now = continued;
    if (now == sw.seen)
        return;
    sw.seen = now;
    if (phase != HARNESS_PHASE_MEASURE)
        return;
    if (sw.n < KEPT) {
        sw.window[sw.n] = window;
        sw.step[sw.n] = index;
    }
    sw.n++;
}

int harness_stop_watch_warning(char *buf, size_t cap)
{
    if (!sw.n)
        return 0;
    char where[256] = "";
    size_t used = 0;
    for (int i = 0; i < sw.n && i < KEPT && used < sizeof where; i++)   /* from 1, as the text summary counts */
        used += (size_t)snprintf(where + used, sizeof where - used, "%swindow %d step %lld", i ? ", " : "",
                                 sw.window[i] + 1, (long long)sw.step[i] + 1);
    snprintf(buf, cap, "stopped: the process was stopped and continued (SIGSTOP or SIGTSTP, then SIGCONT) "
                         "during %d measured step%s (%s%s); each such sample includes the time it was stopped: "
                         "discard this run or rerun it", sw.n, sw.n == 1 ? "" : "s", where, sw.n > KEPT ? ", ..." : "");
    return 1;
}
