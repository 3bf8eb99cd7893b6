#!/bin/sh
# A plugin that hangs outside step() - in create, check or destroy - ends
# within 10 s of one SIGTERM, or at schedule.callback_timeout_s, with the
# callback named in the message and in status.json; a hang in destroy keeps
# both summaries with every measured sample (they are written before it).
. "$top_builddir/tests/setup"

CRASHY="--plugin-path $top_builddir/tests/fixtures/crashy"
# Samples measured by tests/configs/crashy.yaml: 20 steps, 2 windows.
MEASURED=40

# ends_within PID SECONDS: wait for PID; 0 when it ended in time (its code
# in $code), 1 (after killing it) when it did not.
ends_within() {
    i=0
    while kill -0 "$1" 2>/dev/null && [ $i -lt $(($2 * 10)) ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$1" 2>/dev/null; then kill -KILL "$1"; wait "$1"; return 1; fi
    wait "$1"
    code=$?
    return 0
}

# folder_says DIR STATUS EXIT CALLBACK SAMPLES: status.json and, when
# SAMPLES is not empty, the summaries with that many samples.
folder_says() {
    python3 - "$@" <<'PY'
import json, os, sys
d, status, code, callback, n = sys.argv[1:6]
st = json.load(open(os.path.join(d, "status.json")))
assert st["status"] == status and st["exit_code"] == int(code), st
assert st["callback"] == callback and st["complete"] is False, st
if n:
    assert st["summaries_written"] is True, st
    s = json.load(open(os.path.join(d, "summary_ranks_1_rank_0.json")))
    assert s["status"] == status, s["status"]
    assert callback in s["error"], s["error"]
    assert s["timing"]["n"] == int(n), s["timing"]["n"]
    assert status in open(os.path.join(d, "profiler_summary_ranks_1_rank_0.txt")).read()
PY
}

for in in create check destroy; do
    # One SIGTERM, no timeout: the guard abandons the callback.
    out="$SCRATCH/term-$in"
    "$HARNESS" run "$CONFIGS/crashy.yaml" $CRASHY --output-dir "$out" --quiet \
        --set component.variant_key=crashy_hang --set component.config.in=$in \
        --set schedule.callback_timeout_s=0 >"$SCRATCH/out" 2>"$SCRATCH/err" &
    pid=$!
    # Until the hang: the folder for create and check, the summary for destroy.
    want=status.json; [ $in = destroy ] && want=summary_ranks_1_rank_0.json
    i=0
    while ! ls "$out"/*/$want >/dev/null 2>&1 && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    sleep 0.3
    kill -TERM $pid
    if ends_within $pid 10; then pass "hang in $in: ends within 10 s of one SIGTERM"
    else fail "hang in $in: still running 10 s after SIGTERM"; continue; fi
    [ "$code" -eq 143 ] && pass "hang in $in: exit 143" || fail "hang in $in after SIGTERM: exit $code"
    expect_err "crashy_hang/cpu: $in did not return within 3 s of SIGTERM; abandoned" "hang in $in: named"
    samples=; [ $in = destroy ] && samples=$MEASURED
    folder_says "$out"/* interrupted 143 $in "$samples" && pass "hang in $in: the folder says interrupted" \
        || fail "hang in $in: the folder after SIGTERM"

    # No signal: callback_timeout_s ends it.
    out="$SCRATCH/timeout-$in"
    expect_exit 3 "hang in $in: timed out" timeout 20 "$HARNESS" run "$CONFIGS/crashy.yaml" $CRASHY \
        --output-dir "$out" --quiet --set component.variant_key=crashy_hang --set component.config.in=$in \
        --set schedule.callback_timeout_s=1
    expect_err "crashy_hang/cpu: $in did not return within schedule.callback_timeout_s (1 s)" \
        "hang in $in: the timeout is named"
    folder_says "$out"/* timed_out 3 $in "$samples" && pass "hang in $in: the folder says timed_out" \
        || fail "hang in $in: the folder after the timeout"
done

# A destroy that crashes after every window keeps the samples too.
out="$SCRATCH/abort-destroy"
expect_exit 3 "abort in destroy" timeout 20 "$HARNESS" run "$CONFIGS/crashy.yaml" $CRASHY --output-dir "$out" \
    --quiet --set component.variant_key=crashy_abort --set component.config.in=destroy
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); assert s['status']=='crashed', s['status']; \
assert s['timing']['n']==$MEASURED and 'destroy crashed' in s['error'], s['error']" \
    "$out"/*/summary_ranks_1_rank_0.json && pass "abort in destroy: the summary keeps every sample, says crashed" \
    || fail "abort in destroy: the summary"

# Timeouts are bounded: nanoseconds of a huge value would overflow.
for key in step_timeout_s callback_timeout_s; do
    expect_exit 2 "$key 9223372036854775807 refused" "$HARNESS" validate "$CONFIGS/crashy.yaml" $CRASHY \
        --set schedule.$key=9223372036854775807
    expect_err "schedule.$key: 9223372036854775807 seconds is more than a year" "$key: names the key and the limit"
done
expect_exit 0 "a year is accepted" "$HARNESS" validate "$CONFIGS/crashy.yaml" $CRASHY \
    --set schedule.step_timeout_s=31536000
finish
