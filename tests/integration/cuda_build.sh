#!/bin/sh
# The nvcc build of the CUDA kernels (components/cuda.am): ptxas compiled
# every kernel of every kernel file for sm_80 and sm_90 without spilling or
# using local memory, and an object carries sm_80 and sm_90 machine code plus
# sm_90 PTX; the same of the CUDA backend's blocking kernel, and the GPU
# slice's timing fixtures (empty kernel, cheats) load. Skipped without CUDA.
. "$top_builddir/tests/setup"

grep -q '^#define HAVE_CUDA 1' "$top_builddir/build_config.h" || { echo "no CUDA toolkit: skipped"; exit 77; }

# Each kernel file: its ptxas log, its object, how many kernels it has.
#   rms_norm_cuda:  2 kernels x 3 types x (vector, scalar)
#   attention_cuda: tensor cores 2 types x (2 head_dims x 1 or 2 m-tiles, + head_dim 128's
#                   32-key build), SIMT 2 head_dims, fallback 3 types
#   attention_softmax: fp32, bf16 and fp16 output
#   transformer_block_cuda: RoPE and SwiGLU, each 2 types x (vector, scalar)
for entry in "rms_norm/rms_norm_cuda 12" "attention/attention_cuda 15" "attention/attention_softmax 3" \
        "transformer_block/transformer_block_cuda 8"; do
    stem=${entry% *} want=${entry#* }
    log="$top_builddir/components/$stem.ptxas"
    obj="$top_builddir/components/$(dirname "$stem")/.libs/$(basename "$stem").o"
    [ -s "$log" ] || { fail "no ptxas log at $log"; continue; }
    [ -s "$obj" ] || { fail "no object at $obj"; continue; }

    # ptxas -v: one "Compiling entry function" per kernel and arch, each
    # followed by its "N bytes stack frame, N bytes spill stores, N bytes
    # spill loads".
    for arch in sm_80 sm_90; do
        n=$(grep -c "Compiling entry function .* for '$arch'" "$log")
        if [ "$n" -eq "$want" ]; then pass "$stem: ptxas compiled $want kernels for $arch"
        else fail "$stem: ptxas compiled $n kernels for $arch, expected $want"; fi
    done
    frames=$(grep -c 'bytes spill stores' "$log")
    clean=$(grep -c ' 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads' "$log")
    if [ "$frames" -eq $((2 * want)) ] && [ "$clean" -eq $((2 * want)) ]; then
        pass "$stem: no kernel spills or has a stack frame"
    else
        fail "$stem: spills or stack frames: $(grep 'spill stores' "$log" | grep -v ' 0 bytes spill stores' | head -3)"
    fi
    grep -qi 'local memory\|warning\|error' "$log" &&
        fail "$stem: ptxas warned: $(grep -i 'local memory\|warning\|error' "$log" | head -3)"
done
# attention's Hopper kernel (attention_hopper.cu): sm_90a alone, 2 types x (2
# ring lengths (stages 2, 3) x 3 block shapes (head_dim 128 with 2 consumer
# warpgroups, 64 with 2 and with 3), + head_dim 128's 176-key tiles at 2
# stages), none spilling (its consumers' registers
# come from setmaxnreg; ptxas still allocates within 65536 / (128 x (consumers
# + 1)) per thread); absent when the configured arch list lacks 90 (its stub
# is built instead).
log="$top_builddir/components/attention/attention_hopper.ptxas"
if grep -q '^am__append_[0-9]* = components/attention/attention_hopper.lo' "$top_builddir/Makefile"; then
    n=$(grep -c "Compiling entry function .*attention_hopper.* for 'sm_90a'" "$log" 2>/dev/null)
    if [ "${n:-0}" -eq 14 ]; then pass "attention_hopper: ptxas compiled 14 kernels for sm_90a"
    else fail "attention_hopper: ptxas compiled ${n:-0} kernels for sm_90a, expected 14 ($log)"; fi
    clean=$(grep -c ' 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads' "$log" 2>/dev/null)
    if [ "${clean:-0}" -eq 14 ]; then pass "attention_hopper: no kernel spills or has a stack frame"
    else fail "attention_hopper: spills or stack frames: $(grep 'spill stores' "$log" | grep -v ' 0 bytes spill' | head -2)"; fi
    grep -qi 'local memory\|warning\|error' "$log" &&
        fail "attention_hopper: ptxas warned: $(grep -i 'local memory\|warning\|error' "$log" | head -3)"
else
    pass "attention_hopper: not built (no 90 in --with-cuda-arch)"
fi
# The blocking kernel in the CUDA backend module (harness/backend/blocking_kernel.cu):
# one kernel per arch, no spill, no stack frame, no warning.
log="$top_builddir/harness/backend/blocking_kernel.ptxas"
for arch in sm_80 sm_90; do
    n=$(grep -c "Compiling entry function .*harness_blocking_kernel.* for '$arch'" "$log" 2>/dev/null)
    [ "${n:-0}" -eq 1 ] && pass "blocking_kernel: ptxas compiled it for $arch" ||
        fail "blocking_kernel: ptxas compiled ${n:-0} kernels for $arch, expected 1 ($log)"
done
[ "$(grep -c ' 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads' "$log" 2>/dev/null)" -eq 2 ] &&
    pass "blocking_kernel: no spill, no stack frame" || fail "blocking_kernel: spills: $(grep spill "$log" | head -2)"
grep -qi 'local memory\|warning\|error' "$log" && fail "blocking_kernel: ptxas warned: $(grep -i 'warning' "$log" | head -2)"
nm "$top_builddir/harness/backend/.libs/cuda_backend.so" 2>/dev/null | grep -q harness_blocking_kernel &&
    pass "the CUDA backend module carries the blocking kernel" || fail "no blocking kernel in cuda_backend.so"
# The GPU slice's timing fixtures load and register (they run only on a GPU).
"$HARNESS" list --plugin-path "$top_builddir/tests/fixtures/cuda_timing/.libs" >"$SCRATCH/list" 2>&1
for key in empty/cuda sync/cuda cheat/side_stream cheat/after_end; do
    grep -q "^$key  (cuda)" "$SCRATCH/list" && pass "the timing fixture $key registers" ||
        fail "timing fixture $key: $(head -3 "$SCRATCH/list")"
done

obj="$top_builddir/components/rms_norm/.libs/rms_norm_cuda.o"
[ -s "$obj" ] || finish

# The fatbin: embedded cubins are ELF files whose e_flags carry the SM in
# bits 8-15 (CUDA's ELF ABI v8, nvcc 12.8 and later); the PTX is text
# (--compress-mode=none). No cuobjdump is needed.
if ! command -v python3 >/dev/null; then
    pass "python3 absent: fatbin contents not checked"
    finish
fi
objcopy -O binary --only-section=.nv_fatbin "$obj" "$SCRATCH/fatbin" 2>"$SCRATCH/err" ||
    { fail "no .nv_fatbin section in $obj: $(cat "$SCRATCH/err")"; finish; }
python3 - "$SCRATCH/fatbin" >"$SCRATCH/out" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
i = data.find(b'\x7fELF')
while i >= 0:
    print('cubin sm_%d' % (struct.unpack_from('<I', data, i + 48)[0] >> 8 & 0xff))
    i = data.find(b'\x7fELF', i + 4)
for line in data.split(b'\n'):
    if line.startswith(b'.target '):
        print('ptx ' + line.split()[1].decode())
PY
if [ "$(sort "$SCRATCH/out" | tr '\n' ' ')" = "cubin sm_80 cubin sm_90 ptx sm_90 " ]; then
    pass "the fatbin holds sm_80 and sm_90 cubins and sm_90 PTX"
else
    fail "the fatbin holds: $(tr '\n' ' ' < "$SCRATCH/out")"
fi
finish
