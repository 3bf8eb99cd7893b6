/* device.h - which device a run uses: `device: auto` becomes cuda when this
 * build has CUDA and a GPU is visible, else cpu. */
#ifndef HARNESS_DEVICE_H
#define HARNESS_DEVICE_H

#include "util/error.h"

/* Number of CUDA devices visible (0 in builds without CUDA, or without a driver). */
int harness_cuda_device_count(void);

/* Resolve "auto" | "cpu" | "cuda" into "cpu" or "cuda" (a static string).
 * Asking for cuda where there is none is a runtime error naming the reason. */
int harness_device_resolve(const char *wanted, const char **out, harness_error *err);

#endif
