#!/bin/sh
# What ABI 2.3 adds, through the real binary, with the fixture plugins of
# tests/fixtures/abi2_3 (tests/unit/test_plugin_abi covers the host side):
# facts a component notes about itself reach the summary's component_notes.
. "$top_builddir/tests/setup"

FIXTURES="--plugin-path $top_builddir/tests/fixtures/abi2_3"
cat > "$SCRATCH/tiny.yaml" <<'YAML'
schedule:
  warmup_steps: 1
  wait_steps: 0
  measurement_steps: 3
component:
  variant_key: notes/cpu
validate: false
YAML

# summary_of DIR: the one rank's summary in the one folder under DIR.
summary_of() { ls "$1"/*/summary_ranks_1_rank_0.json; }

# note: the last value of each key, in the order the keys were first noted.
expect_exit 0 "a plugin that notes facts runs" "$HARNESS" run "$SCRATCH/tiny.yaml" $FIXTURES \
    --output-dir "$SCRATCH/notes"
python3 - "$(summary_of "$SCRATCH/notes")" <<'PY' && pass "component_notes holds the notes" || fail "component_notes"
import json, sys
s = json.load(open(sys.argv[1]))
assert list(s["component_notes"].items()) == [("isa", "avx512_bf16"), ("threads", "1")], s["component_notes"]
PY
expect_exit 0 "a variant that notes nothing" "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/spin"
python3 - "$(summary_of "$SCRATCH/spin")" <<'PY' && pass "component_notes is {} without notes" || fail "empty notes"
import json, sys
assert json.load(open(sys.argv[1]))["component_notes"] == {}
PY

# A note the host refuses fails the step that made it, naming why.
expect_exit 3 "an empty key fails the step" "$HARNESS" run "$SCRATCH/tiny.yaml" $FIXTURES \
    --output-dir "$SCRATCH/bad" --set component.config.misuse=empty_key
expect_err "step failed in the warmup phase, step 1: note needs a non-empty key" "the empty key named"
expect_exit 3 "too many keys fail the step" "$HARNESS" run "$SCRATCH/tiny.yaml" $FIXTURES \
    --output-dir "$SCRATCH/many" --set component.config.misuse=too_many
expect_err "note 'key14': more than 16 keys" "the key over the limit named"

# HARNESS_SHARED_HOST: callbacks in a second source file reach the host
# through the harness_host the file with the init defines, which no other
# module can see.
expect_exit 0 "a plugin of two files runs" "$HARNESS" run "$SCRATCH/tiny.yaml" $FIXTURES \
    --output-dir "$SCRATCH/two" --set component.variant_key=two_files/cpu
python3 - "$(summary_of "$SCRATCH/two")" <<'PY' && pass "the second file noted through the shared host" || fail "two files"
import json, sys
assert json.load(open(sys.argv[1]))["component_notes"] == {"set_by": "two_files_step.c"}
PY
so="$top_builddir/tests/fixtures/abi2_3/.libs/two_files.so"
if nm -D --defined-only "$so" | grep -q harness_host; then fail "harness_host is exported by $so"
else pass "harness_host stays inside the plugin"; fi

# cost in both forms: step_cost (2.3) reads parameters, logs and can fail;
# a plugin built for 2.2 keeps its cost(state, out).
bytes_per_step() {
    python3 -c 'import json, sys; print(int(json.load(open(sys.argv[1]))["throughput"]["bytes_per_step"]))' "$1"
}
expect_exit 0 "a variant with step_cost" "$HARNESS" run "$SCRATCH/tiny.yaml" $FIXTURES --output-dir "$SCRATCH/cost" \
    --set component.variant_key=step_cost/cpu --set component.config.bytes=12345
expect_err "step_cost/cpu: info: step_cost: 12345 bytes per step" "step_cost logs through the context"
[ "$(bytes_per_step "$(summary_of "$SCRATCH/cost")")" = 12345 ] && pass "step_cost's bytes in the summary" \
    || fail "step_cost's bytes: $(bytes_per_step "$(summary_of "$SCRATCH/cost")")"
expect_exit 3 "a failing step_cost fails the run" "$HARNESS" run "$SCRATCH/tiny.yaml" $FIXTURES \
    --output-dir "$SCRATCH/nocost" --set component.variant_key=step_cost/cpu --set component.config.refuse=true
expect_err "step_cost/cpu: cost failed: step_cost: refusing to size the step, as asked" "its message"
expect_exit 0 "a plugin built for ABI 2.2" "$HARNESS" run "$SCRATCH/tiny.yaml" $FIXTURES --output-dir "$SCRATCH/old" \
    --set component.variant_key=abi2_2/cpu
[ "$(bytes_per_step "$(summary_of "$SCRATCH/old")")" = 2022 ] && pass "its cost(state, out) is called" \
    || fail "the 2.2 cost: $(bytes_per_step "$(summary_of "$SCRATCH/old")")"

# set_unload: the callback runs once per process that loaded the plugin,
# after the run, also when the plugin is one of several in its folder.
HARNESS_TEST_UNLOAD_LOG="$SCRATCH/unload.log"
export HARNESS_TEST_UNLOAD_LOG
expect_exit 0 "a run of a plugin with an unload callback" "$HARNESS" run "$SCRATCH/tiny.yaml" $FIXTURES \
    --output-dir "$SCRATCH/unload" --set component.variant_key=unload/cpu
[ "$(cat "$SCRATCH/unload.log")" = unload ] && pass "unload called once after the run" \
    || fail "unload log after a run: $(cat "$SCRATCH/unload.log")"
rm -f "$SCRATCH/unload.log"
expect_exit 0 "list" "$HARNESS" list $FIXTURES
[ "$(cat "$SCRATCH/unload.log")" = unload ] && pass "unload called once by list" \
    || fail "unload log after list: $(cat "$SCRATCH/unload.log")"
finish
