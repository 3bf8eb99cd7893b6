/* See stop_watch.h. The handler only counts and notes the time (both
 * async-signal-safe); the steps compare the count with the one they last
 * saw.
 *
 * The rule for a SIGCONT that ends a job: scancel, Slurm's time limit and
 * mpirun send SIGCONT and then SIGTERM (a stopped process must wake to die
 * of it), so every process of a cancelled job gets one, stopped or not. A
 * SIGCONT followed by a stop signal of this process's (SIGINT, SIGTERM,
 * SIGHUP: run/interrupt.h) within ENDING_NS, or coming after it, is taken
 * for that and not reported; any other is (a stop we cannot see otherwise). */
#include "run/stop_watch.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "run/interrupt.h"
#include "util/monotonic.h"

/* Slurm sends the two back to back; 1 s is generous on a loaded machine
 * and short beside a stop anyone would want to hear of. */
#define ENDING_NS 1000000000u

static volatile sig_atomic_t continued;
static volatile uint64_t continued_ns;  /* the last one's harness_monotonic_ns */

#define KEPT 8                     /* steps named in the warning */

static struct {
    int installed;
    sig_atomic_t seen;             /* `continued` at the last step's end */
    int n;                         /* measured steps a SIGCONT came in */
    int window[KEPT];              /* the first KEPT of them, named */
    int64_t step[KEPT];
    uint64_t at[KEPT];             /* the last KEPT of them (ring by n): their SIGCONT's time */
} sw;

static void on_continue(int sig)
{
    (void)sig;
    continued_ns = harness_monotonic_ns();
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
    sw.at[sw.n % KEPT] = continued_ns;
    sw.n++;
}

/* How many of the last noted steps had the job's ending SIGCONT (the rule
 * above): newest first, while their SIGCONT came at most ENDING_NS before
 * this process's stop signal. */
static int ending_steps(void)
{
    if (!harness_interrupt_signalled_here)
        return 0;
    uint64_t stop = harness_interrupt_signalled_ns;
    int k = 0;
    while (k < sw.n && k < KEPT && sw.at[(sw.n - 1 - k) % KEPT] + ENDING_NS >= stop)
        k++;
    return k;
}

int harness_stop_watch_warning(char *buf, size_t cap)
{
    int n = sw.n - ending_steps();
    if (n <= 0)
        return 0;
    char where[256] = "";
    size_t used = 0;
    for (int i = 0; i < n && i < KEPT && used < sizeof where; i++)   /* from 1, as the text summary counts */
        used += (size_t)snprintf(where + used, sizeof where - used, "%swindow %d step %lld", i ? ", " : "",
                                 sw.window[i] + 1, (long long)sw.step[i] + 1);
    snprintf(buf, cap, "stopped: the process was stopped and continued (SIGSTOP or SIGTSTP, then SIGCONT) "
                         "during %d measured step%s (%s%s); each such sample includes the time it was stopped: "
                         "discard this run or rerun it", n, n == 1 ? "" : "s", where, n > KEPT ? ", ..." : "");
    return 1;
}
