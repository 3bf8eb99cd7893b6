/* roofline_cpu.h - which bf16 peak a component is judged against: on the
 * CPU, the unit its "isa" note (ABI 2.3 component_notes) says it ran on;
 * on a GPU, the device's dense bf16 peak. */
#ifndef HARNESS_ROOFLINE_CPU_H
#define HARNESS_ROOFLINE_CPU_H

#include "backend/backend.h"
#include "plugin/notes.h"

/* FLOP/s, or NaN where no bf16 peak applies: a CPU component whose note
 * names neither "amx" nor "avx512_bf16" (an fp32 kernel, or one that
 * computed bf16 in fp32) is judged against the fp32 FMA peak alone. */
double harness_roofline_bf16_peak(const harness_peaks *p, const harness_notes *notes);

#endif
