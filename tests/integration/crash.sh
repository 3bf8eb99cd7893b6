#!/bin/sh
# A plugin that crashes, aborts, calls exit(), hangs or misuses a service:
# exit 3, a message naming variant, callback, phase and step, and a folder
# that says so (status.json and both summaries with what was measured).
. "$top_builddir/tests/setup"

CRASHY="--plugin-path $top_builddir/tests/fixtures/crashy"

# folder_says DIR STATUS N CALLBACK PHASE STEP: status.json and the summaries
# agree on what happened; every JSON file parses; no temporary file is left.
folder_says() {
    python3 - "$@" <<'PY'
import glob, json, os, sys
d, status, n, callback, phase, step = sys.argv[1:7]
st = json.load(open(os.path.join(d, "status.json")))
assert st["status"] == status, st
assert st["complete"] is False and st["exit_code"] == 3, st
assert st["callback"] == (callback or None), st
assert st["phase"] == (phase or None), st
assert st["step"] == (int(step) if step else None), st
assert st["window"] == (1 if phase == "measurement" else None), st   # every measured crash here is in window 2
assert st["summaries_written"] is True, st
s = json.load(open(os.path.join(d, "summary_ranks_1_rank_0.json")))
assert s["status"] == status, s["status"]
assert s["timing"]["n"] == int(n) and len(s["timing"]["samples"]) == int(n), s["timing"]["n"]
assert status in open(os.path.join(d, "profiler_summary_ranks_1_rank_0.txt")).read()
for f in glob.glob(os.path.join(d, "*.json")):
    json.load(open(f))
left = [f for f in os.listdir(d) if ".tmp" in f or f.startswith(".status")]
assert not left, left
PY
}

