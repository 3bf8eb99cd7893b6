/* cpu_peaks.h - measuring what this CPU can do at best, for the roofline:
 * fp32 FMA throughput and copy bandwidth, over the threads a run will use.
 * `harness calibrate` measures once and writes the machine file
 * (backend/machine_file.h); runs read the file instead of measuring. */
#ifndef HARNESS_CPU_PEAKS_H
#define HARNESS_CPU_PEAKS_H

#include <stddef.h>

#include "backend/peak_margin.h"

/* Repetitions whose rates are kept for the spread (more are timed, not kept). */
#define HARNESS_CPU_PEAKS_MAX_REPS 64

typedef struct harness_cpu_peaks_opts {
    int threads;                   /* OpenMP threads to measure with; <= 0: omp_get_max_threads() */
    int quick;                     /* smaller buffers, fewer repetitions: well under a second */
} harness_cpu_peaks_opts;

typedef struct harness_cpu_peaks {
    int threads;                   /* threads actually used */
    double flops_per_s;            /* fp32 FMA, 2 flops per FMA, best repetition */
    const char *flops_isa;         /* "avx512" | "avx2" | "scalar" (static string) */
    int flops_reps;
    harness_rep_spread flops_spread; /* of the repetitions: how steady the peak was */
    double bytes_per_s;            /* copy: bytes read + bytes written, best repetition */
    size_t copy_buffer_bytes;      /* size of each of the two buffers */
    int copy_reps;
    harness_rep_spread bytes_spread;
    /* bf16 (cpu_peaks_bf16.c); 0 where the CPU or the OS lacks the unit. */
    double bf16_dot_flops_per_s;   /* AVX-512 BF16 vdpbf16ps, 2 flops per multiply-add */
    double amx_bf16_flops_per_s;   /* AMX tdpbf16ps */
    int has_amx_bf16;              /* cpuid says amx-tile and amx-bf16 */
    int amx_permitted;             /* and Linux granted the tile state (arch_prctl) */
} harness_cpu_peaks;

/* Measure both. 0, or -1 when the copy buffers could not be allocated. */
int harness_cpu_peaks_measure(const harness_cpu_peaks_opts *opts, harness_cpu_peaks *out);

/* The parts alone (tests, benchmarks). */
double harness_cpu_fma_peak(int threads, double seconds_per_rep, int reps, const char **isa);
double harness_cpu_copy_peak(int threads, size_t buffer_bytes, int reps);
/* The same, with the spread of the repetitions' rates (spread may be NULL). */
double harness_cpu_fma_peak_spread(int threads, double seconds_per_rep, int reps, const char **isa,
                                   harness_rep_spread *spread);
double harness_cpu_copy_peak_spread(int threads, size_t buffer_bytes, int reps, harness_rep_spread *spread);
/* 0 where the unit is absent (or AMX's permission refused). */
double harness_cpu_bf16_dot_peak(int threads, double seconds_per_rep, int reps);
double harness_cpu_amx_bf16_peak(int threads, double seconds_per_rep, int reps);

/* What this CPU has (cpuid, and the OS's saving of the registers). */
int harness_cpu_has_avx512_bf16(void);
int harness_cpu_has_amx_bf16(void);
/* Asks Linux for the AMX tile state for this process: 0 granted, -1 not
 * (no AMX, an older kernel, or refused). */
int harness_cpu_amx_permission(void);

#endif
