#!/usr/bin/env python3
"""The known kernel bugs of tests/cudasim/mutate.sh: mutations.py NAME FILE
rewrites FILE with bug NAME put back. Each is an exact text edit at the
first (or n-th) occurrence of its anchor; an anchor that is not there
exits 1, so a kernel that changed shape is noticed rather than skipped."""
import sys

# The tensor-core kernel's loop comes first in attention_cuda.cu, the SIMT
# kernel's second: `nth` picks which one a mutant breaks.
K_LATE_TC = """        cp_async_wait_all();                   /* V_t */
        __syncthreads();
        if (kt + 1 < tiles) {
            load_tile_async<T, D, BK, THREADS>(ks, kg, kv_stride, k0 + BK, a.seq_k);
            cp_async_commit();
        }
"""
K_EARLY_TC = """        cp_async_wait_all();                   /* V_t */
        if (kt + 1 < tiles) {
            load_tile_async<T, D, BK, THREADS>(ks, kg, kv_stride, k0 + BK, a.seq_k);
            cp_async_commit();
        }
        __syncthreads();
"""
V_LATE_TC = """        __syncthreads();
        load_tile_async<T, D, BK, THREADS>(vs, vg, kv_stride, k0, a.seq_k);
        cp_async_commit();
"""
V_EARLY_TC = """        load_tile_async<T, D, BK, THREADS>(vs, vg, kv_stride, k0, a.seq_k);
        cp_async_commit();
        __syncthreads();
"""


def truncated(expr):
    """expr (an fp32 value) with its low 16 bits dropped: pack2's rounding
    to bf16 then keeps it, so the stored value is truncated (a GNU statement
    expression, for a mutant's one edit)."""
    return ("({ float x_ = " + expr + "; uint32_t u_; __builtin_memcpy(&u_, &x_, 4); u_ &= 0xffff0000u; "
            "__builtin_memcpy(&x_, &u_, 4); x_; })")


def simt(text):
    return text.replace("load_tile_async<T, D,", "load_tile_async<float, D,")


