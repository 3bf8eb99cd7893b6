#!/bin/sh
# Mutation test of the CPU execution layer (tests/cudasim/README.md): each
# bug below once slipped past the simulated tests or is the kind they exist
# to catch. Each is put back alone into a copy of its kernel file, the
# simulated test is rebuilt around it (make cudasim-mutant-*: only the
# kernel file is recompiled) and run; it must fail. A mutant that passes,
# or whose text no longer matches the kernel (the kernel changed: update
# the list), fails this test.
#   tc_k_early, simt_k_early   the next K tile's cp.async before the barrier
#                              that protects the tile other warps still read
#                              (caught when copies land at issue)
#   tc_v_early, simt_v_early   the same for V
#   rms_warp_sums              warp_sums[lane] read without lane < nwarps
#                              (caught by static shared memory poisoned at
#                              every block start)
#   tc_gqa, simt_gqa           kv head h % kv_heads instead of h / group
#                              (caught by GQA cases with 2 kv heads)
#   tc_gqa8, simt_gqa8, hop_gqa8   a head mapping wrong only at 8 query
#                              heads per kv head (caught by GQA 8 cases)
#   rms_eps_squared, block_eps_squared   epsilon squared in rms_norm/cuda's
#                              warp kernel and in the block's attention norm
#                              (transformer_block_gpu.c, the plugin test;
#                              caught by eps 0.5 on small inputs)
#   block_hop_gqa              hop_gqa, caught by the block's plugin test on
#                              the Hopper attention (cc 9.0)
#   rms_bf16_trunc, tc_bf16_trunc, hop_bf16_trunc(_staged), tb_bf16_trunc   bf16 outputs
#                              truncated, not rounded to nearest even (caught
#                              by tests/unit/bf16_rounding.h's checks)
#   hop_*                      the Hopper kernel (attention_hopper.cu,
#                              test_attention_hopper_sim): S or O read with
#                              no wgmma_wait_group (s_nowait, o_nowait); the
#                              stage freed before its P V retired
#                              (empty_early); K's full barrier arrived on
#                              without expect_tx (no_expect_tx); a stage
#                              reused after the wrong phase (parity); a wrong
#                              K or V descriptor (desc_block, desc_v); the
#                              kv head h % kv_heads in the TMA coordinates
#                              (gqa); the persistent schedule's Q phase
#                              (q_parity) and its ring restarted per item
#                              (ring_per_item); the empty barriers' parity
#                              stuck at 1 from the third round (parity_round3:
#                              ten key tiles); the tile step's wgmma_fence
#                              dropped (no_fence: the model wants one after
#                              every wait); the TMA-store epilogue's fence
#                              (store_nofence), its barriers before the tile
#                              is rewritten (store_nowait) and before the
#                              store (store_early), the final wait
#                              (store_noend), the tile's swizzle
#                              (store_swizzle); with three consumers, the
#                              ping-pong's last turn by the two-consumer
#                              rule (ring_last) and K's empty barrier
#                              counting two consumers (empty_count); the
#                              mask's loop sized for 128-key tiles
#                              (wide_mask: wrong with 176); in clusters of
#                              two, no cluster barrier after the init
#                              (cluster_first_sync) or before the exit
#                              (cluster_last_sync), a warp's release on its
#                              own block only (cluster_release_local), both
#                              producers loading the first half
#                              (cluster_half), both blocks on one query
#                              block (cluster_pairs)
# Run by make check; by hand, some of them: MUTANTS='tc_gqa rms_warp_sums' sh tests/cudasim/mutate.sh
. "$top_builddir/tests/setup"

command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
[ -x "$top_builddir/tests/unit/test_attention_cuda_sim" ] || { echo "no simulated tests built: skipped"; exit 77; }

work=$SCRATCH                  # removed on exit by tests/setup

# mutate NAME COMPONENT FILE: FILE's text with the mutation NAME applied
# (first occurrence of its anchor) into $work/NAME/COMPONENT/.
mutate() {
    mkdir -p "$work/$1" && cp -R "$top_srcdir/components/$2" "$work/$1/" &&
        python3 "$top_srcdir/tests/cudasim/mutations.py" "$1" "$work/$1/$2/$3"
}

