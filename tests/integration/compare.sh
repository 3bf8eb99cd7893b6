#!/bin/sh
# harness compare on real runs: a 50 us spin against itself and against
# 80 us, as single runs (their windows are the replicates: SAME can be
# said, a change cannot) and as five runs a side (`harness run --runs 5`:
# REGRESSION and IMPROVEMENT); one window a run is AMBIGUOUS; interference
# that could explain a change is AMBIGUOUS, a load warning alone is not;
# the three formats; folders of experiments; bad inputs (exit 2).
. "$top_builddir/tests/setup"

# spin DIR DURATION_NS [REPEAT] [RUNS]: run spin_tiny into $SCRATCH/DIR with
# REPEAT windows (default 20) of 100 steps, RUNS times (default 1: one
# experiment folder; more: a suite folder of them); prints the folder.
# Why so many steps and windows: on a loaded machine a neighbour that keeps
# waking on the spin's CPU (make check's other tests) takes part of every
# step for a millisecond or more, and a 1.5 ms window (30 steps) then reads
# up to 2x. That one window broke "50 us vs 50 us" with 5 windows a side:
# the interval's ends are the 3rd of the 25 pairwise ratios, and it made 5.
# A window of 100 steps moves only if the burst lasts 2.5 ms, and with 20
# windows a side the ends are the 128th of 400 ratios (6 moved windows a
# side leave them be), and the 9th of 60 against 3 runs (2 windows): SAME
# still needs every window within the threshold but those few.
# Every summary of a suite is then labelled duration_ns=50000, so that 80 us
# runs match 50 us ones as a slower build of one benchmark would, and its
# recorded noise bound is cleared: on a CI runner loaded by the sanitizer
# suites, preemptions could make the interference veto say AMBIGUOUS where
# these cases check the verdict on the samples (the veto has its own cases
# below). A single run keeps its bound: its windows never call a change, so
# the veto never reads it.
spin() {
    dir=$("$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/$1" --quiet --runs "${4:-1}" \
        --set component.config.duration_ns="$2" --set schedule.measurement_steps=100 \
        --set schedule.repeat="${3:-20}" --set profiling.trace=false --set profiling.memory=false \
        2>>"$SCRATCH/spin.err") || return 1
    [ "${4:-1}" -gt 1 ] || { echo "$dir"; return 0; }
    python3 - "$dir" <<'PY' || return 1
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*/summary_ranks_1_rank_0.json"):
    s = json.load(open(f))
    s["component"]["config"]["duration_ns"] = 50000
    for o in [s.get("noise")] + [w.get("noise") for w in s["timing"].get("windows", [])]:
        if isinstance(o, dict) and "median_shift_bound" in o:
            o["median_shift_bound"] = 0
    json.dump(s, open(f, "w"))
PY
    echo "$dir"
}
base=$(spin base 50000) || fail "base run"
same=$(spin same 50000) || fail "second 50 us run"
slow=$(spin slow 80000) || fail "80 us run"
same2=$(spin same2 50000) || fail "third 50 us run"
runs_base=$(spin runs_base 50000 5 5) || fail "five 50 us runs"
runs_slow=$(spin runs_slow 80000 5 5) || fail "five 80 us runs"

# Two runs of one spin differ by noise only: a generous threshold.
expect_exit 0 "50 us vs 50 us" "$HARNESS" compare "$base" "$same" --threshold 20%
grep -q "spin/cpu .*20/20 windows .*SAME$" "$SCRATCH/out" || fail "50 vs 50: no SAME line on 20/20 windows"
grep -q "^verdict: SAME" "$SCRATCH/out" || fail "50 vs 50: overall verdict"

# One run a side: the windows share each run's offset, so 60% slower is
# AMBIGUOUS, saying how to get a verdict.
expect_exit 1 "50 us vs 80 us, one run a side" "$HARNESS" compare "$base" "$slow"
grep -q "^AMBIGUOUS (single runs): spin/cpu {duration_ns=50000} rank 0/1: each side is one run: its windows share" \
    "$SCRATCH/out" || fail "50 vs 80, single runs: the reason"
grep -q "harness run --runs 5) or use harness ab" "$SCRATCH/out" || fail "50 vs 80, single runs: what to do"
grep -q "^note: rank 0/1: base is spin/cpu {duration_ns=50000}, cand is spin/cpu {duration_ns=80000}" \
    "$SCRATCH/out" || fail "50 vs 80: note on the differing configs"
