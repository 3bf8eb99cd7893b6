#!/bin/sh
# On a GPU only (HARNESS_GPU_TESTS=1, which tests/gpu/run.sh sets; a skip
# elsewhere): attention/cuda and attention/cublas validated against attention/cpu's double
# reference on small odd shapes in fp32 (SIMT and fallback kernels), bf16 and
# fp16 (tensor cores and fallback): partial tiles, seq 1/3/65, head_dim
# 1/3/64/128/130, causal with Sq != Sk both ways, grouped-query heads;
# invalid combinations as config errors (exit 2); a shape larger than the
# device as a runtime error (exit 3) naming the bytes needed and free, with
# no summary written.
HARNESS_TEST_GPU=1
. "$top_builddir/tests/setup"
[ "${HARNESS_GPU_TESTS:-0}" = 1 ] || { echo "skip: HARNESS_GPU_TESTS is not 1"; exit 77; }
grep -q '^#define HAVE_CUDA 1' "$top_builddir/build_config.h" || { echo "skip: not a CUDA build"; exit 77; }
CFG="$top_srcdir/configs/attention.yaml"
SHORT="--set schedule.warmup_steps=1 --set schedule.wait_steps=0 --set schedule.measurement_steps=3
       --set schedule.repeat=1 --set profiling.trace=false"
CUDA="--set component.variant_key=attention/cuda"

n=0
# num_heads num_kv_heads seq_len kv_seq_len head_dim causal
for shape in "2 1 65 65 64 true" "2 2 3 65 128 true" "4 2 65 3 128 true" "1 1 1 130 64 false" \
             "2 1 65 65 1 true" "2 2 3 65 3 true" "2 1 5 9 130 true" "8 2 200 333 128 true" \
             "4 4 1000 1000 64 false"; do
    set -- $shape
    for run in attention/cuda:fp32 attention/cuda:bf16 attention/cuda:fp16 \
               attention/cublas:fp32 attention/cublas:bf16 attention/cublas:fp16; do
        key=${run%:*} dt=${run#*:}
        out="$SCRATCH/e$n"
        n=$((n + 1))
        # shellcheck disable=SC2086
        expect_exit 0 "$key $dt heads $1/$2 seq $3/$4 head_dim $5 causal $6" "$HARNESS" run "$CFG" \
            --device cuda --quiet $SHORT --set component.variant_key=$key \
            --set validate=true --set component.config.dtype=$dt \
            --set component.config.num_heads=$1 --set component.config.num_kv_heads=$2 \
            --set component.config.seq_len=$3 --set component.config.kv_seq_len=$4 \
            --set component.config.head_dim=$5 --set component.config.causal=$6 --output-dir "$out"
        rm -rf "$out"
    done
done

# A grid big enough for two m-tiles a warp (512 blocks of 128 queries), in
# both of head_dim 128's tile builds (attention_cuda.h): the shapes above
# all plan one m-tile.
for bk in 64 32; do
    for dt in bf16 fp16; do
        # shellcheck disable=SC2086
        expect_exit 0 "attention/cuda $dt two m-tiles, $bk keys a tile" env HARNESS_ATTENTION_TC_BK=$bk "$HARNESS" \
            run "$CFG" --device cuda --quiet $SHORT --set component.variant_key=attention/cuda --set validate=true \
            --set component.config.dtype=$dt --set component.config.batch_size=1 --set component.config.num_heads=32 \
            --set component.config.num_kv_heads=8 --set component.config.seq_len=2048 \
            --set component.config.kv_seq_len=2048 --set component.config.head_dim=128 \
            --set component.config.causal=true --output-dir "$SCRATCH/mt2"
        rm -rf "$SCRATCH/mt2"
    done
done

out="$SCRATCH/bad"
# shellcheck disable=SC2086
expect_exit 2 "num_kv_heads 3 of 8 heads" "$HARNESS" run "$CFG" --device cuda $SHORT $CUDA \
    --set component.config.num_kv_heads=3 --output-dir "$out"
expect_err "num_kv_heads" "num_kv_heads: names the key"
# shellcheck disable=SC2086
expect_exit 2 "batch_size past the grid" "$HARNESS" run "$CFG" --device cuda $SHORT $CUDA \
    --set component.config.batch_size=70000 --set component.config.seq_len=1 --output-dir "$out"
expect_err "batch_size" "batch_size: names the key"
[ ! -e "$out" ] || fail "config errors left $out behind"

# 64 x 65536 tokens x 64 heads x 128 fp32: 137 GB per buffer.
# shellcheck disable=SC2086
expect_exit 3 "a shape larger than the device" "$HARNESS" run "$CFG" --device cuda $SHORT $CUDA \
    --set component.config.batch_size=64 --set component.config.seq_len=65536 \
    --set component.config.num_heads=64 --output-dir "$out"
expect_err "bytes of device memory" "names the bytes needed"
expect_err "free of" "names the bytes free"
# The folder, if any, must not look complete: its summary says failed.
for f in $(find "$out" -name 'summary*.json' 2>/dev/null); do
    grep -q '"status":[[:space:]]*"failed"' "$f" || fail "a failed create left a summary that does not say failed: $f"
done
finish
