/* db_wait.c - back-off with jitter for the results database's lock
 * (db_wait.h). */
#include "compare/db_wait.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define BACKOFF_FIRST_S 0.001
#define BACKOFF_CAP_S 0.100        /* short enough that a freed lock is taken soon, long enough to cost nothing */

void harness_db_wait_init(harness_db_wait *w, double timeout_s)
{
    w->timeout_s = timeout_s;
    w->waited_s = 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    w->seed = (unsigned)getpid() * 2654435761u ^ (unsigned)now.tv_nsec;
}

double harness_db_backoff_s(int attempt, double u)
{
    double d = BACKOFF_FIRST_S;
    for (int i = 0; i < attempt && d < BACKOFF_CAP_S; i++)
        d *= 2;
    if (d > BACKOFF_CAP_S)
        d = BACKOFF_CAP_S;
    if (!(u >= 0) || u >= 1)       /* NaN too */
        u = 0;
    return d * (0.5 + 0.5 * u);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int harness_db_wait_pause(harness_db_wait *w, int attempt)
{
    double left = w->timeout_s - w->waited_s;
    if (left <= 0)
        return 0;
    double u = (double)rand_r(&w->seed) / ((double)RAND_MAX + 1.0);
    double d = harness_db_backoff_s(attempt, u);
    if (d > left)
        d = left;
    /* Measured rather than assumed: a signal may cut the sleep short, and
     * the note record prints is about the time really spent. */
    double start = now_s();
    struct timespec req = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)}, rem;
    while (nanosleep(&req, &rem) != 0 && errno == EINTR)
        req = rem;
    w->waited_s += now_s() - start;
    return 1;
}

int harness_db_wait_busy(void *arg, int count)
{
    return harness_db_wait_pause(arg, count);
}
