#include "report/env.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "backend/gpu_probe.h"
#include "build_config.h"
#include "git_commit.h"   /* generated at every make: Makefile.am */
#include "util/cpuinfo.h"
#include "util/sysinfo.h"
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

/* The build as configure set it up (build_config.h), so a summary says
 * whether it came from an optimized or a sanitized binary. */
static void build_info(harness_env *env)
{
#ifdef __clang__
    snprintf(env->compiler, sizeof env->compiler, "clang %s", __clang_version__);
#else
    snprintf(env->compiler, sizeof env->compiler, "gcc %s", __VERSION__);
#endif
    env->cflags = HARNESS_BUILD_CFLAGS;
    env->sanitizers = HARNESS_SANITIZERS;
    env->configure_args = HARNESS_CONFIGURE_ARGS;
    snprintf(env->git_commit, sizeof env->git_commit, "%s", HARNESS_GIT_COMMIT);
    snprintf(env->version, sizeof env->version, "%s", PACKAGE_VERSION);
}

static void cpu_info(harness_env *env)
{
    harness_cpuinfo_field("model name", "unknown", env->cpu_model, sizeof env->cpu_model);
    harness_cpuinfo_field("cpu family", "unknown", env->cpu_family, sizeof env->cpu_family);
    harness_cpuinfo_field("model", "unknown", env->cpu_model_number, sizeof env->cpu_model_number);
    harness_cpuinfo_field("stepping", "unknown", env->cpu_stepping, sizeof env->cpu_stepping);
    harness_cache_size(1, "Data", env->cache_l1d, sizeof env->cache_l1d);
    harness_cache_size(1, "Instruction", env->cache_l1i, sizeof env->cache_l1i);
    harness_cache_size(2, "Unified", env->cache_l2, sizeof env->cache_l2);
    harness_cache_size(3, "Unified", env->cache_l3, sizeof env->cache_l3);
    harness_scaling_governor(env->governor, sizeof env->governor);
    env->logical_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    env->affinity_cpus = harness_affinity_cpus();
    env->omp_threads = omp_get_max_threads();
}

void harness_env_note_clock(harness_env *env, const harness_clock *clk)
{
    snprintf(env->clock, sizeof env->clock, "%s", clk->name);
    snprintf(env->kernel_clocksource, sizeof env->kernel_clocksource, "%s", clk->kernel_clocksource);
    env->clock_resolution_ns = clk->resolution_ns;
}

void harness_env_capture_end(harness_env *env)
{
    harness_loadavg(env->load_end);
}

void harness_env_capture(harness_env *env)
{
    memset(env, 0, sizeof *env);
    if (gethostname(env->host, sizeof env->host - 1) != 0)
        snprintf(env->host, sizeof env->host, "unknown");
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(env->os, sizeof env->os, "%s %s %s", u.sysname, u.release, u.machine);
    cpu_info(env);
    gpu_info(env);
    build_info(env);
    harness_executable_path(env->executable, sizeof env->executable);
    snprintf(env->clock, sizeof env->clock, "none");
    snprintf(env->kernel_clocksource, sizeof env->kernel_clocksource, "unknown");
    env->clock_resolution_ns = NAN;
    harness_loadavg(env->load_start);
    struct timespec cpu;
    env->own_cpu_s_start = clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu) == 0 ? (double)cpu.tv_sec + cpu.tv_nsec * 1e-9
                                                                               : 0.0;
    harness_loadavg(env->load_end);  /* until the run ends */
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(env->started_at, sizeof env->started_at, "%Y-%m-%dT%H:%M:%S%z", &tm);
}
