#!/bin/sh
# The core binary never links the CUDA runtime (docs/ARCHITECTURE.md section 3), so a
# CUDA-enabled build starts where there is no driver or runtime; GPU
# detection goes through a module loaded on demand.
. "$top_builddir/tests/setup"

expect_exit 0 "ldd the harness" ldd "$HARNESS"
if grep -q 'libcudart' "$SCRATCH/out"; then
    fail "the harness links libcudart: $(grep libcudart "$SCRATCH/out")"
else
    pass "no libcudart among the harness's libraries"
fi
grep -q 'not found' "$SCRATCH/out" && fail "a library of the harness is missing: $(cat "$SCRATCH/out")"

# Without a driver, device auto is the CPU and the run says why there is no GPU.
if [ ! -e /proc/driver/nvidia/version ] && [ ! -e /dev/nvidiactl ]; then
    expect_exit 0 "device auto runs on the CPU without a driver" \
        "$HARNESS" validate "$CONFIGS/rms_norm_tiny.yaml" --device auto
    expect_exit 3 "device cuda without a driver is a runtime error" \
        "$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" --device cuda --output-dir "$SCRATCH/none"
    expect_err "device cuda:" "the error names the device"
fi
finish
