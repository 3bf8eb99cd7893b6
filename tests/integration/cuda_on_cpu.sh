#!/bin/sh
# The CUDA side of the harness as a machine without a GPU sees it: the
# variant is listed in a CUDA build, --device cuda is refused in one line
# with what to do and no folder, auto runs on the CPU and says so, and the
# CUDA-only keys are config errors there.
. "$top_builddir/tests/setup"
out="$SCRATCH/exp"
TINY="$CONFIGS/rms_norm_tiny.yaml"

if grep -q '^#define HAVE_CUDA 1' "$top_builddir/build_config.h"; then
    expect_exit 0 "list in a CUDA build" "$HARNESS" list
    grep -q 'rms_norm/cuda' "$SCRATCH/out" || fail "list does not show rms_norm/cuda"
    # attention/cuda and attention/cublas take attention/cpu's config unchanged,
    # and fp16 besides; attention/cpu's `isa` (auto by default) is the CPU's
    # alone, so a config that leaves it out switches device and nothing else.
    "$HARNESS" list --json >"$SCRATCH/list.json" || fail "list --json"
    python3 - "$SCRATCH/list.json" <<'PY' && pass "attention/cuda and /cublas have attention/cpu's parameters, fp16 added" || fail "attention/cuda's or /cublas's parameters differ from attention/cpu's (but for fp16)"
import json, sys
v = {x["key"]: x for x in json.load(open(sys.argv[1]))["variants"]}
assert v["attention/cuda"]["family"] == "attention" and v["attention/cuda"]["device"] == "cuda"
def without_dtype(key):
    return [p for p in v[key]["params"] if p["name"] not in ("dtype", "isa")]
isa = [p for p in v["attention/cpu"]["params"] if p["name"] == "isa"]
assert len(isa) == 1 and isa[0]["default"] == "auto", isa
def dtypes(key):
    return next(p["choices"] for p in v[key]["params"] if p["name"] == "dtype")
assert dtypes("attention/cpu") == ["fp32", "bf16"]
for key in ("attention/cuda", "attention/cublas"):
    assert without_dtype(key) == without_dtype("attention/cpu"), key
    assert dtypes(key) == ["fp32", "bf16", "fp16"], key
PY
    # validate lints a CUDA config without a GPU: all but the device, exit 0,
    # and it says what it could not check; a bad parameter is still exit 2.
    for cfg in rms_norm_cuda attention_cuda transformer_block_cuda; do
        expect_exit 0 "validate $cfg.yaml without a GPU" "$HARNESS" validate "$top_srcdir/configs/$cfg.yaml" --quiet
        expect_err "warning: everything but the device itself was checked here: device cuda: no CUDA device" \
            "validate $cfg.yaml says the device was not checked"
        expect_err "$cfg.yaml: valid (" "validate $cfg.yaml: valid"
    done
    expect_exit 2 "validate a bad CUDA config without a GPU" "$HARNESS" validate \
        "$top_srcdir/configs/attention_cuda.yaml" --set component.config.num_kv_heads=5
    expect_err "component.config.num_heads: num_heads (" "the parameter error, not the device's"
fi

# The hint for a GPU config here is a command that works: printed, then run.
# hint_of: the command after "to run it on the CPU: ", as this test runs it.
hint_of() {
    sed -n 's/.*; to run it on the CPU: harness //p' "$SCRATCH/err"
}
sed -e 's|variant_key: rms_norm|variant_key: rms_norm/cuda|' -e '1i device: cuda' "$TINY" >"$SCRATCH/tiny_cuda.yaml"
for dev in "" "--device auto" "--device cuda" "--device cpu"; do
    want=3; [ "$dev" = "--device cpu" ] && want=2
    expect_exit $want "a CUDA config without a GPU ${dev:-(its own device)}" "$HARNESS" run "$SCRATCH/tiny_cuda.yaml" $dev
    hint=$(hint_of)
    [ -n "$hint" ] || { fail "${dev:-no --device}: no command to run it on the CPU: $(cat "$SCRATCH/err")"; continue; }
    ! grep -q "use --device cpu or auto" "$SCRATCH/err" || fail "the hint still says --device cpu or auto alone"
    eval "expect_exit 0 \"the hint runs: harness $hint\" \"\$HARNESS\" $hint --output-dir \"\$SCRATCH/hinted\" --quiet"
    rm -rf "$SCRATCH/hinted"
