#!/bin/sh
# The python component under the harness's guard, as a C plugin is
# (tests/integration/hangs.sh, signals.sh): a thread left running after
# close() is reported, a step that never returns (asleep or busy in Python)
# is ended by step_timeout_s, and SIGINT or SIGTERM while Python runs is the
# harness's interrupt (130, 143), never a KeyboardInterrupt.
. "$top_builddir/tests/setup"
# The embedded interpreter is never finalized (components/python/python_runtime.c):
# in a sanitizer build, what CPython keeps until exit is not the harness's leak.
export ASAN_OPTIONS="${ASAN_OPTIONS}:detect_leaks=0"

if ! "$HARNESS" list 2>/dev/null | grep -q '^python/cpu '; then
    echo "skip: the python component is not built (configure: python components: no)"
    exit 77
fi
FIXTURES="$top_srcdir/tests/python/fixtures.py"

# config NAME CLASS PARAMS STEPS [TIMEOUT]: $SCRATCH/NAME.yaml, step_timeout_s 2 unless given
config() {
    cat >"$SCRATCH/$1.yaml" <<YAML
schedule: {warmup_steps: 1, wait_steps: 0, measurement_steps: $4, repeat: 1, step_timeout_s: ${5:-2}}
component:
  variant_key: python/cpu
  config:
    callable: $FIXTURES:$2
    params: '$3'
YAML
}

config leak LeaksThread '{}' 5
expect_exit 0 "a thread left running" "$HARNESS" run "$SCRATCH/leak.yaml" --output-dir "$SCRATCH/exp"
expect_err "python/cpu left 1 thread running after destroy" "the leaked thread is reported as a C plugin's"

for how in sleep busy; do
    config block_$how Blocks "{\"how\": \"$how\"}" 5
    start=$(date +%s)
    expect_exit 3 "a step that never returns ($how)" "$HARNESS" run "$SCRATCH/block_$how.yaml" --output-dir "$SCRATCH/exp"
    [ $(($(date +%s) - start)) -lt 20 ] && pass "ended by step_timeout_s ($how)" || fail "ended late ($how)"
    expect_err "did not return within" "the timeout is named ($how)"
done

# stop SIGNAL CLASS PARAMS CODE: a run stopped by SIGNAL while Python runs
stop() {
    config stop "$2" "$3" 1000000 0
    "$HARNESS" run "$SCRATCH/stop.yaml" --output-dir "$SCRATCH/exp_$1" >"$SCRATCH/out" 2>"$SCRATCH/err" &
    pid=$!
    i=0
    while ! ls "$SCRATCH/exp_$1"/*/status.json >/dev/null 2>&1 && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    sleep 1
    kill -"$1" $pid
    i=0
    while kill -0 $pid 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 $pid 2>/dev/null; then kill -KILL $pid; fail "$1 during $2: still running 15 s later"; return; fi
    wait $pid
    code=$?
    [ $code -eq "$4" ] && pass "$1 during $2: exit $code" || { fail "$1 during $2: exit $code, expected $4"; cat "$SCRATCH/err"; }
    grep -q KeyboardInterrupt "$SCRATCH/err" && fail "$1 during $2: a KeyboardInterrupt" || pass "$1 during $2: no KeyboardInterrupt"
}
stop INT Naps '{}' 130
stop INT Blocks '{"how": "sleep"}' 130
stop TERM Blocks '{"how": "busy"}' 143
finish
