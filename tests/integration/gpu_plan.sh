#!/bin/sh
# tests/gpu/run.sh --dry-run on a machine without a GPU: it prints the two
# prepared commands (--first, --second), each part with its budget, its
# deadline and its estimate, the whole's estimate within the 15 minutes of a
# loan, then the six slices in the order of work, each with the device
# tool's call that runs it,
# finds every file they use in this tree (a file left out of the tarball
# fails this under make distcheck), and checks the carry folder that
# tests/gpu/prepare.sh makes (a stand-in here, HARNESS_GPU_CARRY): whole, of
# this tree's state, within 64 MiB. Missing or stale: it names what and exits
# 1; a slice that does not exist is refused. The GPU configs it runs pass
# `harness validate`.
. "$top_builddir/tests/setup"

# A carry folder as prepare.sh leaves it, of this tree's state.
carry=$SCRATCH/carry
mkdir -p "$carry/debs"
echo tarball >"$carry/harness-0.1.0.tar.gz"
echo deb >"$carry/debs/libyaml-dev.deb"
repo=$top_srcdir
. "$top_srcdir/tests/gpu/source_state.sh"
source_state >"$carry/SOURCE"
HARNESS_GPU_CARRY=$carry
export HARNESS_GPU_CARRY

expect_exit 0 "dry run of this tree" sh "$top_srcdir/tests/gpu/run.sh" --dry-run "$SCRATCH/plan"
grep -n -e '--first: ' -e '--second: ' -e 'slice 1: ' "$SCRATCH/out" | cut -d: -f3 | tr '\n' ';' >"$SCRATCH/order"
[ "$(cat "$SCRATCH/order")" = " --first; --second; slice 1;" ] && pass "--first, then --second, then the slices" ||
    fail "order of the plan: $(cat "$SCRATCH/order")"
for s in 1 2 3 4 5 6; do
    grep -q "slice $s: " "$SCRATCH/out" && pass "slice $s listed" || fail "slice $s not listed"
    grep -qF "run: command='sh tests/gpu/run.sh --slice $s --export \$OUT' carry=[\"tests/gpu/carry\"] timeout_s=600" \
        "$SCRATCH/out" && pass "slice $s: the device tool's call" || fail "slice $s: no device tool call printed"
done
grep -q 'everything the plan uses is present' "$SCRATCH/out" && pass "all present" || fail "no all-present line"
grep -q 'carry: harness-0.1.0.tar.gz, 1 .debs: .* MiB of the 64 MiB' "$SCRATCH/out" && pass "the carry's size" ||
    fail "no carry size line: $(grep carry "$SCRATCH/out")"
line() { grep -n "slice $1: " "$SCRATCH/out" | cut -d: -f1; }
[ "$(line 1)" -lt "$(line 2)" ] && [ "$(line 2)" -lt "$(line 3)" ] && [ "$(line 3)" -lt "$(line 4)" ] &&
    [ "$(line 4)" -lt "$(line 5)" ] && [ "$(line 5)" -lt "$(line 6)" ] &&
    pass "validation, figures, sanitizers, tuning, make check, timing integrity in order" ||
    fail "slices out of order"

# The first command: its parts in order, each deadline the budgets added up
# and at or after the estimated end of the part; the estimate, the sum of the
# parts', within 10 minutes of device time with the machine's start.
expect_exit 0 "dry run of --first" sh "$top_srcdir/tests/gpu/run.sh" --dry-run --first "$SCRATCH/plan_first"
cp "$SCRATCH/out" "$SCRATCH/first.out"
rows() { sed -n 's/^gpu\/run.sh:   \([a-z]*\) *\([0-9]*\) s *\([0-9]*\) s *\([0-9-]*\)\( s\)\{0,1\}  .*/\1 \2 \3 \4/p' "$1"; }
rows "$SCRATCH/first.out" >"$SCRATCH/first.rows"
[ "$(cut -d' ' -f1 "$SCRATCH/first.rows" | tr '\n' ' ')" = "build validate perf llama figures torch integrity " ] &&
    pass "--first: build, validation, attention and block figures, RMSNorm and allreduce, PyTorch, integrity" ||
    fail "--first's parts: $(cut -d' ' -f1 "$SCRATCH/first.rows" | tr '\n' ' ')"
awk '{ c += $2; e += $4; if ($3 != c || $3 < e) bad = bad " " $1 } END { exit bad != "" }' "$SCRATCH/first.rows" &&
    pass "--first: each deadline the budgets so far, and after the part's estimated end" ||
    fail "--first's deadlines: $(tr '\n' ';' <"$SCRATCH/first.rows")"
last=$(tail -1 "$SCRATCH/first.rows" | cut -d' ' -f3)
[ "$last" -le 510 ] && pass "--first: every part done by $last s, within 510" || fail "--first's last deadline $last s"
est=$(awk '{ e += $4 } END { print e }' "$SCRATCH/first.rows")
grep -q "estimate: $est s of command time, $((est + 49)) s of device time with a fresh machine's 49 s start" \
    "$SCRATCH/first.out" && pass "--first: the estimate, $est s, the parts' sum" ||
    fail "no estimate line of $est s: $(grep estimate "$SCRATCH/first.out")"