# crash HOW IN AFTER WANT_ERR STATUS N PHASE STEP [--set ...]
crash() {
    how=$1; in=$2; after=$3; msg=$4; status=$5; n=$6; phase=$7; step=$8; shift 8
    out="$SCRATCH/$how-$in-$after"
    expect_exit 3 "$how in $in: exit 3" "$HARNESS" run "$CONFIGS/crashy.yaml" $CRASHY --output-dir "$out" \
        --set component.variant_key=crashy_$how --set component.config.in=$in \
        --set component.config.after=$after "$@"
    expect_err "harness: crashy_$how/cpu: $msg" "$how in $in: the message names variant, callback and where"
    if folder_says "$out"/* "$status" "$n" "$in" "$phase" "$step"; then pass "$how in $in: the folder says $status"
    else fail "$how in $in: the folder"; fi
}

# After 25 steps over all phases (warmup 2, wait 1, 20 measured, wait 1, 1 measured), the 26th: window 2,
# step 2 in the message (both from 1), step 1 in status.json (the 0-based index in its phase).
crash segv step 25 "step crashed with SIGSEGV (Segmentation fault) in the measurement phase, window 2, step 2" \
    crashed 21 measurement 1
crash abort step 25 "step crashed with SIGABRT" crashed 21 measurement 1
# On window 2's first step: its row in the text table has no statistics, not zeros, and says why.
crash segv step 24 "step crashed with SIGSEGV (Segmentation fault) in the measurement phase, window 2, step 1" \
    crashed 20 measurement 0
grep -Eq '^2 +0 +- +- +- +- +- +- +- +- +- +crashed$' "$SCRATCH"/segv-step-24/*/profiler_summary_ranks_1_rank_0.txt ||
    fail "a window cut short before its first step: '-' and crashed in the text table"
grep -q ' 0 ns ' "$SCRATCH"/segv-step-24/*/profiler_summary_ranks_1_rank_0.txt && fail "no zeros for an empty window"
crash fpe step 25 "step crashed with SIGFPE" crashed 21 measurement 1
crash exit step 25 "step called exit(0) in the measurement phase, window 2, step 2" crashed 21 measurement 1
crash thread_segv step 25 "step crashed with SIGSEGV (Segmentation fault) on a worker thread" crashed 21 measurement 1
crash segv step 1 "step crashed with SIGSEGV (Segmentation fault) in the warmup phase, step 2" crashed 0 warmup 1
crash segv create 0 "create crashed with SIGSEGV" crashed 0 "" ""
crash exit check 0 "check called exit(0)" crashed 0 "" ""
crash abort destroy 0 "destroy crashed with SIGABRT" crashed 40 "" ""

# A hung step: the watchdog ends it after step_timeout_s.
start=$(date +%s)
crash hang step 30 "step did not return within schedule.step_timeout_s (1 s) in the measurement phase, window 2, step 7" \
    timed_out 26 measurement 6 --set schedule.step_timeout_s=1
[ $(($(date +%s) - start)) -le 10 ] && pass "a hang ends within the timeout" || fail "the hang took too long"
# The timeout is per step: steps of 0.4 s under a 1 s timeout run to the end.
expect_exit 0 "slow steps within the timeout" "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/slow" \
    --set schedule.step_timeout_s=1 --set schedule.warmup_steps=0 --set schedule.wait_steps=0 \
    --set schedule.measurement_steps=4 --set component.config.duration_ns=400000000 --quiet
expect_exit 2 "step_timeout_s below 0 is a config error" "$HARNESS" validate "$CONFIGS/crashy.yaml" $CRASHY \
    --set schedule.step_timeout_s=-1
expect_err "schedule.step_timeout_s: expected an integer >= 0" "names the key"

# Service misuse inside step() fails the run with the service's message.
misuse() {
    out="$SCRATCH/$1"
    # Under ASan a failed allocation must return NULL, as it does elsewhere.
    expect_exit 3 "$1 inside step fails the run" env ASAN_OPTIONS="$ASAN_OPTIONS:allocator_may_return_null=1" \
        "$HARNESS" run "$CONFIGS/crashy.yaml" $CRASHY --output-dir "$out" \
        --set component.variant_key=crashy_$1 --set component.config.after=4
    expect_err "step failed in the measurement phase, window 1, step 2: $2" "$1: the service's message"
    python3 -c "import json,sys; s=json.load(open(sys.argv[1])); assert s['status']=='failed', s['status']; \
st=json.load(open(sys.argv[2])); assert st['status']=='failed' and st['complete'] is False; \
assert (st['callback'], st['phase'], st['window'], st['step']) == ('step', 'measurement', 0, 1), st" \
        "$out"/*/summary_ranks_1_rank_0.json "$out"/*/status.json && pass "$1: marked failed" || fail "$1: folder"
}
misuse bad_free "free of a pointer the harness did not allocate"
misuse bad_pop "region_pop without a matching region_push"
misuse huge_alloc "out of host memory allocating"

# Under mpirun every rank marks its own status file and summaries, and the
# job stops with exit 3 (one rank's crash aborts the others).
if grep -q '^#define HAVE_MPI 1' "$top_builddir/build_config.h" && command -v mpirun >/dev/null; then
    out="$SCRATCH/mpi"
    expect_exit 3 "a crash on 2 ranks" timeout 120 mpirun --allow-run-as-root --oversubscribe --mca btl self,vader \
        -np 2 "$HARNESS" run "$CONFIGS/crashy.yaml" $CRASHY --output-dir "$out" --quiet \
        --set component.variant_key=crashy_segv --set component.config.after=25
    expect_err "crashy_segv/cpu: step crashed with SIGSEGV" "the ranks say what crashed"
    python3 - "$out"/* <<'PY' && pass "each rank's files say crashed" || fail "the ranks' files after a crash"
import json, os, sys
d = sys.argv[1]
for status in ("status.json", "status_ranks_2_rank_1.json"):
    st = json.load(open(os.path.join(d, status)))
    assert st["status"] in ("crashed", "running"), st   # a rank MPI_Abort killed first stays "running"
    assert st["complete"] is False, st
st = json.load(open(os.path.join(d, "status.json")))
assert any(json.load(open(os.path.join(d, f)))["status"] == "crashed"
           for f in ("status.json", "status_ranks_2_rank_1.json"))
PY
fi

# Tracked memory a plugin leaves after destroy is called a leak.
expect_exit 0 "a plugin that leaks" "$HARNESS" run "$CONFIGS/crashy.yaml" $CRASHY --output-dir "$SCRATCH/leak" \
    --set component.variant_key=crashy_leak --quiet
expect_err "leak: crashy_leak/cpu left 1 tracked host allocation(s) of 1000 bytes after destroy (tags: leaky_buffer)" \
    "the leak is named on stderr"
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); assert any('leaky_buffer' in w for w in s['warnings'])" \
    "$SCRATCH"/leak/*/summary_ranks_1_rank_0.json && pass "and in the summary's warnings" || fail "leak warning"

# A run that ends well says so in status.json too.
expect_exit 0 "a good run" "$HARNESS" run "$CONFIGS/crashy.yaml" $CRASHY --output-dir "$SCRATCH/good" \
    --set component.config.in=destroy --set component.variant_key=crashy_bad_pop --quiet
python3 -c "import json,sys,os; d=sys.argv[1]; st=json.load(open(d+'/status.json')); \
assert st['status']=='ok' and st['complete'] is True and st['exit_code']==0, st; \
assert not [f for f in os.listdir(d) if f.startswith('.')]" "$SCRATCH"/good/* \
    && pass "status.json says ok" || fail "status.json of a good run"
finish
