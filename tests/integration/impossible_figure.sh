#!/bin/sh
# An impossible figure on the CPU (report/impossible_figure.h): a machine
# file whose peaks are far below what any run reaches makes the run's FLOP
# rate impossible. The run fails (exit 3) with the message, its folder is
# whole and says so (status.json, both summaries), --allow-above-peak keeps
# it (also through a suite and ab), and compare, ab and record refuse to
# judge a run that was not kept, naming the folder and the figure.
. "${top_builddir:-.}/tests/setup"

CFG="$CONFIGS/rms_norm_tiny.yaml"
expect_exit 0 "calibrate" "$HARNESS" calibrate --quick --output "$SCRATCH/m.json"
# Every FLOP/s peak 1 kFLOP/s: the run's ~100 MFLOP/s is 10^5 times it,
# far beyond any margin (a hand-edited peak drops the recorded spread, so
# the calibrated default, x1.75, applies).
python3 - "$SCRATCH/m.json" "$SCRATCH/tiny.json" <<'PY' || fail "tiny machine file"
import json, sys
m = json.load(open(sys.argv[1]))
assert set(m["peaks"]["flops_reps_per_s"]) == {"min", "median", "max"}, m["peaks"]
assert m["peaks"]["flops_reps_per_s"]["max"] == m["peaks"]["flops_per_s"], m["peaks"]
assert m["busy_at_calibration"] in (True, False, None), m
for k in ("flops_per_s", "bf16_dot_flops_per_s", "amx_bf16_flops_per_s"):
    m["peaks"][k] = 1000.0 if m["peaks"][k] > 0 or k == "flops_per_s" else 0
json.dump(m, open(sys.argv[2], "w"))
PY
HARNESS_MACHINE_FILE="$SCRATCH/tiny.json"
export HARNESS_MACHINE_FILE

# summary DIR PYTHON-CONDITION: s is rank 0's summary JSON, st its status.json.
summary() {
    python3 - "$1" "$2" <<'PY' || fail "summary of $1: $2"
import glob, json, sys
d = glob.glob(sys.argv[1] + "/*/")
assert len(d) == 1, d
s = json.load(open(d[0] + "summary_ranks_1_rank_0.json"))
st = json.load(open(d[0] + "status.json"))
assert eval(sys.argv[2]), (s["status"], s["impossible_figure"], st)
PY
}

# Refused: exit 3, the message the issue gives, a whole folder that says so.
expect_exit 3 "impossible figure: exit 3" "$HARNESS" run "$CFG" --output-dir "$SCRATCH/bad" --quiet
expect_err "harness: impossible figure: FLOP rate " "the error names the figure"
expect_err "is above the peak of 1.0 kFLOP/s (fp32 FLOP/s: $SCRATCH/tiny.json" "the error names the peak and its source"
expect_err "; a measurement or a component is wrong: " "the error says what is wrong"
expect_err "beyond its uncertainty of x1.75" "the error states the margin"
expect_err "re-run \`harness calibrate\` on an idle machine" "a calibrated peak: the error says to recalibrate"
expect_err "--allow-above-peak keeps such a run" "the error names the way out"
grep -q "^$SCRATCH/bad/" "$SCRATCH/out" && pass "--quiet still prints the folder" || fail "no folder printed"
summary "$SCRATCH/bad" 's["status"] == "impossible_figure" and st["status"] == "impossible_figure" and st["exit_code"] == 3'
summary "$SCRATCH/bad" 'st["summaries_written"] and not st["complete"] and s["error"].startswith("impossible figure: FLOP rate")'
summary "$SCRATCH/bad" 's["impossible_figure"]["figure"] == "flops" and s["impossible_figure"]["allowed"] is False'
summary "$SCRATCH/bad" 'abs(s["impossible_figure"]["limit_per_s"] - 1750) < 1e-6 and s["impossible_figure"]["margin"] == 1.75'
summary "$SCRATCH/bad" 's["roofline"]["flops_margin"] == 1.75 and "percent_of_peak_flops" in s["roofline"]["above_peak"]'
ls "$SCRATCH"/bad/*/profiler_summary_ranks_1_rank_0.txt >/dev/null 2>&1 &&
    grep -q "impossible figure: FLOP rate" "$SCRATCH"/bad/*/profiler_summary_ranks_1_rank_0.txt &&
    pass "the text summary says it" || fail "the text summary lacks the impossible figure"

# Kept: exit 0, status ok, the figure marked allowed and among the warnings.
expect_exit 0 "--allow-above-peak keeps the run" "$HARNESS" run "$CFG" --output-dir "$SCRATCH/kept" --quiet \
    --allow-above-peak
expect_err "harness: warning: $SCRATCH/kept/" "kept: --quiet's warnings name the folder"
expect_err ": impossible figure: FLOP rate " "kept: the figure is still said on stderr"
expect_err "; kept by --allow-above-peak" "kept: and that it was kept"
summary "$SCRATCH/kept" 's["status"] == "ok" and st["status"] == "ok" and s["impossible_figure"]["allowed"] is True'
summary "$SCRATCH/kept" 'any(w.startswith("impossible figure: ") for w in s["warnings"])'