[ $((est + 49)) -le 600 ] && pass "--first: within 10 minutes of device time" || fail "--first: $((est + 49)) s estimated"
first_call="run: command='sh tests/gpu/run.sh --first --export \$OUT' carry=[\"tests/gpu/carry\"] timeout_s=600"
grep -qF "$first_call" "$SCRATCH/out" && pass "--first: the device tool's call" || fail "--first: no device tool call"
grep -q 'slice 1: ' "$SCRATCH/out" && fail "--first printed the slices"
grep -qF "${first_call#run: }" "$top_srcdir/tests/gpu/README.md" && pass "the README gives --first's call" ||
    fail "tests/gpu/README.md does not give --first's call"

expect_exit 0 "dry run of --second" sh "$top_srcdir/tests/gpu/run.sh" --dry-run --second "$SCRATCH/plan_second"
rows "$SCRATCH/out" >"$SCRATCH/second.rows"
[ "$(cut -d' ' -f1 "$SCRATCH/second.rows" | tr '\n' ' ')" = "build sanitize check tune " ] &&
    pass "--second: build, sanitizers, make check, tuning" || fail "--second's parts: $(tr '\n' ';' <"$SCRATCH/second.rows")"
grep -q 'estimate: not measured yet for: sanitize check tune' "$SCRATCH/out" && pass "--second: what is not measured" ||
    fail "--second: no estimate line"
grep -q "at most: 510 s of command time" "$SCRATCH/out" && pass "--second: bounded by 510 s" || fail "--second: no bound"

# Less time (a device tool call given less than 600 s): the deadlines shrink to fit.
HARNESS_GPU_BUDGET_S=255 expect_exit 0 "dry run of --first in 255 s" sh "$top_srcdir/tests/gpu/run.sh" --dry-run --first \
    "$SCRATCH/plan_first2"
rows "$SCRATCH/out" >"$SCRATCH/first2.rows"
[ "$(tail -1 "$SCRATCH/first2.rows" | cut -d' ' -f3)" -le 255 ] &&
    [ "$(sed -n 2p "$SCRATCH/first2.rows" | cut -d' ' -f3)" -lt "$(sed -n 2p "$SCRATCH/first.rows" | cut -d' ' -f3)" ] &&
    pass "deadlines scaled to HARNESS_GPU_BUDGET_S" || fail "deadlines in 255 s: $(tr '\n' ';' <"$SCRATCH/first2.rows")"
grep -q 'the estimate is over the budget' "$SCRATCH/out" && pass "says the estimate is over the budget" ||
    fail "no over-budget line"
expect_exit 2 "--first with --slice" sh "$top_srcdir/tests/gpu/run.sh" --dry-run --first --slice 2 "$SCRATCH/plan7"
HARNESS_GPU_BUDGET_S=5m expect_exit 2 "HARNESS_GPU_BUDGET_S=5m" sh "$top_srcdir/tests/gpu/run.sh" --dry-run "$SCRATCH/plan8"

expect_exit 0 "dry run of slice 2" sh "$top_srcdir/tests/gpu/run.sh" --dry-run --slice 2 "$SCRATCH/plan2"
grep -q 'slice 2: ' "$SCRATCH/out" && ! grep -q 'slice 1: ' "$SCRATCH/out" && pass "only slice 2" ||
    fail "--slice 2 listed other slices"

# The carry folder stale (made from another state of the tree), then absent.
echo "commit 0000 edits 0000" >"$carry/SOURCE"
expect_exit 1 "dry run with a stale carry" sh "$top_srcdir/tests/gpu/run.sh" --dry-run "$SCRATCH/plan5"
grep -q "stale: .*run tests/gpu/prepare.sh again" "$SCRATCH/out" && pass "says the carry is stale" ||
    fail "no stale line"
HARNESS_GPU_CARRY=$SCRATCH/nothing expect_exit 1 "dry run without a carry" \
    sh "$top_srcdir/tests/gpu/run.sh" --dry-run "$SCRATCH/plan6"
for f in 'harness-\*.tar.gz' 'debs/\*.deb' SOURCE; do
    grep -q "missing: .*nothing/$f (run tests/gpu/prepare.sh)" "$SCRATCH/out" && pass "names the carry's $f" ||
        fail "does not name the carry's missing $f"
done

# A tree with the scripts and nothing they read.
mkdir -p "$SCRATCH/bare/tests/gpu"
for f in run.sh slices.sh source_state.sh build.sh parts.sh; do cp "$top_srcdir/tests/gpu/$f" "$SCRATCH/bare/tests/gpu/"; done
expect_exit 1 "dry run of a bare tree" sh "$SCRATCH/bare/tests/gpu/run.sh" --dry-run "$SCRATCH/plan3"
for f in tests/gpu/gemm_rate.c tests/gpu/table.py tests/gpu/results.py configs/rms_norm_cuda.yaml tests/gpu/integrity.py \
        tests/gpu/configs/attention.yaml tests/gpu/configs/attention_tune.yaml; do
    grep -q "missing: $f" "$SCRATCH/out" && pass "names $f" || fail "does not name missing $f"
done

expect_exit 2 "--slice 7" sh "$top_srcdir/tests/gpu/run.sh" --dry-run --slice 7 "$SCRATCH/plan4"

# From the tree's top, where tests/gpu/run.sh runs them (python.yaml's
# callable is a path relative to the working directory).
for c in "$top_srcdir"/tests/gpu/configs/*.yaml; do
    expect_exit 0 "harness validate tests/gpu/configs/$(basename "$c")" env -C "$top_srcdir" "$HARNESS" validate "$c"
done
finish
