#!/bin/sh
# NCCL found where GPU machines have it (scripts/find_nccl, configure.ac's
# NCCL section): --with-nccl=DIR; else the CUDA toolkit, the system, then
# python3's wheel nvidia-nccl-cu13 (site-packages/nvidia/nccl with only
# libnccl.so.2), in that order. A fake wheel, toolkit and library stand in
# for the real ones; with nvcc here, configure in a copy of the tree links a
# program through what it found, and refuses a --with-nccl without NCCL.
. "$top_builddir/tests/setup"
find_nccl=$top_srcdir/scripts/find_nccl

# A wheel as pip lays it out: nvidia/ a namespace package, nccl/ a package.
wheel=$SCRATCH/site/nvidia/nccl
mkdir -p "$wheel/include" "$wheel/lib" "$SCRATCH/empty"
: >"$wheel/__init__.py"
printf 'int ncclFake(void);\n' >"$wheel/include/nccl.h"
if cc -shared -fPIC -Wl,-soname,libnccl.so.2 -o "$wheel/lib/libnccl.so.2" -x c - <<'EOF'
int ncclFake(void) { return 42; }
EOF
then :; else fail "build a stand-in libnccl.so.2"; finish; fi
# A toolkit with its own NCCL, as CUDA 13's.
toolkit=$SCRATCH/cuda
mkdir -p "$toolkit/include" "$toolkit/lib64"
: >"$toolkit/include/nccl.h"
: >"$toolkit/lib64/libnccl.so"

expect_exit 0 "--with-nccl=DIR of a wheel" "$find_nccl" "$wheel"
[ "$(cat "$SCRATCH/out")" = "$wheel/include $wheel/lib $wheel/lib/libnccl.so.2" ] &&
    pass "the wheel's include/, lib/ and libnccl.so.2" || fail "found: $(cat "$SCRATCH/out")"

expect_exit 1 "--with-nccl=DIR without NCCL" "$find_nccl" "$SCRATCH/empty"
expect_err "$SCRATCH/empty" "the refusal names the folder"

expect_exit 0 "the wheel, found through python3" env CUDA_HOME="$SCRATCH/empty" NCCL_SYSTEM_DIRS= \
    PYTHONPATH="$SCRATCH/site" "$find_nccl"
[ "$(cut -d' ' -f3 "$SCRATCH/out")" = "$wheel/lib/libnccl.so.2" ] &&
    pass "python3's nvidia.nccl" || fail "found: $(cat "$SCRATCH/out")"

expect_exit 0 "the toolkit before the wheel" env CUDA_HOME="$toolkit" NCCL_SYSTEM_DIRS= \
    PYTHONPATH="$SCRATCH/site" "$find_nccl"
[ "$(cut -d' ' -f3 "$SCRATCH/out")" = "$toolkit/lib64/libnccl.so" ] &&
    pass "CUDA_HOME's NCCL first" || fail "found: $(cat "$SCRATCH/out")"

expect_exit 1 "no NCCL anywhere" env CUDA_HOME="$SCRATCH/empty" NCCL_SYSTEM_DIRS= \
    PYTHONPATH="$SCRATCH/empty" PYTHONNOUSERSITE=1 PYTHON="python3 -S" "$find_nccl"
expect_err "nvidia-nccl-cu13" "the refusal says how to get it"

# configure: the wheel through --with-nccl, linked by a link of its own.
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || { echo "no nvcc: configure not tried"; finish; }
[ -x "$top_srcdir/configure" ] || { echo "no generated configure in the source tree: configure not tried"; finish; }
copy=$SCRATCH/tree
mkdir "$copy"
(cd "$top_srcdir" && tar cf - --exclude=.git --exclude=.libs --exclude=.deps --exclude='*.o' --exclude='*.lo' \
    --exclude='*.la' --exclude='*.log' --exclude='*.trs' --exclude=config.status --exclude=Makefile \
    --exclude=libtool --exclude=build_config.h --exclude=stamp-h1 --exclude=experiments --exclude=nccl-link \
    --exclude='tests/unit/test_*[!c]' --exclude=tests/gpu/carry --exclude=tests/gpu/work .) | (cd "$copy" && tar xf -)
cd "$copy" || exit 99
expect_exit 0 "configure --with-nccl=the wheel" ./configure -q --with-cuda --with-nccl="$wheel" --without-mpi
cflags=$(sed -n 's/^NCCL_CFLAGS = //p' Makefile) libs=$(sed -n 's/^NCCL_LIBS = //p' Makefile)
[ "$cflags" = "-I$wheel/include" ] && pass "NCCL_CFLAGS: the wheel's include/" || fail "NCCL_CFLAGS = $cflags"
[ "$(readlink nccl-link/libnccl.so)" = "$wheel/lib/libnccl.so.2" ] && pass "nccl-link/libnccl.so -> libnccl.so.2" ||
    fail "no nccl-link/libnccl.so to the wheel's library"
# shellcheck disable=SC2086
printf '#include <nccl.h>\nint main(void) { return ncclFake() == 42 ? 0 : 1; }\n' |
    cc $cflags -o linked -x c - $libs && ./linked &&
    pass "a program linked with NCCL_LIBS runs with the wheel's library (run path, no LD_LIBRARY_PATH)" ||
    fail "linking or running with NCCL_LIBS = $libs"

expect_exit 1 "configure --with-nccl=a folder without NCCL" ./configure -q --with-cuda --with-nccl="$SCRATCH/empty" \
    --without-mpi
expect_err "$SCRATCH/empty" "configure's refusal names the folder"
finish
