/* Counting the process's threads (thread_census.h). */
#include "run/thread_census.h"

#include <dirent.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int harness_thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

int harness_thread_baseline(void)
{
#ifdef _OPENMP
    /* A region of the default size: the pool keeps its threads. Not an
     * empty one: the compiler removes those, and no thread starts. */
    volatile int ran = 0;
#pragma omp parallel
    {
#pragma omp atomic
        ran++;
    }
    (void)ran;
#endif
    return harness_thread_count();
}

int harness_threads_left(int baseline)
{
    if (baseline < 0)
        return 0;
    int now = harness_thread_count();
    /* A joined thread can still be listed for a moment after pthread_join
     * returns; a detached one told to stop needs its next wake-up. */
    for (int i = 0; i < 40 && now > baseline; i++) {
        struct timespec pause = {0, 5000000};
        nanosleep(&pause, NULL);
        now = harness_thread_count();
    }
    return now > baseline ? now - baseline : 0;
}
