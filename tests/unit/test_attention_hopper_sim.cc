/* test_attention_hopper_sim.cc - attention/cuda's Hopper kernel
 * (components/attention/attention_hopper.cu: TMA, mbarriers, wgmma, a
 * producer and two or three consumer warpgroups) run on the CPU under tests/cudasim,
 * its primitives simulated by their models (common/wgmma.cuh, mbarrier.cuh,
 * tma.cuh, hopper_sync.cuh), against the double reference of attention/cpu
 * with its tolerances: bf16 and fp16, head_dim 64 and 128, causal and not
 * (Sq < Sk and Sq > Sk), grouped-query heads (2, 4, 8 and 32 query heads
 * per kv head over two kv heads), sequences that end inside a tile, more key
 * tiles than stages (ten: the ring wraps three times at 3 stages, so the
 * empty barriers' phases matter), more than one block of queries, and
 * blocks taking several work items in turn (the kernel is persistent: a
 * block an SM, and cudasim has 3); bf16 outputs rounded to nearest. Each
 * case with a ring of 2 stages and of 3, in forward
 * and reversed thread order, with TMA copies landing at issue and at the
 * wait (cudasim.h); O leaves through shared memory and TMA stores where the
 * plan has room for them (head_dim 64; 128 at 2 stages: cudasim's bulk
 * stores read it at issue or at the wait, as the copies land), and once
 * more each with a block per item (not persistent) and with the fragments
 * stored straight (no TMA store), at head_dim 64 (3 consumer warpgroups, 192
 * queries a block) once with 2: the results identical to the bit; and at
 * head_dim 128 without the causal mask with 176-key tiles in all four
 * orders and landings, identical among themselves; and there, where the
 * query blocks pair up, in clusters of two blocks sharing K and V by
 * multicast (the default), once more a cluster per item and once without
 * clusters: identical to the bit.
 * Built as C++ with cudasim.h force-included (tests/cudasim/build.am). */
#include "attention/attention_cuda.h"

#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
extern "C" {
#include <cmocka.h>
}

#include "attention_sim_util.h"   /* after cmocka: it asserts */

static const attention_cuda_dtype BF16 = ATTENTION_CUDA_BF16, F16 = ATTENTION_CUDA_F16;

struct hcase {
    attention_cuda_dtype dt;
    size_t batch, heads, kv_heads, seq_q, seq_k, head_dim;
    int causal;
    float scale;                  /* 0: 1 / sqrt(head_dim) */
};

/* The default plan g in clusters of two: persistent, a cluster per item,
 * then HARNESS_ATTENTION_HOPPER_CLUSTER=1's plain blocks: the same result to
 * the bit (runs 8 and 9 compare with run 0's). */
static void run_cluster_schedules(const hcase &c, sim_tensors *t, const attention_cuda_geometry &g)
{
    sim_set_order_and_landing(0);
    sim_run_and_check(&g, c.dt, t, 0, "hopper (3 stages, clusters of 2)");
    attention_cuda_geometry solo = g;
    solo.persistent = 0;
    sim_set_order_and_landing(3);
    sim_run_and_check(&solo, c.dt, t, 8, "hopper (clusters of 2, a cluster per item), reversed, at issue");
    setenv(ATTENTION_CUDA_HOPPER_CLUSTER_ENV, "1", 1);
    assert_int_equal(attention_cuda_plan_arch(&t->s, c.dt, 90, t->q, t->k, t->v, t->o[0], &solo), 0);
    assert_int_equal(solo.cluster, 1);
    sim_set_order_and_landing(0);
    sim_run_and_check(&solo, c.dt, t, 9, "hopper (3 stages, no cluster)");
    unsetenv(ATTENTION_CUDA_HOPPER_CLUSTER_ENV);
}

