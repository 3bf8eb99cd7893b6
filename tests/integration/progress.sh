#!/bin/sh
# The progress line (issue 40, item 4; util/progress.h): on a terminal
# (a pty from script(1)) `ab` shows its validation and each run of its
# rounds with an ETA, `run --runs N` each run, a single run its
# validation; nothing with --quiet or when stderr is not a terminal. And
# ab's header names each side's own folders, not one folder twice.
. "$top_builddir/tests/setup"
command -v script >/dev/null 2>&1 || { echo "script(1) is missing: no pseudo-terminal"; exit 77; }
SPIN="$CONFIGS/spin_tiny.yaml"
FAST="--set schedule.measurement_steps=10 --set schedule.repeat=1 --set schedule.warmup_steps=1"

# on_tty FILE CMD...: CMD's stdout and stderr as a terminal shows them, into FILE.
on_tty() {
    out=$1; shift
    cmd=""
    for a in "$@"; do cmd="$cmd '$a'"; done
    TERM=xterm script -qec "$cmd" /dev/null </dev/null >"$out"
}
has() { grep -aqF -- "$2" "$1"; }

on_tty "$SCRATCH/ab.tty" "$HARNESS" ab "$SPIN" "$SPIN" --rounds 6 --output-dir "$SCRATCH/ab" $FAST
has "$SCRATCH/ab.tty" "ab: validating 1/2  base" && has "$SCRATCH/ab.tty" "ab: validating 2/2  cand" &&
    pass "ab: the validation's progress" || fail "ab: no validation progress: $(head -c 300 "$SCRATCH/ab.tty")"
has "$SCRATCH/ab.tty" "ab: run 1/12  round 1/6: base" && has "$SCRATCH/ab.tty" "ab: run 12/12  round 6/6: " &&
    grep -aq "ab: run 2/12  round 1/6: cand  [0-9.]* s  ETA [0-9.]* s" "$SCRATCH/ab.tty" &&
    pass "ab: each run of each round, with an ETA" || fail "ab: no rounds' progress: $(head -c 600 "$SCRATCH/ab.tty")"
grep -aq "base: $SCRATCH/ab/round-\*-base (" "$SCRATCH/ab.tty" && grep -aq "^cand: $SCRATCH/ab/round-\*-cand (" "$SCRATCH/ab.tty" &&
    pass "ab: each side's header names its own folders" || { fail "ab's header:"; grep -a "^base:\|^cand:" "$SCRATCH/ab.tty"; }

on_tty "$SCRATCH/abq.tty" "$HARNESS" ab "$SPIN" "$SPIN" --rounds 6 --output-dir "$SCRATCH/abq" --quiet $FAST
! has "$SCRATCH/abq.tty" "ab: run " && ! has "$SCRATCH/abq.tty" "ab: validating" && has "$SCRATCH/abq.tty" "verdict:" &&
    pass "ab --quiet: no progress line" || fail "ab --quiet printed progress"
"$HARNESS" ab "$SPIN" "$SPIN" --rounds 6 --output-dir "$SCRATCH/abp" $FAST >"$SCRATCH/out" 2>"$SCRATCH/err"
! grep -q "ab: run \|ab: validating" "$SCRATCH/err" && ! grep -q "$(printf '\r')" "$SCRATCH/err" &&
    pass "ab into a pipe: no progress line, no carriage returns" || fail "ab's progress in a pipe: $(cat "$SCRATCH/err")"

on_tty "$SCRATCH/runs.tty" "$HARNESS" run "$SPIN" --runs 2 --output-dir "$SCRATCH/runs" $FAST
has "$SCRATCH/runs.tty" "suite 1/2  run 1/2: " && grep -aq "suite 2/2  run 2/2: .* ETA [0-9.]* s" "$SCRATCH/runs.tty" &&
    pass "run --runs 2: each run, with an ETA" || fail "run --runs: no progress: $(head -c 400 "$SCRATCH/runs.tty")"
on_tty "$SCRATCH/runsq.tty" "$HARNESS" run "$SPIN" --runs 2 --output-dir "$SCRATCH/runsq" --quiet $FAST
! has "$SCRATCH/runsq.tty" "suite 1/2" && pass "run --runs 2 --quiet: no progress line" || fail "--quiet suite progress"

on_tty "$SCRATCH/one.tty" "$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" --output-dir "$SCRATCH/one"
has "$SCRATCH/one.tty" "validation: check against the reference" &&
    pass "a run: the validation's stage before the steps" || fail "a run: no validation progress"

finish
