#!/bin/sh
# A run killed before it could say so (SIGKILL, the OOM killer, a reboot)
# leaves status.json "running". Its pid, pid start time, host and boot id
# let compare, export and record tell it from a live run and call it killed.
. "$top_builddir/tests/setup"

"$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/good" --quiet >/dev/null 2>&1 || fail "a good run"
GOOD=$(echo "$SCRATCH"/good/*)

# SIGKILL in the middle of measuring: no summary, status.json says running.
"$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/killed" --quiet \
    --set schedule.measurement_steps=100000000 >/dev/null 2>&1 &
pid=$!
i=0
while ! ls "$SCRATCH"/killed/*/status.json >/dev/null 2>&1 && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
sleep 0.3
kill -KILL $pid
wait $pid 2>/dev/null
KILLED=$(echo "$SCRATCH"/killed/*)
python3 -c "import json,sys,socket; st=json.load(open(sys.argv[1])); assert st['status']=='running', st; \
assert st['host']==socket.gethostname() and st['boot_id'] and st['pid']==int(sys.argv[2]), st; \
assert st['pid_start_ticks'] > 0, st" "$KILLED/status.json" "$pid" \
    && pass "status.json records pid, its start, host and boot id" || fail "status.json's identity fields"

# reads DIR WHY: compare, export and record call DIR's rank killed, saying WHY.
reads() {
    expect_exit 1 "$1: compare calls it FAILED" timeout 20 "$HARNESS" compare "$GOOD" "$1"
    grep -q "status killed" "$SCRATCH/out" && grep -qF "$2" "$SCRATCH/out" && pass "$1: compare says killed, $2" \
        || { fail "$1: compare does not say killed"; sed 's/^/  out: /' "$SCRATCH/out" | grep -i fail; }
    expect_exit 0 "$1: export" timeout 20 "$HARNESS" export "$1" --format json
    grep -q '"killed"' "$SCRATCH/out" && pass "$1: export's row says killed" || fail "$1: export's status"
    expect_exit 2 "$1: record refuses it" timeout 20 "$HARNESS" record "$1" --db "$SCRATCH/r.sqlite" --commit c1
    expect_err "killed" "$1: record says killed"
}
reads "$KILLED" "pid $pid"

# fake DIR FIELD=VALUE...: a copy of the killed folder whose status.json is changed so.
fake() {
    d="$SCRATCH/$1"; shift
    cp -r "$KILLED" "$d"
    python3 - "$d/status.json" "$@" <<'PY'
import json, sys
p = sys.argv[1]; st = json.load(open(p))
for kv in sys.argv[2:]:
    k, v = kv.split("=", 1)
    st[k] = int(v) if v.lstrip("-").isdigit() else v
json.dump(st, open(p, "w"))
PY
    echo "$d"
}
# Another boot of this host: killed, whatever the pid is now ($$ is alive).
reads "$(fake reboot boot_id=00000000-0000-0000-0000-000000000000 pid=$$)" "last booted"
# The pid reused by a process started at another time.
reads "$(fake reused pid=$$ pid_start_ticks=1)" "now belongs to another process"
# Another host's run, or one still going here: running, not killed.
for d in "$(fake elsewhere host=some-other-host)" "$(fake alive pid=$$ pid_start_ticks=$(cut -d' ' -f22 /proc/$$/stat))"; do
    expect_exit 1 "$d: compare" timeout 20 "$HARNESS" compare "$GOOD" "$d"
    grep -q "status running" "$SCRATCH/out" && pass "$d: still running" || fail "$d: not left running"
done
finish
