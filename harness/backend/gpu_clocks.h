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

/* schedule.lock_clocks (NVML needs root for it): the SM clock locked at
 * the device's base (NVML's TDP clock; *mhz 0, NVML names no number) or at
 * its most (*mhz that clock), until harness_gpu_clocks_unlock. 0, or -1
 * with why, a phrase after "max ": "not permitted: NVML_ERROR_NO_PERMISSION
 * (...), ..." without root, "not supported: ...", "refused: ...". The lock outlives the process: unlock on every
 * exit (backend/device_restore.h). */
int harness_gpu_clocks_lock(harness_gpu_clocks *c, int at_max, double *mhz, char *why, size_t cap);

/* The clocks unlocked again if this handle locked them; a second call
 * does nothing. Called from signal handlers too (backend/device_restore.h):
 * NVML is not async-signal-safe, but the only way to put the lock back; a
 * handler that interrupted one of this file's NVML calls on its own thread
 * could deadlock there, so then it leaves the lock and says on stderr how
 * to undo it (write(2) only). Returns 0 when unlocked or nothing was locked. */
int harness_gpu_clocks_unlock(harness_gpu_clocks *c);

#endif
