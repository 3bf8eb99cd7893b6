#!/bin/sh
# A write that fails after the measurement, late in the folder's making: no
# file may still say ok. The text summary failing leaves the JSON summary
# saying failed (it is written last); the job summary failing rewrites the
# rank's summaries as failed. The failure is forced by a directory standing
# where the file must go, made while the run measures.
. "$top_builddir/tests/setup"

# block NAME: run 8 steps of 100 ms and, once the folder exists, put a
# directory at NAME in it; sets $dir.
block() {
    "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/$1" --quiet --set schedule.warmup_steps=0 \
        --set schedule.wait_steps=0 --set schedule.measurement_steps=8 --set component.config.duration_ns=100000000 \
        >"$SCRATCH/out" 2>"$SCRATCH/err" &
    pid=$!
    i=0
    while ! ls "$SCRATCH/$1"/*/status.json >/dev/null 2>&1 && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    dir=$(ls -d "$SCRATCH/$1"/*)
    mkdir "$dir/$1"
    wait $pid
    code=$?
    [ $code -eq 3 ] && pass "$1 cannot be written: exit 3" || fail "$1 cannot be written: exit $code"
}

# says_failed DIR WHAT: the rank's JSON summary and status.json say failed, naming WHAT.
says_failed() {
    python3 - "$1" "$2" <<'PY'
import json, os, sys
d, what = sys.argv[1:3]
s = json.load(open(os.path.join(d, "summary_ranks_1_rank_0.json")))
assert s["status"] == "failed" and what in s["error"], (s["status"], s["error"])
assert s["timing"]["n"] == 8, s["timing"]["n"]     # what was measured is kept
st = json.load(open(os.path.join(d, "status.json")))
assert st["status"] == "failed" and st["complete"] is False and what in st["error"], st
PY
}

block profiler_summary_ranks_1_rank_0.txt
says_failed "$dir" profiler_summary_ranks_1_rank_0.txt && pass "text summary lost: the JSON says failed" ||
    fail "the JSON summary after the text one failed"

block summary.json
says_failed "$dir" summary.json && pass "job summary lost: the rank's summaries rewritten as failed" ||
    fail "the rank's summaries after the job summary failed"
grep -q 'failed' "$dir/profiler_summary_ranks_1_rank_0.txt" || fail "the text summary says failed too"
finish
