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

# Every include is read, not only "stage/..." ones: a header reached by
# another spelling is refused, and so is a <stage/...> include of a later stage.
cp "$top_srcdir/harness/config/config.h" "$SCRATCH/config.h.orig"
cp "$SCRATCH/config.h.orig" "$SCRATCH/tree/harness/config/config.h"
printf '#include "../run/runner.h"\n' >>"$SCRATCH/tree/harness/config/config.h"
expect_exit 1 "a header by a path of its own is refused" "$SCRATCH/tree/scripts/check_layers" "$SCRATCH/tree"
grep -q 'harness/config/config.h:[0-9]*: includes "../run/runner.h", no stage' "$SCRATCH/out" ||
    fail "the path that names no stage is named: $(cat "$SCRATCH/out")"
cp "$SCRATCH/config.h.orig" "$SCRATCH/tree/harness/config/config.h"
printf '#include <run/runner.h>\n' >>"$SCRATCH/tree/harness/config/config.h"
expect_exit 1 "an angle-bracket include of a later stage is refused" "$SCRATCH/tree/scripts/check_layers" "$SCRATCH/tree"
grep -q 'harness/config/config.h:[0-9]*: includes run/' "$SCRATCH/out" || fail "the <run/...> include is named"
cp "$SCRATCH/config.h.orig" "$SCRATCH/tree/harness/config/config.h"

# The pipeline is a stage: run/ below it may not reach up into it.
mkdir "$SCRATCH/tree/harness/pipeline"
printf '#include "run/runner.h"\n' >"$SCRATCH/tree/harness/pipeline/plan.h"
expect_exit 0 "the pipeline may include run/" "$SCRATCH/tree/scripts/check_layers" "$SCRATCH/tree"
printf '#include "pipeline/plan.h"\n' >>"$SCRATCH/tree/harness/run/runner.h"
expect_exit 1 "run/ including the pipeline is refused" "$SCRATCH/tree/scripts/check_layers" "$SCRATCH/tree"
grep -q 'harness/run/runner.h:[0-9]*: includes pipeline/' "$SCRATCH/out" || fail "the climb into pipeline/ is named"
cp "$top_srcdir/harness/run/runner.h" "$SCRATCH/tree/harness/run/runner.h"

# components/common, which the core includes, is below every stage.
mkdir -p "$SCRATCH/tree/components/common"
printf '#include <stdint.h>\n' >"$SCRATCH/tree/components/common/half.h"
printf '#include "common/half.h"\n' >>"$SCRATCH/tree/harness/util/stats.h"
expect_exit 0 "the core may include components/common" "$SCRATCH/tree/scripts/check_layers" "$SCRATCH/tree"
printf '#include "util/error.h"\n' >>"$SCRATCH/tree/components/common/half.h"
expect_exit 1 "components/common including the harness is refused" "$SCRATCH/tree/scripts/check_layers" "$SCRATCH/tree"
grep -q 'components/common/half.h:[0-9]*: includes util/error.h' "$SCRATCH/out" ||
    fail "the include from components/common is named: $(cat "$SCRATCH/out")"

# A folder that is not a stage must be placed in the order first.
mkdir "$SCRATCH/tree/harness/misc"
expect_exit 1 "an unknown folder is refused" "$SCRATCH/tree/scripts/check_layers" "$SCRATCH/tree"
grep -q 'harness/misc: a folder that is not a stage' "$SCRATCH/out" || fail "the unknown folder is named"
finish
