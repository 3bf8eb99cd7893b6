#include "report/env.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "build_config.h"
#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static void cpu_model(char *out, size_t cap)
{
    snprintf(out, cap, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *colon = strchr(line, ':');
        if (colon) {
            snprintf(out, cap, "%s", colon + 2);
            out[strcspn(out, "\n")] = '\0';
        }
        break;
    }
    fclose(f);
}

static void gpu_info(harness_env *env)
{
    snprintf(env->gpu, sizeof env->gpu, "none");
    snprintf(env->driver, sizeof env->driver, "none");
    snprintf(env->cuda, sizeof env->cuda, "none");
#ifdef HAVE_CUDA
    int v = 0;
    snprintf(env->cuda, sizeof env->cuda, "%d.%d", CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0)
        snprintf(env->driver, sizeof env->driver, "%d.%d", v / 1000, v % 1000 / 10);
    int n = 0;
    struct cudaDeviceProp prop;
    if (cudaGetDeviceCount(&n) == cudaSuccess && n > 0 && cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        snprintf(env->gpu, sizeof env->gpu, "%s", prop.name);
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
    cpu_model(env->cpu_model, sizeof env->cpu_model);
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
