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
finish
