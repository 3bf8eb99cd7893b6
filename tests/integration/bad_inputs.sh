#!/bin/sh
# Bad inputs through the real binary: exit code, a message naming the file,
# line and key, and no experiment folder left behind.
. "$top_builddir/tests/setup"
BAD="$CONFIGS/bad"
out="$SCRATCH/exp"

bad() {  # bad EXIT MESSAGE DESC ARGS...
    code=$1; msg=$2; desc=$3; shift 3
    expect_exit "$code" "$desc" "$HARNESS" "$@" --output-dir "$out"
    expect_err "$msg" "$desc: message"
    grep -q '^harness: ' "$SCRATCH/err" || fail "$desc: message starts with 'harness: '"
    [ ! -e "$out" ] || { fail "$desc: left $out behind"; rm -rf "$out"; }
}

bad 2 "syntax_error.yaml:3:1: YAML syntax error: did not find expected" "YAML syntax error" run "$BAD/syntax_error.yaml"
bad 2 "unknown_key.yaml:3:1: shedule: unknown key; did you mean schedule?" "unknown key" run "$BAD/unknown_key.yaml"
bad 2 "unknown_param.yaml:4:5: component.config.hiden_size: unknown parameter of rms_norm/cpu; did you mean hidden_size?" \
    "unknown parameter" run "$BAD/unknown_param.yaml"
bad 2 "out_of_range.yaml:4:11: schedule.repeat" "out of range" run "$BAD/out_of_range.yaml"
bad 2 "wrong_type.yaml:4:17: schedule.warmup_steps" "wrong type" run "$BAD/wrong_type.yaml"
bad 2 "unknown_variant.yaml:2:16: component.variant_key: unknown variant 'rms_nrom'; did you mean rms_norm?" \
    "unknown variant" run "$BAD/unknown_variant.yaml"
bad 2 "--set component.variant_key=rms_nrom: component.variant_key: unknown variant" "unknown variant from --set" \
    run "$CONFIGS/rms_norm_tiny.yaml" --set component.variant_key=rms_nrom
# Suggestions ignore case; with none, the search path follows the name (no stray "; ").
bad 2 "unknown variant 'RMS_norm'; did you mean rms_norm? (searched for plugins in: " "variant in the wrong case" \
    run "$CONFIGS/rms_norm_tiny.yaml" --set component.variant_key=RMS_norm
bad 2 "unknown variant 'zzzzzz' (searched for plugins in: " "unknown variant, nothing to suggest" \
    validate "$CONFIGS/rms_norm_tiny.yaml" --set component.variant_key=zzzzzz
grep -q "did you mean" "$SCRATCH/err" && fail "nothing to suggest, yet: $(cat "$SCRATCH/err")"
bad 2 "--set device=CPU: device: expected one of auto, cpu, cuda, got CPU; did you mean cpu?" "device in the wrong case" \
    run "$CONFIGS/rms_norm_tiny.yaml" --set device=CPU
bad 2 "component.config.dtype" "bad enum" run "$BAD/bad_enum.yaml"
bad 2 "empty.yaml" "empty file" run "$BAD/empty.yaml"
bad 2 "nope.yaml: cannot read config" "missing file" run "$BAD/nope.yaml"
bad 2 "--set schedule.repeat" "bad --set value" run "$CONFIGS/rms_norm_tiny.yaml" --set schedule.repeat=-1
bad 2 "--set" "--set without =" run "$CONFIGS/rms_norm_tiny.yaml" --set schedule.repeat
bad 2 "did you mean warmup_steps?" "--set unknown key" run "$CONFIGS/rms_norm_tiny.yaml" --set schedule.warmpu_steps=1
bad 2 "component.config.hidden_size" "--set param out of range" run "$CONFIGS/rms_norm_tiny.yaml" \
    --set component.config.hidden_size=0
bad 2 "plugin directory /nonexistent" "missing --plugin-path" run "$CONFIGS/rms_norm_tiny.yaml" --plugin-path /nonexistent
# No GPU here: either "built without CUDA" or "no CUDA device is visible".
if [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -eq 0 ]; then
    bad 3 "device cuda: " "--device cuda without a GPU" run "$CONFIGS/rms_norm_tiny.yaml" --device cuda
fi

# A combination of parameters the variant rejects is a config error too.
FAULTY="--plugin-path $top_builddir/tests/fixtures/faulty"
# The error points at the parameter the variant's message names (file:line:col).
bad 2 "faulty.yaml:7:3: component.config.fail_after: fail_after (3) must not be 3" "variant rejects parameters" \
    run "$CONFIGS/faulty.yaml" $FAULTY --set component.variant_key=faulty_params
expect_exit 0 "variant accepts other parameters" "$HARNESS" validate "$CONFIGS/faulty.yaml" $FAULTY \
    --set component.variant_key=faulty_params --set component.config.fail_after=4

# Failures after the folder exists: the summary says so.
failed_run() {  # failed_run EXIT STATUS VARIANT MESSAGE
    rm -rf "$out"
    expect_exit "$1" "$3" "$HARNESS" run "$CONFIGS/faulty.yaml" $FAULTY --output-dir "$out" \
        --set component.variant_key=$3
    expect_err "$4" "$3: message"
    python3 - "$out"/*/summary_ranks_1_rank_0.json "$2" <<'PY' || fail "$3: summary marked $2"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["status"] == sys.argv[2], s["status"]
assert s["error"]
PY
}
failed_run 3 failed faulty_create "create failed: faulty: cannot create (as designed)"
failed_run 1 validation_failed faulty_check "7 of 256 elements over tolerance"
failed_run 3 failed faulty_step "step failed in the measurement phase, window 1, step 2: faulty: step failed (as designed)"
failed_run 3 failed faulty_region "step left 1 region(s) open (the outermost: 'never_popped')"
failed_run 3 failed faulty_check_region "reference check could not run: check left 1 region(s) open (the outermost: 'reference_never_popped')"
failed_run 1 validation_failed faulty_empty_check "faulty_empty_check/cpu: check compared no elements"
finish
