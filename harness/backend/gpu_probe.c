#include "backend/gpu_probe.h"

#include <ltdl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "build_config.h"
#include "util/build_tree.h"

#ifdef HAVE_CUDA
/* Without the kernel driver there is no GPU to find, and loading the CUDA
 * runtime only to hear so costs time (and, under the sanitizers, noise). */
static int nvidia_driver_present(void)
{
    return access("/proc/driver/nvidia/version", F_OK) == 0 || access("/dev/nvidiactl", F_OK) == 0;
}

static void probe_with_module(harness_gpu_info *info)
{
    if (lt_dlinit() != 0) {
        snprintf(info->why_none, sizeof info->why_none, "cannot initialize libltdl: %s", lt_dlerror());
        return;
    }
    const char *where = harness_running_from_build_tree() ? HARNESS_BUILD_DIR "/harness/backend/cuda_probe"
                                                          : HARNESS_PKGLIBDIR "/backend/cuda_probe";
    lt_dlhandle h = lt_dlopenext(where);
    if (!h) {
        snprintf(info->why_none, sizeof info->why_none, "cannot load %s: %s", where, lt_dlerror());
        lt_dlexit();
        return;
    }
    harness_cuda_probe_fn probe = (harness_cuda_probe_fn)(void (*)(void))lt_dlsym(h, "harness_cuda_probe");
    if (probe)
        probe(info);
    else
        snprintf(info->why_none, sizeof info->why_none, "%s has no harness_cuda_probe", where);
    /* Kept loaded: the CUDA runtime does not like being unloaded mid-process. */
}
#endif

const harness_gpu_info *harness_gpu_probe(void)
{
    static harness_gpu_info info;
    static int probed;
    if (probed)
        return &info;
    probed = 1;
    snprintf(info.name, sizeof info.name, "none");
    snprintf(info.driver, sizeof info.driver, "none");
#ifdef HAVE_CUDA
    if (nvidia_driver_present())
        probe_with_module(&info);
    else
        snprintf(info.why_none, sizeof info.why_none, "no NVIDIA driver (/proc/driver/nvidia is absent)");
#else
    snprintf(info.why_none, sizeof info.why_none, "this harness was built without CUDA");
#endif
    return &info;
}
