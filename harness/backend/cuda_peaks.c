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
#include <string.h>

/* NVIDIA's datasheets, dense figures (the sparse ones halved): TFLOP/s and
 * TB/s. The clock each assumes is figure / (SMs x per-SM rate), e.g. H100
 * SXM bf16: 989.4e12 / (132 x 4096) = 1830 MHz. A row matches a device by
 * compute capability, SM count and a piece of its name; more specific
 * names first ("H200 NVL" before "H200"). */
typedef struct sku_row {
    const char *sku, *name_has;
    int major, minor, sms;
    double fp32_tflops, tensor_tflops, tb_per_s;   /* tensor: fp16 = bf16 on these parts */
} sku_row;

static const sku_row skus[] = {
    {"H100 SXM", "H100 80GB HBM3", 9, 0, 132, 66.9, 989.4, 3.35},
    {"H100 PCIe", "H100 PCIe", 9, 0, 114, 51.2, 756.5, 2.0},
    {"H100 NVL", "H100 NVL", 9, 0, 132, 60.0, 835.5, 3.9},
    {"H200 NVL", "H200 NVL", 9, 0, 132, 60.0, 835.5, 4.8},
    {"H200 SXM", "H200", 9, 0, 132, 66.9, 989.4, 4.8},
    {"A100 SXM4 80GB", "A100-SXM4-80GB", 8, 0, 108, 19.5, 312.0, 2.039},
    {"A100 SXM4 40GB", "A100-SXM4-40GB", 8, 0, 108, 19.5, 312.0, 1.555},
    {"A100 PCIe 80GB", "A100 80GB PCIe", 8, 0, 108, 19.5, 312.0, 1.935},
    {"A100 PCIe 40GB", "A100-PCIE-40GB", 8, 0, 108, 19.5, 312.0, 1.555},
};

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

/* `part` as a word of `name`: "H200" is in "NVIDIA H200" but not in
 * "NVIDIA GH200 480GB", another part with other figures. */
static int has_word(const char *name, const char *part)
{
    for (const char *p = strstr(name, part); p; p = strstr(p + 1, part))
        if (p == name || p[-1] == ' ')
            return 1;
    return 0;
}

static const sku_row *sku_for(const harness_cuda_device_numbers *d)
{
    for (size_t i = 0; d->name && i < sizeof skus / sizeof skus[0]; i++)
        if (skus[i].major == d->cc_major && skus[i].minor == d->cc_minor && skus[i].sms == d->sm_count &&
            has_word(d->name, skus[i].name_has))
            return &skus[i];
    return NULL;
}

/* The datasheet's figures; the clocks they assume from the per-SM rates. */
static void from_sku(const sku_row *s, const harness_cuda_arch_rates *r, harness_cuda_peaks *out)
{
    out->sku = s->sku;
    out->bytes_per_s = s->tb_per_s * 1e12;
    out->fp32_flops_per_s = s->fp32_tflops * 1e12;
    out->fp16_flops_per_s = out->bf16_flops_per_s = s->tensor_tflops * 1e12;
    out->tensor_clock_mhz = s->tensor_tflops * 1e12 / (s->sms * r->bf16) / 1e6;
    out->fp32_clock_mhz = s->fp32_tflops * 1e12 / (s->sms * r->fp32) / 1e6;
}

void harness_cuda_peaks_compute(const harness_cuda_device_numbers *d, harness_cuda_peaks *out)
{
    *out = (harness_cuda_peaks){0};
    const sku_row *sku = sku_for(d);
    if (sku) {
        out->arch = harness_cuda_arch_rates_for(sku->major, sku->minor)->arch;
        from_sku(sku, harness_cuda_arch_rates_for(sku->major, sku->minor), out);
        return;
    }
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
    out->tensor_clock_mhz = out->fp32_clock_mhz = d->sm_clock_khz / 1e3;
}