MUTATIONS = {
    "tc_k_early": (K_LATE_TC, K_EARLY_TC, 1),
    "tc_v_early": (V_LATE_TC, V_EARLY_TC, 1),
    "simt_k_early": (simt(K_LATE_TC), simt(K_EARLY_TC), 1),
    "simt_v_early": (simt(V_LATE_TC), simt(V_EARLY_TC), 1),
    "tc_gqa": ("hk = h / a.group;", "hk = h % a.kv_heads;", 1),
    "simt_gqa": ("hk = h / a.group;", "hk = h % a.kv_heads;", 2),
    # attention_hopper.cu (test_attention_hopper_sim):
    # S_{t+1}'s softmax before its wgmma retired (no wait_group<1>)
    "hop_s_nowait": ("""        wgmma_wait_group<1>();  /* S_{t+1} retired; P_t V_t may still run */
""", "", 1),
    # O rescaled and P overwritten before P V retired (no wait_group<0>)
    "hop_o_nowait": ("""    wgmma_wait_group<0>();
    wgmma_fence_operands(o);
    release_stage(&bar->v_empty[g % STAGES], cluster);""", """    wgmma_fence_operands(o);
    release_stage(&bar->v_empty[g % STAGES], cluster);""", 1),
    # the consumers free the stage before their P V retired: the empty
    # barrier's arrive before the P V is issued (the model's wgmma reads its
    # operands in one step at the wait, so an arrive just before the wait
    # leaves no room for the producer's next load; before the issue, the
    # wgmmas' collectives do)
    "hop_empty_early": ("""    issue_pv<T, D, BK>(o, p, base + L::V_AT + s * L::STAGE_BYTES);""",
                        """    release_stage(&bar->v_empty[s], a.cluster);
    issue_pv<T, D, BK>(o, p, base + L::V_AT + s * L::STAGE_BYTES);""", 1,
                        ("""    wgmma_fence_operands(o);
    release_stage(&bar->v_empty[g % STAGES], cluster);""", """    wgmma_fence_operands(o);""")),
    # the producer arrives on K's full barrier without expecting its bytes:
    # the phase completes before the copy lands
    "hop_no_expect_tx": ("""        mbar_arrive_expect_tx(&bar->k_full[s], L::KV_BYTES);""",
                         """        mbar_arrive(&bar->k_full[s]);""", 1),
    # the producer reuses a stage after waiting on the wrong phase of its
    # empty barrier (always parity 0: right in round 1, wrong in round 2)
    "hop_parity": ("""mbar_wait_cluster(&bar->k_empty[s], before);""", """mbar_wait_cluster(&bar->k_empty[s], 0u);""", 1),
    # K's descriptor without the column-block step of a head_dim of 128
    "hop_desc_block": ("""(kk / 4) * rows * COL * 2 + (kk % 4) * 32""", """(kk % 4) * 32""", 1),
    # V's descriptor with the stride of an unswizzled 16-row step
    "hop_desc_v": ("""return wgmma_desc(tile + kc * 16 * COL * 2, BK * COL * 2, ATOM);""",
                   """return wgmma_desc(tile + kc * 16 * COL * 2, BK * COL * 2, 2 * ATOM);""", 1),
    # K and V of head h % kv_heads instead of h / group
    "hop_gqa": ("""const int hk = w.h / a.group;""", """const int hk = w.h % (a.heads / a.group);""", 1),
    # the persistent schedule: every item waits q_full's first phase, so a
    # block's second item computes with the first one's Q
    "hop_q_parity": ("""mbar_wait(&bar->q_full, (unsigned)n & 1u);""", """mbar_wait(&bar->q_full, 0u);""", 1),
    # the consumers restart the ring at stage 0 for each item, out of step
    # with the producer's count across items
    "hop_ring_per_item": ("""        g += w.tiles;
""", "", 1),
    # a head mapping wrong only at 8 query heads per kv head
    "tc_gqa8": ("hk = h / a.group;", "hk = a.group == 8 ? h / 4 % a.kv_heads : h / a.group;", 1),
    "simt_gqa8": ("hk = h / a.group;", "hk = a.group == 8 ? h / 4 % a.kv_heads : h / a.group;", 2),
    "hop_gqa8": ("hk = w.h / a.group;", "hk = a.group == 8 ? w.h / 4 % (a.heads / a.group) : w.h / a.group;", 1),
    # the producer's waits on a stage's empty barriers right in rounds 1 and
    # 2, then stuck at parity 1 (wrong from round 3: ten tiles at 3 stages)
    "hop_parity_round3": ("(unsigned)(g / STAGES - 1) & 1u", "(g / STAGES >= 2 ? 1u : 0u)", 1),
    # the ping-pong turn's wgmma issued without the fence after the last
    # wait (O rescaled and P packed in registers since): the second
    # wgmma_fence of the file, the tile step's
    "hop_no_fence": ("wgmma_fence();", "", 2),
    # the TMA-store epilogue (store_staged): the fence to the async proxy
    # dropped; the tile rewritten without waiting for the last item's store
    # to have read it (the barrier after the issuer's wait dropped); the
    # store issued before the other threads wrote (the barrier before it
    # dropped: the model's fence rule sees the threads that had not
    # fenced yet); the block ending under its last store (no final wait);
    # the tile written unswizzled
    "hop_store_nofence": ("""    fence_async_shared();
""", "", 1),
    "hop_store_nowait": ("""        tma_store_wait_read<0>();   /* the last item's stores have read the tile */
    named_bar_sync(STORE_BAR + wg, WG);
""", """        tma_store_wait_read<0>();   /* the last item's stores have read the tile */
""", 1),
    "hop_store_early": ("""    fence_async_shared();
    named_bar_sync(STORE_BAR + wg, WG);
""", """    fence_async_shared();
""", 1),
    "hop_store_noend": ("""    if (a.tma_store && threadIdx.x % WG == 0)
        tma_store_wait_read<0>();   /* the block's shared memory outlives the last store's read */
""", "", 1),
    "hop_store_swizzle": ("(off ^ ((rr % 8) << 4))", "off", 1),
    # three consumers (head_dim 64): the ping-pong's last turn skipped by
    # the two-consumer rule (warpgroup 1 instead of the last); the empty
    # barriers counting two consumers' threads, so a stage is reloaded
    # while the third still reads it
    "hop_ring_last": ("""    if (wg != NC - 1 || NEXT)""", """    if (wg == 0 || NEXT)""", 1),
    "hop_empty_count": ("""mbar_init(&bar->k_empty[s], a.cluster * NC * WG / 32);""",
                        """mbar_init(&bar->k_empty[s], a.cluster * 2 * WG / 32);""", 1),
    # clusters of two (K and V multicast): no cluster barrier after the
    # mbarriers' init (a peer copies into or arrives on this block's
    # barriers before they exist) or before the exit (the last releases
    # land on a block that has left); a consumer warp's release on its own
    # block's empty barrier only (twice: the count is met before the peer
    # is done, and its stage is reloaded under it); both producers loading
    # the tile's first half; both blocks of a cluster taking the same query
    # block
    "hop_cluster_first_sync": ("""    if (a.cluster > 1)
        cluster_sync();
    else
        __syncthreads();""", """    __syncthreads();""", 1),
    "hop_cluster_last_sync": ("""    if (a.cluster > 1)
        cluster_sync();
}""", "}", 1),
    "hop_cluster_release_local": ("mbar_arrive_cluster(bar, lane,", "mbar_arrive_cluster(bar, cluster_ctarank(),", 1),
    "hop_cluster_half": ("const int r0 = a.share * (int)cluster_ctarank();", "const int r0 = 0;", 1),
    "hop_cluster_pairs": ("* a.cluster + cta) * BQ<NC>;", "* a.cluster) * BQ<NC>;", 1),
    # the mask's key loop bounded by the 128-key tile's count: wrong only
    # with 176-key tiles (a partial last tile's keys past 128 unmasked)
    "hop_wide_mask": ("for (int n = 0; n < BK / 8; n++)", "for (int n = 0; n < 128 / 8; n++)", 1),
    # transformer_block_gpu.c (test_transformer_block_cuda_plugin): the
    # attention norm's epsilon squared (1 and 1e-5 cannot tell)
    "block_eps_squared": ("s->hidden, s->eps, stream)", "s->hidden, s->eps * s->eps, stream)", 1),
    # rms_norm_cuda.cu: the warp-per-row kernel's epsilon squared
    "rms_eps_squared": ("rsqrtf(ss / (float)hidden + eps)", "rsqrtf(ss / (float)hidden + eps * eps)", 1),
    # rms_norm_cuda.cu: bf16 outputs truncated (the low 16 bits of the fp32
    # value dropped) instead of rounded to nearest even
    "rms_bf16_trunc": ("return __float2bfloat16_rn(v);",
                       "uint32_t u; __builtin_memcpy(&u, &v, 4); u &= 0xffff0000u; __builtin_memcpy(&v, &u, 4);\n"
                       "    return __float2bfloat16_rn(v);", 1),
    # the tensor-core and Hopper kernels' O stores truncated to bf16
    "tc_bf16_trunc": ("pack2<T>(acc[mt][nt][2 * row] * inv, acc[mt][nt][2 * row + 1] * inv)",
                      "pack2<T>(" + truncated("acc[mt][nt][2 * row] * inv") + ", "
                      + truncated("acc[mt][nt][2 * row + 1] * inv") + ")", 1),
    "hop_bf16_trunc": ("pack2<T>(o[4 * n + 2 * r] * inv,", "pack2<T>(" + truncated("o[4 * n + 2 * r] * inv") + ",",
                       1),
    # the same in the TMA-store epilogue's tile (store_staged)
    "hop_bf16_trunc_staged": ("pack2<T>(o[4 * n + 2 * r] * inv,",
                              "pack2<T>(" + truncated("o[4 * n + 2 * r] * inv") + ",", 2),
    "rms_warp_sums": ("warp_sum(lane < nwarps ? warp_sums[lane] : 0.0f)", "warp_sum(warp_sums[lane])", 1),
}


