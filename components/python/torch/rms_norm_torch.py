"""rms_norm/torch: torch.nn.functional.rms_norm, PyTorch's peer of
rms_norm/cpu. The same parameters (peers.RMS_NORM), the same buffers filled
in the same order (x the input, then the weight), so both see bit-identical
data for a seed; the same cost; checked against a float64 reference of
rms_norm_ref.c's math with its tolerances.

The step is what a user writes, y = F.rms_norm(x, (hidden,), weight, eps):
torch allocates y each call (its allocator's cost is the peer's), and it is
not copied into a harness buffer, which would add a pass over memory that
the op does not make. So no output is declared; check() compares that y."""

import numpy

import torch_peer

KEY = "rms_norm/torch"


class RmsNormTorch:
    def __init__(self, params, ctx):
        p = torch_peer.bind(KEY, params)
        self.torch = torch = torch_peer.torch_for(ctx)
        self.F = torch.nn.functional
        self.dtype, self.hidden = p["dtype"], p["hidden_size"]
        self.rows = p["batch_size"] * p["seq_len"]
        self.eps = float(numpy.float32(p["eps"]))   # the C kernel's float eps
        kind = torch_peer.DTYPES[self.dtype]
        x = ctx.alloc((self.rows, self.hidden), kind, "x")
        w = ctx.alloc(self.hidden, kind, "weight")
        ctx.input(x)                       # as rms_norm/cpu: x first, then the weight
        ctx.fill(w)
        self.x, self.w = torch_peer.tensor(torch, x, self.dtype), torch_peer.tensor(torch, w, self.dtype)
        self.y = None
        self.ctx = ctx

    def step(self):
        with self.torch.inference_mode(), self.ctx.region("rms_norm_inference"):
            self.y = self.F.rms_norm(self.x, (self.hidden,), self.w, self.eps)

    def cost(self):
        """rms_norm_step_cost's: x read, y written, the weight read once; 4 FLOPs an element."""
        n, elem = self.rows * self.hidden, 2 if self.dtype == "bf16" else 4
        return {"flops": 4.0 * n, "bytes": (2.0 * n + self.hidden) * elem}

    def notes(self):
        t = self.torch
        return {"torch": t.__version__, "cpu_capability": t.backends.cpu.get_cpu_capability(),
                "threads": str(t.get_num_threads())}

    def check(self):
        """One step against the double reference, rms_norm_check's tolerances:
        fp32 |y-ref| <= 1e-5 + 1e-5 |ref|; bf16 max |y-ref| <= 2 E + 1e-3, E
        the max error of bf16 arithmetic (every op rounded to bf16, the sum in
        fp32) on the same data."""
        t = self.torch
        self.step()
        x, w = self.x.to(t.float64), self.w.to(t.float64)
        ref = x * (1.0 / t.sqrt((x * x).mean(-1, keepdim=True) + self.eps)) * w
        if self.dtype == "bf16":
            e = float((self._bf16_arith() - ref).abs().max())
            bound, what = 2.0 * e + 1e-3, (f"bf16 vs float64 reference: max |y-ref| <= 2 x {e:.3g} (bf16-arithmetic "
                                           f"reference's max error) + 0.001")
        else:
            bound = 1e-5 + 1e-5 * ref.abs()
            what = "fp32 vs float64 reference: |y-ref| <= 1e-05 + 1e-05*|ref| per element"
        return torch_peer.verdict(t, self.y, ref, bound, what, lambda i: f"row {i[0]}, col {i[1]}")

    def _bf16_arith(self):
        """rms_norm_ref_row_bf16_arith's rows, as float64."""
        t, r = self.torch, lambda v: torch_peer.round_bf16(self.torch, v)
        x, w = self.x.to(t.float32), self.w.to(t.float32)
        mean = r(r(x * x).sum(-1, keepdim=True) / self.hidden)
        rstd = r(1.0 / t.sqrt(r(mean + self.eps)))
        return r(r(x * rstd) * w).to(t.float64)