expect_exit 0 "80 us vs 50 us, one run a side, --on-ambiguous pass" "$HARNESS" compare "$slow" "$base" \
    --on-ambiguous pass
grep -q "^AMBIGUOUS (single runs): .*reaches beyond 1 - 5%" "$SCRATCH/out" || fail "80 vs 50: the reason"

# Five runs a side: the runs are the replicates.
expect_exit 1 "50 us vs 80 us, five runs a side" "$HARNESS" compare "$runs_base" "$runs_slow"
grep -q "spin/cpu .*5/5 runs .*REGRESSION$" "$SCRATCH/out" || fail "50 vs 80: no REGRESSION line"
grep -q "^verdict: REGRESSION" "$SCRATCH/out" || fail "50 vs 80: overall verdict"
expect_exit 0 "80 us vs 50 us, five runs a side" "$HARNESS" compare "$runs_slow" "$runs_base"
grep -q "spin/cpu .*IMPROVEMENT$" "$SCRATCH/out" || fail "80 vs 50: no IMPROVEMENT line"

expect_exit 1 "markdown" "$HARNESS" compare "$runs_base" "$runs_slow" --format markdown
head -1 "$SCRATCH/out" | grep -q '^\*\*harness compare: REGRESSION\*\*: 1 regression' || fail "markdown headline"
grep -q '^| \*\*REGRESSION\*\* | `spin/cpu` | `duration_ns=50000` | 0/1 |' "$SCRATCH/out" || fail "markdown row"
grep -q '^| --- | --- |' "$SCRATCH/out" || fail "markdown table header"

expect_exit 1 "json" "$HARNESS" compare "$runs_base" "$runs_slow" --format=json --alpha 0.01
python3 - "$SCRATCH/out" <<'PY' || fail "json report"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "harness.compare/2"
assert r["verdict"] == "regression" and r["exit_code"] == 1, r["verdict"]
assert r["threshold_pct"] == 5 and r["alpha"] == 0.01 and r["on_ambiguous"] == "fail"
assert r["counts"]["regression"] == 1
(p,) = r["pairs"]
assert p["verdict"] == "regression"
assert p["variant_key"] == "spin/cpu" and p["config"] == {"duration_ns": 50000}
assert p["base"]["n"] == 500 and p["cand"]["n"] == 500
assert p["replicates"] == {"unit": "runs", "base": 5, "cand": 5}, p["replicates"]
assert 1.3 < p["ratio"] < 1.9, p["ratio"]
lo, hi = p["ratio_interval"]
assert lo <= p["ratio"] <= hi
# 5 against 5 runs: the Moses interval's coverage at alpha 0.01 is
# 1 - 2/252 (k = 1), and complete separation gives the smallest p, 2/252.
assert abs(p["ratio_interval_coverage"] - (1 - 2 / 252)) < 1e-12, p["ratio_interval_coverage"]
assert abs(p["p"] - 2 / 252) < 1e-12 and abs(p["min_p"] - 2 / 252) < 1e-12, p["p"]
assert abs(p["change_pct"] - (p["ratio"] - 1) * 100) < 1e-9
assert p["q_fdr"] is None      # one pair: nothing to adjust for
PY

# One window a run (repeat: 1) cannot reach alpha 0.05 however far apart:
# AMBIGUOUS, exit 1, or 0 with --on-ambiguous pass.
one_b=$(spin one_b 50000 1) || fail "one-window base run"
one_c=$(spin one_c 80000 1) || fail "one-window cand run"
expect_exit 1 "one window a side" "$HARNESS" compare "$one_b" "$one_c"
grep -q "^AMBIGUOUS (single runs): spin/cpu {duration_ns=50000} rank 0/1: each side is one run" \
    "$SCRATCH/out" || fail "one window: the reason"
grep -q "give each side 4 or more" "$SCRATCH/out" && fail "one window: more windows would not help"
expect_exit 0 "one window a side, --on-ambiguous pass" "$HARNESS" compare "$one_b" "$one_c" --on-ambiguous pass
grep -q "^verdict: AMBIGUOUS" "$SCRATCH/out" || fail "one window, pass: overall verdict"

