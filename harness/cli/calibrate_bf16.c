/* The bf16 peaks' lines of `harness calibrate` (calibrate_bf16.h). A unit
 * the CPU lacks gets a line saying so rather than no line, so that a file
 * with a zero peak is never mistaken for a measurement that failed. */
#include "cli/calibrate_bf16.h"

#include <stdio.h>

void harness_calibrate_print_bf16(const harness_cpu_peaks *pk)
{
    if (pk->bf16_dot_flops_per_s > 0)
        printf("bf16 dot peak:  %8.1f GFLOP/s  (AVX-512 BF16 vdpbf16ps, best of %d)\n",
               pk->bf16_dot_flops_per_s / 1e9, pk->flops_reps);
    else
        printf("bf16 dot peak:  not measured: this CPU has no AVX-512 BF16\n");
    if (pk->amx_bf16_flops_per_s > 0)
        printf("AMX bf16 peak:  %8.1f GFLOP/s  (tdpbf16ps, best of %d)\n", pk->amx_bf16_flops_per_s / 1e9,
               pk->flops_reps);
    else if (pk->has_amx_bf16)
        printf("AMX bf16 peak:  not measured: the CPU has AMX but Linux refused the tile state "
               "(arch_prctl ARCH_REQ_XCOMP_PERM)\n");
    else
        printf("AMX bf16 peak:  not measured: this CPU has no AMX (amx-tile, amx-bf16)\n");
}
