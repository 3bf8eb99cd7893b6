"""attention/torch: torch.nn.functional.scaled_dot_product_attention,
PyTorch's peer of attention/cpu. The same parameters (peers.ATTENTION), the
same buffers filled in the same order (q, k, v), so both see bit-identical
data for a seed; the same cost; checked against a float64 reference of
attention_ref.c's math with its tolerances.

The harness's layout is token-major, q [B, S, H, D] and k, v [B, Sk, KV, D];
SDPA takes [B, H, S, D], so the step passes transposed views of the harness's
buffers, what a caller holding such tensors writes (torch may copy them
inside: its cost). Grouped-query attention is enable_gqa. The causal mask
aligns bottom-right as attention/cpu's (query i sees keys <= i + Sk - Sq):
is_causal when Sq == Sk (the two alignments agree), else a boolean mask
built once. The output is torch's tensor, not copied into a harness buffer
(no output declared; check() compares it)."""

import math

import numpy

import torch_peer

KEY = "attention/torch"
BUDGET = 1.5e9          # attention_adapter.c's CHECK_BUDGET: reference multiply-adds
BK, BK_MIN, EXP2_MAX_REL_ERR = 96, 24, 2.0e-7   # attention_internal.h: the C tolerance's constants
U32 = 2.0 ** -24
U16 = 2.0 ** -8
MIN_PAIRS = 4


