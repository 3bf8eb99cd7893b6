#include "backend/device.h"

#include <string.h>

#include "build_config.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

int harness_cuda_device_count(void)
{
#ifdef HAVE_CUDA
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess)
        return 0;  /* no driver or no device: the CPU backend runs */
    return n;
#else
    return 0;
#endif
}

int harness_device_resolve(const char *wanted, const char **out, harness_error *err)
{
    if (strcmp(wanted, "cpu") == 0) {
        *out = "cpu";
        return 0;
    }
    int gpus = harness_cuda_device_count();
    if (strcmp(wanted, "auto") == 0) {
        *out = gpus > 0 ? "cuda" : "cpu";
        return 0;
    }
    if (strcmp(wanted, "cuda") == 0 && gpus > 0) {
        *out = "cuda";
        return 0;
    }
    if (strcmp(wanted, "cuda") == 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME,
#ifdef HAVE_CUDA
                                 "device cuda: no CUDA device is visible (check nvidia-smi and "
                                 "CUDA_VISIBLE_DEVICES); use --device cpu or auto"
#else
                                 "device cuda: this harness was built without CUDA; reconfigure with "
                                 "--with-cuda, or use --device cpu or auto"
#endif
        );
    return harness_error_set(err, HARNESS_EXIT_USAGE, "device: expected auto, cpu or cuda, got '%s'", wanted);
}
