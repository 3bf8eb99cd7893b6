#!/bin/sh
# The recommended gate on a CPU-only runner (issue 40, item 1): `harness run
# configs/ --filter ...` and `harness ab configs/ --filter ...` over the
# shipped configs, which hold CUDA ones, on a machine without a CUDA device
# (tests/setup hides any). --filter comes before a config is prepared: a
# config it drops by its exact variant key is never prepared (neither its
# device nor its parameters matter then, nor --device cpu); a config it
# keeps whose device is absent is skipped with one line and fails nothing;
# when every config it keeps was skipped, nothing runs: exit 3 (as `harness
# run` of one such config), no folder. Paths are joined with one slash.
. "$top_builddir/tests/setup"

SMALL="--set schedule.warmup_steps=2 --set schedule.measurement_steps=20 --set schedule.repeat=2"
CFGS="$top_srcdir/configs/"          # the trailing slash as users type it

no_double_slash() {  # no_double_slash DESC: neither output of the last command has "//"
    if grep -q '//' "$SCRATCH/out" "$SCRATCH/err"; then
        fail "$1: a doubled slash: $(grep -h '//' "$SCRATCH/out" "$SCRATCH/err" | head -3)"
    else
        pass "$1: paths with one slash"
    fi
}

# 1. run over configs/ with a filter that keeps CPU configs only: the CUDA
# ones are dropped unprepared, silently.
# shellcheck disable=SC2086
expect_exit 0 "run configs/ --filter 'noop|spin' without a CUDA device" \
    "$HARNESS" run "$CFGS" --filter 'noop|spin' --quiet --output-dir "$SCRATCH/r1" $SMALL
! grep -q "cuda" "$SCRATCH/err" || fail "a CUDA config the filter drops was prepared: $(grep cuda "$SCRATCH/err")"
suite=$(tail -1 "$SCRATCH/out")
python3 - "$suite" <<'PY' && pass "the suite ran noop and spin" || fail "index.json: $suite"
import json, os, sys
x = json.load(open(os.path.join(sys.argv[1], "index.json")))
assert sorted(os.path.basename(c["path"]) for c in x["configs"]) == ["noop.yaml", "spin.yaml"], x["configs"]
assert x["status"] == "ok" and all(e["exit_code"] == 0 for e in x["experiments"]), x
assert not any("//" in c["path"] for c in x["configs"]), x["configs"]
PY

# 2. --device cpu: the CUDA configs' variants would refuse it, but the
# filter dropped them first.
# shellcheck disable=SC2086
expect_exit 0 "run configs/ --filter 'noop|spin' --device cpu" \
    "$HARNESS" run "$CFGS" --filter 'noop|spin' --device cpu --quiet --output-dir "$SCRATCH/r2" $SMALL

# 3. A filter that keeps CUDA configs and a CPU one: one line per CUDA
# config skipped, the CPU one runs, exit 0.
# shellcheck disable=SC2086
expect_exit 0 "run configs/ --filter 'cuda|spin': the CUDA configs skipped" \
    "$HARNESS" run "$CFGS" --filter 'cuda|spin' --output-dir "$SCRATCH/r3" $SMALL
for c in attention_cuda rms_norm_cuda transformer_block_cuda; do
    [ "$(grep -c "^harness: skipped $top_srcdir/configs/$c.yaml: needs a CUDA device" "$SCRATCH/err")" -eq 1 ] &&
        pass "one line: skipped $c.yaml" || fail "skipped $c.yaml: $(cat "$SCRATCH/err")"
done
[ "$(grep -c '^harness: skipped' "$SCRATCH/err")" -eq 3 ] || fail "three skipped lines: $(cat "$SCRATCH/err")"
grep -q "^run 1/1  spin spin/cpu .* exit 0" "$SCRATCH/out" || fail "spin did not run: $(cat "$SCRATCH/out")"
grep -q "^suite: 1 config x 1 run, ok; 3 skipped (device absent)$" "$SCRATCH/out" &&
    pass "the suite's line counts the skipped" || fail "suite line: $(cat "$SCRATCH/out")"
no_double_slash "configs/ with a trailing slash"

# 4. Everything the filter keeps skipped: nothing runs, exit 3, no folder.
# shellcheck disable=SC2086
expect_exit 3 "run configs/ --filter cuda: nothing to run" \
    "$HARNESS" run "$CFGS" --filter cuda --output-dir "$SCRATCH/r4" $SMALL
expect_err "harness: nothing to run: the 3 configs that --filter 'cuda' keeps need a CUDA device" \
    "it says why nothing ran"
[ ! -e "$SCRATCH/r4" ] && pass "no suite folder" || fail "a suite folder for nothing: $(ls "$SCRATCH/r4")"

