"""The float64 reference of RMSNorm and the check of a kernel's output
against it, in numpy only (no torch, no triton), as harness_check's fields.

Tolerance, per element: |y - ref| <= atol + rtol * |ref|.

- fp32: atol = rtol = 1e-5, the C variant's (components/rms_norm/rms_norm_ref.c).
  The kernel sums x^2 into fp32 lanes and then as a tree: a relative error
  of about (hidden / BLOCK + log2 BLOCK) * 2^-24 ~ 1e-6 at hidden 4096; rsqrt
  and the two products add a few ulp (2^-24 each, approximate on the GPU:
  ~2^-22): under 1.3e-6 in all, so 1e-5 is about 8 times the worst case,
  and a kernel that drops a term or a lane, or averages over the padded
  block, fails. atol covers outputs near 0.
- fp16 and bf16: the kernel computes in fp32 (errors as above, < 2e-6) and
  rounds y once, to nearest: at most half an ulp, 2^-11 |y| (fp16) or 2^-8
  |y| (bf16) for normal values; rtol is that times 17/16, the 1/16 covering
  the fp32 part. atol = 2^-24 covers fp16's subnormals (a fixed step of
  2^-24 below 2^-14). x and w are the same half values on both sides, so
  the reference's inputs are exact.
- bf16 in Triton's interpreter (TRITON_INTERPRET=1): its fp32 -> bf16 cast
  drops the low bits (triton/runtime/interpreter.py, cast_impl: truncation,
  where the GPU's cvt.rn rounds to nearest even), an error up to a whole
  ulp, 2^-7 |y|: rtol is 2^-7 x 17/16 there. fp16 rounds to nearest in both.
"""

import numpy as np

TOLERANCES = {                     # dtype -> (atol, rtol)
    "fp32": (1e-5, 1e-5),
    "fp16": (2.0**-24, 2.0**-11 * 17 / 16),
    "bf16": (2.0**-24, 2.0**-8 * 17 / 16),
}
INTERPRETER_TOLERANCES = dict(TOLERANCES, bf16=(2.0**-24, 2.0**-7 * 17 / 16))


def reference(x, w, eps):
    """y of x [rows, hidden] and w [hidden] (any float arrays) in float64;
    eps as the kernel sees it (a float32)."""
    x, w = np.asarray(x, dtype=np.float64), np.asarray(w, dtype=np.float64)
    mean_sq = np.mean(x * x, axis=1, keepdims=True)
    return x / np.sqrt(mean_sq + float(np.float32(eps))) * w


def check(y, x, w, eps, dtype, interpreted=False):
    """y (the kernel's output, any float array [rows, hidden]) against the
    reference of x and w: harness_check's fields (a dict). interpreted: y
    came from Triton's interpreter (its tolerances)."""
    atol, rtol = (INTERPRETER_TOLERANCES if interpreted else TOLERANCES)[dtype]
    ref = reference(x, w, eps)
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        err = np.where(np.isnan(y) | np.isnan(ref), np.inf, np.abs(y - ref))
        bad = ~(err <= atol + rtol * np.abs(ref))
        rel = np.where(ref != 0, err / np.abs(ref), err)
    what = f"{dtype} vs float64 reference: |y-ref| <= {atol:.3g} + {rtol:.3g} |ref| per element"
    if interpreted and dtype == "bf16":
        what += " (a whole ulp: Triton's interpreter truncates to bf16)"
    out = {
        "passed": not bad.any(),
        "checked": int(ref.size),
        "mismatches": int(bad.sum()),
        "max_abs_err": float(err.max(initial=0.0)),
        "max_rel_err": float(rel.max(initial=0.0)),
        "tolerance": float(atol + rtol * np.abs(ref).max(initial=0.0)),
        "detail": what,
    }
    if bad.any():
        row, col = np.unravel_index(int(np.argmax(bad)), bad.shape)
        out["detail"] = (f"{what}; first mismatch at row {row}, col {col}: "
                         f"y={y[row, col]:.9g} ref={ref[row, col]:.9g}")
    return out
