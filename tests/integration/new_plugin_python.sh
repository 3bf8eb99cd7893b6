#!/bin/sh
# harness new-plugin --lang python NAME: NAME.py, NAME.yaml and a README that
# validate and run as written (the reference check passes), from the
# project's folder; --lang is checked.
. "$top_builddir/tests/setup"
# The embedded interpreter is never finalized (components/python/python_runtime.c):
# in a sanitizer build, what CPython keeps until exit is not the harness's leak.
export ASAN_OPTIONS="${ASAN_OPTIONS}:detect_leaks=0"

expect_exit 2 "an unknown --lang" "$HARNESS" new-plugin --lang rust axpy
expect_err "new-plugin: --lang: expected c or python, got 'rust'" "the bad language is named"
expect_exit 2 "--lang python with --device cuda" "$HARNESS" new-plugin --lang python --device cuda axpy
expect_err "--lang python scaffolds python/cpu only" "the unsupported pair is named"

expect_exit 0 "scaffold a python component" "$HARNESS" new-plugin --lang python pyaxpy
for f in pyaxpy.py pyaxpy.yaml README.md; do
    [ -f "pyaxpy/$f" ] && pass "it writes $f" || fail "it writes $f"
done
grep -q 'callable: pyaxpy.py:Component' pyaxpy/pyaxpy.yaml && pass "the config names the class" \
    || fail "the config names the class"
python3 -c "import ast, sys; ast.parse(open(sys.argv[1]).read())" pyaxpy/pyaxpy.py && pass "NAME.py parses" \
    || fail "NAME.py parses"

if ! "$HARNESS" list 2>/dev/null | grep -q '^python/cpu '; then
    echo "skip: the python component is not built (configure: python components: no); the scaffold is not run"
    [ "$failures" -eq 0 ] && exit 77 || exit 1
fi
expect_exit 0 "the scaffold validates" env -C pyaxpy "$HARNESS" validate pyaxpy.yaml
expect_exit 0 "the scaffold runs and passes its check" env -C pyaxpy "$HARNESS" run pyaxpy.yaml
grep -q 'python/cpu on cpu' "$SCRATCH/out" && pass "the run is python/cpu's" || fail "the run is python/cpu's"
ls pyaxpy/experiments/*/summary_ranks_1_rank_0.json >/dev/null 2>&1 && pass "the folder is in the project's experiments/" \
    || fail "the folder is in the project's experiments/"
finish