# A tail-only change: the candidate's every 5th step 1.3x (the median
# unmoved). The default report says SAME and names the tail (a TAIL line,
# the JSON's tail.moved_alone); --metric p90 gates on it: REGRESSION. The
# samples are made, not measured: a loaded machine's own tail (a preempted
# step in the top tenth of a window) would hide a 1.3x one (their recorded
# noise is already cleared by spin()).
cp -R "$runs_base" "$SCRATCH/tail_base"
cp -R "$runs_base" "$SCRATCH/tail"
python3 - "$SCRATCH/tail_base" "$SCRATCH/tail" <<'PY' || fail "giving the runs a tail"
import glob, json, sys
for root, tail in ((sys.argv[1], 1.0), (sys.argv[2], 1.3)):
    for f in glob.glob(root + "/*/summary_ranks_1_rank_0.json"):
        s = json.load(open(f))
        made = [50000 * (1 + 0.002 * ((i * 7919) % 11) / 11) for i in range(len(s["timing"]["samples"]))]
        s["timing"]["samples"] = [x * tail if i % 5 == 0 else x for i, x in enumerate(made)]
        json.dump(s, open(f, "w"))
PY
expect_exit 0 "a tail-only change, on the median" "$HARNESS" compare "$SCRATCH/tail_base" "$SCRATCH/tail"
grep -q "^verdict: SAME" "$SCRATCH/out" || fail "tail only: the median is SAME"
grep -q "^TAIL: spin/cpu {duration_ns=50000} rank 0/1: the p90 moved +[23][0-9]\.[0-9]% .*(REGRESSION by the p90) while the median did not; gate on the tail with --metric p90" \
    "$SCRATCH/out" || fail "tail only: the TAIL line"
expect_exit 0 "a tail-only change, json" "$HARNESS" compare "$SCRATCH/tail_base" "$SCRATCH/tail" --format json
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["pairs"][0]; assert p["tail"]["moved_alone"] is True and p["tail"]["verdict"] == "regression", p["tail"]' \
    "$SCRATCH/out" || fail "tail only: tail.moved_alone in the JSON"
expect_exit 1 "a tail-only change, --metric p90" "$HARNESS" compare "$SCRATCH/tail_base" "$SCRATCH/tail" --metric p90
grep -q "^verdict: REGRESSION" "$SCRATCH/out" || fail "tail only: REGRESSION on the p90"
grep -q "base p90  *cand p90" "$SCRATCH/out" || fail "tail only: the columns name the metric"

# A load warning alone vetoes nothing; interference that could have
# raised the candidate's median by 50% (each run's noise bound) could
# explain the +60%: AMBIGUOUS, naming the evidence.
cp -R "$runs_slow" "$SCRATCH/busy"
python3 - "$SCRATCH/busy" <<'PY' || fail "marking the runs busy"
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*/summary_ranks_1_rank_0.json"):
    s = json.load(open(f))
    s["warnings"].append("oversubscribed: load average 3.00 from other work (test)")
    json.dump(s, open(f, "w"))
PY
expect_exit 1 "a load warning alone" "$HARNESS" compare "$runs_base" "$SCRATCH/busy"
grep -q "^verdict: REGRESSION" "$SCRATCH/out" || fail "a load warning alone: still REGRESSION"
python3 - "$SCRATCH/busy" <<'PY' || fail "marking the runs disturbed"
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*/summary_ranks_1_rank_0.json"):
    s = json.load(open(f))
    s["noise"]["median_shift_bound"] = 0.5
    s["noise"]["evidence"] = "900 involuntary context switches in 500 measured steps (test)"
    json.dump(s, open(f, "w"))
PY
expect_exit 1 "a disturbed candidate" "$HARNESS" compare "$runs_base" "$SCRATCH/busy" --format markdown
grep -q '^\*\*harness compare: AMBIGUOUS (interference)\*\*' "$SCRATCH/out" || fail "disturbed: markdown headline"
grep -q 'interference could account for the +[0-9.]*% change: .*(900 involuntary context switches' \
    "$SCRATCH/out" || fail "disturbed: the reason"
# what a real run writes: counts, a bound between 0 and 1, the evidence in words
python3 - "$base/summary_ranks_1_rank_0.json" <<'PY' || fail "a run's noise evidence"
import json, sys
n = json.load(open(sys.argv[1]))["noise"]
assert n["involuntary_switches"] >= 0 and n["measured_steps"] == 2000, n
assert 0 <= n["median_shift_bound"] <= 1 and "involuntary context switches in 2000 measured steps" in n["evidence"], n
w = json.load(open(sys.argv[1]))["timing"]["windows"][0]["noise"]
assert w["measured_steps"] == 100 and 0 <= w["median_shift_bound"] <= 1, w
PY

