#!/bin/sh
# Plugins that break the contract after the fact (issue 38, items 7, 8, 10,
# 14 and the extra cases of that pass): a thread left running after destroy,
# a plugin that dlcloses itself, a kept init context, costs that are not
# counts, a check that contradicts itself, hostile registrations and an
# unload callback that crashes. Each ends with the exit code it should, a
# `harness: ` line naming the variant or plugin, and status.json final; a
# folder never says ok when the process then dies.
. "$top_builddir/tests/setup"
UNRULY="--plugin-path $top_builddir/tests/fixtures/unruly"
CFG="$CONFIGS/crashy.yaml"
W="$SCRATCH/w"
mkdir -p "$W"

# unruly NAME OUT [--set ...]: a run of unruly_NAME into OUT.
unruly() {
    name=$1; out=$2; shift 2
    timeout 60 "$HARNESS" run "$CFG" $UNRULY --output-dir "$out" --quiet \
        --set component.variant_key=unruly_$name "$@" >"$SCRATCH/out" 2>"$SCRATCH/err"
}
# status_is OUT STATUS EXIT DESC: the one status.json under OUT is final with them.
status_is() {
    python3 - "$1" "$2" "$3" <<'PY' && pass "$4" || fail "$4"
import glob, json, sys
files = glob.glob(sys.argv[1] + "/*/status.json")
assert len(files) == 1, files
s = json.load(open(files[0]))
assert s["status"] == sys.argv[2], s
assert s["exit_code"] == int(sys.argv[3]), s
PY
}

# ---- a thread left running after destroy -------------------------------------
# Once 5 runs in 6 died with 139 when the module was unmapped under the thread.
for i in 1 2 3 4 5 6; do
    unruly linger "$W/linger$i"
    rc=$?
    [ $rc -eq 0 ] || { fail "linger run $i: exit $rc, want 0"; sed 's/^/  stderr: /' "$SCRATCH/err" | head -5; }
done
pass "a lingering thread: 6 runs, every one exit 0 (the module stays mapped)"
expect_err ": unruly_linger/cpu left 1 thread running after destroy; its module stays loaded" \
    "the warning names the variant and what the harness did"
status_is "$W/linger6" ok 0 "linger: status.json ok, exit 0"
grep -q "left 1 thread running after destroy" "$W"/linger6/*/summary_ranks_1_rank_0.json \
    && pass "the summary's warnings say it" || fail "the summary lacks the warning"

unruly joined "$W/joined"
[ $? -eq 0 ] && ! grep -q "running after destroy" "$SCRATCH/err" && pass "a thread joined in destroy: no warning" \
    || fail "a joined thread was warned about: $(cat "$SCRATCH/err")"
UNRULY_INIT=pool unruly pool "$W/pool"
[ $? -eq 0 ] && ! grep -q "running after destroy" "$SCRATCH/err" && pass "a pool stopped by unload: no warning" \
    || fail "a pool kept for unload was warned about: $(cat "$SCRATCH/err")"
# OpenMP pools persist by design: the bundled components thread with them.
OMP_NUM_THREADS=4 timeout 60 "$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" --output-dir "$W/omp" --quiet \
    --set component.config.batch_size=4 --set component.config.seq_len=64 \
    --set component.config.hidden_size=128 >"$SCRATCH/out" 2>"$SCRATCH/err"
[ $? -eq 0 ] && ! grep -q "running after destroy" "$SCRATCH/err" \
    && pass "rms_norm on 4 OpenMP threads: no lingering-thread warning" \
    || fail "rms_norm's OpenMP pool was taken for a lingering thread: $(cat "$SCRATCH/err")"

# ---- a plugin that unmaps itself ------------------------------------------------
# The crash handler then reads only harness memory (the strings were copied).
for in in create step; do
    unruly selfclose "$W/selfclose_$in" --set component.config.in=$in
    rc=$?
    [ $rc -eq 3 ] && pass "dlclose of itself in $in: exit 3" || fail "dlclose of itself in $in: exit $rc, want 3"
    expect_err "harness: unruly_selfclose/cpu: $in crashed with SIGSEGV" "self-dlclose in $in: the crash is named"
    status_is "$W/selfclose_$in" crashed 3 "self-dlclose in $in: status.json crashed, final"
done

# ---- a kept init context ----------------------------------------------------------
for ignore in false true; do
    unruly kept_ctx "$W/kept_$ignore" --set component.config.ignore=$ignore
    rc=$?
    [ $rc -eq 3 ] && pass "register_variant from create (create returns ${ignore}): exit 3" \
        || fail "kept init context, ignore=$ignore: exit $rc, want 3"
    expect_err "harness: unruly_kept_ctx/cpu: create failed: register_variant called outside init" \
        "kept init context (ignore=$ignore): create fails with what was misused"
    status_is "$W/kept_$ignore" failed 3 "kept init context: status.json failed"
done

# ---- costs that are not counts ------------------------------------------------------
n=0
for v in bytes=nan bytes=inf bytes=-inf bytes=-1 bytes=1.7976931348623157e308 bytes=1e31 flops=nan flops=-0.5; do
    n=$((n + 1))
    field=${v%%=*}
    unruly cost "$W/cost$n" --set component.config.$v
    rc=$?
    [ $rc -eq 3 ] && pass "cost() $v: exit 3" || fail "cost() $v: exit $rc, want 3"
    expect_err "harness: unruly_cost/cpu: cost failed: cost() gave $field = " "cost() $v: the variant and value named"
    status_is "$W/cost$n" failed 3 "cost() $v: status.json failed"
done
unruly cost "$W/cost_ok" --set component.config.bytes=1e30
[ $? -eq 0 ] && pass "cost() at the bound (1e30 bytes) runs" || fail "cost() 1e30 refused: $(cat "$SCRATCH/err")"
unruly slow_cost "$W/slow" --set component.config.sleep_s=30 --set schedule.callback_timeout_s=1
rc=$?
[ $rc -eq 3 ] && pass "a cost() that sleeps past callback_timeout_s: exit 3" || fail "slow cost(): exit $rc"
status_is "$W/slow" timed_out 3 "slow cost(): status.json timed_out"

# ---- a check that contradicts itself ---------------------------------------------------
unruly check_lies "$W/lies"
rc=$?
[ $rc -eq 1 ] && pass "check: passed with 7 mismatches, a NaN error, no NUL in detail: exit 1" \
    || fail "a lying check: exit $rc, want 1"
expect_err "harness: unruly_check_lies/cpu: check set passed, but counted 7 of 100 elements" "the lie is named"

# ---- services given too much --------------------------------------------------------------
unruly regions "$W/regions"
[ $? -eq 0 ] && python3 - "$W/regions" <<'PY' && pass "region names with quotes, a newline, 10 kB: valid trace JSON" \
    || fail "region names with quotes and newlines broke the run or its trace"
import glob, json, sys
t = json.load(open(glob.glob(sys.argv[1] + "/*/profiler_trace_ranks_1_rank_0.json")[0]))
names = {e.get("name") for e in t["traceEvents"]}
assert any(n and "\n" in n and '"quoted"' in n for n in names), "the odd name is missing"
PY
for which in long_key long_value; do
    unruly notes "$W/notes_$which" --set component.config.which=$which
    rc=$?
    [ $rc -eq 3 ] && grep -q "^harness: unruly_notes/cpu: create failed: note" "$SCRATCH/err" \
        && pass "note() with a $which: exit 3, named" || fail "note() with a $which: exit $rc"
