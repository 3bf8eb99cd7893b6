/* env.h - the machine and build a run happened on, for the summary. */
#ifndef HARNESS_ENV_H
#define HARNESS_ENV_H

typedef struct harness_env {
    char host[256];
    char os[256];                  /* uname: sysname release machine */
    char cpu_model[256];
    int logical_cpus;
    int omp_threads;
    char gpu[256];                 /* "none" without a visible CUDA device */
    char driver[64];
    char cuda[64];                 /* runtime version this harness was built with */
    char compiler[128];
    char git_commit[64];
    char version[32];
    char started_at[32];           /* ISO 8601, local time with offset */
} harness_env;

void harness_env_capture(harness_env *env);

#endif
