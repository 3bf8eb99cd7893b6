/* Choosing and opening a backend. */
#include "backend/backend.h"

#include <string.h>

#include "backend/gpu_probe.h"
#include "build_config.h"

int harness_backend_open(harness_backend *b, const char *device, harness_error *err)
{
    if (strcmp(device, "cpu") == 0) {
        harness_cpu_backend_init(b, 0);
        return 0;
    }
    return harness_error_set(err, HARNESS_EXIT_RUNTIME,
                             "device %s: this harness has no %s backend yet; use --device cpu", device, device);
}

void harness_backend_close(harness_backend *b)
{
    if (b->ops && b->ops->close)
        b->ops->close(b);
    memset(b, 0, sizeof *b);
}

int harness_device_resolve(const char *wanted, const char **out, harness_error *err)
{
    if (strcmp(wanted, "cpu") == 0) {
        *out = "cpu";
        return 0;
    }
    if (strcmp(wanted, "auto") != 0 && strcmp(wanted, "cuda") != 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "device: expected auto, cpu or cuda, got '%s'", wanted);
    const harness_gpu_info *gpu = harness_gpu_probe();
    if (gpu->count > 0 || strcmp(wanted, "auto") == 0) {
        *out = gpu->count > 0 ? "cuda" : "cpu";
        return 0;
    }
    return harness_error_set(err, HARNESS_EXIT_RUNTIME,
#ifdef HAVE_CUDA
                             "device cuda: no CUDA device is visible (%s; check nvidia-smi and "
                             "CUDA_VISIBLE_DEVICES); use --device cpu or auto", gpu->why_none
#else
                             "device cuda: this harness was built without CUDA; reconfigure with "
                             "--with-cuda, or use --device cpu or auto"
#endif
    );
}
