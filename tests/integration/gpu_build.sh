#!/bin/sh
# The build step of every tests/gpu/run.sh slice (tests/gpu/build.sh), with a
# stand-in tarball whose configure and make take no time: a fresh machine
# unpacks the carried tarball, configures and builds; a warm one reuses that
# build (make only, no configure); another tarball is unpacked and built
# anew; without a tarball, ./configure or a working autoreconf it says to run
# prepare.sh; a make that hangs is stopped at the build's deadline. The
# carried .debs become a private prefix the flags name.
. "$top_builddir/tests/setup"

# A tarball as `make dist` makes it, but its configure writes a CUDA build's
# marks and counts its runs, and its make counts its own.
mk_tarball() { # mk_tarball VERSION
    d=$SCRATCH/src/harness-$1
    mkdir -p "$d/harness"
    cat >"$d/configure" <<'EOF'
#!/bin/sh
echo configured >>../configure.runs
echo '#define HAVE_CUDA 1' >build_config.h
printf 'all:\n\techo made >>../make.runs; echo "#!/bin/sh" >harness/harness; chmod +x harness/harness\n' >Makefile
echo "  CUDA: yes (arch 90, CUPTI: yes, NCCL: yes)"
EOF
    chmod +x "$d/configure"
    (cd "$SCRATCH/src" && tar czf "$carry/harness-$1.tar.gz" "harness-$1")
}
carry=$SCRATCH/carry
mkdir -p "$carry/debs" "$SCRATCH/work" "$SCRATCH/repo"
mk_tarball 1.0
echo "commit abc edits none" >"$carry/SOURCE"

# A .deb with a header and a library, as apt-get download gives them.
if command -v dpkg-deb >/dev/null; then
    mkdir -p "$SCRATCH/pkg/DEBIAN" "$SCRATCH/pkg/usr/include" "$SCRATCH/pkg/usr/lib/x86_64-linux-gnu"
    printf 'Package: libfake\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' \
        >"$SCRATCH/pkg/DEBIAN/control"
    : >"$SCRATCH/pkg/usr/include/yaml.h"
    dpkg-deb -b "$SCRATCH/pkg" "$carry/debs/libfake.deb" >/dev/null || fail "build a .deb"
fi

# The part of run.sh this test stands in for.
steps() {
    repo=$SCRATCH/repo out=$SCRATCH/work jobs=1 scope=--first
    note() { printf 'gpu/run.sh: %s\n' "$*"; }
    carry_dir() { echo "$carry"; }
    . "$top_srcdir/tests/gpu/build.sh"
    deps_from_debs && build ${deadline:-} && echo "H=$H"
}
runs() { cat "$SCRATCH/work/build/$1.runs" 2>/dev/null | wc -l; }

expect_exit 0 "fresh machine: build" steps
grep -q 'built: CUDA: yes' "$SCRATCH/out" && pass "configured and built" || fail "no built line: $(cat "$SCRATCH/out")"
grep -q "H=$SCRATCH/work/build/harness-1.0/harness/harness" "$SCRATCH/out" && pass "the harness of the unpacked tree" ||
    fail "H: $(grep H= "$SCRATCH/out")"
[ "$(runs configure)" -eq 1 ] && [ "$(runs make)" -eq 1 ] && pass "one configure, one make" ||
    fail "configure $(runs configure), make $(runs make)"
if command -v dpkg-deb >/dev/null; then
    [ -f "$SCRATCH/work/deps/usr/include/yaml.h" ] && grep -q 'dependencies from 1 .deb files' "$SCRATCH/out" &&
        pass "the .debs unpacked into a private prefix" || fail "the .deb not unpacked: $(cat "$SCRATCH/out")"
fi

expect_exit 0 "warm machine: the next slice" steps
grep -q 'build reused' "$SCRATCH/out" && [ "$(runs configure)" -eq 1 ] && [ "$(runs make)" -eq 2 ] &&
    pass "made, not configured again" || fail "configure $(runs configure), make $(runs make): $(cat "$SCRATCH/out")"

rm "$carry/harness-1.0.tar.gz"
mk_tarball 1.1
expect_exit 0 "another tarball" steps
grep -q "H=$SCRATCH/work/build/harness-1.1/harness/harness" "$SCRATCH/out" && [ "$(runs configure)" -eq 1 ] &&
    [ ! -d "$SCRATCH/work/build/harness-1.0" ] && pass "unpacked and built anew, the old tree gone" ||
    fail "after a new tarball: $(cat "$SCRATCH/out"); $(ls "$SCRATCH/work/build")"

# A make that hangs is stopped at the build's deadline (run.sh --first's).
printf 'all:\n\tsleep 30\n' >"$SCRATCH/work/build/harness-1.1/Makefile"
t0=$(date +%s)
deadline=$((t0 + 2)) expect_exit 1 "a build past its deadline" steps
grep -q 'build: stopped at its deadline, in --first (build.log)' "$SCRATCH/out" && [ $(($(date +%s) - t0)) -le 10 ] &&
    pass "stopped at its deadline, said so" || fail "a hung build: $(cat "$SCRATCH/out")"

rm "$carry/harness-1.1.tar.gz"
expect_exit 1 "no tarball, no ./configure, and autoreconf finds no configure.ac" steps
grep -q 'run tests/gpu/prepare.sh' "$SCRATCH/out" && pass "says to run prepare.sh" || fail "$(cat "$SCRATCH/out")"
finish
