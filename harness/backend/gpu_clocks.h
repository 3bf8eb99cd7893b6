/* gpu_clocks.h - the GPU's SM clock and why it is held down, as nvbench
 * reads them: from NVML (libnvidia-ml, which comes with the driver),
 * loaded when first asked so that a build runs where it is missing. */
#ifndef HARNESS_GPU_CLOCKS_H
#define HARNESS_GPU_CLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "util/interference.h"        /* the reason bits */

typedef struct harness_gpu_clocks harness_gpu_clocks;

/* The device at PCI bus id `bus_id` ("0000:41:00.0"), or NULL with *why set
 * (no NVML, no such device): then the clocks are simply unknown. */
harness_gpu_clocks *harness_gpu_clocks_open(const char *bus_id, char *why, size_t cap);
/* The SM clock now and the device's most (MHz), and the reason bits. 0, or
 * -1 when NVML would not say. */
int harness_gpu_clocks_read(harness_gpu_clocks *c, double *sm_mhz, double *sm_max_mhz, uint64_t *reasons);
/* The device's total energy since the driver loaded (NVML's counter, mJ;
 * updated every 20-100 ms). 0, or -1 when this GPU or NVML has none. */
int harness_gpu_clocks_energy_mj(harness_gpu_clocks *c, double *mj);
void harness_gpu_clocks_close(harness_gpu_clocks *c);

#endif
