#include "report/env.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "backend/gpu_probe.h"
#include "build_config.h"
#include "util/cpuinfo.h"
#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static void gpu_info(harness_env *env)
{
    const harness_gpu_info *gpu = harness_gpu_probe();
    snprintf(env->gpu, sizeof env->gpu, "%s", gpu->name);
    snprintf(env->driver, sizeof env->driver, "%s", gpu->driver);
    snprintf(env->cuda, sizeof env->cuda, "none");
#ifdef HAVE_CUDA
    /* The toolkit this harness was built with (a compile-time constant). */
    snprintf(env->cuda, sizeof env->cuda, "%d.%d", CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
#endif
}

void harness_env_capture(harness_env *env)
{
    memset(env, 0, sizeof *env);
    if (gethostname(env->host, sizeof env->host - 1) != 0)
        snprintf(env->host, sizeof env->host, "unknown");
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(env->os, sizeof env->os, "%s %s %s", u.sysname, u.release, u.machine);
    harness_cpuinfo_field("model name", "unknown", env->cpu_model, sizeof env->cpu_model);
    env->logical_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    env->omp_threads = omp_get_max_threads();
    gpu_info(env);
    snprintf(env->compiler, sizeof env->compiler, "gcc %s", __VERSION__);
    snprintf(env->git_commit, sizeof env->git_commit, "%s", HARNESS_GIT_COMMIT);
    snprintf(env->version, sizeof env->version, "%s", PACKAGE_VERSION);
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(env->started_at, sizeof env->started_at, "%Y-%m-%dT%H:%M:%S%z", &tm);
}
