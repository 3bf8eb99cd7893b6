#!/bin/sh
# harness new-plugin against the build tree (pkg-config finds
# harness-plugin-uninstalled.pc): the CPU scaffold builds without warnings,
# its own `make check` runs it and passes validation, and its summary says
# so; the CUDA scaffold builds with nvcc where there is one. Bad NAMEs,
# devices and target directories are usage errors that write nothing.
# (tests/integration/install.sh does the same against an installed harness.)
. "$top_builddir/tests/setup"
PKG_CONFIG_PATH="$top_builddir/share${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH
MAKE=${MAKE:-make}
command -v "$MAKE" >/dev/null 2>&1 || MAKE=make

# The .pc under the name a user tries first too: pkg-config harness (issue 40).
[ "$(pkg-config --cflags harness | sed 's/ *$//')" = "-I$top_srcdir/harness/include" ] &&
    [ "$(pkg-config --variable=harness harness)" = "$top_builddir/harness/harness" ] &&
    pass "pkg-config harness: the clone's header and binary" || fail "pkg-config harness: '$(pkg-config --cflags harness 2>&1)'"

expect_exit 0 "new-plugin axpy" "$HARNESS" new-plugin axpy --dir proj/axpy
grep -qF "cd proj/axpy && make && $top_builddir/harness/harness run axpy.yaml" \
    "$SCRATCH/out" && pass "says what to do next, with the clone's binary" || fail "says what to do next: $(cat "$SCRATCH/out")"
for f in axpy.c Makefile axpy.yaml README.md; do
    [ -f proj/axpy/$f ] || fail "the project has $f"
done
! grep -rq '@NAME@' proj/axpy && pass "every @NAME@ replaced" || fail "a template placeholder is left"
[ "$(wc -l <proj/axpy/README.md)" -le 16 ] && pass "the README is short" || fail "the README is short"

