#!/bin/sh
# noop and spin: the harness's own overhead and its timing accuracy, checked
# only in ways a noisy machine cannot break (never an upper bound on time).
. "$top_builddir/tests/setup"

expect_exit 0 "noop" "$HARNESS" run "$top_srcdir/configs/noop.yaml" --output-dir "$SCRATCH/noop" \
    --set schedule.measurement_steps=200 --set schedule.repeat=1 --quiet
expect_exit 0 "spin" "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/spin" --quiet
python3 - "$SCRATCH"/noop/*/summary_ranks_1_rank_0.json "$SCRATCH"/spin/*/summary_ranks_1_rank_0.json <<'PY' || fail "calibration summaries"
import json, sys
noop, spin = (json.load(open(p)) for p in sys.argv[1:3])
assert noop["timing"]["n"] == 200 and noop["timing"]["median"] >= 0
assert noop["validation"]["status"] == "skipped"
assert spin["timing"]["n"] == 20
assert spin["timing"]["min"] >= 50000, spin["timing"]["min"]   # a spin can be late, never early
PY

# The same auto-stopping rule users get: a loose target converges early.
expect_exit 0 "auto measurement" "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/auto" --quiet \
    --set schedule.measurement_steps=auto --set schedule.stopping.max_rel_ci=0.5 --set schedule.stopping.min_steps=15
python3 - "$SCRATCH"/auto/*/summary_ranks_1_rank_0.json <<'PY' || fail "auto stopping"
import json, sys
s = json.load(open(sys.argv[1]))
w = s["timing"]["windows"][0]
assert s["schedule"]["measurement_steps"] == "auto"
assert w["stop_reason"] in ("converged", "max_time"), w["stop_reason"]
assert w["n"] >= 15
PY
finish
