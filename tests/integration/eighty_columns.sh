#!/bin/sh
# At 80 columns (COLUMNS=80, as a terminal of that width) `run`, `list`,
# `compare` and `ab` print no line wider than 80 characters (characters,
# not bytes: UTF-8 counts once), stdout and stderr alike: tables drop their
# least needed columns, prose wraps at spaces. compare's config column,
# when it must be cut, shows the value that tells its rows apart rather
# than a prefix that hides it. --wide, and a pipe with COLUMNS unset, get
# every column and whole lines (issue 40 item 3).
. "$top_builddir/tests/setup"

# over FILE: the lines of FILE wider than 80 characters, each with its width.
# A line that is one word after its indent (a long path, as the plugin
# directory of a deep build tree) is kept whole by design, so it can be
# copied: no wrapping could make it fit.
over() {
    python3 - "$1" <<'PY'
import sys
for n, line in enumerate(open(sys.argv[1], encoding="utf-8", errors="replace").read().splitlines(), 1):
    if len(line) > 80 and " " in line.strip():
        print(f"  line {n}, {len(line)} characters: {line}")
PY
}
# narrow DESC FILE: pass when no line of FILE is wider than 80.
narrow() {
    if [ -s "$2" ] && [ -z "$(over "$2")" ]; then pass "$1: no line over 80 characters"
    else fail "$1: lines over 80 characters (or no output):"; over "$2"; fi
}
short="--set schedule.warmup_steps=1 --set schedule.measurement_steps=5 --set profiling.trace=false"

# run: a short config with three windows (a table of 4 rows).
COLUMNS=80 "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/r" $short --set schedule.repeat=3 \
    >run80 2>&1 || fail "run at 80 columns: exit $?"
narrow "run" run80
grep -q "^window  *steps  *median .*CI of median" run80 && pass "run at 80: the median and its interval stay" ||
    fail "run at 80: header $(grep '^window' run80)"
for how in wide pipe; do
    if [ $how = wide ]; then COLUMNS=80 "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/r" $short \
        --set schedule.repeat=3 --wide >run.$how 2>&1
    else "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/r" $short --set schedule.repeat=3 >run.$how 2>&1; fi
    grep -q "^window  *steps  *median  *mean  *stddev  *min  *p99  *max  *CI of median  *level cpu/wall$" run.$how &&
        pass "run, $how: every column" || fail "run, $how: $(grep '^window' run.$how)"
done

# A sweep's table of points: the folders below it at 80 columns.
{ cat "$CONFIGS/spin_tiny.yaml"; printf 'sweep:\n  component.config.duration_ns: [10000, 20000]\n'; } >sweep.yaml
COLUMNS=80 "$HARNESS" run sweep.yaml --output-dir "$SCRATCH/s" \
    $short >sweep80 2>&1 || fail "sweep at 80 columns: exit $?"
narrow "run, a sweep" sweep80
grep -q "^experiments:$" sweep80 && grep -q "^  2/2  $SCRATCH/s/" sweep80 &&
    pass "sweep at 80: the folders below the table" || fail "sweep at 80: $(sed -n '/^sweep of/,$p' sweep80)"

# list: every variant's summary and parameters, wrapped; whole with --wide.
COLUMNS=80 "$HARNESS" list >list80 2>&1 || fail "list at 80 columns: exit $?"
narrow "list" list80
grep -q "^  duration_ns  " list80 && grep -q "^      nanoseconds each step busy-waits" list80 &&
    pass "list at 80: a parameter's help on its own lines" || fail "list at 80: $(grep -A1 '^  duration_ns' list80)"
"$HARNESS" list >list.pipe 2>&1
COLUMNS=80 "$HARNESS" list --wide >list.wide 2>&1
cmp -s list.pipe list.wide && [ -n "$(over list.pipe)" ] && pass "list: --wide and a pipe get whole lines" ||
    fail "list: --wide differs from a pipe, or nothing is wider than 80"

# compare: two folders, each two rms_norm configs that differ in one value
# of five; the config column cannot hold them whole at 80.
for side in base cand; do
    for h in 64 128; do
        "$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" --output-dir "$SCRATCH/$side" --quiet $short \
            --set component.config.hidden_size=$h >/dev/null 2>&1 || fail "$side run, hidden_size=$h"
    done
done
COLUMNS=80 "$HARNESS" compare "$SCRATCH/base" "$SCRATCH/cand" >cmp80 2>&1
[ $? -le 1 ] || fail "compare at 80: exit $? $(cat cmp80)"
narrow "compare" cmp80
grep -q "^rms_norm/cpu  *hidden_size=64  " cmp80 && grep -q "^rms_norm/cpu  *hidden_size=128  " cmp80 &&
    pass "compare at 80: each row names the value that differs" ||
    { fail "compare at 80: the config column hides hidden_size"; sed -n '/^variant/,/^$/p' cmp80; }
grep -q "\.\.\." cmp80 && fail "compare at 80: a cut cell: $(grep -F ... cmp80)" || pass "compare at 80: no cell cut"
COLUMNS=80 "$HARNESS" compare "$SCRATCH/base" "$SCRATCH/cand" --wide >cmp.wide 2>&1
grep -q "^rms_norm/cpu  *batch_size=2, seq_len=3, hidden_size=64, eps=1e-06, dtype=fp32  " cmp.wide &&
    pass "compare --wide: the whole config" || fail "compare --wide: $(sed -n '/^variant/,/^$/p' cmp.wide)"

# ab: a short one (6 rounds of a 5-step spin).
COLUMNS=80 "$HARNESS" ab "$CONFIGS/spin_tiny.yaml" "$CONFIGS/spin_tiny.yaml" --rounds 6 --output-dir "$SCRATCH/ab" \
    $short >ab80 2>&1
[ $? -le 1 ] || fail "ab at 80: exit $? $(cat ab80)"
narrow "ab" ab80
grep -q "^verdict: " ab80 && pass "ab at 80: a verdict" || fail "ab at 80: no verdict"
finish
