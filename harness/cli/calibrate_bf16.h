/* calibrate_bf16.h - `harness calibrate`'s lines for the bf16 peaks: each
 * unit measured, or why not (absent, or AMX's tile state refused). */
#ifndef HARNESS_CLI_CALIBRATE_BF16_H
#define HARNESS_CLI_CALIBRATE_BF16_H

#include "backend/cpu_peaks.h"

void harness_calibrate_print_bf16(const harness_cpu_peaks *pk);

#endif
