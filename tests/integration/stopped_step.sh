#!/bin/sh
# A run stopped (SIGSTOP) in the middle of a measured step and continued
# seconds later keeps that step as a sample of seconds: the summary and
# stderr warn, naming the window and step (run/stop_watch.c); a run never
# stopped has no such warning (issue 25, item 6).
. "$top_builddir/tests/setup"
cat >"$SCRATCH/spin.yaml" <<'YAML'
schedule: {warmup_steps: 1, wait_steps: 0, measurement_steps: 200, repeat: 2}
profiling: {memory: false, trace: false}
component: {variant_key: spin, config: {duration_ns: 10000000}}
validate: false
YAML
"$HARNESS" run "$SCRATCH/spin.yaml" --output-dir "$SCRATCH/stopped" --quiet >"$SCRATCH/out" 2>"$SCRATCH/err" &
pid=$!
# status.json appears as the run point starts; half a second later the run
# is inside its 4 s of measured steps, even on a loaded machine.
i=0
while ! ls "$SCRATCH"/stopped/*/status.json >/dev/null 2>&1 && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
kill -STOP $pid
sleep 2
kill -CONT $pid
wait $pid
rc=$?
[ $rc -eq 0 ] && pass "a stopped run ends (exit 0)" || fail "a stopped run: exit $rc"
grep -q "^harness: warning: $SCRATCH/stopped/[^:]*: stopped: the process was stopped and continued .* during 1 measured step (window" \
    "$SCRATCH/err" && pass "stderr warns of the stopped step" || { fail "no warning on stderr"; cat "$SCRATCH/err"; }
python3 - "$SCRATCH"/stopped/*/summary_ranks_1_rank_0.json <<'PY' || fail "the summary does not warn of the stop"
import json, sys
s = json.load(open(sys.argv[1]))
w = [x for x in s["warnings"] if x.startswith("stopped:")]
assert len(w) == 1 and "window " in w[0] and " step " in w[0], s["warnings"]
assert s["timing"]["max"] >= 1.5e9, s["timing"]["max"]   # the stop is inside one sample
PY
expect_exit 0 "a run never stopped" "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/plain"
grep -q "stopped:" "$SCRATCH/err" "$SCRATCH"/plain/*/summary_ranks_1_rank_0.json \
    && fail "a run never stopped warns of a stop" || pass "a run never stopped has no stop warning"

# scancel, Slurm's time limit and mpirun end a job with SIGCONT then SIGTERM:
# that SIGCONT is no stop (run/stop_watch.c's rule: one followed within 1 s
# by a stop signal is not reported), and rank 0 still writes the job summary,
# marked interrupted. A real stop continued, then measured on for more than
# 1 s before the SIGTERM, is still reported.
cat >"$SCRATCH/long.yaml" <<'YAML'
schedule: {warmup_steps: 1, wait_steps: 0, measurement_steps: 100000000, repeat: 1}
profiling: {memory: false, trace: false}
component: {variant_key: spin, config: {duration_ns: 10000000}}
validate: false
YAML
# signal_run NAME SIGNAL_SCRIPT: a long run, signalled as the script says ($pid) once measuring.
signal_run() {
    "$HARNESS" run "$SCRATCH/long.yaml" --output-dir "$SCRATCH/$1" --quiet >"$SCRATCH/out" 2>"$SCRATCH/err" &
    pid=$!
    i=0
    while ! ls "$SCRATCH/$1"/*/status.json >/dev/null 2>&1 && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.5
    eval "$2"
    wait $pid
    rc=$?
    [ $rc -eq 143 ] && pass "$1: exit 143" || fail "$1: exit $rc"
}
signal_run cancelled 'kill -CONT $pid; kill -TERM $pid'
grep -q "stopped:" "$SCRATCH/err" "$SCRATCH"/cancelled/*/summary_ranks_1_rank_0.json \
    && fail "SIGCONT then SIGTERM is reported as a stop" || pass "SIGCONT then SIGTERM is no stop"
python3 - "$(ls -d "$SCRATCH"/cancelled/*)" <<'PY' || fail "cancelled: no job summary marked interrupted"
import json, sys
d = sys.argv[1]
job = json.load(open(f"{d}/summary.json"))
assert job["status"] == "interrupted" and job["ranks"][0]["status"] == "interrupted", job["status"]
assert job["ranks"][0]["n"] > 0, job["ranks"][0]
PY
signal_run stopped_then_cancelled 'kill -STOP $pid; sleep 1; kill -CONT $pid; sleep 2; kill -TERM $pid'
grep -q "stopped: the process was stopped and continued .* during 1 measured step" \
    "$SCRATCH"/stopped_then_cancelled/*/summary_ranks_1_rank_0.json \
    && pass "a stop continued 2 s before the SIGTERM is reported" || fail "a stop before a SIGTERM is not reported"
finish
