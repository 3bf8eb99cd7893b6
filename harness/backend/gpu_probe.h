/* gpu_probe.h - is there a GPU, and which? Asked without linking the CUDA
 * runtime into the core: the answer comes from a small module
 * (backend/cuda_probe.la, built with the CUDA toolkit) loaded on first use,
 * and only when the kernel shows an NVIDIA driver; so a CUDA-enabled build
 * starts, and runs every CPU config, where the runtime is absent. */
#ifndef HARNESS_GPU_PROBE_H
#define HARNESS_GPU_PROBE_H

typedef struct harness_gpu_info {
    int count;                     /* visible CUDA devices; 0 when none */
    char name[256];                /* device 0, "none" without one */
    char driver[64];               /* driver's CUDA version, "none" without one */
    char why_none[512];            /* why count is 0 */
} harness_gpu_info;

/* Probed once per process, then cached. */
const harness_gpu_info *harness_gpu_probe(void);

/* The module's entry point (cuda_probe.c). */
typedef void (*harness_cuda_probe_fn)(harness_gpu_info *out);

#endif
