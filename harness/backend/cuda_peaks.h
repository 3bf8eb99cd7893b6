/* cuda_peaks.h - what an NVIDIA GPU can do at best, for the roofline. A
 * part in the SKU table (H100 SXM, PCIe, NVL; H200; A100) gets NVIDIA's
 * datasheet figures, dense, with the clock they assume: the clock a device
 * reports is its top boost (1980 MHz on H100 SXM), above the 1830 MHz its
 * tensor figures are quoted at, so clock x SMs would read ~8% high and every
 * "% of peak" low. Other parts: dense FLOP/s from the SM count, the reported
 * clock and a table of per-SM rates by architecture, and memory bandwidth
 * from the memory clock and bus width the device reports. Pure arithmetic over numbers the CUDA backend reads
 * from device attributes, so it is unit-tested without a GPU. */
#ifndef HARNESS_CUDA_PEAKS_H
#define HARNESS_CUDA_PEAKS_H

#include <stdint.h>

/* Dense floating-point operations per SM per clock (an FMA counts 2). */
typedef struct harness_cuda_arch_rates {
    const char *arch;              /* "Hopper", ... */
    double fp32;                   /* CUDA cores */
    double fp16;                   /* tensor cores, fp32 accumulate where the part has both rates; 0: none */
    double bf16;                   /* tensor cores; 0: none */
} harness_cuda_arch_rates;

/* The device as the backend reads it (cudaDeviceGetAttribute). */
typedef struct harness_cuda_device_numbers {
    int cc_major, cc_minor;
    int sm_count;
    double sm_clock_khz;           /* cudaDevAttrClockRate: the peak (boost) clock */
    double mem_clock_khz;          /* cudaDevAttrMemoryClockRate */
    int bus_width_bits;            /* cudaDevAttrGlobalMemoryBusWidth */
    const char *name;              /* cudaDeviceProp.name ("NVIDIA H100 80GB HBM3"); NULL: unknown */
} harness_cuda_device_numbers;

typedef struct harness_cuda_peaks {
    double bytes_per_s;            /* 0 when unknown */
    double fp32_flops_per_s, fp16_flops_per_s, bf16_flops_per_s;  /* 0 when unknown or absent */
    const char *arch;              /* NULL: compute capability not in the table */
    const char *sku;               /* the datasheet row used ("H100 SXM"); NULL: computed from
                                    * the reported clock */
    double tensor_clock_mhz;       /* the clock the fp16/bf16 figures assume (the datasheet's,
                                    * or the reported one) */
    double fp32_clock_mhz;         /* likewise for fp32 */
} harness_cuda_peaks;

/* The table's row for a compute capability, or NULL. */
const harness_cuda_arch_rates *harness_cuda_arch_rates_for(int cc_major, int cc_minor);

/* Peaks from the device's numbers. */
void harness_cuda_peaks_compute(const harness_cuda_device_numbers *d, harness_cuda_peaks *out);

#endif
