#!/bin/sh
# A crash or a kill while the folder is being written never leaves a folder
# that says ok (issue 25, item 7): each file is written to a temporary name
# and renamed (util/fsutil.c), and status.json says ok only after every other
# file is in place; a crash outside a callback rewrites it as crashed
# (run/guard.c). The fault is injected with tests/tools/crash_on_rename.c, an
# LD_PRELOAD shim that dies at a chosen rename(), so each write of the folder
# is hit in turn: the readers (export, compare) then see no ok run.
. "$top_builddir/tests/setup"
SHIM="$top_builddir/tests/tools/.libs/crash_on_rename.so"
[ -f "$SHIM" ] || { echo "skip: no $SHIM"; exit 77; }
TINY="$CONFIGS/rms_norm_tiny.yaml"
# A sanitizer build's runtime must come first; the shim is preloaded after it.
export ASAN_OPTIONS="${ASAN_OPTIONS}:verify_asan_link_order=0"

# A good run, for compare, and the order of its renames.
expect_exit 0 "a run without faults" env LD_PRELOAD="$SHIM" CRASH_ON_RENAME_LOG="$SCRATCH/renames" \
    "$HARNESS" run "$TINY" --output-dir "$SCRATCH/good" --quiet
good=$(ls -d "$SCRATCH"/good/*)
n_status=$(grep -c '/status.json$' "$SCRATCH/renames")
[ "$n_status" -ge 2 ] && pass "status.json is written $n_status times" || fail "status.json renamed $n_status times"
# status.json's last word comes after every summary file.
python3 - "$SCRATCH/renames" <<'PY' || fail "status.json's last rename is not after every other file"
import sys
names = [l.strip().rsplit("/", 1)[1] for l in open(sys.argv[1])]
assert names[-1] == "status.json", names
assert "summary_ranks_1_rank_0.json" in names and "profiler_summary_ranks_1_rank_0.txt" in names, names
PY

# not_ok DIR WHAT: status.json is not ok nor complete; export gives no ok
# row; compare with the good run gives no verdict from it.
not_ok() {
    d=$(ls -d "$1"/* 2>/dev/null | head -1)
    [ -n "$d" ] || { fail "$2: no folder"; return; }
    python3 - "$d" <<'PY' || fail "$2: status.json says ok or complete"
import json, sys
st = json.load(open(sys.argv[1] + "/status.json"))
assert st["status"] != "ok" and st["complete"] is not True, st
PY
    expect_exit 0 "$2: export reads the folder" timeout 20 "$HARNESS" export "$d" --format json
    python3 - "$SCRATCH/out" <<'PY' || fail "$2: export calls the run ok"
import json, sys
rows = json.load(open(sys.argv[1]))
assert rows and all(r["status"] != "ok" for r in rows), rows
PY
    timeout 20 "$HARNESS" compare "$good" "$d" >"$SCRATCH/out" 2>"$SCRATCH/err"
    rc=$?
    [ $rc -eq 1 ] || [ $rc -eq 2 ] && pass "$2: compare refuses it (exit $rc)" \
        || fail "$2: compare exit $rc"
}

# crash_at WHAT TARGET N SIGNAL: die at the Nth rename to TARGET.
crash_at() {
    out="$SCRATCH/$(echo "$1" | tr ' /' '__')"
    env LD_PRELOAD="$SHIM" CRASH_ON_RENAME="$2" CRASH_ON_RENAME_AT="$3" CRASH_ON_RENAME_SIGNAL="$4" \
        timeout 60 "$HARNESS" run "$TINY" --output-dir "$out" --quiet >"$SCRATCH/out" 2>"$SCRATCH/err"
    rc=$?
    [ $rc -eq $((128 + $4)) ] && pass "$1: the run died (exit $rc)" || fail "$1: exit $rc, expected $((128 + $4))"
    not_ok "$out" "$1"
}
crash_at "SIGSEGV writing the text summary" profiler_summary_ranks_1_rank_0.txt 1 11
crash_at "SIGSEGV writing the JSON summary" /summary_ranks_1_rank_0.json 1 11
crash_at "SIGKILL writing the JSON summary" /summary_ranks_1_rank_0.json 1 9
crash_at "SIGSEGV writing status.json's last word" /status.json "$n_status" 11
crash_at "SIGKILL writing status.json's last word" /status.json "$n_status" 9
finish