# Folders of experiments, as a CI job leaves them: matched by variant and
# config; three base runs of one key (their medians are the replicates, the
# newest is shown), an unmatched run.
mkdir -p "$SCRATCH/ci_base" "$SCRATCH/ci_cand/nested"
cp -R "$base" "$SCRATCH/ci_base/2026-01-01__00-00-00_00000000"
cp -R "$same2" "$SCRATCH/ci_base/2025-12-31__00-00-00_00000000"
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
assert p["config"] == {"duration_ns": 50000} and p["verdict"] == "same", p
assert p["replicates"] == {"unit": "runs/windows", "base": 3, "cand": 20}, p["replicates"]
assert p["base"]["folder"].endswith("00000000-2"), p["base"]["folder"]
(u,) = r["unmatched"]
assert u["side"] == "cand" and u["config"] == {"duration_ns": 80000}
assert r["counts"]["unmatched_cand"] == 1
assert any("3 runs of spin/cpu" in n for n in r["notes"]), r["notes"]
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

# A run killed before its summaries (SIGKILL, out of memory) leaves only
# status.json, "running": FAILED, exit 1, alone or among other runs; never
# skipped as if it had not been there.
cp -R "$same" "$SCRATCH/killed"
rm -f "$SCRATCH"/killed/summary*.json "$SCRATCH"/killed/summary.txt "$SCRATCH"/killed/profiler_*
python3 - "$SCRATCH/killed/status.json" <<'PY' || fail "marking a run killed"
import json, sys
s = json.load(open(sys.argv[1]))
s["status"] = "running"
json.dump(s, open(sys.argv[1], "w"))
PY
expect_exit 1 "a killed candidate" "$HARNESS" compare "$base" "$SCRATCH/killed"
grep -q "^FAILED (cand): $SCRATCH/killed: no summary, status killed: killed (SIGKILL, out of memory, a reboot) \
before writing its summary (it says running, but its process (pid" "$SCRATCH/out" ||
    fail "killed candidate: named, with its status"
grep -q "^verdict: FAILED: .*1 failed" "$SCRATCH/out" || fail "killed candidate: the verdict"
cp -R "$SCRATCH/killed" "$SCRATCH/ci_cand/2026-01-03__00-00-00_22222222"
expect_exit 1 "a killed run among others" "$HARNESS" compare "$SCRATCH/ci_base" "$SCRATCH/ci_cand" --threshold 20 \
    --format json
python3 - "$SCRATCH/out" <<'PY' || fail "killed run among others: json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "failed" and r["counts"]["failed"] == 1, r["counts"]
(k,) = r["incomplete"]
assert k["side"] == "cand" and k["status"] == "killed" and k["variant_key"] == "spin/cpu", k
assert k["folder"].endswith("22222222"), k
PY
rm -rf "$SCRATCH/ci_cand/2026-01-03__00-00-00_22222222"

# A job of 2 ranks is trusted only when every rank's status file says ok:
# each is the rank's last word, and a rank without a summary is FAILED,
# named with its folder. job DIR: a 2-rank folder made of $same, both ranks ok.
job() {
    mkdir -p "$1" && cp "$same/resolved_config.yaml" "$1/"
    python3 - "$same" "$1" <<'PY'
import json, sys
src, dst = sys.argv[1:]
s, st = json.load(open(f"{src}/summary_ranks_1_rank_0.json")), json.load(open(f"{src}/status.json"))
for r in range(2):
    s["rank"], s["world_size"] = r, 2
    json.dump(s, open(f"{dst}/summary_ranks_2_rank_{r}.json", "w"))
    json.dump(st, open(f"{dst}/" + ("status.json" if r == 0 else "status_ranks_2_rank_1.json"), "w"))
PY
}
# status FILE STATUS [ERROR]: rewrite a status file as a run that ended so would.
status() {
    python3 - "$@" <<'PY'
import json, sys
p, status, error = sys.argv[1], sys.argv[2], (sys.argv[3:] or [None])[0]
s = json.load(open(p))
s.update(status=status, complete=status == "ok", error=error)
json.dump(s, open(p, "w"))
PY
}
job "$SCRATCH/job_ok" && job "$SCRATCH/job_bad" || fail "making 2-rank jobs"
expect_exit 0 "a job of 2 ranks against itself" "$HARNESS" compare "$SCRATCH/job_ok" "$SCRATCH/job_ok"
# Rank 0's summary could not be written; rank 1 was killed after writing its
# own ("ok"): once SAME, exit 0, with rank 0 "unmatched (base only)".
rm "$SCRATCH/job_bad/summary_ranks_2_rank_0.json"
status "$SCRATCH/job_bad/status.json" failed "cannot write summary_ranks_2_rank_0.json: No space left on device"
status "$SCRATCH/job_bad/status_ranks_2_rank_1.json" running
expect_exit 1 "a job whose ranks failed" "$HARNESS" compare "$SCRATCH/job_ok" "$SCRATCH/job_bad" --threshold 20
grep -q "^FAILED (cand): $SCRATCH/job_bad: rank 0/2: no summary, status failed: stopped before writing its summary \
(cannot write summary_ranks_2_rank_0.json: No space left on device); variant spin/cpu$" "$SCRATCH/out" ||
    fail "a rank without a summary: named with its folder"
