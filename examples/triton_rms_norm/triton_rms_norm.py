"""TritonRmsNorm: the Triton kernel of rms_norm_kernel.py as a harness
component in Python (docs/guide/python.md), a peer of the C rms_norm
variants: their parameters (components/rms_norm/rms_norm_adapter.h,
RMS_NORM_PARAMS, with rms_norm/cuda's dtypes), their buffers filled in their
order (x the input, then the weight, then y the output) so a seed gives the
same data, their cost, and a check against a float64 reference
(rms_norm_reference.py, which says why its tolerances are what they are).

python/cuda: buffers from ctx.device_alloc, seen by torch without a copy,
the kernel launched on the harness's stream. python/cpu: host buffers from
ctx.alloc as torch CPU tensors, which only Triton's interpreter can run
(TRITON_INTERPRET=1): its steps time the interpreter, not a kernel.
"""

import contextlib

import numpy as np
import torch
import triton

import rms_norm_kernel
import rms_norm_reference

FLT_MIN, FLT_MAX = float(np.finfo(np.float32).tiny), float(np.finfo(np.float32).max)
DEFAULTS = {"batch_size": 8, "seq_len": 1024, "hidden_size": 4096, "eps": 1e-6, "dtype": "fp32"}
# dtype -> (ctx.alloc's name, torch's type, the buffer-protocol type string, bytes)
DTYPES = {
    "fp32": ("float32", torch.float32, "<f4", 4),
    "fp16": ("float16", torch.float16, "<f2", 2),
    "bf16": ("bfloat16", torch.bfloat16, "<i2", 2),   # 16-bit storage, seen as bfloat16
}


def bind(params):
    """component.config.params with the C table's defaults and bounds; a
    ValueError naming the first wrong parameter."""
    for name in params:
        if name not in DEFAULTS:
            raise ValueError(f"unknown parameter {name!r}; rms_norm's are {', '.join(DEFAULTS)}")
    p = dict(DEFAULTS, **params)
    for name in ("batch_size", "seq_len", "hidden_size"):
        if isinstance(p[name], bool) or not isinstance(p[name], int) or p[name] < 1:
            raise ValueError(f"{name}: expected an integer >= 1, got {p[name]!r}")
    eps = p["eps"]
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not FLT_MIN <= eps <= FLT_MAX:
        raise ValueError(f"eps: expected a number in [{FLT_MIN:g}, {FLT_MAX:g}], got {eps!r}")
    if p["dtype"] not in DTYPES:
        raise ValueError(f"dtype: {p['dtype']!r} is not one of {', '.join(DTYPES)}")
    return p


class _DeviceArray:
    """Device memory at an address, described by __cuda_array_interface__ so
    that torch.as_tensor sees it in place."""

    def __init__(self, address, shape, typestr):
        self.__cuda_array_interface__ = {"data": (address, False), "shape": shape, "typestr": typestr,
                                         "strides": None, "version": 3}


class TritonRmsNorm:
    def __init__(self, params, ctx):
        p = bind(params)
        self.ctx, self.dtype = ctx, p["dtype"]
        self.rows, self.hidden = p["batch_size"] * p["seq_len"], p["hidden_size"]
        self.eps = float(np.float32(p["eps"]))     # the kernel's (and the C variant's) float eps
        self.interpreted = rms_norm_kernel.interpreted()
        if ctx.device == "cpu" and not self.interpreted:
            raise RuntimeError("python/cpu runs Triton kernels in Triton's interpreter only: "
                               "set TRITON_INTERPRET=1 in the environment of harness")
        if ctx.device == "cuda" and self.interpreted:
            raise RuntimeError("TRITON_INTERPRET=1 on python/cuda: unset it, the interpreter runs on host memory")
        if ctx.device == "cuda":
            self._device_buffers()
        else:
            self._host_buffers()

    def _host_buffers(self):
        ctx, (kind, torch_type, _, _) = self.ctx, DTYPES[self.dtype]
        shape = (self.rows, self.hidden)
        x = ctx.input(ctx.alloc(shape, kind, "x"))
        w = ctx.fill(ctx.alloc(self.hidden, kind, "weight"))
        y = ctx.output(ctx.alloc(shape, kind, "y"))
        self.x, self.w, self.y = (torch.from_numpy(a).view(torch_type) for a in (x, w, y))
        self.on_stream = contextlib.nullcontext

    def _device_buffers(self):
        ctx, (kind, torch_type, typestr, elem) = self.ctx, DTYPES[self.dtype]
        n = self.rows * self.hidden
        x = ctx.device_alloc(n * elem, "x")
        ctx.device_input(x, n, kind)
        w = ctx.device_alloc(self.hidden * elem, "weight")
        ctx.device_fill(w, self.hidden, kind)
        y = ctx.device_alloc(n * elem, "y")
        ctx.device_output(y, n, kind)
        shape = (self.rows, self.hidden)
        # No device= here: torch places them on the device the addresses are on.
        self.x, self.w, self.y = (torch.as_tensor(_DeviceArray(a, s, typestr)).view(torch_type)
                                  for a, s in ((x, shape), (w, (self.hidden,)), (y, shape)))
        stream = torch.cuda.ExternalStream(ctx.stream)    # the harness times its events on it
        self.on_stream = lambda: torch.cuda.stream(stream)

    def step(self):
        with self.ctx.region("rms_norm"), self.on_stream():
            rms_norm_kernel.rms_norm(self.x, self.w, self.y, self.eps)

    def check(self):
        """One step, then y against the float64 reference of this x and w
        (read afresh: the harness writes new inputs before its second check)."""
        self.step()
        with self.on_stream():     # copies ordered after the step; .cpu() waits for them
            x, w, y = (t.cpu().to(torch.float64).numpy() for t in (self.x, self.w, self.y))
        return rms_norm_reference.check(y, x, w, self.eps, self.dtype, self.interpreted)

    def cost(self):
        """rms_norm_step_cost's: x read and y written once, the weight read
        once; 4 FLOPs an element (square-accumulate, x * rstd, * w)."""
        n, elem = self.rows * self.hidden, DTYPES[self.dtype][3]
        return {"flops": 4.0 * n, "bytes": (2.0 * n + self.hidden) * elem}

    def notes(self):
        block, warps = rms_norm_kernel.launch_shape(self.hidden)
        return {"triton": triton.__version__, "torch": torch.__version__, "block": block, "num_warps": warps,
                "mode": "interpreter (TRITON_INTERPRET=1): not kernel timings" if self.interpreted else "compiled"}
