#!/bin/sh
# A rank whose peer dies keeps what it measured (issue 25, items 5 and 7).
#
# When one rank of an Open MPI job dies, mpirun sends the others SIGCONT,
# one second later SIGTERM and one second after that SIGKILL (Open MPI 4's
# odls_base_sigkill_timeout, default 1). The others are then waiting inside
# a collective or a meeting that will never complete, where "stop after the
# current step" never comes; the guard's watchdog abandons such a wait
# HARNESS_GUARD_WAITING_GRACE_MS after the SIGTERM and the summaries of the
# windows measured so far are written, marked interrupted, before the
# SIGKILL. So a summary on disk here is the proof that it fit in mpirun's
# second: without it SIGKILL would have left status.json "running".
#
# Also: a signal to one rank during warmup of a component whose steps call
# collectives ends the job in seconds (warmup meetings), not at the 30 s
# final wait.
. "$top_builddir/tests/setup"
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
grep -q '^#define HAVE_MPI 1' "$top_builddir/build_config.h" || { echo "skip: built without MPI"; exit 77; }
MPIRUN="env ASAN_OPTIONS=detect_leaks=0 mpirun --allow-run-as-root --oversubscribe --mca btl self,vader"
mkdir -p "$SCRATCH/plugins"
cp "$top_builddir/tests/fixtures/.libs/rank_fail.so" "$SCRATCH/plugins/"

# rank_pid DIR R: the pid in rank R's status file, once it exists (60 s at most).
rank_pid() {
    name=status_ranks_2_rank_$2.json
    [ "$2" = 0 ] && name=status.json
    i=0
    while ! ls "$1"/*/"$name" >/dev/null 2>&1 && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$1"/*/"$name" 2>/dev/null
}

# check_rank0 DIR WHAT MIN_N: rank 0's status says interrupted (not running)
# with its summaries written, and its summary keeps at least MIN_N samples,
# marked interrupted.
check_rank0() {
    python3 - "$(ls -d "$1"/*)" "$3" <<'PY'
import json, sys
d, min_n = sys.argv[1], int(sys.argv[2])
st = json.load(open(f"{d}/status.json"))
assert st["status"] == "interrupted" and st["summaries_written"] is True, st
assert st["exit_code"] == 143 and st["signal"] == 15, st
s = json.load(open(f"{d}/summary_ranks_2_rank_0.json"))
assert s["status"] == "interrupted" and s["interrupted"] is True, s["status"]
assert s["timing"]["n"] >= min_n, s["timing"]["n"]
assert "waiting for the other ranks" in s["error"], s["error"]
for w in s["timing"]["windows"][:-1]:
    assert w["stop_reason"] == "steps", w["stop_reason"]
PY
}

# 1. SIGKILL to rank 1 in the middle of a run of allreduce/cpu (4 MiB, so
# that a step spends its time in the all-reduce, as at 64 MiB, without
# loading a shared machine for long).
cat >"$SCRATCH/ar.yaml" <<'YAML'
schedule: {warmup_steps: 1, wait_steps: 0, measurement_steps: 3, repeat: 100000}
profiling: {memory: false}
component: {variant_key: allreduce, config: {bytes: 4194304}}
validate: false
YAML
out="$SCRATCH/killed"
$MPIRUN -np 2 "$HARNESS" run "$SCRATCH/ar.yaml" --output-dir "$out" --quiet >"$SCRATCH/out" 2>"$SCRATCH/err" &
job=$!
pid1=$(rank_pid "$out" 1)
sleep 2                            # windows measured on both ranks
start=$(date +%s)
if [ -n "$pid1" ] && kill -KILL "$pid1"; then
    wait $job
    rc=$?
    took=$(( $(date +%s) - start ))
    [ $rc -ne 0 ] && pass "SIGKILL to rank 1: the job fails (exit $rc)" || fail "SIGKILL to rank 1: exit 0"
    [ $took -le 20 ] && pass "the job ended in ${took}s" || fail "the job took ${took}s to end"
    check_rank0 "$out" "SIGKILL" 3 && pass "rank 0 wrote its summaries, marked interrupted, before mpirun's SIGKILL" \
        || { fail "rank 0's folder after rank 1's SIGKILL"; sed 's/^/  stderr: /' "$SCRATCH/err" | head; }
    grep -q "rank 0 of 2: allreduce/cpu: step was waiting for the other ranks" "$SCRATCH/err" \
        && pass "rank 0 says why it stopped" || fail "rank 0 does not say it was waiting for the other ranks"
else
    fail "no rank 1 to kill"
    kill "$job" 2>/dev/null
    wait $job
fi

# 2. mpirun's own abort: rank 1 crashes in a step (its guard calls MPI_Abort)
# while rank 0 waits for it in the step's all-reduce.
cat >"$SCRATCH/rank_fail.yaml" <<'YAML'
schedule: {warmup_steps: 2, wait_steps: 0, measurement_steps: 3, repeat: 5}
component: {variant_key: rank_fail, config: {crash: true, collective: true}}
YAML
out="$SCRATCH/abort"
start=$(date +%s)
$MPIRUN -np 2 timeout 60 "$HARNESS" run "$SCRATCH/rank_fail.yaml" --plugin-path "$SCRATCH/plugins" \
    --output-dir "$out" --quiet >"$SCRATCH/out" 2>"$SCRATCH/err"