static void run_case(const hcase &c)
{
    sim_tensors t = sim_tensors_make(c.dt, c.batch, c.heads, c.kv_heads, c.seq_q, c.seq_k, c.head_dim, c.causal,
                                     c.scale);
    /* What the plugin does on an H100: the plan for compute capability 9.0
     * (3 stages), then the 2-stage ring the environment may ask for. */
    attention_cuda_geometry g;
    unsetenv(ATTENTION_CUDA_KERNEL_ENV);
    unsetenv(ATTENTION_CUDA_HOPPER_STAGES_ENV);
    unsetenv(ATTENTION_CUDA_HOPPER_CONSUMERS_ENV);
    unsetenv(ATTENTION_CUDA_HOPPER_BK_ENV);
    unsetenv(ATTENTION_CUDA_HOPPER_CLUSTER_ENV);
    assert_int_equal(attention_cuda_plan_arch(&t.s, c.dt, 90, t.q, t.k, t.v, t.o[0], &g), 0);
    assert_int_equal(g.kernel, ATTENTION_CUDA_HOPPER);
    assert_int_equal(g.stages, 3);
    const bool pairs = c.head_dim == 128 && !c.causal && (c.seq_q + 127) / 128 % 2 == 0;
    assert_int_equal(g.cluster, pairs ? 2 : 1);
    if (pairs)
        run_cluster_schedules(c, &t, g);
    assert_int_equal(g.tma_store, c.head_dim == 64);   /* 224 KiB of stages at 128 leave no room */
    assert_int_equal(g.consumers, c.head_dim == 64 ? 3 : 2);
    for (int run = 0; run < 8; run++) {
        if (run == 4) {
            assert_int_equal(attention_cuda_plan_hopper(&t.s, c.dt, 2, t.q, t.k, t.v, t.o[0], &g), 0);
            assert_int_equal(g.tma_store, 1);
        }
        const char *how = sim_set_order_and_landing(run);
        char what[96];
        snprintf(what, sizeof what, "hopper (%u stages), %s", g.stages, how);
        sim_run_and_check(&g, c.dt, &t, run, what);
    }
    /* A block per item (HARNESS_ATTENTION_HOPPER_PERSISTENT=0): the same
     * result to the bit. */
    g.persistent = 0;
    sim_set_order_and_landing(0);
    sim_run_and_check(&g, c.dt, &t, 8, "hopper (2 stages), a block per item");
    /* HARNESS_ATTENTION_HOPPER_TMA_STORE=0: each thread's fragments straight
     * to global memory. */
    g.persistent = 1;
    g.tma_store = 0;
    sim_run_and_check(&g, c.dt, &t, 9, "hopper (2 stages), O stored without TMA");
    /* HARNESS_ATTENTION_HOPPER_CONSUMERS=2 at head_dim 64: two consumer
     * warpgroups, 128 queries a block. */
    if (c.head_dim == 64) {
        setenv(ATTENTION_CUDA_HOPPER_CONSUMERS_ENV, "2", 1);
        assert_int_equal(attention_cuda_plan_hopper(&t.s, c.dt, 2, t.q, t.k, t.v, t.o[0], &g), 0);
        assert_int_equal(g.consumers, 2);
        sim_set_order_and_landing(1);
        sim_run_and_check(&g, c.dt, &t, 10, "hopper (2 stages, 2 consumers), reversed");
        unsetenv(ATTENTION_CUDA_HOPPER_CONSUMERS_ENV);   /* the launch plans again, and must agree */
    }
    /* HARNESS_ATTENTION_HOPPER_BK=176 at head_dim 128 without the causal
     * mask: FlashAttention-3's 176-key tiles, 2 stages. Other tiles give
     * the online softmax other steps (other roundings): the four runs
     * equal each other, not the 128-key runs'. */
    if (c.head_dim == 128 && !c.causal) {
        setenv(ATTENTION_CUDA_HOPPER_BK_ENV, "176", 1);
        assert_int_equal(attention_cuda_plan_hopper(&t.s, c.dt, 2, t.q, t.k, t.v, t.o[0], &g), 0);
        assert_int_equal(g.block_keys, 176);
        for (int run = 0; run < 4; run++) {
            const char *how = sim_set_order_and_landing(run);
            char what[96];
            snprintf(what, sizeof what, "hopper (176-key tiles), %s", how);
            sim_run_and_check(&g, c.dt, &t, run, what);
        }
        unsetenv(ATTENTION_CUDA_HOPPER_BK_ENV);
    }
    cudasim::set_order(cudasim::FORWARD);
    cudasim::set_landing(cudasim::AT_WAIT);
    sim_tensors_free(&t);
}

