/* spin_build.c - a plugin for bench/regression_figures.sh: `spin_build/cpu`
 * busy-waits duration_ns per step, like spin/cpu, but one build of it can be
 * slower than another for the same config, as a pull request's code is:
 * compiled with -DSLOWDOWN_PCT=P it waits P% longer, and with
 * -DSLOW_DURATION_NS=D only at duration_ns == D (one benchmark of a suite
 * regresses, the rest do not). Both builds register the same key, so base
 * and candidate runs of one config match in `harness compare`.
 *
 * Further modes, each a compile-time switch (they combine):
 *   -DWORK_BOUND       each step does a fixed amount of arithmetic instead of
 *                      watching the clock: a dependent integer chain of
 *                      duration_ns * WORK_ITERS_PER_US / 1000 iterations, the
 *                      rate a constant measured once (0.90 per ns on the 2-core
 *                      AMD EPYC runner), never recalibrated per process, so
 *                      that other processes' load lengthens the step, as it
 *                      does real code; slowdowns add iterations
 *   -DBIMODAL_PCT=P    each process draws once, at its first create (seeded
 *                      from getpid() and the clock), whether it runs P%
 *                      slower for its whole life, with probability 1/2: two
 *                      identical builds still disagree process to process
 *   -DTAIL_EVERY=K -DTAIL_PCT=P
 *                      every K-th step is P% longer: the median stays put,
 *                      the p90 moves by P% when K <= 10 */
#include <harness/plugin.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifndef SLOWDOWN_PCT
#define SLOWDOWN_PCT 0
#endif
#ifndef SLOW_DURATION_NS
#define SLOW_DURATION_NS (-1)      /* every duration */
#endif
#ifndef WORK_ITERS_PER_US
#define WORK_ITERS_PER_US 900      /* the chain's rate on the 2-core CI runner */
#endif
#ifndef BIMODAL_PCT
#define BIMODAL_PCT 0
#endif
#ifndef TAIL_EVERY
#define TAIL_EVERY 0               /* no tail */
#endif
#ifndef TAIL_PCT
#define TAIL_PCT 0
#endif

static const harness_param params[] = {
    {sizeof(harness_param), "duration_ns", HARNESS_PARAM_INT, "100000", HARNESS_PARAM_MIN, 0, 0, NULL,
     "nanoseconds each step busy-waits or computes for (longer in a slowed build)"},
};

typedef struct {
    int64_t amount;                /* ns to wait, or iterations to compute */
    int64_t tail_amount;           /* the same for every TAIL_EVERY-th step */
    uint64_t steps;
} spin_state;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* 1 when this process runs BIMODAL_PCT slower: drawn once, a fair coin from
 * splitmix64 of the pid and the clock. */
static int slow_process(void)
{
    static int drawn = -1;
    if (drawn < 0) {
        uint64_t z = ((uint64_t)getpid() << 32) ^ (uint64_t)now_ns();
        z += 0x9e3779b97f4a7c15u;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        z ^= z >> 31;
        drawn = (int)(z >> 63);
    }
    return drawn;
}

static int create(harness_ctx *ctx, void **state)
{
    spin_state *s = malloc(sizeof *s);
    if (!s)
        return harness_host->fail(ctx, "spin_build: out of memory");
    int64_t ns = harness_host->param_int(ctx, "duration_ns");
    if (SLOW_DURATION_NS < 0 || ns == SLOW_DURATION_NS)
        ns += ns * SLOWDOWN_PCT / 100;
    if (BIMODAL_PCT && slow_process())
        ns += ns * BIMODAL_PCT / 100;
#ifdef WORK_BOUND
    s->amount = ns * WORK_ITERS_PER_US / 1000;
#else
    s->amount = ns;
#endif
    s->tail_amount = s->amount + s->amount * TAIL_PCT / 100;
    s->steps = 0;
    *state = s;
    return 0;
}

#ifdef WORK_BOUND
static volatile uint64_t sink;

/* n iterations of a 64-bit LCG, each depending on the last: about 4 cycles
 * each, whatever the core's width, and no closed form the compiler can use */
static void work(int64_t n)
{
    uint64_t x = sink;
    for (int64_t i = 0; i < n; i++)
        x = x * 6364136223846793005u + 1442695040888963407u;
    sink = x;
}
#else
static void work(int64_t ns)
{
    int64_t end = now_ns() + ns;
    while (now_ns() < end)
        ;
}
#endif

static int step(harness_ctx *ctx, void *state)
{
    (void)ctx;
    spin_state *s = state;
#if TAIL_EVERY > 0
    if (++s->steps % TAIL_EVERY == 0) {
        work(s->tail_amount);
        return 0;
    }
#endif
    work(s->amount);
    return 0;
}

/* a spin moves no data; the work-bound chain's integer arithmetic is no flop */
static void cost(void *state, harness_cost *out)
{
    (void)state;
    out->bytes = 0.0;
    out->flops = 0.0;
}

static void destroy(harness_ctx *ctx, void *state)
{
    (void)ctx;
    free(state);
}

static const harness_variant variant = {
    .size = sizeof(harness_variant),
    .summary = "busy-waits (or computes) duration_ns per step, longer in a build made slower: regression-gate figures",
    .key = "spin_build/cpu",
    .family = "spin_build",
    .device = "cpu",
    .params = params,
    .n_params = sizeof params / sizeof params[0],
    .create = create,
    .step = step,
    .cost = cost,
    .destroy = destroy,
};

HARNESS_PLUGIN_INIT(spin_build, svc, ctx)
{
    return svc->register_variant(ctx, &variant);
}