done

# ---- hostile registrations ------------------------------------------------------------------
# A variant whose strings the plugin frees (and scribbles over) after registering.
UNRULY_INIT=made "$HARNESS" list $UNRULY >"$SCRATCH/out" 2>"$SCRATCH/err"
grep -q "unruly_made/cpu" "$SCRATCH/out" && ! grep -q "XXXX" "$SCRATCH/out" \
    && pass "strings freed by the plugin after registration: the harness kept its own copies" \
    || fail "list after the plugin freed its strings: $(head -3 "$SCRATCH/out")"
UNRULY_INIT=made unruly made/cpu "$W/made" --set component.config.bytes=128
[ $? -eq 0 ] && pass "and the variant runs" || fail "unruly_made/cpu does not run: $(cat "$SCRATCH/err")"
UNRULY_INIT=many unruly many_9999/cpu "$W/many"
[ $? -eq 0 ] && pass "10,000 variants in one plugin: the last one runs" || fail "10,000 variants: $(cat "$SCRATCH/err")"
for how in twice ctrl_key long_key; do
    UNRULY_INIT=$how unruly cost "$W/reg_$how"
    rc=$?
    case $rc in 2|3) pass "init that registers $how: exit $rc" ;; *) fail "init that registers $how: exit $rc" ;; esac
done
UNRULY_INIT=twice unruly cost "$W/twice"
expect_err "registers variant key unruly_linger/cpu twice" "the same key twice: said so"
UNRULY_INIT=ctrl_key unruly cost "$W/ctrl"
expect_err "its key holds a control character" "a newline in a key: refused, said so"
UNRULY_INIT=long_key unruly cost "$W/long"
expect_err "its key is longer than 255 bytes" "a 10 kB key: refused, said so"
UNRULY_INIT=bad_default unruly bad_default/cpu "$W/bad_default"
rc=$?
[ $rc -eq 3 ] && grep -q "^harness: unruly_bad_default/cpu: parameter sleep_s has the default" "$SCRATCH/err" \
    && pass "a default that is not YAML: exit 3, the plugin is blamed" || fail "bad default: exit $rc"

# ---- an unload callback that crashes ----------------------------------------------------------
UNRULY_INIT=unload_crash unruly cost "$W/unload"
rc=$?
[ $rc -eq 0 ] && pass "a crash in unload, after the folder is complete: exit 0" || fail "unload crash: exit $rc, want 0"
expect_err "harness: warning: plugin " "the crash in unload is named"
expect_err "its unload callback crashed with Segmentation fault" "... with its signal"
status_is "$W/unload" ok 0 "unload crash: the run's status.json stays ok, and the process did not die"

# exit(0) from unload once turned a failed run into exit 0.
UNRULY_INIT=unload_exit unruly cost "$W/unload_exit" --set component.config.bytes=nan
rc=$?
[ $rc -eq 3 ] && pass "exit(0) in unload after a failed run: exit 3" || fail "exit(0) in unload: exit $rc, want 3"
expect_err "called exit() from its unload callback" "exit() in unload is named"
UNRULY_INIT=unload_exit unruly cost "$W/unload_exit_ok"
rc=$?
[ $rc -eq 3 ] && pass "exit(0) in unload after a good run: exit 3 (a plugin bug, as in any callback)" \
    || fail "exit(0) in unload after a good run: exit $rc, want 3"

finish
