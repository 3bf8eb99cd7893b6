#!/bin/sh
# The core's include graph points down the data flow only (docs/ARCHITECTURE.md
# section 3): scripts/check_layers passes on this tree and catches a file
# that includes a header of a later stage.
. "$top_builddir/tests/setup"

expect_exit 0 "the tree keeps its layers" "$top_srcdir/scripts/check_layers" "$top_srcdir"

# A copy of the tree with one backward include: config/ reaching into run/.
mkdir -p "$SCRATCH/tree/scripts" "$SCRATCH/tree/harness"
cp "$top_srcdir/scripts/check_layers" "$SCRATCH/tree/scripts/"
cp -R "$top_srcdir/harness/util" "$top_srcdir/harness/config" "$top_srcdir/harness/run" "$SCRATCH/tree/harness/"
printf '#include "run/runner.h"\n' >>"$SCRATCH/tree/harness/config/config.h"
expect_exit 1 "a backward include is refused" "$SCRATCH/tree/scripts/check_layers" "$SCRATCH/tree"
grep -q 'harness/config/config.h:[0-9]*: includes run/' "$SCRATCH/out" ||
    fail "the violation names the file, line and stage: $(cat "$SCRATCH/out")"

# A folder that is not a stage must be placed in the order first.
mkdir "$SCRATCH/tree/harness/misc"
expect_exit 1 "an unknown folder is refused" "$SCRATCH/tree/scripts/check_layers" "$SCRATCH/tree"
grep -q 'harness/misc: a folder that is not a stage' "$SCRATCH/out" || fail "the unknown folder is named"
finish