# the same bugs elsewhere: caught by the block's plugin test (its Hopper
# attention); the block's RoPE and SwiGLU stores truncated to bf16
# (transformer_block_cuda.cu, test_transformer_block_cuda_sim)
MUTATIONS["block_hop_gqa"] = MUTATIONS["hop_gqa"]
MUTATIONS["tb_bf16_trunc"] = MUTATIONS["rms_bf16_trunc"]


def main():
    name, path = sys.argv[1], sys.argv[2]
    old, new, nth, *second = MUTATIONS[name]
    with open(path) as f:
        text = f.read()
    if second:   # a second edit, at the first occurrence of its anchor
        old2, new2 = second[0]
        at2 = text.find(old2)
        if at2 < 0:
            print(f"mutations.py: {name}: its second anchor is not in {path}", file=sys.stderr)
            return 1
        text = text[:at2] + new2 + text[at2 + len(old2):]
    at = -1
    for _ in range(nth):
        at = text.find(old, at + 1)
        if at < 0:
            print(f"mutations.py: {name}: occurrence {nth} of its anchor is not in {path}", file=sys.stderr)
            return 1
    with open(path, "w") as f:
        f.write(text[:at] + new + text[at + len(old):])
    return 0


if __name__ == "__main__":
    sys.exit(main())
