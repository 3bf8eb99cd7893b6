/* Peak rates of NVIDIA GPUs by architecture; see cuda_peaks.h.
 *
 * Per-SM, per-clock dense rates, from NVIDIA's own documents:
 *   - FP32: the CUDA C++ Programming Guide, "Arithmetic Instructions" table
 *     (32-bit floating-point add, multiply, multiply-add results per clock
 *     per SM: 64 on 7.x and 8.0, 128 on 8.6, 8.9, 9.0, 10.x, 12.x), x 2 for FMA.
 *   - Tensor cores: the architecture whitepapers (Volta V100, Turing TU102,
 *     Ampere GA100 and GA102, Ada AD102, Hopper H100, Blackwell) give dense
 *     FP16/BF16 TFLOP/s, SM count and boost clock; the rate below is
 *     TFLOP/s / (SMs x clock), e.g. A100: 312e12 / (108 x 1.41e9) = 2048,
 *     H100 SXM: 989.4e12 / (132 x 1.83e9) = 4096. Consumer parts (8.6, 8.9,
 *     12.0) are given at their FP16-accumulate rate, the whitepapers' headline.
 * Bandwidth: memory clock x bus width / 8 x 2 (double data rate), e.g.
 * H100 SXM: 2.619 GHz x 5120 / 8 x 2 = 3.35 TB/s, the datasheet's figure. */
#include "backend/cuda_peaks.h"

#include <stddef.h>

typedef struct arch_row {
    int major, minor;              /* minor -1: every minor of major */
    harness_cuda_arch_rates rates;
} arch_row;

static const arch_row table[] = {
    {7, 0, {"Volta", 128, 1024, 0}},
    {7, 2, {"Volta", 128, 1024, 0}},
    {7, 5, {"Turing", 128, 1024, 0}},
    {8, 0, {"Ampere (GA100)", 128, 2048, 2048}},
    {8, 6, {"Ampere (GA10x)", 256, 512, 512}},
    {8, 7, {"Ampere (Orin)", 256, 512, 512}},
    {8, 9, {"Ada", 256, 512, 512}},
    {9, 0, {"Hopper", 256, 4096, 4096}},
    {10, -1, {"Blackwell", 256, 8192, 8192}},
    {12, -1, {"Blackwell (GB20x)", 256, 512, 512}},
};

const harness_cuda_arch_rates *harness_cuda_arch_rates_for(int cc_major, int cc_minor)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].major == cc_major && (table[i].minor == -1 || table[i].minor == cc_minor))
            return &table[i].rates;
    return NULL;
}

void harness_cuda_peaks_compute(const harness_cuda_device_numbers *d, harness_cuda_peaks *out)
{
    *out = (harness_cuda_peaks){0};
    if (d->mem_clock_khz > 0 && d->bus_width_bits > 0)
        out->bytes_per_s = d->mem_clock_khz * 1e3 * (d->bus_width_bits / 8.0) * 2.0;
    const harness_cuda_arch_rates *r = harness_cuda_arch_rates_for(d->cc_major, d->cc_minor);
    if (!r || d->sm_count <= 0 || !(d->sm_clock_khz > 0))
        return;
    double sm_hz = (double)d->sm_count * d->sm_clock_khz * 1e3;
    out->arch = r->arch;
    out->fp32_flops_per_s = r->fp32 * sm_hz;
    out->fp16_flops_per_s = r->fp16 * sm_hz;
    out->bf16_flops_per_s = r->bf16 * sm_hz;
}