# Built with the project's own Makefile, warnings as errors, then its check target.
expect_exit 0 "make in the project" "$MAKE" -C proj/axpy CFLAGS="-O2 -Werror"
# No HARNESS=: the Makefile takes the binary from the .pc (the clone's, uninstalled).
expect_exit 0 "make check runs the config" env PATH=/usr/bin:/bin "$MAKE" -C proj/axpy check
summary=$(ls proj/axpy/experiments/*/summary_ranks_1_rank_0.json 2>/dev/null | head -1)
python3 - "$summary" <<'PY' && pass "the summary: axpy/cpu ok, validated, cost and region" || fail "the scaffold's summary"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["status"] == "ok" and s["component"]["variant_key"] == "axpy/cpu", s["status"]
assert s["validation"]["passed"] and s["validation"]["checked"] == 1048576, s["validation"]
assert s["component"]["config"] == {"n": 1048576, "alpha": 2.0}, s["component"]["config"]
assert s["throughput"]["bytes_per_step"] == 12 * 1048576 and s["throughput"]["flops_per_step"] == 2 * 1048576
assert [r["name"] for r in s["regions"]] == ["axpy"], s["regions"]
assert len(s["timing"]["windows"]) == 3
PY
# The reference check catches a wrong result.
sed 's/s->alpha \* s->x\[i\] + s->y\[i\]/s->alpha * s->x[i] + s->y[i] + (i == 7)/' proj/axpy/axpy.c >broken.c
mkdir broken && cc -std=gnu11 -fPIC -shared -I"$top_srcdir/harness/include" broken.c -o broken/axpy.so -lm
expect_exit 1 "a wrong result fails validation" "$HARNESS" run proj/axpy/axpy.yaml --plugin-path broken \
    --output-dir "$SCRATCH/exp"
expect_err "1 of 1048576 elements over tolerance" "the check counts the bad element"

# Bad input.
expect_exit 2 "an existing, non-empty --dir" "$HARNESS" new-plugin axpy2 --dir proj/axpy
expect_err "proj/axpy exists and is not empty" "names the directory"
mkdir -p proj/empty
expect_exit 0 "an empty --dir is fine" "$HARNESS" new-plugin axpy3 --dir proj/empty
[ -f proj/empty/axpy3.c ] || fail "the empty directory got the project"
expect_exit 2 "an existing file as --dir" "$HARNESS" new-plugin axpy4 --dir proj/axpy/axpy.c
for bad in Axpy 1axpy my-plugin 'a b' "" aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; do
    expect_exit 2 "NAME '$bad' refused" "$HARNESS" new-plugin "$bad" --dir "proj/bad"
    [ ! -e proj/bad ] || fail "nothing written for NAME '$bad'"
done
expect_err "is not a plugin name" "says what a NAME may be"
expect_exit 2 "a family already registered" "$HARNESS" new-plugin rms_norm --dir proj/r
expect_err "the family 'rms_norm' is already registered" "names the family"
expect_exit 2 "an unknown device" "$HARNESS" new-plugin axpy5 --device tpu
expect_err "expected cpu or cuda, got 'tpu'" "names the devices"
expect_exit 2 "two NAMEs" "$HARNESS" new-plugin a b
expect_exit 2 "an unknown option" "$HARNESS" new-plugin a --bogus
ls -a proj | grep -q '^\.new-plugin' && fail "a temporary directory was left" || pass "no temporary directory left"

# In a clone, as written: plain `make`, `make check` and `make clean` with no
# PKG_CONFIG_PATH (and no installed harness: PKG_CONFIG_LIBDIR is empty);
# the Makefile falls back on the share/ of the clone that wrote it (issue 40).
nopc() { env -u PKG_CONFIG_PATH PKG_CONFIG_LIBDIR="$SCRATCH/no-pc" "$@"; }
expect_exit 0 "new-plugin plain" nopc "$HARNESS" new-plugin plain --dir proj/plain
grep -qF "HARNESS_PC_DIR ?= $top_builddir/share" proj/plain/Makefile && pass "the Makefile records the clone's share/" ||
    fail "the Makefile does not record $top_builddir/share: $(grep HARNESS_PC_DIR proj/plain/Makefile)"
expect_exit 0 "plain make, no PKG_CONFIG_PATH" nopc "$MAKE" -C proj/plain CFLAGS="-O2 -Werror"
[ -f proj/plain/plain.so ] && pass "plain.so built" || fail "plain.so not built"
expect_exit 0 "plain make check, no PKG_CONFIG_PATH" nopc env PATH=/usr/bin:/bin "$MAKE" -C proj/plain check
expect_exit 0 "plain make clean, no PKG_CONFIG_PATH" nopc "$MAKE" -C proj/plain clean
[ ! -f proj/plain/plain.so ] && pass "make clean removed plain.so" || fail "make clean left plain.so"
# With no harness to be found at all: make says how to point at one; clean still works.
expect_exit 2 "make with no harness anywhere" nopc "$MAKE" -C proj/plain HARNESS_PC_DIR=
expect_err "pkg-config cannot find harness-plugin" "says pkg-config cannot find it"
expect_exit 0 "make clean with no harness anywhere" nopc "$MAKE" -C proj/plain clean HARNESS_PC_DIR=

# CUDA: the scaffold compiles with nvcc (running it needs a GPU: tests/integration/sdk_gpu.sh).
expect_exit 0 "new-plugin --device cuda" "$HARNESS" new-plugin gaxpy --device cuda --dir proj/gaxpy
[ -f proj/gaxpy/gaxpy_kernel.cu ] || fail "the CUDA project has its kernel"
grep -q 'device: cuda' proj/gaxpy/gaxpy.yaml || fail "the CUDA config asks for the GPU"
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    command -v nvcc >/dev/null 2>&1 || PATH="$PATH:/usr/local/cuda/bin"
    expect_exit 0 "the CUDA scaffold builds with nvcc" "$MAKE" -C proj/gaxpy CFLAGS="-O2 -Werror"
    [ -f proj/gaxpy/gaxpy.so ] || fail "gaxpy.so built"
    expect_exit 0 "and lists without a GPU" "$HARNESS" list --plugin-path proj/gaxpy
    grep -q '^gaxpy/cuda ' "$SCRATCH/out" || fail "list shows gaxpy/cuda"
else
    echo "no nvcc: the CUDA scaffold is not built"
fi
finish
