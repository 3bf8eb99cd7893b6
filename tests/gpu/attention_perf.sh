#!/bin/sh
# attention/cuda beside attention/cublas and PyTorch's
# scaled_dot_product_attention on FlashAttention-2's benchmark shapes
# (16k tokens per step: batch x seq = 16384, seq 512 to 16k; hidden 2048:
# heads x head_dim = 2048), bf16 (fp16 too with DTYPES), causal and not; the goals are
# read off the table (attention_perf.py). At head_dim 128 attention/cuda also
# runs its 32-key build (HARNESS_ATTENTION_TC_BK=32, attention_cuda.h) beside
# the default 64, interleaved, so the table says which tile is faster on this
# GPU. Both are the mma.sync kernel (HARNESS_ATTENTION_KERNEL=mma_sync); the
# Hopper kernel (wgmma + TMA, attention_hopper.cu) runs as its own variant
# (HARNESS_ATTENTION_KERNEL=hopper; it fails off sm_90, which the log says).
# At the sequences of AB_SEQS (the ends: at 512 persistence and the epilogue
# weigh the most, at 16k the least) the Hopper kernel also runs with each of
# its optimizations switched off (attention_cuda.h; the settings are
# tests/gpu/hopper_switches'), interleaved, so the table says what each one
# buys:
#   hopper_serial  a block per work item, not a persistent block per SM
#   hopper_direct  O stored from registers, not through shared memory and TMA
#                  stores (head_dim 64: see below)
#   hopper_pair    two consumer warpgroups at head_dim 64, not three (at 128
#                  there are always two)
#   hopper_solo    no clusters: K and V loaded by each block, not multicast to
#                  a cluster of two (head_dim 128 without the causal mask only,
#                  where the plan makes clusters)
# and with one not on by default:
#   hopper_wide    FlashAttention-3's 176-key tiles (2 stages), at head_dim 128
#                  without the causal mask only (where the plan takes them)
# Built tree required (tests/gpu/run.sh builds it).
#
#   usage: tests/gpu/attention_perf.sh OUTDIR   (from the top of the tree)
#   env:   DTYPES="bf16 fp16"  the dtypes to run (default bf16)
#          SEQS="512 1024"     the sequence lengths (default 512 to 16384)
#          AB_SEQS="512 16384" those of SEQS where the hopper_* variants run
#                              (default 512 16384)
#          HARNESS_ATTENTION_HOPPER_STAGES=2  every Hopper run at 2 stages (and
#                              hopper_direct at head_dim 128 too: see below)
#          HARNESS_GPU_DEADLINE=EPOCH_S  start no run after then (run.sh's slice
#                              budget): the runs left are named, exit 0
set -u
out=${1:?usage: tests/gpu/attention_perf.sh OUTDIR}
H=./harness/harness
status=0
for dt in ${DTYPES:-bf16}; do
for d in 128 64; do
for seq in ${SEQS:-512 1024 2048 4096 8192 16384}; do
for causal in false true; do
for variant in cuda cuda32 hopper hopper_serial hopper_direct hopper_pair hopper_solo hopper_wide cublas; do
    [ $variant = cuda32 ] && [ $d != 128 ] && continue
    case $variant in hopper_*)
        case " ${AB_SEQS:-512 16384} " in *" $seq "*) ;; *) continue ;; esac
        # The TMA store is used only where its tile fits shared memory: head_dim
        # 64, or 128 at 2 stages. At 128 with the default 3 stages O is stored
        # from registers anyway: hopper_direct would time hopper's path again.
        [ $variant = hopper_direct ] && [ $d = 128 ] && [ "${HARNESS_ATTENTION_HOPPER_STAGES:-}" != 2 ] && continue
        [ $variant = hopper_pair ] && [ $d = 128 ] && continue
        case $variant in hopper_wide | hopper_solo) { [ $d = 64 ] || [ $causal = true ]; } && continue ;; esac
    esac
    tag=${dt}_d${d}_s${seq}_${causal}_$variant
    if [ -n "${HARNESS_GPU_DEADLINE:-}" ] && [ "$(date +%s)" -ge "$HARNESS_GPU_DEADLINE" ]; then
        echo "attention_perf: out of time: $tag and the runs after it not run" >&2
        break 5
    fi
    bk=64; [ $variant = cuda32 ] && bk=32
    kernel=mma_sync key=attention/${variant%32} switch=
    case $variant in hopper*) kernel=hopper key=attention/cuda ;; esac
    case $variant in hopper_*) switch=$(sh tests/gpu/switch.sh env $variant) ;; esac
    # Every Hopper setting at its default, then the variant's switch over it.
    env HARNESS_ATTENTION_KERNEL=$kernel HARNESS_ATTENTION_TC_BK=$bk HARNESS_ATTENTION_HOPPER_PERSISTENT=1 \
        HARNESS_ATTENTION_HOPPER_TMA_STORE=1 HARNESS_ATTENTION_HOPPER_CONSUMERS=3 HARNESS_ATTENTION_HOPPER_BK=128 \
        HARNESS_ATTENTION_HOPPER_CLUSTER=2 HARNESS_ATTENTION_HOPPER_STAGES=${HARNESS_ATTENTION_HOPPER_STAGES:-} $switch \
        "$H" run configs/attention_cuda.yaml \
        --set component.variant_key=$key \
        --set component.config.batch_size=$((16384 / seq)) --set component.config.num_heads=$((2048 / d)) \
        --set component.config.seq_len=$seq --set component.config.head_dim=$d \
        --set component.config.causal=$causal --set component.config.dtype=$dt --set validate=false \
        --set schedule.warmup_steps=10 --set schedule.measurement_steps=30 --set schedule.repeat=3 \
        --set profiling.trace=false --output-dir "$out/$tag" >"$out/$tag.log" 2>&1 \
        || { echo "attention_perf: $tag failed (exit $?, $out/$tag.log)"; status=1; }
done; done; done; done; done
python3 tests/gpu/attention_perf.py "$out" || status=1
exit $status