/* Blocks of 128 queries (two consumers of 64), tiles of 128 keys, 2 or 3 stages. */
static void test_hopper(void **state)
{
    (void)state;
    static const hcase cases[] = {
        /* GQA with two kv heads, 2 and 4 query heads each (with one kv head
         * every mapping reads head 0, so a wrong one passes); first, so that
         * tests/cudasim/mutate.sh's mutants fail early. 17 queries leave the
         * second consumer with rows past Sq only. */
        {BF16, 1, 4, 2, 17, 65, 64, 1, 0},
        {BF16, 1, 8, 2, 3, 33, 64, 0, 0},
        /* 8 query heads per kv head (Llama-3-70B's 64 of 8). */
        {BF16, 1, 16, 2, 3, 17, 64, 1, 0},
        /* Ten key tiles: every stage's ring goes round at least three times
         * at 3 stages (five at 2), so each empty barrier completes phases of
         * both parities twice over; causal with Sq < Sk. */
        {BF16, 1, 1, 1, 2, 1200, 64, 1, 0},
        /* Three key tiles through two stages (the ring wraps), the last
         * partial; scale 1 makes scores large, so the running max moves. */
        {BF16, 1, 1, 1, 70, 300, 64, 0, 1.0f},
        /* Five tiles: each stage's barriers through phases of both parities
         * and back (rounds 0, 1, 2 of stage 0). */
        {F16, 1, 1, 1, 5, 600, 128, 1, 0},
        /* head_dim 128 (two column blocks of 64), causal with Sq < Sk, two
         * sequences. */
        {BF16, 2, 2, 2, 3, 130, 128, 1, 0},
        /* Causal with Sq > Sk (the first queries see no key: zeros), fp16. */
        {F16, 1, 2, 1, 65, 3, 128, 1, 0},
        /* Two blocks of queries (causal: the later first), Sq != Sk. */
        {F16, 1, 1, 1, 200, 150, 64, 1, 0},
        {BF16, 1, 2, 1, 130, 261, 128, 0, 0},
        /* head_dim 128 not causal over 720 keys: five 176-key tiles through
         * 2 stages (the ring in its third round), the last partial. */
        /* Clusters of two: 4 query blocks (the last of one row) x 2 heads
         * are 4 pairs for cudasim's 3 SMs' one cluster (the ring's rounds
         * run on across items, both blocks in step), three key tiles a
         * pair, the last partial. */
        {BF16, 1, 2, 1, 385, 300, 128, 0, 0},
        {F16, 1, 2, 2, 20, 720, 128, 0, 0},
        /* Six items (3 query blocks x 2 heads, causal: 3, 2 and 1 key
         * tiles) on cudasim's 3 SMs: each block takes two, Q reloaded after
         * q_empty, the ring's rounds running on across the items. */
        {BF16, 1, 2, 1, 300, 300, 64, 1, 0},
        /* 32 query heads per kv head (a 32-head config with one kv head,
         * attention_cuda.yaml's heads as MQA), over two kv heads: last, the
         * dearest (64 work items). */
        {BF16, 1, 64, 2, 1, 9, 64, 0, 0},
    };
    for (const hcase &c : cases)
        run_case(c);
}

/* bf16 outputs rounded to nearest, not truncated (attention_sim_util.h):
 * causal, GQA 2, two consumers' rows; through the TMA store's tile and
 * straight from the registers. */
static void test_hopper_bf16_rounding(void **state)
{
    (void)state;
    sim_tensors t = sim_tensors_make(BF16, 1, 2, 1, 20, 40, 64, 1, 0);
    attention_cuda_geometry g;
    assert_int_equal(attention_cuda_plan_arch(&t.s, BF16, 90, t.q, t.k, t.v, t.o[0], &g), 0);
    assert_int_equal(g.kernel, ATTENTION_CUDA_HOPPER);
    assert_int_equal(g.tma_store, 1);
    sim_check_bf16_rounding(&g, &t, "hopper, O through TMA stores");
    g.tma_store = 0;
    sim_check_bf16_rounding(&g, &t, "hopper, O stored from registers");
    sim_tensors_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hopper),
        cmocka_unit_test(test_hopper_bf16_rounding),
    };
    /* tests/cudasim/mutate.sh runs only the test that can catch a mutant. */
    if (const char *only = getenv("CUDASIM_TEST_FILTER"))
        cmocka_set_test_filter(only);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
