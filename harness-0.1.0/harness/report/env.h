/* env.h - the machine and build a run happened on, for the summary: what a
 * reader needs to judge whether two figures are comparable (Google
 * Benchmark's context, and more). */
#ifndef HARNESS_ENV_H
#define HARNESS_ENV_H

#include "backend/clock.h"

typedef struct harness_env {
    char host[256];
    char os[256];                  /* uname: sysname release machine */
    char cpu_model[256];
    char cpu_family[16], cpu_model_number[16], cpu_stepping[16]; /* /proc/cpuinfo; "unknown" off x86 */
    char cache_l1d[32], cache_l1i[32], cache_l2[32], cache_l3[32]; /* cpu0's, as sysfs writes them ("32K") */
    char governor[256];            /* cpufreq scaling governor, or "unavailable (why)" */
    int logical_cpus;              /* online */
    int affinity_cpus;             /* in this process's affinity mask */
    int omp_threads;
    double load_start[3];          /* /proc/loadavg 1, 5, 15 min when the run began; NAN unknown */
    double load_end[3];            /* the same when it ended */
    double own_cpu_s_start;        /* CPU seconds this process had used when the run began (earlier sweep points) */
    char gpu[256];                 /* "none" without a visible CUDA device */
    char driver[64];
    char cuda[64];                 /* runtime version this harness was built with */
    char compiler[128];
    /* Of this build, from build_config.h: constants, never truncated. */
    const char *cflags;            /* CFLAGS + OpenMP + sanitizer flags */
    const char *sanitizers;        /* the -fsanitize flags, or "none" */
    const char *configure_args;
    char executable[512];          /* /proc/self/exe */
    char clock[32];                /* the step clock: "tsc" | "clock_gettime" */
    char kernel_clocksource[32];
    double clock_resolution_ns;    /* measured: smallest nonzero step between reads */
    char git_commit[64];
    char version[32];
    char started_at[32];           /* ISO 8601, local time with offset */
} harness_env;

/* Everything known when a run starts (load average included). */
void harness_env_capture(harness_env *env);
/* The step clock the run uses. */
void harness_env_note_clock(harness_env *env, const harness_clock *clk);
/* What changes during the run: the load average at its end. */
void harness_env_capture_end(harness_env *env);

#endif
