#include "backend/gpu_probe.h"

#include <ltdl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "build_config.h"
#include "util/build_tree.h"
#include "util/install_dir.h"

int harness_nvidia_driver_present(void)
{
    return access("/proc/driver/nvidia/version", F_OK) == 0 || access("/dev/nvidiactl", F_OK) == 0;
}

void *harness_cuda_module_symbol(const char *module, const char *symbol, char *why, size_t why_size)
{
#ifdef HAVE_CUDA
    if (lt_dlinit() != 0) {
        snprintf(why, why_size, "cannot initialize libltdl: %s", lt_dlerror());
        return NULL;
    }
    char where[1024];
    if (harness_running_from_build_tree())
        snprintf(where, sizeof where, "%s/%s", HARNESS_BUILD_DIR "/harness/backend", module);
    else
        snprintf(where, sizeof where, "%s/backend/%s", harness_install_pkglibdir(), module);
    /* Kept loaded (libltdl counts references; lt_dlexit is never called):
     * the CUDA runtime does not like being unloaded mid-process. */
    char la[1040], beside[1040];
    snprintf(la, sizeof la, "%s.la", where);
    /* As for plugins (install_dir.h): an installed .la would send libltdl
     * to the original prefix's module, not this tree's. */
    lt_dlhandle h = lt_dlopenext(harness_installed_module(la, beside, sizeof beside) ? beside : where);
    if (!h) {
        snprintf(why, why_size, "cannot load %s: %s", where, lt_dlerror());
        lt_dlexit();
        return NULL;
    }
    void *sym = lt_dlsym(h, symbol);
    if (!sym)
        snprintf(why, why_size, "%s has no %s", where, symbol);
    return sym;
#else
    (void)module;
    (void)symbol;
    snprintf(why, why_size, "this harness was built without CUDA");
    return NULL;
#endif
}

#ifdef HAVE_CUDA
static void probe_with_module(harness_gpu_info *info)
{
    harness_cuda_probe_fn probe = (harness_cuda_probe_fn)(void (*)(void))harness_cuda_module_symbol(
        "cuda_probe", "harness_cuda_probe", info->why_none, sizeof info->why_none);
    if (probe)
        probe(info);
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
    if (harness_nvidia_driver_present())
        probe_with_module(&info);
    else
        snprintf(info.why_none, sizeof info.why_none, "no NVIDIA driver (/proc/driver/nvidia is absent)");
#else
    snprintf(info.why_none, sizeof info.why_none, "this harness was built without CUDA");
#endif
    return &info;
}
