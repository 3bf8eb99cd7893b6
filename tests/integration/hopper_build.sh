#!/bin/sh
# The Hopper primitives' inline PTX (components/common/wgmma.cuh, tma.cuh,
# mbarrier.cuh, hopper_sync.cuh): nvcc assembled tests/integration/
# hopper_probe.cu for sm_90a (tests/cudasim/build.am's rule), every wgmma
# shape m64n8..m64n256 in both types, both B majors, SS and RS, plus a TMA
# and mbarrier pipeline with named barriers and setmaxnreg and a TMA-store
# epilogue (fence.proxy.async, bulk groups); ptxas gave no
# warning, and no kernel spills or has a stack frame. Skipped without CUDA.
. "$top_builddir/tests/setup"

# The generated PTX statements match their generator.
if command -v python3 >/dev/null; then
    if python3 "$top_srcdir/scripts/gen_wgmma_ptx.py" | cmp -s - "$top_srcdir/components/common/wgmma_ptx.inc"; then
        pass "components/common/wgmma_ptx.inc is what scripts/gen_wgmma_ptx.py writes"
    else
        fail "components/common/wgmma_ptx.inc differs from scripts/gen_wgmma_ptx.py's output: regenerate it"
    fi
fi

grep -q '^#define HAVE_CUDA 1' "$top_builddir/build_config.h" || {
    echo "no CUDA toolkit: the PTX is not assembled"
    [ "$failures" -eq 0 ] && exit 77
    exit 1
}

log="$top_builddir/tests/cudasim/hopper_probe.ptxas"
[ -s "$log" ] || { fail "no ptxas log at $log"; exit 1; }

# 32 wgmma shapes + the pipeline and cluster kernels, for sm_90a and
# (bodies guarded out, as a kernel file built for the project's other
# targets must) sm_80.
want=34
for arch in sm_90a sm_80; do
    n=$(grep -c "Compiling entry function .* for '$arch'" "$log")
    if [ "$n" -eq "$want" ]; then pass "ptxas compiled $want probe kernels for $arch"
    else fail "ptxas compiled $n probe kernels for $arch, expected $want"; fi
done
clean=$(grep -c ' 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads' "$log")
if [ "$clean" -eq $((2 * want)) ]; then pass "no probe kernel spills or has a stack frame"
else fail "spills or stack frames: $(grep 'spill stores' "$log" | grep -v ' 0 bytes spill stores' | head -3)"; fi
if grep -qi 'local memory\|warning\|error' "$log"; then
    fail "ptxas warned: $(grep -i 'local memory\|warning\|error' "$log" | head -3)"
else
    pass "ptxas gave no warning"
fi
# setmaxnreg needs the register count known at entry (__launch_bounds__
# with a minimum of blocks); otherwise ptxas drops it with only an info line.
if grep -q "setmaxnreg' ignored" "$log"; then fail "ptxas ignored setmaxnreg: $(grep "setmaxnreg' ignored" "$log" | head -1)"
else pass "ptxas kept setmaxnreg"; fi
# The pipeline kernel took the registers setmaxnreg allows its consumers.
grep -A3 "probe_pipeline.* for 'sm_90a'" "$log" | grep -q 'Used 232 registers' &&
    pass "the pipeline kernel's consumers run with 232 registers" ||
    fail "the pipeline kernel's register count: $(grep -A3 "probe_pipeline.* for 'sm_90a'" "$log" | grep Used)"
[ "$failures" -eq 0 ]
