"""RMSNorm in Triton: y = x / sqrt(mean(x^2) + eps) * w over each row of x.

One program per row. The row is read in chunks of BLOCK elements twice: a
first pass sums x^2 into BLOCK fp32 lanes (one tree sum at the end), a second
writes x * rstd * w rounded once to y's type. For rows up to BLOCK elements
(hidden 4096 in fp32 or bf16) the second pass re-reads a row the first just
brought into L1/L2, so DRAM sees x once.

With TRITON_INTERPRET=1 set before this module is imported, @triton.jit
gives Triton's interpreter (numpy on the CPU, torch CPU tensors); otherwise
a compiled GPU kernel.
"""

import triton
import triton.language as tl

# The largest chunk: 8192 fp32 elements are 16 per thread at 16 warps, in
# registers; longer rows loop.
MAX_BLOCK = 8192


@triton.jit
def rms_norm_rows(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)     # int64: rows x n_cols may pass 2^31
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols

    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        acc += x * x
    rstd = tl.rsqrt(tl.sum(acc, axis=0) / n_cols + eps)

    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + cols, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def launch_shape(n_cols, max_block=MAX_BLOCK):
    """(BLOCK, num_warps) for rows of n_cols: the row in one chunk up to
    max_block (a power of two), a warp per 256 elements, 1 to 16 warps."""
    block = min(triton.next_power_of_2(n_cols), max_block)
    return block, min(max(block // 256, 1), 16)


def rms_norm(x, w, y, eps, max_block=MAX_BLOCK):
    """y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * w for each row r:
    x and y C-contiguous [rows, hidden] tensors of one type, w [hidden].
    Launches on torch's current stream; returns without waiting for it."""
    rows, hidden = x.shape
    block, warps = launch_shape(hidden, max_block)
    rms_norm_rows[(rows,)](x, w, y, hidden, eps, BLOCK=block, num_warps=warps)


def interpreted():
    """True when the kernel runs in Triton's interpreter (TRITON_INTERPRET=1
    when this module was imported)."""
    from triton.runtime.interpreter import InterpretedFunction
    return isinstance(rms_norm_rows, InterpretedFunction)
