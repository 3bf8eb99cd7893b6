/* gpu_probe.h - is there a GPU, and which? Asked without linking the CUDA
 * runtime into the core: the answer comes from a small module
 * (backend/cuda_probe.la, built with the CUDA toolkit) loaded on first use,
 * and only when the kernel shows an NVIDIA driver; so a CUDA-enabled build
 * starts, and runs every CPU config, where the runtime is absent. */
#ifndef HARNESS_GPU_PROBE_H
#define HARNESS_GPU_PROBE_H

#include <stddef.h>

typedef struct harness_gpu_info {
    int count;                     /* visible CUDA devices; 0 when none */
    char name[256];                /* device 0, "none" without one */
    char driver[64];               /* driver's CUDA version, "none" without one */
    char why_none[512];            /* why count is 0 */
} harness_gpu_info;

/* Probed once per process, then cached. */
const harness_gpu_info *harness_gpu_probe(void);

/* A symbol of one of the CUDA modules under backend/ (cuda_probe,
 * cuda_backend), loaded once with libltdl from the build tree or
 * $(pkglibdir)/backend and kept loaded; NULL with why filled when the module
 * or the symbol is missing (and always in a build without CUDA). */
void *harness_cuda_module_symbol(const char *module, const char *symbol, char *why, size_t why_size);

/* Whether the kernel shows an NVIDIA driver; without one there is no GPU to
 * find, and loading the CUDA runtime only to hear so costs time. */
int harness_nvidia_driver_present(void);

/* The module's entry point (cuda_probe.c). */
typedef void (*harness_cuda_probe_fn)(harness_gpu_info *out);

#endif