# 5. Any config kept whose device is absent, not only the shipped ones: a
# family key with device: cuda, --device cuda over CPU configs and, in a
# CUDA build, an exact CUDA key under device: auto.
mkdir -p "$SCRATCH/mine"
cat >"$SCRATCH/mine/fam.yaml" <<'YAML'
experiment: {name: fam}
device: cuda
component: {variant_key: rms_norm}
YAML
cat >"$SCRATCH/mine/spin.yaml" <<'YAML'
experiment: {name: myspin}
schedule: {warmup_steps: 2, wait_steps: 1, measurement_steps: 20, repeat: 2}
profiling: {trace: false, memory: false}
component: {variant_key: spin, config: {duration_ns: 20000}}
validate: false
YAML
# a config with a bad parameter that the filter drops by its exact key: never prepared
cat >"$SCRATCH/mine/broken.yaml" <<'YAML'
experiment: {name: broken}
component: {variant_key: spin/cpu, config: {duration_nss: 1}}
YAML
expect_exit 0 "a family key with device: cuda, skipped" "$HARNESS" run "$SCRATCH/mine" --filter 'fam|myspin' \
    --quiet --output-dir "$SCRATCH/r5"
expect_err "harness: skipped $SCRATCH/mine/fam.yaml: needs a CUDA device" "skipped fam.yaml"
! grep -q "broken" "$SCRATCH/err" || fail "the filtered-out config was prepared: $(cat "$SCRATCH/err")"
expect_exit 2 "the broken config, when kept, is still refused" "$HARNESS" run "$SCRATCH/mine" --filter broken \
    --quiet --output-dir "$SCRATCH/r5b"
expect_err "duration_nss" "its error names the key"
expect_exit 3 "--device cuda over CPU configs: all skipped" "$HARNESS" run "$SCRATCH/mine" --filter myspin \
    --device cuda --quiet --output-dir "$SCRATCH/r6"
expect_err "harness: skipped $SCRATCH/mine/spin.yaml: needs a CUDA device" "skipped under --device cuda"
if grep -q '^#define HAVE_CUDA 1' "$top_builddir/build_config.h"; then
    printf 'experiment: {name: exact}\ndevice: auto\ncomponent: {variant_key: rms_norm/cuda}\n' \
        >"$SCRATCH/mine/exact.yaml"
    expect_exit 0 "an exact CUDA key under device: auto, skipped" "$HARNESS" run "$SCRATCH/mine" \
        --filter 'exact|myspin' --quiet --output-dir "$SCRATCH/r7"
    expect_err "harness: skipped $SCRATCH/mine/exact.yaml: needs a CUDA device, none visible" "skipped exact.yaml"
fi

# 6. ab over configs/ (a suite: each config both sides) on this CPU-only
# machine: the gate runs, the CUDA configs the filter keeps are skipped.
# shellcheck disable=SC2086
expect_exit 0 "ab configs/ --filter spin without a CUDA device" \
    "$HARNESS" ab "$CFGS" --filter spin --rounds 6 --output-dir "$SCRATCH/ab1/" --on-ambiguous pass $SMALL
grep -q "^spin/cpu .* \(SAME\|AMBIGUOUS\)" "$SCRATCH/out" && pass "ab judged spin" ||
    fail "ab: $(cat "$SCRATCH/out")"
! grep -q "cuda" "$SCRATCH/err" || fail "ab prepared a CUDA config the filter drops: $(grep cuda "$SCRATCH/err")"
[ -f "$SCRATCH/ab1/01-spin/round-01-base.log" ] || fail "ab's rounds: $(ls -R "$SCRATCH/ab1" | head)"
no_double_slash "ab with --output-dir DIR/"
# shellcheck disable=SC2086
expect_exit 0 "ab configs/ --filter 'cuda|spin': the CUDA configs skipped" \
    "$HARNESS" ab "$CFGS" --filter 'cuda|spin' --rounds 6 --output-dir "$SCRATCH/ab2" --on-ambiguous pass $SMALL
[ "$(grep -c "^harness: skipped $top_srcdir/configs/[a-z_]*_cuda.yaml: needs a CUDA device" "$SCRATCH/err")" -eq 3 ] &&
    pass "ab: one line per skipped config" || fail "ab's skipped lines: $(cat "$SCRATCH/err")"
# shellcheck disable=SC2086
expect_exit 3 "ab configs/ --filter cuda: nothing to run" \
    "$HARNESS" ab "$CFGS" --filter cuda --rounds 6 --output-dir "$SCRATCH/ab3" $SMALL
expect_err "nothing to run" "ab says why nothing ran"
[ ! -e "$SCRATCH/ab3" ] && pass "ab made no folder" || fail "ab made $SCRATCH/ab3"

# `ab configs/ configs/` (read as base and cand, but a suite of the folder
# twice): each config once, said.
# shellcheck disable=SC2086
expect_exit 0 "ab configs/ configs --filter spin" "$HARNESS" ab "$CFGS" "$top_srcdir/configs" --filter spin \
    --rounds 6 --output-dir "$SCRATCH/ab5" --on-ambiguous pass $SMALL
expect_err "harness: ab: $top_srcdir/configs/spin.yaml is named more than once: one benchmark" "the twice-named said"
[ "$(ls "$SCRATCH/ab5")" = "01-spin" ] && pass "one benchmark" || fail "benchmarks: $(ls "$SCRATCH/ab5")"

# 7. ab of a pair (two config files: no suite, nothing to skip) whose device
# is absent: exit 3, the device's own words in ab's error.
expect_exit 3 "ab of a CUDA pair without a CUDA device" "$HARNESS" ab "$top_srcdir/configs/attention_cuda.yaml" \
    "$top_srcdir/configs/attention_cuda.yaml" --rounds 6 --output-dir "$SCRATCH/ab4"
expect_err "device cuda: " "ab says the device is absent"

finish
