#!/bin/sh
# Output made for a terminal: compare's verdicts coloured only on a
# terminal (a pty from script(1)), NO_COLOR and --color respected, never
# in markdown or JSON; the text table fitted to 80 columns and whole at 200
# or with --wide; hyperfine's "ran N times faster" line; run's warnings.
. "$top_builddir/tests/setup"
command -v script >/dev/null 2>&1 || { echo "script(1) is missing: no pseudo-terminal"; exit 77; }

# Five 50 us runs against five 80 us runs, labelled as one benchmark.
spin() {
    dir=$("$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/$1" --quiet --runs 5 \
        --set component.config.duration_ns="$2" --set schedule.measurement_steps=30 --set schedule.repeat=3 \
        --set profiling.trace=false --set profiling.memory=false 2>/dev/null) || return 1
    python3 - "$dir" <<'PY' || return 1
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*/summary_ranks_1_rank_0.json"):
    s = json.load(open(f))
    s["component"]["config"]["duration_ns"] = 50000
    json.dump(s, open(f, "w"))
PY
    echo "$dir"
}
base=$(spin base 50000) || fail "base runs"
slow=$(spin slow 80000) || fail "slow runs"
ESC=$(printf '\033')

# on_tty CMD...: CMD's output as a terminal shows it (stdout and stderr);
# TERM set, since make may run under TERM=dumb (which means no colour).
on_tty() {
    cmd=""
    for a in "$@"; do cmd="$cmd '$a'"; done
    TERM=xterm script -qec "$cmd" /dev/null </dev/null | tr -d '\r'
}

"$HARNESS" compare "$base" "$slow" >"$SCRATCH/pipe" 2>&1
! grep -q "$ESC" "$SCRATCH/pipe" && pass "a pipe gets no colour" || fail "colour in a pipe"
# The verdict word, then ":" or, for AMBIGUOUS, its cause first: "AMBIGUOUS
# (interference):" on a loaded machine.
verdict=$(sed -n 's/^verdict: \([A-Z]*\)[ :].*/\1/p' "$SCRATCH/pipe")
case $verdict in
    REGRESSION) sgr=31 ;; IMPROVEMENT) sgr=32 ;; AMBIGUOUS) sgr=33 ;; *) sgr=x; fail "verdict '$verdict'" ;;
esac
on_tty "$HARNESS" compare "$base" "$slow" >"$SCRATCH/tty"
grep -q "^verdict: $ESC\[${sgr}m$verdict$ESC\[0m[ :]" "$SCRATCH/tty" && pass "a terminal gets $verdict in colour $sgr" ||
    { fail "no colour on a terminal"; cat -v "$SCRATCH/tty"; }
NO_COLOR=1 on_tty "$HARNESS" compare "$base" "$slow" >"$SCRATCH/tty"
! grep -q "$ESC" "$SCRATCH/tty" && pass "NO_COLOR: no colour on a terminal" || fail "NO_COLOR ignored"
on_tty "$HARNESS" compare "$base" "$slow" --color never >"$SCRATCH/tty"
! grep -q "$ESC" "$SCRATCH/tty" && pass "--color never" || fail "--color never coloured"
"$HARNESS" compare "$base" "$slow" --color always >"$SCRATCH/always" 2>&1
grep -q "$ESC\[${sgr}m$verdict" "$SCRATCH/always" && pass "--color always colours a pipe" || fail "--color always"
expect_exit 2 "--color sometimes" "$HARNESS" compare "$base" "$slow" --color sometimes
expect_err "--color: expected auto, never or always, got 'sometimes'" "--color: a bad value is named"
for fmt in markdown json; do
    "$HARNESS" compare "$base" "$slow" --format $fmt >"$SCRATCH/plain.$fmt"
    COLUMNS=80 "$HARNESS" compare "$base" "$slow" --format $fmt --color always >"$SCRATCH/styled.$fmt"
    cmp -s "$SCRATCH/plain.$fmt" "$SCRATCH/styled.$fmt" && ! grep -q "$ESC" "$SCRATCH/styled.$fmt" &&
        pass "$fmt: the same bytes with --color always at 80 columns" || fail "$fmt: changed by colour or width"
done

# The ratio as hyperfine says it (80 us vs 50 us: the base is faster).
grep -q "^base ran 1\.[0-9][0-9] ± [0-9.]* times faster than cand$" "$SCRATCH/pipe" &&
    pass "base ran N ± M times faster than cand" || fail "no 'ran N times faster' line: $(cat "$SCRATCH/pipe")"

# Widths: the table within 80 columns keeps the verdict, at 200 (and with
# --wide, and in a pipe) every column.
table() { sed -n '/^variant /,/^$/p' "$1"; }
COLUMNS=80 "$HARNESS" compare "$base" "$slow" >"$SCRATCH/80"
long=$(table "$SCRATCH/80" | awk 'length($0) > 80' | wc -l)
[ "$long" -eq 0 ] && pass "80 columns: no table line wider" || { fail "80 columns: $long lines wider"; cat "$SCRATCH/80"; }
table "$SCRATCH/80" | head -1 | grep -q "ratio .*change .*verdict" && pass "80 columns: ratio, change, verdict kept" ||
    fail "80 columns: $(table "$SCRATCH/80" | head -1)"
table "$SCRATCH/80" | sed -n 2p | grep -q "$verdict\$" || fail "80 columns: the row's verdict"
for how in "COLUMNS=200" "COLUMNS=80 --wide" "pipe"; do
    case $how in
        COLUMNS=200) COLUMNS=200 "$HARNESS" compare "$base" "$slow" >"$SCRATCH/w" ;;
        pipe) cp "$SCRATCH/pipe" "$SCRATCH/w" ;;
        *) COLUMNS=80 "$HARNESS" compare "$base" "$slow" --wide >"$SCRATCH/w" ;;
    esac
    table "$SCRATCH/w" | head -1 | grep -q "^variant  *config  *rank  *base median  *cand median  *ratio  *interval (coverage)  *change  *p90 ratio  *replicates  *p  *verdict$" &&
        pass "$how: every column" || fail "$how: $(table "$SCRATCH/w" | head -1)"
done
[ "$(table "$SCRATCH/w" | awk 'length($0) > 200' | wc -l)" -eq 0 ] || fail "200 columns: a line wider"

# run: warnings in yellow on a terminal, plain in a pipe.
on_tty "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/r" --quiet --set schedule.measurement_steps=2 \
    --set component.config.duration_ns=1 >"$SCRATCH/tty"
grep -q "harness: $ESC\[33mwarning:$ESC\[0m " "$SCRATCH/tty" && pass "run: warnings in yellow on a terminal" ||
    { fail "run: no yellow warning"; cat -v "$SCRATCH/tty"; }
"$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/r" --quiet --set schedule.measurement_steps=2 \
    --set component.config.duration_ns=1 >"$SCRATCH/p" 2>&1
grep -q "^harness: warning: " "$SCRATCH/p" && ! grep -q "$ESC" "$SCRATCH/p" && pass "run: plain warnings in a pipe" ||
    fail "run in a pipe: $(cat -v "$SCRATCH/p")"
finish
