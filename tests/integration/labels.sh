#!/bin/sh
# Labels that say what they count (issue 40, item 8): the communication
# table counts the calls of the measured steps, and says so; the memory
# report counts steps from 1, as everything written for people does; with
# --quiet, the warnings of a single run and of a --runs suite name their
# folder, as the README says.
. "$top_builddir/tests/setup"

# allreduce alone: one all_reduce a step, 7 x 2 measured, 2 warmup, a check.
cat >"$SCRATCH/ar.yaml" <<'YAML'
schedule: {warmup_steps: 2, wait_steps: 0, measurement_steps: 7, repeat: 2}
profiling: {trace: false, memory: true}
component: {variant_key: allreduce, config: {bytes: 4096}}
YAML
dir=$("$HARNESS" run "$SCRATCH/ar.yaml" --quiet --output-dir "$SCRATCH/ar" 2>"$SCRATCH/err") ||
    fail "allreduce run: $(cat "$SCRATCH/err")"
txt="$dir/profiler_summary_ranks_1_rank_0.txt"
grep -q "^communication (1 rank; the calls of the measured steps; " "$txt" &&
    pass "the communication table says it counts the measured steps' calls" ||
    { fail "communication label:"; grep communication "$txt"; }
calls=$(awk '$1 == "all_reduce" {print $4}' "$txt")
[ "$calls" = 14 ] && pass "... and counts exactly them (14)" || fail "all_reduce calls: '$calls', expected 14"

# The memory report's text counts steps from 1 (its first sample is before step 1).
html="$dir/profiler_memory_ranks_1_rank_0.html"
grep -q ">from step 1 to step [0-9]* (steps count from 1)<" "$html" && grep -q ">step (from 1, all phases)<" "$html" &&
    ! grep -q "count from 0" "$html" && pass "the memory report counts steps from 1" ||
    { fail "memory report steps:"; grep -o "from step[^<]*" "$html"; }

# noop's median step is a few clock ticks: the near-resolution warning fires.
cat >"$SCRATCH/noop.yaml" <<'YAML'
schedule: {warmup_steps: 2, wait_steps: 1, measurement_steps: 50, repeat: 2}
profiling: {trace: false, memory: false}
component: {variant_key: noop}
YAML
# check_quiet OUT ERR DESC: every warning names one of the printed folders.
check_quiet() {
    python3 - "$1" "$2" <<'PY' && pass "$3" || { fail "$3:"; sed 's/^/  /' "$1" "$2"; }
import sys
out = open(sys.argv[1]).read().split()
warnings = [l for l in open(sys.argv[2]).read().splitlines() if l.startswith("harness: warning: ")]
assert warnings, "no warnings"
for l in warnings:
    rest = l[len("harness: warning: "):]
    assert any(rest.startswith(d + "/") or rest.startswith(d + ": ") for d in out), l
PY
}
"$HARNESS" run "$SCRATCH/noop.yaml" --quiet --output-dir "$SCRATCH/one" >"$SCRATCH/out" 2>"$SCRATCH/err" ||
    fail "one quiet run"
check_quiet "$SCRATCH/out" "$SCRATCH/err" "--quiet: a single run's warnings name its folder"
"$HARNESS" run "$SCRATCH/noop.yaml" --quiet --runs 2 --output-dir "$SCRATCH/two" >"$SCRATCH/out" 2>"$SCRATCH/err" ||
    fail "quiet --runs 2"
n=$(grep -c "median step" "$SCRATCH/err")
[ "$n" -ge 2 ] && pass "--runs 2 --quiet: a warning per run" || fail "--runs 2 --quiet: $n warnings"
check_quiet "$SCRATCH/out" "$SCRATCH/err" "--quiet --runs: each run's warnings name its folder"

finish
