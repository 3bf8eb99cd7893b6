"""torch_peer.py - what the PyTorch peers share: binding their parameters
(peers.py), torch on the harness's threads, the harness's buffers as tensors
(no copy: torch.from_numpy over what ctx.alloc gave, bf16 through its uint16
storage), and a verdict against a float64 reference in the C checkers' terms.
"""

import math

import peers

DTYPES = {"fp32": "float32", "bf16": "bfloat16"}   # the dtype parameter -> ctx.alloc's name


def bind(key, params):
    """The peer's parameters: what the registry bound (all of them, typed), or
    component.config.params under python/cpu, checked against the C table."""
    return peers.bind(peers.PEERS[key].params, params)


def torch_for(ctx):
    """torch, running the harness's number of threads (the C variants' OpenMP
    team), gradients off: a forward pass as inference runs it."""
    import torch
    torch.set_num_threads(max(1, int(ctx.num_threads)))
    return torch


def tensor(torch, array, dtype):
    """The harness's buffer (a numpy array from ctx.alloc) as a tensor over the
    same memory: fp32 as is, bf16 as the bfloat16 view of its uint16 storage."""
    t = torch.from_numpy(array)
    return t.view(torch.bfloat16) if dtype == "bf16" else t


def round_bf16(torch, t):
    """t rounded to bf16 (nearest even) and back, in t's float type."""
    return t.to(torch.bfloat16).to(t.dtype)


def verdict(torch, got, ref, bound, what, where=None):
    """got (any float tensor) against ref (float64, same shape) within bound
    (a float64 tensor broadcast to ref, or a float), as common/check.h
    measures an error: equal values (infinities, both NaN) are no error, a NaN
    on one side an infinite one. where(index) names an element for the first
    mismatch. harness_check's fields, as check() returns them."""
    got = got.to(torch.float64)
    err = (got - ref).abs()
    same = (got == ref) | (got.isnan() & ref.isnan())
    err = torch.where(same, torch.zeros_like(err), torch.where(err.isnan(), torch.full_like(err, math.inf), err))
    bound = torch.as_tensor(bound, dtype=torch.float64).expand_as(ref)
    bad = ~((err == 0) | (err <= bound))
    nz = ref != 0
    rel = (err[nz] / ref[nz].abs()) if bool(nz.any()) else err.new_zeros(1)
    out = {
        "passed": not bool(bad.any()),
        "checked": ref.numel(),
        "mismatches": int(bad.sum()),
        "max_abs_err": float(err.max()) if err.numel() else 0.0,
        "max_rel_err": float(rel.max()) if rel.numel() else 0.0,
        "tolerance": float(bound.max()) if bound.numel() else 0.0,
        "detail": what,
    }
    if bad.any():
        i = int(bad.flatten().nonzero()[0])
        idx = tuple(int(v) for v in torch.unravel_index(torch.tensor(i), ref.shape))
        name = where(idx) if where else f"element {idx}"
        out["detail"] = (f"{what}; first mismatch at {name}: y={float(got.flatten()[i]):.9g} "
                         f"ref={float(ref.flatten()[i]):.9g}")
    return out