done
# The shipped GPU configs: their hints are accepted as they stand (validate
# checks all a run would, but for the minutes a GPU shape takes on the CPU).
for cfg in rms_norm_cuda attention_cuda transformer_block_cuda; do
    expect_exit 3 "$cfg.yaml without a GPU" "$HARNESS" run "$top_srcdir/configs/$cfg.yaml"
    hint=$(hint_of)
    case $hint in
        "run "*" --device cpu"*) eval "expect_exit 0 \"$cfg.yaml's hint validates\" \"\$HARNESS\" validate ${hint#run }" ;;
        *) fail "$cfg.yaml: no command to run it on the CPU: $(cat "$SCRATCH/err")" ;;
    esac
done

# tests/setup hides every GPU from this test (CUDA_VISIBLE_DEVICES is empty).
expect_exit 3 "--device cuda without a GPU" "$HARNESS" run "$TINY" --device cuda --output-dir "$out"
expect_err "device cuda: " "names the device"
expect_err "--device cpu" "says how to run on the CPU"
[ "$(wc -l <"$SCRATCH/err")" -eq 1 ] || fail "--device cuda: more than one line on stderr"
[ ! -e "$out" ] || { fail "--device cuda left $out behind"; rm -rf "$out"; }

expect_exit 0 "device auto without a GPU" "$HARNESS" run "$TINY" --device auto --output-dir "$out"
expect_err "device auto: running on the CPU" "auto says where it ran"
[ "$(grep -c 'device auto' "$SCRATCH/err")" -eq 1 ] || fail "device auto said more than once"
expect_exit 0 "device auto, --quiet" "$HARNESS" run "$TINY" --device auto --output-dir "$out" --quiet
! grep -q "device auto" "$SCRATCH/err" || fail "--quiet still printed information: $(cat "$SCRATCH/err")"
rm -rf "$out"

for kv in schedule.timing=batch schedule.flush_l2=true schedule.cuda_graph=true schedule.blocking_kernel=false \
        device_index=1 schedule.throttle_threshold=0.5 schedule.lock_clocks=max; do
    key=${kv%%=*}
    expect_exit 2 "$kv on the CPU" "$HARNESS" run "$TINY" --set "$kv" --output-dir "$out"
    expect_err "$key: applies to CUDA runs only" "$kv: names the key"
    [ ! -e "$out" ] || { fail "$kv left $out behind"; rm -rf "$out"; }
done
# Their defaults are fine anywhere.
expect_exit 0 "defaults of the CUDA keys on the CPU" "$HARNESS" run "$TINY" --set schedule.timing=per_step \
    --set schedule.flush_l2=false --set schedule.blocking_kernel=true --set device_index=0 \
    --set schedule.throttle_threshold=0.75 --set schedule.lock_clocks=off --output-dir "$out" --quiet
# ... and add nothing to a CPU run's summary: no clocks read, none said.
[ -f "$(echo "$out"/*/summary_ranks_1_rank_0.json)" ] || fail "the CPU run with the CUDA defaults wrote no summary"
! grep -q "device_clocks" "$out"/*/summary_ranks_1_rank_0.json || fail "a CPU summary has device_clocks"
! grep -q "SM clock\|lock_clocks" "$out"/*/profiler_summary_ranks_1_rank_0.txt || fail "a CPU summary talks of clocks"
rm -rf "$out"

# Wherever it runs: batch has no per-step samples for the auto stopping rule.
expect_exit 2 "timing: batch with measurement_steps: auto" "$HARNESS" run "$TINY" --set schedule.timing=batch \
    --set schedule.measurement_steps=auto --output-dir "$out"
expect_err "schedule.timing: batch times whole windows" "batch and auto: names the key"
expect_exit 2 "an unknown timing" "$HARNESS" run "$TINY" --set schedule.timing=sometimes --output-dir "$out"
expect_err "schedule.timing" "unknown timing: names the key"
[ ! -e "$out" ] || fail "config errors left $out behind"
finish
