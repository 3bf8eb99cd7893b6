#!/bin/sh
# A plugin that takes over the process (issue 38, items 2 to 6;
# tests/fixtures/hostile): the guard takes back the working directory, the
# signal mask and dispositions, the standard streams, the umask and the
# limits after every callback; a child forked in step ends without writing;
# a hang the main thread cannot be told about is ended by the watchdog
# alone; a file-size limit is a write error. Each case: the exit code, a
# harness: line, no hang, status.json final, nothing written outside the
# output folder, summaries only where every file was written.
. "$top_builddir/tests/setup"

H="--plugin-path $top_builddir/tests/fixtures/hostile"
ELSEWHERE="$SCRATCH/elsewhere"      # where the plugin chdirs: must stay empty
mkdir -p "$ELSEWHERE"
HOSTILE_DIR=$ELSEWHERE
export HOSTILE_DIR

# hrun NAME HOW [--set ...]: a run of hostile_HOW in the background, into
# $SCRATCH/NAME (relative: the plugin's cwd must not matter); $pid.
hrun() {
    name=$1 how=$2
    shift 2
    "$HARNESS" run "$CONFIGS/crashy.yaml" $H --output-dir "$name" --quiet \
        --set component.variant_key=hostile_$how "$@" >"$SCRATCH/$name.out" 2>"$SCRATCH/$name.err" &
    pid=$!
}

# ends_within SECONDS: wait for $pid; its code in $code, else kill it and fail.
ends_within() {
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt $(($1 * 10)) ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; wait "$pid"; code=hang; return 1; fi
    wait "$pid"
    code=$?
}

