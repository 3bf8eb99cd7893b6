#!/bin/sh
# attention and transformer_block through the real binary on small shapes:
# validation against the references, the block's regions in the trace, and
# invalid parameter combinations as config errors (exit 2, no folder).
. "$top_builddir/tests/setup"
CHECK="$top_builddir/tests/tools/check_trace"
SMALL="--set schedule.warmup_steps=1 --set schedule.wait_steps=0 --set schedule.measurement_steps=4 --set schedule.repeat=1"

for dtype in fp32 bf16; do
    expect_exit 0 "attention $dtype, GQA, Sq != Sk" "$HARNESS" run "$top_srcdir/configs/attention.yaml" \
        --output-dir "$SCRATCH/att-$dtype" $SMALL --set component.config.seq_len=33 \
        --set component.config.kv_seq_len=65 --set component.config.num_heads=4 \
        --set component.config.num_kv_heads=2 --set component.config.head_dim=64 --set component.config.dtype=$dtype
    grep -q 'validation: passed' "$SCRATCH/out" || fail "attention $dtype validated"
done

# The block needs OpenBLAS; builds without it have no transformer_block/cpu.
if "$HARNESS" list | grep -q '^transformer_block/cpu '; then
    for dtype in fp32 bf16; do
        expect_exit 0 "transformer_block $dtype" "$HARNESS" run "$top_srcdir/configs/transformer_block.yaml" \
            --output-dir "$SCRATCH/tb-$dtype" $SMALL --set component.config.seq_len=17 \
            --set component.config.hidden_size=128 --set component.config.num_heads=4 \
            --set component.config.num_kv_heads=2 --set component.config.intermediate_size=96 \
            --set component.config.dtype=$dtype
        grep -q 'validation: passed' "$SCRATCH/out" || fail "transformer_block $dtype validated"
    done
    trace=$(ls "$SCRATCH"/tb-fp32/*/profiler_trace_ranks_1_rank_0.json)
    "$CHECK" "$trace" 4 && pass "block trace is valid" || fail "block trace"
    for region in attn_norm qkv_proj rope attention out_proj mlp_norm gate_up_proj swiglu down_proj; do
        [ "$(grep -c "\"name\":\"$region\"" "$trace")" -eq 4 ] || fail "block trace has $region in each step"
    done
    python3 - "$(dirname "$trace")/summary_ranks_1_rank_0.json" <<'PY' || fail "the summary shows where a block step goes"
import json, sys
regions = json.load(open(sys.argv[1]))["regions"]
names = [r["name"] for r in regions]
assert names == ["attn_norm", "qkv_proj", "rope", "attention", "out_proj", "mlp_norm", "gate_up_proj",
                 "swiglu", "down_proj"], names
assert all(r["count"] == 4 and r["median_ns"] > 0 for r in regions)
# Sequential regions inside a step can never add up to more than the step.
assert 0 < sum(r["share_of_steps"] for r in regions) <= 1.0 + 1e-9
PY
    grep -q '^gate_up_proj ' "$(dirname "$trace")/profiler_summary_ranks_1_rank_0.txt" || fail "regions in the text summary"
    expect_exit 2 "hidden_size not a multiple of num_heads" "$HARNESS" run "$top_srcdir/configs/transformer_block.yaml" \
        --output-dir "$SCRATCH/bad" --set component.config.hidden_size=100 --set component.config.num_heads=16
    expect_err "--set component.config.hidden_size=100: component.config.hidden_size: hidden_size (100)" \
        "the block names hidden_size, and where it was set"
    expect_exit 2 "block: num_heads not a multiple of num_kv_heads" "$HARNESS" validate \
        "$top_srcdir/configs/transformer_block.yaml" --set component.config.num_kv_heads=5
    expect_err "num_kv_heads (5)" "the block names num_kv_heads"
fi

expect_exit 2 "attention: num_heads not a multiple of num_kv_heads" "$HARNESS" run "$top_srcdir/configs/attention.yaml" \
    --output-dir "$SCRATCH/bad" --set component.config.num_kv_heads=5
expect_err "configs/attention.yaml:22:16: component.config.num_heads: num_heads (8) must be a multiple of num_kv_heads (5)" \
    "attention names both parameters"
# fp16 is the CUDA variants'; attention/cpu lists what it takes.
expect_exit 2 "attention/cpu: dtype fp16" "$HARNESS" run "$top_srcdir/configs/attention.yaml" \
    --output-dir "$SCRATCH/bad" --set component.variant_key=attention/cpu --set component.config.dtype=fp16
expect_err "component.config.dtype: expected one of fp32, bf16, got fp16" "attention/cpu names dtype and its values"
if grep -q '^#define HAVE_CUDA 1' "$top_builddir/build_config.h"; then
    expect_err "attention/cuda (device: cuda), attention/cublas (device: cuda) accept this config: set device" \
        "names the variants of the family that take fp16"
fi
expect_exit 2 "rms_norm: dtype no variant takes" "$HARNESS" run "$top_srcdir/configs/rms_norm.yaml" \
    --output-dir "$SCRATCH/bad" --set component.config.dtype=fp64
expect_err "expected one of fp32, bf16, got fp64" "names dtype and its values"
if grep -q "accept" "$SCRATCH/err"; then fail "rms_norm fp64: no variant takes it, yet the message names one"; fi
[ ! -e "$SCRATCH/bad" ] || fail "a config error leaves no experiment folder"
# A first run of the shipped block is short (~6 GFLOP a step, ~0.23 s on 2
# cores): its default schedule runs at most 60 steps, counted, not timed.
expect_exit 0 "validate configs/transformer_block.yaml" "$HARNESS" validate "$top_srcdir/configs/transformer_block.yaml"
steps=$(awk '/^schedule:/ { on = 1; next } /^[^ ]/ { on = 0 } on && /^  (warmup|wait|measurement)_steps:/ { s += $2 }
    on && /^  repeat:/ { r = $2 } END { print s * r }' "$SCRATCH/out")
[ "$steps" -gt 0 ] && [ "$steps" -le 60 ] && pass "transformer_block.yaml: $steps steps by default" ||
    fail "transformer_block.yaml runs $steps steps by default (more than 60: over 15 s on 2 cores)"
finish
