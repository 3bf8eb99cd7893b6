/* thread_census.h - how many threads the process has, to tell whether a
 * plugin left one running after destroy.
 *
 * A thread a plugin started and never stopped runs the plugin's code: if
 * the module were unmapped at the end of the process it would fault there,
 * after the folder was written (5 runs in 6 died with SIGSEGV that way).
 * The count cannot say whose a thread is, so pools that persist by design
 * are made to exist before the first count: the OpenMP pool is started at
 * its full size (the bundled components, and the harness's data generator,
 * thread with OpenMP), and OpenBLAS's is kept asleep (plugin/registry.c). */
#ifndef HARNESS_THREAD_CENSUS_H
#define HARNESS_THREAD_CENSUS_H

/* Threads of this process now (the entries of /proc/self/task), or -1
 * where that cannot be read. */
int harness_thread_count(void);

/* Start the OpenMP pool at its full size (omp_get_max_threads()), so that
 * its threads are counted before a plugin's code runs; then count. */
int harness_thread_baseline(void);

/* Threads beyond `baseline` still there after a short wait for ones on
 * their way out (a thread told to stop in destroy, not joined): up to
 * about 200 ms, only when some are left. 0 when none or unknown. */
int harness_threads_left(int baseline);

#endif
