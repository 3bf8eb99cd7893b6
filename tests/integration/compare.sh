#!/bin/sh
# harness compare on real runs: a 50 us spin against itself, against 80 us and
# back; the three formats; folders of experiments; bad inputs (exit 2).
. "$top_builddir/tests/setup"

# spin DIR DURATION_NS: run spin_tiny into $SCRATCH/DIR; prints the experiment folder.
spin() {
    "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/$1" --quiet \
        --set component.config.duration_ns="$2" --set schedule.measurement_steps=30 \
        --set profiling.trace=false --set profiling.memory=false
}
base=$(spin base 50000) || fail "base run"
same=$(spin same 50000) || fail "second 50 us run"
slow=$(spin slow 80000) || fail "80 us run"

# Two runs of one spin differ by noise only: a generous threshold.
expect_exit 0 "50 us vs 50 us" "$HARNESS" compare "$base" "$same" --threshold 20%
grep -q "no change" "$SCRATCH/out" || fail "50 vs 50: no 'no change' line"
grep -q "^verdict: no change" "$SCRATCH/out" || fail "50 vs 50: overall verdict"

expect_exit 1 "50 us vs 80 us" "$HARNESS" compare "$base" "$slow"
grep -q "spin/cpu .*REGRESSION$" "$SCRATCH/out" || fail "50 vs 80: no REGRESSION line"
grep -q "^verdict: REGRESSION" "$SCRATCH/out" || fail "50 vs 80: overall verdict"
grep -q "^note: rank 0/1: base is spin/cpu {duration_ns=50000}, cand is spin/cpu {duration_ns=80000}" \
    "$SCRATCH/out" || fail "50 vs 80: note on the differing configs"

expect_exit 0 "80 us vs 50 us" "$HARNESS" compare "$slow" "$base"
grep -q "spin/cpu .*IMPROVEMENT$" "$SCRATCH/out" || fail "80 vs 50: no IMPROVEMENT line"

expect_exit 1 "markdown" "$HARNESS" compare "$base" "$slow" --format markdown
head -1 "$SCRATCH/out" | grep -q '^\*\*harness compare: REGRESSION\*\*: 1 regression' || fail "markdown headline"
grep -q '^| \*\*REGRESSION\*\* | `spin/cpu` | `duration_ns=50000` | 0/1 |' "$SCRATCH/out" || fail "markdown row"
grep -q '^| --- | --- |' "$SCRATCH/out" || fail "markdown table header"

expect_exit 1 "json" "$HARNESS" compare "$base" "$slow" --format=json --alpha 0.01
python3 - "$SCRATCH/out" <<'PY' || fail "json report"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "harness.compare/1"
assert r["verdict"] == "regression" and r["exit_code"] == 1, r["verdict"]
assert r["threshold"] == 0.05 and r["alpha"] == 0.01
assert r["counts"]["regression"] == 1
(p,) = r["pairs"]
assert p["verdict"] == "regression"
assert p["variant_key"] == "spin/cpu" and p["config"] == {"duration_ns": 50000}
assert p["cand_config"] == {"duration_ns": 80000}
assert p["base"]["n"] == 30 and p["cand"]["n"] == 30
assert 1.3 < p["ratio"] < 1.9, p["ratio"]
lo, hi = p["ratio_ci95"]
assert lo <= p["ratio"] <= hi
assert p["p"] < 1e-6, p["p"]
assert abs(p["change_pct"] - (p["ratio"] - 1) * 100) < 1e-9
PY

# Folders of experiments, as a CI job leaves them: matched by variant and
# config; two base runs of one key (the newest wins), an unmatched run.
mkdir -p "$SCRATCH/ci_base" "$SCRATCH/ci_cand/nested"
cp -R "$base" "$SCRATCH/ci_base/2026-01-01__00-00-00_00000000"
cp -R "$same" "$SCRATCH/ci_base/2026-01-01__00-00-00_00000000-2"
cp -R "$same" "$SCRATCH/ci_cand/nested/2026-01-02__00-00-00_00000000"
cp -R "$slow" "$SCRATCH/ci_cand/2026-01-02__00-00-00_11111111"
expect_exit 0 "folders of experiments" "$HARNESS" compare "$SCRATCH/ci_base" "$SCRATCH/ci_cand" --threshold 20 \
    --format json
