#!/bin/sh
# SIGTERM and SIGHUP stop a run like SIGINT: exit 128 + the signal, what was
# measured written, status interrupted. A signal at any moment leaves either
# no folder or one whose every file parses and whose status.json is final,
# with no temporary file. A second signal leaves at once, marking the folder;
# the same signal again within a second is the same request.
. "$top_builddir/tests/setup"

# check_folder DIR CODE SIG: the folder agrees with exit CODE after signal SIG.
check_folder() {
    python3 - "$@" <<'PY'
import glob, json, os, sys
sys.path.insert(0, os.path.join(os.environ["top_srcdir"], "tests", "tools"))
from summary_samples import read_file, samples
d, code, sig = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
left = [f for f in os.listdir(d) if ".tmp" in f]
assert not left, "temporary files left: %s" % left
for f in glob.glob(os.path.join(d, "*.json")):
    json.load(open(f))
for f in glob.glob(os.path.join(d, "*.bin")):
    read_file(f)                   # a samples side file is whole or absent
st = json.load(open(os.path.join(d, "status.json")))
assert st["exit_code"] == code, (st, code)
if code == 0:
    assert st["status"] == "ok" and st["complete"] is True, st
else:
    assert code == 128 + sig, code
    assert st["status"] == "interrupted" and st["complete"] is False and st["signal"] == sig, st
    s = json.load(open(os.path.join(d, "summary_ranks_1_rank_0.json")))
    assert s["status"] == "interrupted" and s["interrupted"] is True, s["status"]
    assert len(samples(os.path.join(d, "summary_ranks_1_rank_0.json"))) == s["timing"]["n"]
PY
}

signum() { case $1 in INT) echo 2 ;; TERM) echo 15 ;; HUP) echo 1 ;; esac; }
start_run() {
    dir=$1; shift
    "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$dir" --quiet "$@" >"$SCRATCH/out" 2>"$SCRATCH/err" &
    pid=$!
}
wait_for_folder() {
    i=0
    while ! ls "$1"/*/status.json >/dev/null 2>&1 && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}

# Each signal while measuring: 128 + signal, partial results kept.
for sig in INT TERM HUP; do
    num=$(signum $sig)
    out="$SCRATCH/$sig"
    start_run "$out" --set schedule.measurement_steps=100000000
    wait_for_folder "$out"
    sleep 0.3
    kill -$sig $pid
    wait $pid
    code=$?
    [ $code -eq $((128 + num)) ] && pass "SIG$sig: exit $code" || fail "SIG$sig: exit $code, expected $((128 + num))"
    grep -q "interrupted after [0-9]* measured steps (" "$SCRATCH/err" || fail "SIG$sig: says it was interrupted"
    check_folder "$out"/* $code $num && pass "SIG$sig: folder marked interrupted" || fail "SIG$sig: folder"
done

# At random moments, writing the artifacts included (a long trace makes that
# window wide): no half file, no temporary file, status.json final.
trials=${HARNESS_SIGNAL_TRIALS:-12}
t=0
bad=0
while [ $t -lt $trials ]; do
    sig=$(echo "INT TERM HUP" | cut -d' ' -f$((t % 3 + 1)))
    num=$(signum $sig)
    out="$SCRATCH/random$t"
    start_run "$out" --set schedule.measurement_steps=200000 --set component.config.duration_ns=1000
    delay=$(python3 -c "import random; print(round(random.uniform(0.05, 1.2), 3))")
    sleep "$delay"
    kill -$sig $pid 2>/dev/null
    wait $pid
    code=$?
    if [ -d "$out" ] && ls "$out"/* >/dev/null 2>&1; then
        check_folder "$out"/* $code $num || { bad=$((bad + 1)); echo "trial $t: SIG$sig after ${delay}s, exit $code"; }
    elif [ $code -ne $((128 + num)) ]; then
        bad=$((bad + 1)); echo "trial $t: no folder, exit $code"
    fi
    t=$((t + 1))
done
[ $bad -eq 0 ] && pass "$trials signals at random moments" || fail "$bad of $trials random signals"

# GNU timeout signals the harness and then its process group: one request,
# delivered twice within microseconds. It stops the run as one signal does,
# summaries written, not as a second Ctrl-C. 5 s: the run is measuring by then
# even on a loaded machine; --preserve-status: the harness's exit, not 124.
for sig in INT TERM; do
    num=$(signum $sig)
    out="$SCRATCH/timeout_$sig"
    timeout --preserve-status -s $sig 5 "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$out" --quiet \
        --set schedule.measurement_steps=100000000 >"$SCRATCH/out" 2>"$SCRATCH/err"
    code=$?
    [ $code -eq $((128 + num)) ] && pass "timeout -s $sig: exit $code" || fail "timeout -s $sig: exit $code"
    if check_folder "$out"/* $code $num && python3 -c "import json,sys; st=json.load(open(sys.argv[1])); \
assert st['summaries_written'] is True, st" "$out"/*/status.json; then
        pass "timeout -s $sig: summaries written, folder marked interrupted"
    else
        fail "timeout -s $sig: taken for a second signal"; sed 's/^/  stderr: /' "$SCRATCH/err"
    fi
done

# The same, deterministically: a copy 0.1 s after the first, during a 2 s step.
out="$SCRATCH/copy"
start_run "$out" --set schedule.warmup_steps=0 --set schedule.wait_steps=0 --set component.config.duration_ns=2000000000
wait_for_folder "$out"
sleep 0.5
kill -TERM $pid
sleep 0.1
kill -TERM $pid
wait $pid
code=$?
[ $code -eq 143 ] && pass "SIGTERM twice within 1 s: exit $code" || fail "SIGTERM twice within 1 s: exit $code"
check_folder "$out"/* $code 15 && python3 -c "import json,sys; st=json.load(open(sys.argv[1])); \
assert st['summaries_written'] is True, st" "$out"/*/status.json \
    && pass "SIGTERM twice within 1 s: one request, summaries written" || fail "SIGTERM twice within 1 s: folder"

# A second Ctrl-C gets out at once, even from a hung step, marking the folder.
# 1.5 s after the first: a repeat within 1 s is the same request (above), and
# the guard abandons the hung step by itself 3 s after the first (hangs.sh).
out="$SCRATCH/twice"
"$HARNESS" run "$CONFIGS/crashy.yaml" --plugin-path "$top_builddir/tests/fixtures/crashy" --output-dir "$out" \
    --set component.variant_key=crashy_hang --set schedule.step_timeout_s=0 >"$SCRATCH/out" 2>"$SCRATCH/err" &
pid=$!
wait_for_folder "$out"
sleep 0.3
kill -INT $pid
sleep 1.5
kill -INT $pid
wait $pid
code=$?
[ $code -eq 130 ] && pass "second SIGINT: exit 130" || fail "second SIGINT: exit $code"
grep -q "second SIGINT: leaving at once" "$SCRATCH/err" && pass "says it left at once" || fail "message"
python3 -c "import json,sys; st=json.load(open(sys.argv[1])); \
assert st['status']=='interrupted' and st['complete'] is False and st['summaries_written'] is False, st" \
    "$out"/*/status.json && pass "second SIGINT: folder marked interrupted" || fail "second SIGINT: status.json"
finish
