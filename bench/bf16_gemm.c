/* bf16_gemm.c - which bf16 GEMM the Llama block should use: the options at
 * the block's own shapes, against this machine's AVX-512 BF16 dot peak
 * measured in the same process (the loop of `harness calibrate`).
 *
 *   bf16_gemm [ROUNDS]            default 7
 *
 * Options, each c[t][o] = sum_i a[t][i] w[o][i] with W stored [out][in] as
 * nn.Linear stores it, fp32 output:
 *   own     components/transformer_block/linear_bf16.c (vdpbf16ps), W
 *           packed once as the block does at setup, a packed per call
 *           (counted: the block packs it every step)
 *   own_amx the same kernel's AMX form (linear_bf16_amx.c: tdpbf16ps, a
 *           packed row-major per call), against the AMX bf16 peak; only
 *           where the CPU has tiles and Linux grants them
 *   onednn  oneDNN's matmul, bf16 in, fp32 out, weights in the layout it
 *           asks for (format any, reordered once, as PyTorch's prepacked
 *           linear does); only when built with oneDNN (HAVE_DNNL)
 *   sgemm   OpenBLAS cblas_sgemm on fp32 copies, each OpenMP thread one
 *           single-threaded sgemm on its share of W's rows: the fp32 block's
 *           GEMM (transformer_block_cpu.c), what bf16 ran on before
 * (OpenBLAS's cblas_sbgemm: Debian 12's OpenBLAS 0.3.21 is built without
 * it, so it is not an option here.)
 *
 * Shapes (configs/transformer_block.yaml: 256 tokens, hidden 1024, 4 kv
 * heads of 64, intermediate 2816): Q and O 256x1024x1024, K and V
 * 256x256x1024, gate and up 256x2816x1024, down 256x1024x2816.
 *
 * Every round measures the peak and then every (option, shape) once, the
 * options' order rotating, so that neighbours' load hits all alike; each
 * figure is the median of its per-round rates (best of CALLS calls), with
 * the rounds' min and max. A figure, never a pass/fail. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "backend/cpu_peaks.h"
#include "common/bf16.h"
#include "transformer_block/linear_bf16.h"
#include "util/cpuinfo.h"

#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_DNNL
#include <dnnl.h>
#endif

#define CALLS 5
#define MAX_ROUNDS 64

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct shape {
    const char *name;
    size_t m, n, k;
} shape;

static const shape shapes[] = {
    {"q/o", 256, 1024, 1024}, {"k/v", 256, 256, 1024}, {"gate/up", 256, 2816, 1024}, {"down", 256, 1024, 2816},
};
#define N_SHAPES (sizeof shapes / sizeof shapes[0])

typedef struct operands {
    const shape *s;
    uint16_t *a, *w, *ap, *wp;     /* bf16: a [m][k], w [n][k]; packed forms */
    float *a32, *w32, *c;
#ifdef HAVE_DNNL
    dnnl_primitive_t mm;
    dnnl_memory_t mem_a, mem_w, mem_c;
#endif
} operands;

static void *xalloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) {
        fprintf(stderr, "bf16_gemm: out of memory\n");
        exit(3);
    }
    return p;
}

/* ---- the options ------------------------------------------------------- */

static void run_own(operands *o)
{
    const shape *s = o->s;
    linear_bf16_pack_a(o->a, s->m, s->k, s->k, o->ap);
    linear_bf16(s->m, s->n, s->k, o->ap, o->wp, 0.0f, o->c, s->n);
}

/* The same on AMX tiles (linear_bf16_amx.c), where the CPU has them: a
 * packed in the tiles' form, the tile GEMM; the choice put back after. */
static void run_own_amx(operands *o)
{
    linear_bf16_set_amx(1);
    run_own(o);
    linear_bf16_set_amx(0);
}

static void run_sgemm(operands *o)
{
    const shape *s = o->s;
#pragma omp parallel
    {
        size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        size_t chunk = ((s->n + nt - 1) / nt + 15) / 16 * 16;
        size_t o0 = t * chunk < s->n ? t * chunk : s->n, o1 = o0 + chunk < s->n ? o0 + chunk : s->n;
        if (o1 > o0)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)s->m, (int)(o1 - o0), (int)s->k, 1.0f, o->a32,
                        (int)s->k, o->w32 + o0 * s->k, (int)s->k, 0.0f, o->c + o0, (int)s->n);
    }
}

#ifdef HAVE_DNNL
static dnnl_engine_t engine;
static dnnl_stream_t stream;