# A datasheet-free run with real peaks has no impossible figure (the good file).
expect_exit 0 "a run under real peaks" env HARNESS_MACHINE_FILE="$SCRATCH/m.json" "$HARNESS" run "$CFG" \
    --output-dir "$SCRATCH/good" --quiet
summary "$SCRATCH/good" 's["status"] == "ok" and s["impossible_figure"] is None'

# compare refuses the refused run, naming its folder and the figure (exit 2) ...
expect_exit 2 "compare refuses an impossible figure" "$HARNESS" compare "$SCRATCH/good" "$SCRATCH/bad"
expect_err "$SCRATCH/bad/" "compare's refusal names the folder"
expect_err ": impossible figure: FLOP rate " "compare's refusal names the figure"
expect_err "Not judged" "compare says it does not judge it"
expect_exit 2 "on either side" "$HARNESS" compare "$SCRATCH/bad" "$SCRATCH/good"
# ... and judges the kept one, saying so.
"$HARNESS" compare "$SCRATCH/good" "$SCRATCH/kept" >"$SCRATCH/out" 2>"$SCRATCH/err"
code=$?
[ "$code" -le 1 ] && grep -q "^verdict: " "$SCRATCH/out" && pass "compare judges a kept run (exit $code)" ||
    fail "compare of a kept run: exit $code"
expect_err "harness: warning: compare: $SCRATCH/kept/" "compare says which run it judged anyway"
expect_err "judged although its run measured an impossible figure, kept by --allow-above-peak" \
    "compare says why"

# record refuses it too; the database is left as it was.
expect_exit 2 "record refuses an impossible figure" "$HARNESS" record "$SCRATCH/bad" --db "$SCRATCH/r.db"
expect_err "impossible figure: FLOP rate" "record's refusal names the figure"
expect_exit 0 "record stores a kept run" "$HARNESS" record "$SCRATCH/kept" --db "$SCRATCH/r.db"
expect_err "harness: warning: record: $SCRATCH/kept/" "record says it stored a kept run"

# A summary whose mark is not what a harness writes is bad input, not a pass.
d=$(ls -d "$SCRATCH"/kept/*/)
mkdir -p "$SCRATCH/forged/x"
cp "$d"/* "$SCRATCH/forged/x/"
python3 - "$SCRATCH/forged/x/summary_ranks_1_rank_0.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["impossible_figure"] = {"figure": "flops", "allowed": "yes"}
json.dump(s, open(sys.argv[1], "w"))
PY
expect_exit 2 "a malformed impossible_figure" "$HARNESS" compare "$SCRATCH/good" "$SCRATCH/forged"
expect_err "impossible_figure: expected null or an object with a message and allowed" "says what is malformed"

# A suite passes --allow-above-peak to its runs; without it each run fails.
expect_exit 3 "a suite's runs fail on it" "$HARNESS" run "$CFG" --runs 2 --output-dir "$SCRATCH/suite-bad" --quiet
expect_exit 0 "a suite with --allow-above-peak" "$HARNESS" run "$CFG" --runs 2 --output-dir "$SCRATCH/suite-kept" \
    --quiet --allow-above-peak
python3 - "$SCRATCH/suite-kept" <<'PY' || fail "suite: every run kept"
import glob, json, sys
s = glob.glob(sys.argv[1] + "/*/*/summary_ranks_1_rank_0.json")
assert len(s) == 2 and all(json.load(open(p))["impossible_figure"]["allowed"] for p in s), s
PY

# ab stops on the first such run, naming it (exit 3, the run's code).
expect_exit 3 "ab refuses an impossible figure" "$HARNESS" ab "$CFG" "$CFG" --output-dir "$SCRATCH/ab-bad"
expect_err "ab: round 1, " "ab names the round"
expect_err ": impossible figure: FLOP rate " "ab names the figure"
expect_err "ab does not judge such a run" "ab says it does not judge it"
expect_err "$SCRATCH/ab-bad/round-01-" "ab names the folder"
# With --allow-above-peak it runs and judges every round, saying so.
"$HARNESS" ab "$CFG" "$CFG" --output-dir "$SCRATCH/ab-kept" --allow-above-peak >"$SCRATCH/out" 2>"$SCRATCH/err"
code=$?
[ "$code" -le 1 ] && grep -q "verdict" "$SCRATCH/out" && pass "ab judges kept runs (exit $code)" ||
    { fail "ab --allow-above-peak: exit $code"; head -5 "$SCRATCH/err"; }
expect_err "harness: warning: ab: $SCRATCH/ab-kept/round-01-" "ab says which runs it judged anyway"

# Only `run` (and ab) take the option.
expect_exit 2 "validate does not take --allow-above-peak" "$HARNESS" validate "$CFG" --allow-above-peak
finish
