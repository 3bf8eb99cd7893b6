#!/bin/sh
# SIGINT stops after the current step and still writes what was measured.
. "$top_builddir/tests/setup"

"$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/exp" --quiet \
    --set schedule.measurement_steps=100000000 >"$SCRATCH/out" 2>"$SCRATCH/err" &
pid=$!
# Wait until it is measuring (the folder exists), then interrupt.
i=0
while [ ! -d "$SCRATCH/exp" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
kill -INT $pid
wait $pid
code=$?
[ $code -eq 130 ] && pass "exit 130 on SIGINT" || fail "exit $code on SIGINT, expected 130"
grep -q 'interrupted after' "$SCRATCH/err" || fail "says it was interrupted"
python3 - "$SCRATCH"/exp/*/summary_ranks_1_rank_0.json <<'PY' || fail "interrupted summary"
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["top_srcdir"], "tests", "tools"))
from summary_samples import samples
s = json.load(open(sys.argv[1]))
assert s["status"] == "interrupted" and s["interrupted"] is True
assert s["timing"]["n"] > 0 and len(samples(sys.argv[1])) == s["timing"]["n"]
PY
finish
