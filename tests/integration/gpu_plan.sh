#!/bin/sh
# tests/gpu/run.sh --dry-run on a machine without a GPU: it prints the four
# slices in the order of work and finds every file they use in this tree
# (a file left out of the tarball fails this under make distcheck); in a
# tree that lacks them it names each missing file and exits 1; a slice that
# does not exist is refused.
. "$top_builddir/tests/setup"

expect_exit 0 "dry run of this tree" sh "$top_srcdir/tests/gpu/run.sh" --dry-run "$SCRATCH/plan"
for s in 1 2 3 4; do
    grep -q "slice $s: " "$SCRATCH/out" && pass "slice $s listed" || fail "slice $s not listed"
done
grep -q 'everything the slices use is present' "$SCRATCH/out" && pass "all present" || fail "no all-present line"
[ "$(grep -n 'slice 1: ' "$SCRATCH/out" | cut -d: -f1)" -lt "$(grep -n 'slice 4: ' "$SCRATCH/out" | cut -d: -f1)" ] &&
    pass "validation before make check" || fail "slices out of order"

expect_exit 0 "dry run of slice 2" sh "$top_srcdir/tests/gpu/run.sh" --dry-run --slice 2 "$SCRATCH/plan2"
grep -q 'slice 2: ' "$SCRATCH/out" && ! grep -q 'slice 1: ' "$SCRATCH/out" && pass "only slice 2" ||
    fail "--slice 2 listed other slices"

# A tree with the script and nothing it reads.
mkdir -p "$SCRATCH/bare/tests/gpu"
cp "$top_srcdir/tests/gpu/run.sh" "$top_srcdir/tests/gpu/slices.sh" "$SCRATCH/bare/tests/gpu/"
expect_exit 1 "dry run of a bare tree" sh "$SCRATCH/bare/tests/gpu/run.sh" --dry-run "$SCRATCH/plan3"
for f in tests/gpu/gemm_rate.c tests/gpu/table.py configs/rms_norm_cuda.yaml tests/gpu/configs/attention.yaml; do
    grep -q "missing: $f" "$SCRATCH/out" && pass "names $f" || fail "does not name missing $f"
done

expect_exit 2 "--slice 5" sh "$top_srcdir/tests/gpu/run.sh" --dry-run --slice 5 "$SCRATCH/plan4"
finish
