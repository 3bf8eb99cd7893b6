#!/bin/sh
# The Hopper attention's machine code keeps its softmax under its P V: in
# every kernel instance, the exp2s between the wait for Q K^T and the wait
# for P V (tests/tools/softmax_under_pv.py has the rule; ptxas once hoisted
# that wait above them all, silently losing the overlap). Read with
# cuobjdump and nvdisasm (scripts/find_cuda_tool: scripts/setup installs
# them). Skipped without CUDA, without the Hopper kernel (no 90 in
# --with-cuda-arch), or without the tools. The rule itself is shown to fail
# on a listing in the old order.
. "$top_builddir/tests/setup"

grep -q '^#define HAVE_CUDA 1' "$top_builddir/build_config.h" || { echo "no CUDA toolkit: skipped"; exit 77; }
obj="$top_builddir/components/attention/.libs/attention_hopper.o"
grep -q '^am__append_[0-9]* = components/attention/attention_hopper.lo' "$top_builddir/Makefile" ||
    { echo "the Hopper kernel is not built (no 90 in --with-cuda-arch): skipped"; exit 77; }
cuobjdump=$("$top_srcdir/scripts/find_cuda_tool" cuobjdump) && nvdisasm=$("$top_srcdir/scripts/find_cuda_tool" nvdisasm) ||
    { echo "no cuobjdump or nvdisasm (scripts/setup installs them): skipped"; exit 77; }
check="python3 $top_srcdir/tests/tools/softmax_under_pv.py"

if NVDISASM_PATH=$(dirname "$nvdisasm") "$cuobjdump" -sass "$obj" >sass.txt 2>err.txt; then
    n=$(grep -c 'Function : ' sass.txt)
    [ "$n" -eq 14 ] && pass "cuobjdump: 14 kernels in $obj" || fail "cuobjdump: $n kernels in $obj, expected 14"
    if $check sass.txt >check.txt; then pass "every kernel's softmax runs under its P V"
    else fail "the softmax does not run under P V:"; grep FAIL check.txt; fi
else
    fail "cuobjdump -sass $obj: $(head -3 err.txt)"
fi

# The old order (the wait for P V at once after the wait for Q K^T) fails.
{
    echo "Function : old_order"
    echo "WARPGROUP.DEPBAR.LE gsb0, 0x1 ;"
    echo "WARPGROUP.DEPBAR.LE gsb0, 0x0 ;"
    i=0
    while [ $i -lt 66 ]; do echo "MUFU.EX2 R$i, R$i ;"; i=$((i + 1)); done
} >old.txt
$check old.txt >/dev/null
[ $? -eq 1 ] && pass "the rule fails on the old order" || fail "the rule passes the old order"
$check /dev/null >/dev/null
[ $? -eq 2 ] && pass "a listing with no kernel is exit 2" || fail "a listing with no kernel is not exit 2"
finish