rc=$?
took=$(( $(date +%s) - start ))
[ $rc -ne 0 ] && pass "MPI_Abort of rank 1: the job fails (exit $rc)" || fail "MPI_Abort of rank 1: exit 0"
[ $took -le 20 ] && pass "the aborted job ended in ${took}s" || fail "the aborted job took ${took}s"
check_rank0 "$out" "MPI_Abort" 0 && pass "rank 0 wrote its summaries, marked interrupted, after MPI_Abort" \
    || { fail "rank 0's folder after rank 1's MPI_Abort"; sed 's/^/  stderr: /' "$SCRATCH/err" | head; }
grep -q '"status":[[:space:]]*"crashed"' "$(ls -d "$out"/*)/status_ranks_2_rank_1.json" \
    && pass "rank 1's status says crashed" || fail "rank 1's status does not say crashed"
grep -q "rank 1 of 2 crashed first: rank_fail/cpu: step crashed with SIGSEGV" "$(ls -d "$out"/*)/status.json" \
    && pass "rank 0's error names rank 1 and its crash" || fail "rank 0's error does not name rank 1's crash"

# 2b. The failed rank is named in the others' errors (issue 25, item 6):
# rank 1's step fails, its MPI_Abort has mpirun stop rank 0 with SIGTERM
# between two steps, and rank 0 says which rank failed and why, not only
# "Terminated".
out="$SCRATCH/named"
$MPIRUN -np 2 timeout 60 "$HARNESS" run "$SCRATCH/rank_fail.yaml" --plugin-path "$SCRATCH/plugins" \
    --set component.config='{crash: false, collective: false}' --output-dir "$out" --quiet \
    >"$SCRATCH/out" 2>"$SCRATCH/err"
grep -q "harness: rank 0 of 2: .*rank 1 of 2 failed first: .*rank_fail: rank 1 fails on purpose" "$SCRATCH/err" \
    && pass "rank 0's error names rank 1 and its failure" \
    || { fail "rank 0's error does not name rank 1"; sed 's/^/  stderr: /' "$SCRATCH/err" | head; }
grep -q "rank 1 of 2 failed first" "$(ls -d "$out"/*)/summary_ranks_2_rank_0.json" \
    && pass "so does rank 0's summary" || fail "rank 0's summary does not name rank 1"

# 3. Warmup: every warmup step of a component whose steps call collectives
# begins with a meeting, so SIGTERM to rank 1 there reaches rank 0 at once:
# both stop, interrupted, exit 143, in seconds (without the meetings rank 0
# sat in the next warmup all-reduce until rank 1's 30 s final wait ran out).
cat >"$SCRATCH/warm.yaml" <<'YAML'
schedule: {warmup_steps: 100000000, wait_steps: 0, measurement_steps: 5, repeat: 1}
profiling: {memory: false}
component: {variant_key: allreduce, config: {bytes: 4096}}
validate: false
YAML
for how in TERM KILL; do
    out="$SCRATCH/warm_$how"
    $MPIRUN -np 2 timeout 90 "$HARNESS" run "$SCRATCH/warm.yaml" --output-dir "$out" --quiet \
        >"$SCRATCH/out" 2>"$SCRATCH/err" &
    job=$!
    pid1=$(rank_pid "$out" 1)
    sleep 1
    start=$(date +%s)
    if [ -z "$pid1" ] || ! kill -$how "$pid1"; then
        fail "warmup: no rank 1 to signal"
        kill "$job" 2>/dev/null
        wait $job
        continue
    fi
    wait $job
    rc=$?
    took=$(( $(date +%s) - start ))
    [ $took -le 15 ] && pass "SIG$how to rank 1 in warmup: the job ended in ${took}s" \
        || fail "SIG$how to rank 1 in warmup: the job took ${took}s"
    if [ $how = TERM ]; then
        [ $rc -eq 143 ] && pass "SIGTERM in warmup: exit 143" || fail "SIGTERM in warmup: exit $rc"
        python3 - "$(ls -d "$out"/*)" <<'PY' || fail "SIGTERM in warmup: a rank's files do not say interrupted"
import json, sys
d = sys.argv[1]
for r, name in ((0, "status.json"), (1, "status_ranks_2_rank_1.json")):
    st = json.load(open(f"{d}/{name}"))
    assert st["status"] == "interrupted" and st["exit_code"] == 143 and st["summaries_written"], (r, st)
    s = json.load(open(f"{d}/summary_ranks_2_rank_{r}.json"))
    assert s["status"] == "interrupted" and s["schedule"]["warmup_steps_run"] > 0, (r, s["schedule"])
PY
    else
        [ $rc -ne 0 ] && pass "SIGKILL in warmup: the job fails (exit $rc)" || fail "SIGKILL in warmup: exit 0"
        check_rank0 "$out" "SIGKILL in warmup" 0 && pass "SIGKILL in warmup: rank 0's summaries say interrupted" \
            || { fail "SIGKILL in warmup: rank 0's folder"; sed 's/^/  stderr: /' "$SCRATCH/err" | head; }
    fi
done
finish
