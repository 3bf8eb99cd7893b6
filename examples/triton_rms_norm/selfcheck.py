"""The kernel against the float64 reference without the harness: random rows
in each dtype, a row shorter than its block (the masked tail) and rows
longer than the largest block (the chunk loop, forced small here).

    TRITON_INTERPRET=1 python selfcheck.py     # on the CPU, Triton's interpreter
    python selfcheck.py                        # on a GPU

Prints a line per case; exit 0 when all pass, 1 otherwise.
"""

import sys

import numpy as np
import torch

import rms_norm_kernel
import rms_norm_reference

TORCH_DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
# (rows, hidden, max_block): one full block; a masked tail; three chunks, the last masked.
CASES = [(4, 64, rms_norm_kernel.MAX_BLOCK), (3, 100, rms_norm_kernel.MAX_BLOCK), (2, 80, 32)]


def run_case(device, dtype, rows, hidden, max_block, eps=1e-6):
    gen = torch.Generator().manual_seed(rows * 1000 + hidden)
    x = torch.randn(rows, hidden, generator=gen).to(TORCH_DTYPES[dtype])
    w = torch.randn(hidden, generator=gen).to(TORCH_DTYPES[dtype])
    x, w = x.to(device), w.to(device)
    y = torch.empty_like(x)
    rms_norm_kernel.rms_norm(x, w, y, eps, max_block)
    as64 = lambda t: t.to(torch.float64).cpu().numpy()   # exact for every dtype here
    return rms_norm_reference.check(as64(y), as64(x), as64(w), eps, dtype, rms_norm_kernel.interpreted())


def main():
    device = "cpu" if rms_norm_kernel.interpreted() else "cuda"
    failed = 0
    for dtype in TORCH_DTYPES:
        for rows, hidden, max_block in CASES:
            r = run_case(device, dtype, rows, hidden, max_block)
            failed += not r["passed"]
            print(f"{'ok  ' if r['passed'] else 'FAIL'} {device} {dtype} {rows}x{hidden} block<={max_block}: "
                  f"max |err| {r['max_abs_err']:.3g}, {r['mismatches']} of {r['checked']} over; {r['detail']}")
    return 1 if failed else 0


if __name__ == "__main__":
    np.seterr(all="raise")   # an overflow in the reference is a bug to see, not a NaN to compare
    sys.exit(main())