#define DNNL_OK(call)                                                                                    \
    do {                                                                                                 \
        dnnl_status_t st_ = (call);                                                                      \
        if (st_ != dnnl_success) {                                                                       \
            fprintf(stderr, "bf16_gemm: %s failed (%d)\n", #call, (int)st_);                            \
            exit(3);                                                                                     \
        }                                                                                                \
    } while (0)

/* The matmul with weights in the layout oneDNN prefers, W reordered into it once. */
static void setup_dnnl(operands *o)
{
    const shape *s = o->s;
    dnnl_memory_desc_t a_md, w_any, w_user, c_md;
    dnnl_dims_t ad = {(dnnl_dim_t)s->m, (dnnl_dim_t)s->k}, wd = {(dnnl_dim_t)s->k, (dnnl_dim_t)s->n},
                cd = {(dnnl_dim_t)s->m, (dnnl_dim_t)s->n};
    DNNL_OK(dnnl_memory_desc_init_by_tag(&a_md, 2, ad, dnnl_bf16, dnnl_ab));
    DNNL_OK(dnnl_memory_desc_init_by_tag(&w_any, 2, wd, dnnl_bf16, dnnl_format_tag_any));
    DNNL_OK(dnnl_memory_desc_init_by_tag(&w_user, 2, wd, dnnl_bf16, dnnl_ba)); /* [n][k] in memory */
    DNNL_OK(dnnl_memory_desc_init_by_tag(&c_md, 2, cd, dnnl_f32, dnnl_ab));
    dnnl_matmul_desc_t md;
    DNNL_OK(dnnl_matmul_desc_init(&md, &a_md, &w_any, NULL, &c_md));
    dnnl_primitive_desc_t pd;
    DNNL_OK(dnnl_primitive_desc_create(&pd, &md, NULL, engine, NULL));
    const char *impl = NULL;
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    if (s == &shapes[0])
        printf("oneDNN %d.%d.%d matmul implementation: %s\n", dnnl_version()->major, dnnl_version()->minor,
               dnnl_version()->patch, impl ? impl : "?");
    DNNL_OK(dnnl_primitive_create(&o->mm, pd));
    const dnnl_memory_desc_t *w_md = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    DNNL_OK(dnnl_memory_create(&o->mem_a, &a_md, engine, o->a));
    DNNL_OK(dnnl_memory_create(&o->mem_c, &c_md, engine, o->c));
    DNNL_OK(dnnl_memory_create(&o->mem_w, w_md, engine, DNNL_MEMORY_ALLOCATE));
    dnnl_memory_t user;
    DNNL_OK(dnnl_memory_create(&user, &w_user, engine, o->w));
    dnnl_primitive_desc_t rpd;
    dnnl_primitive_t reorder;
    DNNL_OK(dnnl_reorder_primitive_desc_create(&rpd, &w_user, engine, w_md, engine, NULL));
    DNNL_OK(dnnl_primitive_create(&reorder, rpd));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, o->mem_w}};
    DNNL_OK(dnnl_primitive_execute(reorder, stream, 2, args));
    DNNL_OK(dnnl_stream_wait(stream));
    dnnl_primitive_destroy(reorder);
    dnnl_primitive_desc_destroy(rpd);
    dnnl_memory_destroy(user);
    dnnl_primitive_desc_destroy(pd);
}

static void run_dnnl(operands *o)
{
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, o->mem_a}, {DNNL_ARG_WEIGHTS, o->mem_w}, {DNNL_ARG_DST, o->mem_c}};
    DNNL_OK(dnnl_primitive_execute(o->mm, stream, 3, args));
    DNNL_OK(dnnl_stream_wait(stream));
}
#endif

typedef struct option {
    const char *name;
    void (*run)(operands *o);
} option;

static const option options[] = {
    {"own", run_own},
    {"own_amx", run_own_amx},      /* skipped where there are no tiles */
#ifdef HAVE_DNNL
    {"onednn", run_dnnl},
#endif
    {"sgemm", run_sgemm},
};
#define N_OPTIONS (sizeof options / sizeof options[0])