# started NAME: wait until the folder's status.json exists and the hang began.
started() {
    i=0
    while ! ls "$1"/*/status.json >/dev/null 2>&1 && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    sleep 0.5
}

# verdict NAME WANT_CODE STATUS SUMMARIES TEXT: the exit code, the message,
# status.json final with STATUS, summaries present (yes) or absent (no).
verdict() {
    name=$1 want=$2 status=$3 sums=$4 text=$5
    [ "$code" = "$want" ] && pass "$name: exit $want" || { fail "$name: exit $code, expected $want";
        sed 's/^/  stderr: /' "$SCRATCH/$name.err" | head -5; }
    if [ -n "$text" ]; then
        grep -qF -- "$text" "$SCRATCH/$name.err" && grep -q '^harness: ' "$SCRATCH/$name.err" &&
            pass "$name: says '$text'" || { fail "$name: stderr lacks '$text'";
            sed 's/^/  stderr: /' "$SCRATCH/$name.err" | head -5; }
    fi
    python3 - "$SCRATCH/$name" "$status" "$sums" "$want" <<'PY' && pass "$name: the folder says $status" || fail "$name: the folder"
import glob, json, os, sys
root, status, sums, code = sys.argv[1:5]
dirs = glob.glob(os.path.join(root, "*"))
assert len(dirs) == 1, dirs
d = dirs[0]
st = json.load(open(os.path.join(d, "status.json")))
assert st["status"] == status and st["exit_code"] == int(code), st
assert st["summaries_written"] == (sums == "yes"), st
have = os.path.exists(os.path.join(d, "summary_ranks_1_rank_0.json"))
assert have == (sums == "yes"), ("summary present", have)
if have:
    assert json.load(open(os.path.join(d, "summary_ranks_1_rank_0.json")))["status"] == status
left = [f for f in os.listdir(d) if ".tmp" in f]
assert not left, left
PY
    [ -z "$(ls -A "$ELSEWHERE")" ] || { fail "$name: files written where the plugin went: $(ls "$ELSEWHERE")";
        rm -rf "${ELSEWHERE:?}"/*; }
}

# ---- the working directory (item 3) --------------------------------------
for in in create step; do
    hrun chdir-$in chdir --set component.config.in=$in
    ends_within 20
    verdict chdir-$in 0 ok yes ""
    out=$(cat "$SCRATCH/chdir-$in.out")
    [ -d "$out" ] && case $out in chdir-$in/*) true;; *) false;; esac &&
        pass "chdir in $in: the printed path exists, relative to where the run began" ||
        fail "chdir in $in: printed '$out'"
done
HOSTILE_INIT=chdir hrun chdir-init none
ends_within 20
verdict chdir-init 0 ok yes ""
[ -d "$(cat "$SCRATCH/chdir-init.out")" ] && pass "chdir in init: the printed path exists" ||
    fail "chdir in init: printed '$(cat "$SCRATCH/chdir-init.out")'"

# ---- fork in step, the child returns (item 4) -----------------------------
hrun fork fork
ends_within 20
sleep 0.3                           # the child's line, if it wrote one late
verdict fork 0 ok yes "forked, and the child"
[ "$(wc -l <"$SCRATCH/fork.out")" -eq 1 ] && pass "fork: one path printed" ||
    fail "fork: stdout has $(wc -l <"$SCRATCH/fork.out") lines"

# ---- signals (items 5, 6) ------------------------------------------------
# Blocked in create, hang in a later step: the mask was taken back, so the
# timeout lands and the summaries keep what was measured.
hrun block-create block --set component.config.in=create --set component.config.then=hang \
    --set schedule.step_timeout_s=1
ends_within 10
verdict block-create 3 timed_out yes "did not return within schedule.step_timeout_s"
# Blocked in the step that hangs: the watchdog ends it alone, within the
# timeout plus its grace, without summaries.
start=$(date +%s)
hrun block-step block --set component.config.then=hang --set schedule.step_timeout_s=1
ends_within 10
verdict block-step 3 timed_out no "the watchdog ended the process"
[ $(($(date +%s) - start)) -le 6 ] && pass "block in step: ended within the timeout and the grace" ||
    fail "block in step: took $(($(date +%s) - start)) s"
# The same with no timeout, stopped by one SIGTERM.
hrun block-term block --set component.config.then=hang
started block-term
kill -TERM $pid
ends_within 10
verdict block-term 143 interrupted no "the watchdog ended the process"
HOSTILE_INIT=block hrun block-init none --set component.config.then=hang --set schedule.step_timeout_s=1
ends_within 10
verdict block-init 3 timed_out yes "did not return within schedule.step_timeout_s"

# SIGTERM ignored or taken over, in create or in the hanging step itself.
for how in ignore_stops own_stops; do
    for in in create step; do
        hrun $how-$in $how --set component.config.in=$in --set component.config.then=hang
        started $how-$in
        kill -TERM $pid
        ends_within 10
        verdict $how-$in 143 interrupted yes "did not return within 3 s of SIGTERM"
    done
done
HOSTILE_INIT=ignore_stops hrun ignore-init none --set component.config.then=hang
started ignore-init
kill -INT $pid
ends_within 10
verdict ignore-init 130 interrupted yes "did not return within 3 s of SIGINT"

# SIGALRM taken over in the step that hangs: the watchdog's signal lands.
hrun take-alarm take_alarm --set component.config.then=hang --set schedule.step_timeout_s=1
ends_within 10
verdict take-alarm 3 timed_out yes "did not return within schedule.step_timeout_s"

# ---- more of the process (the extra cases) --------------------------------
# SIGSEGV reset to the default in create: the crash in step is still caught.
hrun default-segv default_segv --set component.config.in=create --set component.config.then=segv
ends_within 10
verdict default-segv 3 crashed yes "crashed with SIGSEGV"
# Standard output closed, or /dev/null put over it: the path still comes out.
for how in close_std null_std; do
    hrun $how $how --set component.config.in=create
    ends_within 20
    verdict $how 0 ok yes ""
    [ -d "$(cat "$SCRATCH/$how.out")" ] && pass "$how: the path is printed" || fail "$how: stdout '$(cat "$SCRATCH/$how.out")'"
done
# O_NONBLOCK on the pipe the harness shares with what runs after it.
flags=$(sh -c '"$0" run "$1" --plugin-path "$2" --output-dir nonblock --quiet \
    --set component.variant_key=hostile_nonblock_std --set component.config.in=create
    python3 -c "import fcntl, os; print(fcntl.fcntl(1, fcntl.F_GETFL) & os.O_NONBLOCK)"' \
    "$HARNESS" "$CONFIGS/crashy.yaml" "$top_builddir/tests/fixtures/hostile" 2>/dev/null | tail -n 1)
[ "$flags" = 0 ] && pass "nonblock_std: the shared pipe is blocking again" || fail "nonblock_std: O_NONBLOCK left: '$flags'"
# umask 0777 in create: the files after it keep their modes.
hrun umask-none none
ends_within 20
hrun umask umask --set component.config.in=create
ends_within 20
verdict umask 0 ok yes ""
want=$(stat -c %a umask-none/*/status.json) got=$(stat -c %a umask/*/status.json)
[ "$want" = "$got" ] && pass "umask: status.json mode $got" || fail "umask: status.json mode $got, not $want"
# alarm(1) with no handler: the harness's SIGALRM is not the watchdog's.
hrun alarm alarm --set component.config.in=create --set component.config.busy_us=40000
ends_within 20
verdict alarm 0 ok yes ""
# Open files limited to 3 in create: the folder is still written.
hrun nofile nofile --set component.config.in=create
ends_within 20
verdict nofile 0 ok yes ""
# Every descriptor from 3 up closed in create, the session left, HOME and PATH unset.
for how in close_fds setsid no_env; do
    hrun $how $how --set component.config.in=create
    ends_within 20
    verdict $how 0 ok yes ""
done

# ---- a file-size limit (item 2) -------------------------------------------
# 60,000 samples: a samples file of 480 kB, over a 200-block limit.
(ulimit -f 200 && exec "$HARNESS" run "$CONFIGS/crashy.yaml" $H --output-dir fsize --quiet \
    --set component.variant_key=hostile_none --set schedule.measurement_steps=30000) \
    >"$SCRATCH/fsize.out" 2>"$SCRATCH/fsize.err" &
pid=$!
ends_within 30
verdict fsize 3 failed no "File too large"
[ -z "$(find fsize -name '*.tmp*')" ] && pass "fsize: no temporary left" || fail "fsize: $(find fsize -name '*.tmp*')"
! grep -q '^status: ok' fsize/*/profiler_summary_ranks_1_rank_0.txt 2>/dev/null &&
    pass "fsize: no summary says ok" || fail "fsize: the text summary says ok"

# Nothing written into the directory the runs started in but their folders.
extra=$(ls | grep -v -e '\.out$' -e '\.err$' -e '^elsewhere$' -e '^no-machine-file' | grep -v -x -e chdir-create \
    -e chdir-step -e chdir-init -e fork -e block-create -e block-step -e block-term -e block-init -e 'ignore_stops-.*' \
    -e 'own_stops-.*' -e ignore-init -e take-alarm -e default-segv -e close_std -e null_std -e nonblock -e umask-none \
    -e umask -e alarm -e nofile -e close_fds -e setsid -e no_env -e fsize)
[ -z "$extra" ] && pass "nothing written beside the output folders" || fail "written beside them: $extra"
finish
