#!/bin/sh
# The checks after timing (docs/timing-integrity.md, "Anti-cheat"): each
# fixture of tests/fixtures/cheats cheats the timer one way and must fail
# with exit 1 and the message of the check that caught it, its folder
# marked validation_failed; the honest one passes and its summary says what
# was checked; schedule.rotate_inputs rotates the honest one's input and is
# a config error for a component that declares none; validate_after_timing:
# false turns the checks off and the summary says so.
. "$top_builddir/tests/setup"

plugins="$top_builddir/tests/fixtures/cheats/.libs"
config() {  # config NAME VARIANT [EXTRA YAML LINE]
    cat >"$SCRATCH/$1.yaml" <<YAML
experiment: {name: $1, output_dir: $SCRATCH/exp/$1}
schedule: {warmup_steps: 2, wait_steps: 1, measurement_steps: 20, repeat: 2}
profiling: {trace: false, memory: false}
component: {variant_key: $2, config: {n: 4096}}
plugin_path: $plugins
${3:-}
YAML
}
# summary NAME EXPR: EXPR over the JSON summary of experiment NAME.
summary() {
    python3 - "$SCRATCH/exp" "$1" "$2" <<'PY'
import glob, json, sys
root, name, expr = sys.argv[1:]
f = sorted(glob.glob(f"{root}/{name}/*/summary_*rank_0.json"))[-1]
s = json.load(open(f))
print(eval(expr))
PY
}
status() {  # status NAME: the state status.json ends in
    python3 - "$SCRATCH/exp" "$1" <<'PY'
import glob, json, sys
f = sorted(glob.glob(f"{sys.argv[1]}/{sys.argv[2]}/*/status.json"))[-1]
print(json.load(open(f))["status"])
PY
}

config honest cheats/honest
expect_exit 0 "the honest component passes the checks after timing" "$HARNESS" run "$SCRATCH/honest.yaml"
[ "$(summary honest 's["validation"]["after_timing"]["status"]')" = passed ] || fail "after_timing.status passed"
[ "$(summary honest 's["validation"]["after_timing"]["probe_steps"]')" = 2 ] || fail "two probe steps"
[ "$(summary honest 's["validation"]["after_timing"]["recheck"]')" = new_inputs ] || fail "rechecked on new inputs"
[ "$(summary honest '(s["validation"]["after_timing"]["inputs_declared"], s["validation"]["after_timing"]["outputs_declared"])')" = "(1, 1)" ] \
    || fail "one input and one output declared"
grep -q "checks after timing: passed: 2 output probe steps" "$SCRATCH/exp"/honest/*/profiler_summary_ranks_1_rank_0.txt \
    || fail "the text summary says it"

# cheat VARIANT TEXT: exit 1, TEXT on stderr, the folder validation_failed.
cheat() {
    config "cheat_$1" "cheats/$1"
    expect_exit 1 "cheats/$1 is caught" "$HARNESS" run "$SCRATCH/cheat_$1.yaml"
    expect_err "$2" "cheats/$1: $2"
    [ "$(status "cheat_$1")" = validation_failed ] || fail "cheats/$1: status.json says validation_failed"
    [ "$(summary "cheat_$1" 's["validation"]["after_timing"]["status"]')" = failed ] || fail "cheats/$1: after_timing failed"
}
cheat cache "step() did not write its output after timing: element 0 of output 1 (f32 x 4096)"
cheat batch "step() did not write its output after timing"
cheat defer "output changed after timing: element 0 of output 1 (f32 x 4096) was nan (0xffffffff) when step() was over"
cheat replay "after timing, with new input values: cheats/replay: output does not match the reference"
cheat skew "output changed after timing: element 0 of output 1 (f32 x 4096) was nan (0xffffffff) when step() was over"

# Off: the cache cheat passes, and the summary says the checks were off.
config cache_off cheats/cache "validate_after_timing: false"
expect_exit 0 "validate_after_timing: false lets a cheat through" "$HARNESS" run "$SCRATCH/cache_off.yaml"
[ "$(summary cache_off 's["validation"]["after_timing"]["status"]')" = off ] || fail "after_timing.status off"

# Rotation: four sets of the honest component's input, their bytes stated.
config rotate cheats/honest "schedule: {warmup_steps: 2, wait_steps: 1, measurement_steps: 20, repeat: 2, rotate_inputs: 4}"
sed -i '2d' "$SCRATCH/rotate.yaml"
expect_exit 0 "rotate_inputs: 4 on the honest component" "$HARNESS" run "$SCRATCH/rotate.yaml"
[ "$(summary rotate 's["validation"]["after_timing"]["rotate_inputs"]')" = "{'sets': 4, 'bytes': 65536}" ] \
    || fail "4 sets of 4096 floats: $(summary rotate 's["validation"]["after_timing"]["rotate_inputs"]')"
# The replay cheat copies its first output back: with rotated inputs the
# check after timing still catches it (and rotation runs through it).
config rotate_replay cheats/replay "schedule: {warmup_steps: 2, wait_steps: 1, measurement_steps: 20, repeat: 2, rotate_inputs: 3}"
sed -i '2d' "$SCRATCH/rotate_replay.yaml"
expect_exit 1 "rotate_inputs with the replay cheat" "$HARNESS" run "$SCRATCH/rotate_replay.yaml"

# A component that declares no inputs has nothing to rotate: exit 2.
cat >"$SCRATCH/noop.yaml" <<YAML
experiment: {name: noop, output_dir: $SCRATCH/exp/noop}
schedule: {warmup_steps: 1, wait_steps: 0, measurement_steps: 5, repeat: 1, rotate_inputs: 2}
component: {variant_key: noop}
YAML
expect_exit 2 "rotate_inputs on a component without declared inputs" "$HARNESS" run "$SCRATCH/noop.yaml"
expect_err "noop.yaml:2:92: schedule.rotate_inputs: 2, but noop/cpu declares no inputs (the input service, plugin ABI 2.4): there is nothing to rotate" \
    "the message names the variant and the fix"
finish
