#!/bin/sh
# On a GPU only (HARNESS_GPU_TESTS=1, as tests/gpu/run.sh sets; a skip
# elsewhere): `harness new-plugin --device cuda` builds with nvcc against
# the build tree, and its own `make check` runs it on the GPU, validated
# against the CPU reference, with device timing and its region.
HARNESS_TEST_GPU=1
. "$top_builddir/tests/setup"
[ "${HARNESS_GPU_TESTS:-0}" = 1 ] || { echo "skip: HARNESS_GPU_TESTS is not 1"; exit 77; }
grep -q '^#define HAVE_CUDA 1' "$top_builddir/build_config.h" || { echo "skip: not a CUDA build"; exit 77; }
command -v nvcc >/dev/null 2>&1 || PATH="$PATH:$(sed -n 's/^NVCC = //p' "$top_builddir/Makefile" | xargs dirname)"
PKG_CONFIG_PATH="$top_builddir/share${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH
unset MAKEFLAGS MFLAGS MAKELEVEL

expect_exit 0 "new-plugin --device cuda" "$HARNESS" new-plugin gpuaxpy --device cuda
expect_exit 0 "make" make -C gpuaxpy CFLAGS="-O2 -Werror"
expect_exit 0 "make check: runs on the GPU" make -C gpuaxpy check HARNESS="$HARNESS"
python3 - gpuaxpy/experiments/*/summary_ranks_1_rank_0.json <<'PY' && pass "summary: gpuaxpy/cuda ok" || fail "summary"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["status"] == "ok" and s["component"]["variant_key"] == "gpuaxpy/cuda", s["status"]
assert s["device"]["type"] == "cuda" and s["validation"]["passed"], (s["device"], s["validation"])
assert s["validation"]["checked"] == 16777216, s["validation"]
assert s["timing"]["device_timer"]["clock"].startswith("cuda events"), s["timing"]["device_timer"]
assert s["memory"]["device"]["peak_tracked_bytes"] >= 3 * 4 * 16777216, s["memory"]["device"]
assert [r["name"] for r in s["regions"]] == ["axpy_launch"], s["regions"]
PY
finish
