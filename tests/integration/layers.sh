#!/bin/sh
# The layering of docs/ARCHITECTURE.md section 3 holds (issue 39):
# scripts/check_layers passes on this tree, and on a scratch copy of it
# names each forbidden include planted, one case at a time, by file and line
# (each case restores the copy first). CHECK_LAYERS overrides the script
# checked (to show which cases an older one misses).
. "$top_builddir/tests/setup"
check=${CHECK_LAYERS:-$top_srcdir/scripts/check_layers}

expect_exit 0 "the tree keeps its layers" "$check" "$top_srcdir"
[ -s "$SCRATCH/out" ] && fail "the tree's violations: $(cat "$SCRATCH/out")"

tree=$SCRATCH/tree
mkdir -p "$tree/tests"
cp -R "$top_srcdir/harness" "$top_srcdir/components" "$tree/"
cp -R "$top_srcdir/tests/fixtures" "$tree/tests/"
rm -rf "$tree/harness/.libs" "$tree/harness/"*/.libs "$tree/harness/"*/.deps
expect_exit 0 "the scratch copy keeps its layers" "$check" "$tree"

# plant FILE TEXT DESC PATTERN: append TEXT (printf format) to FILE, expect
# check_layers to refuse and to print a line matching PATTERN (grep -E),
# then put FILE back.
plant() {
    file=$1 text=$2 desc=$3 pattern=$4
    cp "$tree/$file" "$SCRATCH/orig" || { fail "$desc: no $file"; return; }
    printf "$text" >>"$tree/$file"
    expect_exit 1 "$desc" "$check" "$tree"
    grep -Eq "^$file:[0-9]+: .*$pattern" "$SCRATCH/out" ||
        fail "$desc: not named as $file:LINE: ...$pattern; got: $(cat "$SCRATCH/out")"
    cp "$SCRATCH/orig" "$tree/$file"
}

# 1-7: what the first check_layers caught.
plant harness/config/config.h '#include "run/runner.h"\n' \
    "1. a later stage's header" 'includes run/, a stage config/ does not see'
plant harness/config/config.h '#include <run/runner.h>\n' \
    "2. a later stage's header in <...>" 'includes run/'
plant harness/run/runner.h '#include "pipeline/plan.h"\n' \
    "3. run/ reaching up into the pipeline" 'includes pipeline/'
plant harness/config/config.h '#include "../run/runner.h"\n' \
    "4. a header by a path of its own" '"\.\./run/runner\.h", a path of its own'
plant harness/util/stats.c '#include "runner.h"\n' \
    "5. a bare name that is not beside the file" '"runner\.h", no stage'
plant components/common/bf16.h '#include "util/error.h"\n' \
    "6. components/common including the harness" 'includes util/error\.h; components/common is below'
mkdir "$tree/harness/misc"
expect_exit 1 "7. a folder that is not a stage" "$check" "$tree"
grep -q '^harness/misc: a folder that is not a stage' "$SCRATCH/out" || fail "7. the folder is not named"
rmdir "$tree/harness/misc"

# 8-13: what it let through.
plant harness/include/harness/plugin.h '#include "util/error.h"\n' \
    "8. the plugin ABI including the harness" 'includes util/error\.h; the plugin ABI includes standard headers only'
plant components/rms_norm/rms_norm_cpu_adapter.c '#include "run/runner.h"\n' \
    "9a. a plugin adapter including run/runner.h" 'includes run/runner\.h, the harness.s own'
plant components/attention/attention_adapter.h '#include "util/error.h"\n' \
    "9b. a plugin adapter including util/error.h" 'includes util/error\.h, the harness.s own'
plant components/rms_norm/rms_norm_cpu.c '#include <harness/../../harness/util/error.h>\n' \
    "9c. a kernel reaching the harness by <harness/...>" 'a path of its own'
plant tests/fixtures/good.c '#include "util/error.h"\n' \
    "9d. a fixture plugin including the harness" 'includes util/error\.h, the harness.s own'
plant components/rms_norm/rms_norm_cpu.c '#include "attention/attention.h"\n' \
    "9e. a family including another it does not build on" "another family's"
plant harness/compare/compare_load.c '#include "report/summary.h"\n' \
    "10a. compare/ including report/" 'includes report/, a stage compare/ does not see'
plant harness/compare/compare.h '#include "pipeline/plan.h"\n' \
    "10b. compare/ including pipeline/" 'includes pipeline/, a stage compare/ does not see'
plant harness/config/config.c 'extern int harness_runner_run(void *a,\n    void *b);\n' \
    "11a. an extern prototype of a later stage's function" 'declares harness_runner_run by hand, which run/ owns'
plant harness/util/stats.c 'void harness_plan_free(void *p);\n' \
    "11b. a prototype without extern of a later stage's function" 'declares harness_plan_free by hand, which pipeline/ owns'
plant harness/config/config.c '#define RUN_HEADER "run/runner.h"\n#include RUN_HEADER\n' \
    "12. #include MACRO" 'includes RUN_HEADER, a macro'
plant harness/config/config.c '#include \\\n"run/runner.h"\n' \
    "13a. a split include" 'includes run/, a stage config/ does not see'
plant harness/config/config.c '#  include  /* c */ "run/runner.h"\n' \
    "13b. an include with a comment before its path" 'includes run/'
plant harness/config/config.c '#include "util/../run/runner.h"\n' \
    "14. ../ inside a stage's path" '"util/\.\./run/runner\.h", a path of its own'
plant harness/cli/cmd_compare.c '#include "compare/compare_internal.h"\n' \
    "15. another folder's private header" 'includes compare/compare_internal\.h, private to compare/'
plant harness/cli/cmd_compare.c 'int harness_cmp_oom(void *err);\nstatic int f(void *e)\n{\n    return harness_cmp_oom(e);\n}\n' \
    "16. a stage-private name used by another stage" 'names harness_cmp_oom, private to compare/'

# The legal edges stay legal: the read-side branch, cli over both, the ABI
# and components/common everywhere, a family building on another it names.
legal() {
    file=$1 text=$2 desc=$3
    cp "$tree/$file" "$SCRATCH/orig"
    printf "$text" >>"$tree/$file"
    expect_exit 0 "$desc" "$check" "$tree"
    cp "$SCRATCH/orig" "$tree/$file"
}
legal harness/compare/compare.c '#include "util/stats.h"\n' "compare/ may include util/"
legal harness/compare/compare.c 'extern int harness_median(const double *x, int n);\n' "compare/ may declare util/'s function"
legal harness/cli/cmd_compare.c '#include "compare/compare.h"\n#include "pipeline/plan.h"\n' "cli/ may include compare/ and pipeline/"
legal harness/pipeline/plan.c '#include "run/runner.h"\n#include "config/config.h"\n' "the pipeline may include run/ and config/"
legal harness/util/stats.h '#include "common/bf16.h"\n#include <harness/plugin.h>\n' "the core may include components/common and the ABI"
legal components/transformer_block/rope.c '#include "rms_norm/rms_norm.h"\n' "transformer_block builds on rms_norm"
mkdir "$tree/harness/folder"
printf '#include "util/error.h"\n' >"$tree/harness/folder/codec.h"
legal harness/config/config.c '#include "folder/codec.h"\n' "config/ may include folder/, which may include util/"
legal harness/compare/compare.c '#include "folder/codec.h"\n' "compare/ may include folder/"
plant harness/folder/codec.h '#include "config/config.h"\n' \
    "folder/ including config/ is refused" 'includes config/, a stage folder/ does not see'
finish
