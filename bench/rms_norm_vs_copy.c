/* rms_norm_vs_copy.c - how close the CPU RMSNorm kernels come to this
 * machine's copy bandwidth. One process, the three measurements interleaved
 * within every repetition, so frequency changes and noisy neighbours hit all
 * three alike.
 *
 *   rms_norm_vs_copy [BATCH SEQ HIDDEN [REPS [ISA]]]   default: 8 1024 4096 20, best ISA
 *
 * GB/s counts every byte once, read or written: a copy of S bytes moves 2 S;
 * RMSNorm moves x + y + one row of weight. A figure, never a pass/fail. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* clock_gettime, before any system header */
#endif

#include "calibration/copy.h"
#include "rms_norm/rms_norm.h"
#include "common/bf16.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { COPY, F32, BF16, KINDS };
static const char *const kind_name[KINDS] = {"copy", "rms_norm_f32", "rms_norm_bf16"};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void *alloc_or_die(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "rms_norm_vs_copy: cannot allocate %zu bytes\n", bytes);
        exit(1);
    }
    memset(p, 0, bytes);        /* fault the pages in before timing */
    return p;
}

static size_t arg_size(const char *s, const char *what)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*s == '-' || *end || v == 0) {
        fprintf(stderr, "rms_norm_vs_copy: %s must be a positive integer, got '%s'\n", what, s);
        exit(2);
    }
    return (size_t)v;
}

int main(int argc, char **argv)
{
    size_t batch = 8, seq = 1024, hidden = 4096, reps = 20;
    if (argc != 1 && argc != 4 && argc != 5 && argc != 6) {
        fprintf(stderr, "usage: %s [BATCH SEQ HIDDEN [REPS [avx512|avx2|portable]]]\n", argv[0]);
        return 2;
    }
    if (argc >= 4) {
        batch = arg_size(argv[1], "BATCH");
        seq = arg_size(argv[2], "SEQ");
        hidden = arg_size(argv[3], "HIDDEN");
    }
    if (argc >= 5)
        reps = arg_size(argv[4], "REPS");
    if (argc == 6 && rms_norm_set_isa(argv[5]) != 0) {
        fprintf(stderr, "rms_norm_vs_copy: ISA '%s' unknown or not supported here\n", argv[5]);
        return 2;
    }
    size_t rows = batch * seq, n = rows * hidden;

    float *x = alloc_or_die(n * sizeof *x), *y = alloc_or_die(n * sizeof *y);
    float *w = alloc_or_die(hidden * sizeof *w);
    uint16_t *xb = alloc_or_die(n * sizeof *xb), *yb = alloc_or_die(n * sizeof *yb);
    uint16_t *wb = alloc_or_die(hidden * sizeof *wb);
    char *src = alloc_or_die(n * sizeof *x), *dst = alloc_or_die(n * sizeof *x);
    unsigned seed = 12345;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = (float)(seed >> 8) / (float)(1u << 24) * 4.0f - 2.0f;
        xb[i] = f32_to_bf16(x[i]);
    }
    for (size_t i = 0; i < hidden; i++) {
        w[i] = 1.0f + (float)(i % 7) / 16.0f;
        wb[i] = f32_to_bf16(w[i]);
    }
    memcpy(src, x, n * sizeof *x);

    double moved[KINDS] = {2.0 * (double)(n * sizeof *x),
                           (double)((2 * n + hidden) * sizeof *x),
                           (double)((2 * n + hidden) * sizeof *xb)};
    double *t[KINDS];
    for (int k = 0; k < KINDS; k++)
        t[k] = alloc_or_die(reps * sizeof *t[k]);

    for (size_t r = 0; r <= reps; r++) {      /* round 0 warms up */
        for (int k = 0; k < KINDS; k++) {
            double t0 = now_s();
            if (k == COPY)
                copy_cpu(dst, src, n * sizeof *x);
            else if (k == F32)
                rms_norm_f32(x, w, y, rows, hidden, 1e-6f);
            else
                rms_norm_bf16(xb, wb, yb, rows, hidden, 1e-6f);
            if (r > 0)
                t[k][r - 1] = now_s() - t0;
        }
    }

    printf("shape %zu x %zu x %zu, %d threads, isa %s, %zu reps\n",
           batch, seq, hidden, omp_get_max_threads(), rms_norm_isa(), reps);
    printf("%-14s %10s %12s %12s %14s\n", "", "best GB/s", "median GB/s", "ratio best", "ratio median");
    double best[KINDS], median[KINDS];
    for (int k = 0; k < KINDS; k++) {
        qsort(t[k], reps, sizeof *t[k], cmp_double);
        best[k] = moved[k] / t[k][0] / 1e9;
        median[k] = moved[k] / (reps % 2 ? t[k][reps / 2] : 0.5 * (t[k][reps / 2 - 1] + t[k][reps / 2])) / 1e9;
        printf("%-14s %10.1f %12.1f %12.3f %14.3f\n", kind_name[k], best[k], median[k],
               best[k] / best[COPY], median[k] / median[COPY]);
    }

    for (int k = 0; k < KINDS; k++)
        free(t[k]);
    free(x), free(y), free(w), free(xb), free(yb), free(wb), free(src), free(dst);
    return 0;
}