# The poisoning that catches rms_warp_sums reaches a template kernel's static
# shared memory only through CUDA_STATIC_SHARED (cudasim.h): a plain
# __shared__ declaration in a kernel file would escape it unseen.
survivors=0
plain=$(grep -n '^[^/*]*__shared__' "$top_srcdir"/components/*/*.cu "$top_srcdir"/components/common/*.cuh 2>/dev/null)
if [ -n "$plain" ]; then
    echo "$plain"
    echo "FAIL: static shared memory declared with __shared__: use CUDA_STATIC_SHARED (common/cuda_launch.h)"
    survivors=1
fi
# NAME COMPONENT FILE TEST [TARGET]: TEST is the cmocka test (a pattern) that
# must catch it; the others would only add minutes. TARGET: the make target's
# suffix (cudasim-mutant-TARGET), COMPONENT when absent.
for entry in "tc_k_early attention attention_cuda.cu test_tensor_core" \
        "tc_v_early attention attention_cuda.cu test_tensor_core" \
        "simt_k_early attention attention_cuda.cu test_simt" "simt_v_early attention attention_cuda.cu test_simt" \
        "tc_gqa attention attention_cuda.cu test_tensor_core" "simt_gqa attention attention_cuda.cu test_simt" \
        "tc_gqa8 attention attention_cuda.cu test_tensor_core" "simt_gqa8 attention attention_cuda.cu test_simt" \
        "tc_bf16_trunc attention attention_cuda.cu test_bf16_rounding" \
        "hop_bf16_trunc attention attention_hopper.cu test_hopper_bf16_rounding attention_hopper" \
        "hop_bf16_trunc_staged attention attention_hopper.cu test_hopper_bf16_rounding attention_hopper" \
        "hop_s_nowait attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_o_nowait attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_empty_early attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_no_expect_tx attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_parity attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_desc_block attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_desc_v attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_gqa attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_q_parity attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_ring_per_item attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_gqa8 attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_parity_round3 attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_no_fence attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_store_nofence attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_store_nowait attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_store_early attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_store_noend attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_store_swizzle attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_ring_last attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_empty_count attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_wide_mask attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_cluster_first_sync attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_cluster_last_sync attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_cluster_release_local attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_cluster_half attention attention_hopper.cu test_hopper attention_hopper" \
        "hop_cluster_pairs attention attention_hopper.cu test_hopper attention_hopper" \
        "rms_warp_sums rms_norm rms_norm_cuda.cu *" \
        "rms_eps_squared rms_norm rms_norm_cuda.cu test_odd_shapes" "rms_bf16_trunc rms_norm rms_norm_cuda.cu *" \
        "block_eps_squared transformer_block transformer_block_gpu.c test_forward_matches_reference" \
        "block_hop_gqa attention attention_hopper.cu test_forward_on_hopper transformer_block_hopper" \
        "tb_bf16_trunc transformer_block transformer_block_cuda.cu * transformer_block_kernels"; do
    set -f
    set -- $entry
    set +f
    if [ -n "${MUTANTS:-}" ]; then
        case " $MUTANTS " in *" $1 "*) ;; *) continue ;; esac
    fi
    # The block's plugin test builds against the CUDA headers only.
    case ${5:-$2} in transformer_block | transformer_block_hopper) plugin_test=1 ;; *) plugin_test= ;; esac
    if [ -n "$plugin_test" ] && [ ! -x "$top_builddir/tests/unit/test_transformer_block_cuda_plugin" ]; then
        echo "skipped: mutant $1 (test_transformer_block_cuda_plugin not built: no CUDA headers)"
        continue
    fi
    if ! mutate "$1" "$2" "$3"; then
        echo "FAIL: mutant $1 could not be applied (the kernel changed: update tests/cudasim/mutations.py)"
        survivors=$((survivors + 1))
        continue
    fi
    if ! make -s -C "$top_builddir" "cudasim-mutant-${5:-$2}" MUTANT_DIR="$work/$1" >"$work/$1.build" 2>&1; then
        cat "$work/$1.build"
        echo "FAIL: mutant $1 did not build"
        survivors=$((survivors + 1))
        continue
    fi
    # The first failed check ends the run: a caught mutant needs no more.
    if CMOCKA_TEST_ABORT=1 CUDASIM_TEST_FILTER="$4" "$work/$1/test" >"$work/$1.log" 2>&1; then
        echo "FAIL: mutant $1 survived: the simulated tests passed with the bug in"
        survivors=$((survivors + 1))
    else
        echo "ok: mutant $1 caught: $(grep -m1 -E 'ERROR|Failure|error|cudasim:' "$work/$1.log" | cut -c1-160)"
    fi
done
[ "$survivors" -eq 0 ] || { echo "$survivors mutant(s) not caught"; exit 1; }