class AttentionTorch:
    def __init__(self, params, ctx):
        p = torch_peer.bind(KEY, params)
        if p["isa"] != "auto":
            raise ValueError(f"isa: {p['isa']}: attention/torch runs torch's own kernels; choose auto")
        self.b, self.h, self.sq, self.d = p["batch_size"], p["num_heads"], p["seq_len"], p["head_dim"]
        self.kv = p["num_kv_heads"] or self.h
        self.sk = p["kv_seq_len"] or self.sq
        if self.h % self.kv:
            raise ValueError(f"num_heads ({self.h}) must be a multiple of num_kv_heads ({self.kv})")
        self.causal, self.dtype = p["causal"], p["dtype"]
        self.scale = float(numpy.float32(p["scale"] if p["scale"] > 0 else 1.0 / math.sqrt(self.d)))
        self.torch = torch = torch_peer.torch_for(ctx)
        self.F = torch.nn.functional
        kind = torch_peer.DTYPES[self.dtype]
        bufs = [ctx.alloc((self.b, s, n, self.d), kind, tag)
                for s, n, tag in ((self.sq, self.h, "q"), (self.sk, self.kv, "k"), (self.sk, self.kv, "v"))]
        for buf in bufs:                   # as attention/cpu: q, k, v, each read afresh
            ctx.input(buf)
        self.q, self.k, self.v = (torch_peer.tensor(torch, buf, self.dtype).transpose(1, 2) for buf in bufs)
        self.mask = None
        if self.causal and self.sq != self.sk:
            self.mask = torch.ones(self.sq, self.sk, dtype=torch.bool).tril(self.sk - self.sq)
        self.o = None
        self.ctx = ctx

    def step(self):
        with self.torch.inference_mode():
            self.o = self.F.scaled_dot_product_attention(
                self.q, self.k, self.v, attn_mask=self.mask, is_causal=self.causal and self.mask is None,
                scale=self.scale, enable_gqa=self.kv != self.h)

    def _visible(self):
        """Keys each query sees under the bottom-right mask, a tensor [Sq]."""
        t = self.torch
        i = t.arange(self.sq, dtype=t.int64)
        return (i + self.sk - self.sq + 1).clamp(0, self.sk) if self.causal else t.full((self.sq,), self.sk)

    def cost(self):
        """attention_step_cost's: 4 x head_dim per visible (query, key) pair
        and head; q, k, v read and o written once."""
        pairs = float(self._visible().sum()) * self.b * self.h
        elem = 2 if self.dtype == "bf16" else 4
        q, kv = self.b * self.sq * self.h * self.d, self.b * self.sk * self.kv * self.d
        return {"flops": 4.0 * self.d * pairs, "bytes": (2.0 * q + 2.0 * kv) * elem}

    def notes(self):
        t = self.torch
        return {"torch": t.__version__, "cpu_capability": t.backends.cpu.get_cpu_capability(),
                "threads": str(t.get_num_threads()), "layout": "[B,S,H,D] buffers as transposed views"}

    def _pairs(self):
        """(batch, head) pairs to check within BUDGET, as attention_check's plan
        picks whole pairs: all when they fit, else an even spread of at least
        MIN_PAIRS, first and last included."""
        total = self.b * self.h
        per_key = self.d * (12 if self.dtype == "bf16" else 3)
        pair = float(self._visible().sum()) * per_key
        count = total
        if pair * total > BUDGET:
            count = max(min(MIN_PAIRS, total), min(total, int(BUDGET // pair)))
        return [0 if count <= 1 else int(w * (total - 1) / (count - 1) + 0.5) for w in range(count)]

    def check(self):
        """One step against the double reference, attention_check's bounds
        per row (fp32: the error of D-term dot products and of the kernel's
        exp2, attention_ref.c's tol_i; bf16 adds 2 E16 + 1e-3 + 2^-8 |ref| +
        2^-8 max|v|, E16 the max error of bf16 arithmetic on the pair)."""
        t = self.torch
        self.step()
        o = self.o.transpose(1, 2)                           # [B, Sq, H, D], the harness's layout
        n = self._visible().to(t.float64)
        tiles = t.ceil(n / BK_MIN)
        allowed = t.arange(self.sk)[None, :] < n[:, None]       # [Sq, Sk]: key j visible to query i
        pairs = self._pairs()
        got, refs, bounds = [], [], []
        for pair in pairs:
            bi, hi = divmod(pair, self.h)
            kh = hi // (self.h // self.kv)
            q = self.q[bi, hi].to(t.float64)
            k, v = self.k[bi, kh].to(t.float64), self.v[bi, kh].to(t.float64)
            ref = self._reference(q, k, v, allowed)
            kmax, vmax = float(k.norm(dim=-1).max()), float(v.abs().max())
            x = abs(self.scale) * math.log2(math.e) * q.norm(dim=-1) * kmax
            delta = math.log(2) * (self.d + 4) * U32 * x + (tiles + 2) * EXP2_MAX_REL_ERR
            terms = t.clamp(n, max=BK) + tiles + 3
            tol = t.where(n > 0, vmax * (2 * delta + 2 * terms * U32), t.zeros_like(n))[:, None].expand_as(ref)
            if self.dtype == "bf16":
                e16 = float((self._bf16_arith(bi, hi, kh, allowed) - ref).abs().max())
                tol = tol + 2.0 * e16 + 1e-3 + U16 * ref.abs() + U16 * vmax
            got.append(o[bi, :, hi])
            refs.append(ref)
            bounds.append(tol)
        what = (f"{self.dtype} vs float64 reference, {len(pairs)} of {self.b * self.h} (batch, head) pairs; "
                "attention_ref.c's per-row bound")

        def where(i):
            bi, hi = divmod(pairs[i[0]], self.h)
            return f"batch {bi}, head {hi}, row {i[1]}, col {i[2]}"
        return torch_peer.verdict(t, t.stack(got), t.stack(refs), t.stack(bounds), what, where)

    def _reference(self, q, k, v, allowed):
        """softmax(scale q k^T, masked) v in float64; a row that sees no key is 0."""
        t = self.torch
        s = (q @ k.T * self.scale).masked_fill(~allowed, -math.inf)
        p = t.softmax(s, dim=-1).nan_to_num(0.0)
        return p @ v

    def _bf16_arith(self, bi, hi, kh, allowed):
        """half_arith_row for every row of (bi, hi): each op's result rounded to
        bf16, the dot products, max and sum in fp32."""
        t, r = self.torch, lambda x: torch_peer.round_bf16(self.torch, x)
        q, k, v = (a.to(t.float32) for a in (self.q[bi, hi], self.k[bi, kh], self.v[bi, kh]))
        s = r(r(q @ k.T) * numpy.float32(self.scale)).masked_fill(~allowed, -math.inf)
        e = t.exp(s - s.max(dim=-1, keepdim=True).values).nan_to_num(0.0)
        p = r(e / e.sum(dim=-1, keepdim=True).clamp(min=1e-38))
        return r(p @ v).to(t.float64)