python3 - "$SCRATCH/out" <<'PY' || fail "folders of experiments: json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["matched_by"] == "variant_key,config,rank,world_size"
(p,) = r["pairs"]
assert p["config"] == {"duration_ns": 50000} and p["verdict"] == "no_change", p
assert p["base"]["folder"].endswith("00000000-2"), p["base"]["folder"]
(u,) = r["unmatched"]
assert u["side"] == "cand" and u["config"] == {"duration_ns": 80000}
assert r["counts"]["unmatched_cand"] == 1
assert any("2 runs of spin/cpu" in n for n in r["notes"]), r["notes"]
PY
expect_exit 0 "folders of experiments: text" "$HARNESS" compare "$SCRATCH/ci_base" "$SCRATCH/ci_cand" --threshold 20
grep -q "^unmatched (cand only): spin/cpu {duration_ns=80000}" "$SCRATCH/out" || fail "text: unmatched line"

# A failed run on one side: FAILED, exit 1.
cp -R "$same" "$SCRATCH/failed"
python3 - "$SCRATCH/failed/summary_ranks_1_rank_0.json" <<'PY' || fail "marking a run failed"
import json, sys
s = json.load(open(sys.argv[1]))
s["status"], s["error"] = "failed", "step 7 of the measurement phase failed"
json.dump(s, open(sys.argv[1], "w"))
PY
expect_exit 1 "a failed candidate" "$HARNESS" compare "$base" "$SCRATCH/failed" --threshold 20
grep -q "^FAILED: spin/cpu {duration_ns=50000} rank 0/1: cand status failed (step 7" "$SCRATCH/out" ||
    fail "failed candidate: reason"

# Bad input: exit 2, the message names the path.
bad() {  # bad MESSAGE DESC ARGS...
    msg=$1; desc=$2; shift 2
    expect_exit 2 "$desc" "$HARNESS" compare "$@"
    expect_err "$msg" "$desc: message"
    grep -q '^harness: ' "$SCRATCH/err" || fail "$desc: message starts with 'harness: '"
}
bad "harness: $SCRATCH/nope: no such folder" "missing folder" "$base" "$SCRATCH/nope"
mkdir "$SCRATCH/empty"
bad "harness: $SCRATCH/empty: no summary_ranks_N_rank_r.json" "folder without summaries" "$SCRATCH/empty" "$base"
cp -R "$same" "$SCRATCH/corrupt"
printf '{"schema": "harness.summary/1",\n "rank": 0,,' >"$SCRATCH/corrupt/summary_ranks_1_rank_0.json"
bad "harness: $SCRATCH/corrupt/summary_ranks_1_rank_0.json:2:" "invalid JSON" "$base" "$SCRATCH/corrupt"
printf '{"schema": "harness.trace/1"}' >"$SCRATCH/corrupt/summary_ranks_1_rank_0.json"
bad "summary_ranks_1_rank_0.json: schema \"harness.trace/1\" is not \"harness.summary/1\"" "wrong schema" \
    "$base" "$SCRATCH/corrupt"
mkdir "$SCRATCH/other"
cp -R "$slow" "$SCRATCH/other/exp"
bad "no run matches a run of" "nothing matches" "$SCRATCH/ci_base" "$SCRATCH/other"
bad "expected BASE and CAND" "one folder" "$base"
bad "--threshold: expected a percentage" "bad threshold" "$base" "$same" --threshold five
bad "--alpha: expected a number in (0, 1)" "bad alpha" "$base" "$same" --alpha 1.5
bad "--format: expected text, markdown or json" "bad format" "$base" "$same" --format xml
bad "compare: unknown option" "unknown option" "$base" "$same" --frobnicate

expect_exit 0 "--help" "$HARNESS" compare --help
grep -q "^usage: harness compare BASE CAND" "$SCRATCH/out" || fail "--help: usage"
finish