grep -q "^FAILED: spin/cpu {duration_ns=50000} rank 1/2: cand status killed ($SCRATCH/job_bad/\
status_ranks_2_rank_1.json says killed, the summary ok: it says running, but its process (pid [0-9]* on .*) is gone)$" \
    "$SCRATCH/out" || fail "a rank whose status file says running over its summary's ok"
grep -q "unmatched" "$SCRATCH/out" && fail "a rank that left no summary is listed as unmatched"
grep -q "^verdict: FAILED: 0 regressions, 0 improvements, 0 same, 2 failed (" "$SCRATCH/out" || fail "job: verdict"
expect_exit 1 "a job whose ranks failed: json" "$HARNESS" compare "$SCRATCH/job_ok" "$SCRATCH/job_bad" --format json
python3 - "$SCRATCH/out" <<'PY' || fail "a job whose ranks failed: json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "failed" and r["counts"]["failed"] == 2 and not r["unmatched"], r["counts"]
(k,) = r["incomplete"]
assert (k["rank"], k["world_size"], k["status"]) == (0, 2, "failed") and "No space" in k["error"], k
(p,) = r["pairs"]
assert p["rank"] == 1 and p["cand"]["status"] == "killed" and p["verdict"] == "failed", p
PY
# The summary says ok, the status file failed (a later file hit a full disk).
job "$SCRATCH/job_late" && status "$SCRATCH/job_late/status.json" failed "cannot write profiler_trace: No space"
expect_exit 1 "a rank that failed after its summary" "$HARNESS" compare "$SCRATCH/job_ok" "$SCRATCH/job_late"
grep -q "^FAILED: spin/cpu {duration_ns=50000} rank 0/2: cand status failed ($SCRATCH/job_late/status.json says \
failed, the summary ok: cannot write profiler_trace: No space)$" "$SCRATCH/out" || fail "failed after its summary"
# A rank with neither file (its process never got that far).
job "$SCRATCH/job_gone" && rm "$SCRATCH"/job_gone/*rank_1.json
expect_exit 1 "a rank with no files" "$HARNESS" compare "$SCRATCH/job_gone" "$SCRATCH/job_ok"
grep -q "^FAILED (base): $SCRATCH/job_gone: rank 1/2: no summary, status missing: no status file either" \
    "$SCRATCH/out" || fail "a rank with no files: named"

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
bad "--threshold 0.05: the unit is percent, so this is 0.05%; write 5 for 5%" "a fraction as threshold" \
    "$base" "$same" --threshold 0.05
# on made samples: a loaded machine moves a measured window by more than 0.5%
expect_exit 0 "0.5% said with its sign" "$HARNESS" compare "$SCRATCH/tail_base" "$SCRATCH/tail_base" --threshold 0.5%
bad "--on-ambiguous: expected fail, pass or pass-interference, got 'maybe'" "bad --on-ambiguous" "$base" "$same" --on-ambiguous maybe
bad "--metric: expected median, p90, p99, mean or energy, got 'p50'" "bad --metric" "$base" "$same" --metric p50
bad "--alpha: expected a number in (0, 1)" "bad alpha" "$base" "$same" --alpha 1.5
bad "--format: expected text, markdown, json or junit" "bad format" "$base" "$same" --format xml
bad "compare: unknown option" "unknown option" "$base" "$same" --frobnicate

expect_exit 0 "--help" "$HARNESS" compare --help
grep -q "^usage: harness compare BASE CAND" "$SCRATCH/out" || fail "--help: usage"
grep -q "AMBIGUOUS .*exit 1" "$SCRATCH/out" || fail "--help: AMBIGUOUS's exit code"
grep -q "unit of replication" "$SCRATCH/out" || fail "--help: the unit of replication"
finish