/* GFLOP/s of the best of CALLS calls. */
static double rate(const option *opt, operands *o)
{
    double best = 1e30;
    opt->run(o);                   /* warm: caches, the pool */
    for (int i = 0; i < CALLS; i++) {
        double t0 = now_s();
        opt->run(o);
        double t = now_s() - t0;
        if (t < best)
            best = t;
    }
    return 2.0 * (double)o->s->m * (double)o->s->n * (double)o->s->k / best / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void stats(double *v, int n, double *mn, double *med, double *mx)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    *mn = v[0], *mx = v[n - 1];
    *med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: bf16_gemm [ROUNDS (1-%d)]\n", MAX_ROUNDS);
        return 2;
    }
    char cpu[256];
    harness_cpuinfo_field("model name", "unknown CPU", cpu, sizeof cpu);
    int threads = omp_get_max_threads();
    printf("CPU: %s, %d OpenMP threads, %d rounds\n", cpu, threads, rounds);
    if (!linear_bf16_supported()) {
        printf("this CPU has no AVX-512 BF16: nothing to compare\n");
        return 77;
    }
    /* "own" is the vdpbf16ps kernel, against the dot peak; "own_amx" its
     * AMX form (linear_bf16_amx.c), against the AMX peak, where there are tiles. */
    linear_bf16_set_amx(0);
    openblas_set_num_threads(1);
#ifdef HAVE_DNNL
    DNNL_OK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    DNNL_OK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
#endif
    operands ops[N_SHAPES];
    srand(1);
    for (size_t i = 0; i < N_SHAPES; i++) {
        const shape *s = &shapes[i];
        operands *o = &ops[i];
        memset(o, 0, sizeof *o);
        o->s = s;
        o->a = xalloc(s->m * s->k * 2), o->w = xalloc(s->n * s->k * 2);
        o->a32 = xalloc(s->m * s->k * 4), o->w32 = xalloc(s->n * s->k * 4), o->c = xalloc(s->m * s->n * 4);
        o->ap = xalloc(linear_bf16_packed_a_elems(s->m, s->k) * 2);
        o->wp = xalloc(linear_bf16_packed_elems(s->n, s->k) * 2);
        for (size_t j = 0; j < s->m * s->k; j++)
            o->a[j] = f32_to_bf16((float)rand() / (float)RAND_MAX - 0.5f), o->a32[j] = bf16_to_f32(o->a[j]);
        for (size_t j = 0; j < s->n * s->k; j++)
            o->w[j] = f32_to_bf16((float)rand() / (float)RAND_MAX - 0.5f), o->w32[j] = bf16_to_f32(o->w[j]);
        linear_bf16_pack(o->w, s->n, s->k, o->wp);
#ifdef HAVE_DNNL
        setup_dnnl(o);
#endif
    }
    int amx = linear_bf16_amx_supported();
    static double peak[MAX_ROUNDS], amx_peak[MAX_ROUNDS], r[N_OPTIONS][N_SHAPES][MAX_ROUNDS];
    for (int round = 0; round < rounds; round++) {
        peak[round] = harness_cpu_bf16_dot_peak(threads, 0.05, 3) / 1e9;
        amx_peak[round] = amx ? harness_cpu_amx_bf16_peak(threads, 0.05, 3) / 1e9 : 0.0;
        for (size_t k = 0; k < N_OPTIONS; k++) {
            size_t opt = (k + (size_t)round) % N_OPTIONS;   /* rotate the order */
            if (options[opt].run == run_own_amx && !amx)
                continue;
            for (size_t i = 0; i < N_SHAPES; i++)
                r[opt][i][round] = rate(&options[opt], &ops[i]);
        }
    }
    double mn, med, mx, amx_pk = 0.0;
    if (amx) {
        stats(amx_peak, rounds, &mn, &amx_pk, &mx);
        printf("AMX bf16 peak: median %.1f GFLOP/s (min %.1f, max %.1f)\n", amx_pk, mn, mx);
    } else {
        printf("AMX: none here (no amx-tile/amx-bf16, or Linux refused the tile state): own_amx not run\n");
    }
    stats(peak, rounds, &mn, &med, &mx);
    printf("AVX-512 BF16 dot peak: median %.1f GFLOP/s (min %.1f, max %.1f)\n\n", med, mn, mx);
    double pk = med;
    printf("%-8s %-20s %26s %12s\n", "option", "shape (m x n x k)", "GFLOP/s median [min, max]", "of its peak");
    for (size_t opt = 0; opt < N_OPTIONS; opt++) {
        int tiles = options[opt].run == run_own_amx;
        if (tiles && !amx)
            continue;
        for (size_t i = 0; i < N_SHAPES; i++) {
            char sh[64];
            snprintf(sh, sizeof sh, "%s %zux%zux%zu", shapes[i].name, shapes[i].m, shapes[i].n, shapes[i].k);
            stats(r[opt][i], rounds, &mn, &med, &mx);
            printf("%-8s %-20s %8.1f [%6.1f, %6.1f]    %10.0f%%\n", options[opt].name, sh, med, mn, mx,
                   100.0 * med / (tiles ? amx_pk : pk));
        }
    }
    return 0;
}
