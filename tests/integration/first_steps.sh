#!/bin/sh
# A new user's first steps from a clone (issue 40): `harness --help` from the
# build tree says how to read the man pages that `man` cannot find there;
# the guide's "Installing" generates configure before running it; the
# all-reduce example's default sweep is short (the long one in a comment),
# and where users meet `mpirun` as root (the config, docs/guide/mpi.md) they
# are told Open MPI's flag; a one-rank run of it takes seconds.
. "$top_builddir/tests/setup"

# --help, run from the build tree: man -l for the clone's pages, which exist.
"$HARNESS" --help >help 2>&1 || fail "harness --help"
grep -q 'man -l man/harness.1' help && pass "--help says man -l man/harness.1 in a clone" ||
    fail "--help does not say how to read the man pages in a clone"
for page in $(grep -o 'man -l man/[a-z.0-9-]*' help | sed 's/^man -l //'); do
    [ -f "$top_srcdir/$page" ] && pass "$page exists" || fail "--help names $page, which does not exist"
done
awk 'length > 80 { exit 1 }' help && pass "--help within 80 columns" || fail "a --help line over 80 columns"

# The guide's Installing: configure is generated first in a clone.
guide="$top_srcdir/docs/guide/README.md"
sed -n '/^## Building and installing/,/^## /p' "$guide" >install_text
grep -q 'autoreconf -fi' install_text && pass "Installing says autoreconf -fi" ||
    fail "Installing does not say how configure is made in a clone"
grep -q 'man -l man/' install_text && pass "Installing says man -l in a clone" || fail "Installing: no man -l"
grep -q 'pkg-config --cflags harness' install_text && pass "Installing names harness.pc" ||
    fail "Installing does not name pkg-config harness"
grep -q 'setup.log' install_text && grep -q -- '--verbose' install_text && grep -q 'minutes' install_text &&
    pass "Installing says setup's log, --verbose and its time" || fail "Installing: setup's log, --verbose, time"
grep -q 'setup.log' "$top_srcdir/README.md" && grep -q '30 minutes' "$top_srcdir/README.md" &&
    pass "the README's quick start says the times" || fail "the README's quick start does not say the times"

# configs/allreduce.yaml: a short default sweep, the long one in a comment,
# the root case said in the config and in the MPI page.
cfg="$top_srcdir/configs/allreduce.yaml"
expect_exit 0 "validate allreduce.yaml" "$HARNESS" validate "$cfg"
max=$(sed -n 's/^  component.config.bytes: \[\(.*\)\]/\1/p' "$cfg" | tr -d ' ' | tr ',' '\n' | sort -n | tail -1)
[ -n "$max" ] && [ "$max" -le 16777216 ] && pass "the default sweep stops at $max bytes" ||
    fail "the default sweep goes to '$max' bytes (over 16 MiB: minutes on 2 cores)"
grep -q '^ *# *component.config.bytes: \[.*268435456\]' "$cfg" && pass "the long sweep is in a comment" ||
    fail "the long sweep (to 256 MiB) is not kept in a comment"
for f in "$cfg" "$top_srcdir/docs/guide/mpi.md"; do
    grep -q -- '--allow-run-as-root' "$f" && grep -q 'OMPI_ALLOW_RUN_AS_ROOT=1' "$f" &&
        grep -q 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1' "$f" && pass "$(basename "$f") says how to run mpirun as root" ||
        fail "$(basename "$f") does not say --allow-run-as-root / OMPI_ALLOW_RUN_AS_ROOT"
done
grep -q '256 MiB' "$top_srcdir/docs/guide/mpi.md" && ! grep -q 'allreduce.yaml.*8 B to 256 MiB' "$top_srcdir/docs/guide/mpi.md" &&
    pass "mpi.md gives the short default and the long sweep" || fail "mpi.md still says the default goes to 256 MiB"

# One rank, as it comes: seconds, every point ok.
t0=$(date +%s)
expect_exit 0 "allreduce.yaml, one rank" "$HARNESS" run "$cfg" --output-dir ar
t=$(($(date +%s) - t0))
[ "$t" -le 30 ] && pass "in $t s" || fail "allreduce.yaml took $t s on one rank"
finish
