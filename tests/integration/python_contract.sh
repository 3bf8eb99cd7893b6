#!/bin/sh
# components/python/harness.py, the contract Python components import, is
# usable from plain python, and its pure parts (verdicts, reference()
# comparisons, exception lines, params) behave as docs/guide/python.md says;
# runs whether or not the python component is built.
. "$top_builddir/tests/setup"

command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
if python3 "$top_srcdir/tests/python/test_contract.py" "$top_srcdir/components/python" >"$SCRATCH/out" 2>&1; then
    pass "harness.py's pure helpers"
else
    fail "harness.py's pure helpers"; sed 's/^/  /' "$SCRATCH/out" | tail -30
fi
finish
