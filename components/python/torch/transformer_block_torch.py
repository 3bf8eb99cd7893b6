"""transformer_block/torch: the Llama block of components/transformer_block
in F.* ops, PyTorch's peer of transformer_block/cpu:

    h = x + Wo . SDPA(RoPE(Wq . n), RoPE(Wk . n), Wv . n),  n = F.rms_norm(x; attn_norm)
    y = h + Wdown . (F.silu(Wgate . m) * (Wup . m)),         m = F.rms_norm(h; mlp_norm)

with F.linear on the weights as stored ([out][in], nn.Linear's), rotate-half
RoPE on a cos/sin table of angles taken in double and rounded once, SDPA with
enable_gqa and is_causal. The same parameters (peers.TRANSFORMER_BLOCK) and
the same data: x the input, y the output, then the nine weights filled in
transformer_block.h's order and scaled as tb_fill_weight does (projections
by 1/sqrt(fan_in) in float32, norms 1 + v/10; bf16 rounded back to nearest
even), so both see bit-identical x and weights for a seed. bf16: every
tensor in bf16, as model.to(torch.bfloat16) runs. The last residual add
writes y, the harness's buffer (out=), so y is declared as the C variant
declares it. Checked against a float64 reference of transformer_block_ref.c's
math with its tolerances."""

import math

import numpy

import torch_peer

KEY = "transformer_block/torch"
CHECK_REF_FLOPS = 12e9       # transformer_block_cpu_adapter.c's reference budget
NAMES = ("wq", "wk", "wv", "wo", "w_gate", "w_up", "w_down", "attn_norm", "mlp_norm")


def f32_to_bf16(f):
    """float32 array -> bf16 bits (uint16), nearest even: common/bf16.h's rule."""
    u = f.view(numpy.uint32).astype(numpy.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(numpy.uint16)


class TransformerBlockTorch:
    def __init__(self, params, ctx):
        p = torch_peer.bind(KEY, params)
        if p["tensor_parallel"] and ctx.world_size > 1:
            raise ValueError("tensor_parallel: transformer_block/torch runs the whole block on one rank; "
                             "set it false or run one rank")
        self.b, self.s, self.hid = p["batch_size"], p["seq_len"], p["hidden_size"]
        self.nh, self.inter = p["num_heads"], p["intermediate_size"]
        self.nkv = p["num_kv_heads"] or self.nh
        if self.hid % self.nh or (self.hid // self.nh) % 2:
            raise ValueError(f"hidden_size ({self.hid}) must be num_heads ({self.nh}) x an even head_dim")
        if self.nh % self.nkv:
            raise ValueError(f"num_kv_heads ({self.nkv}) must divide num_heads ({self.nh})")
        self.d = self.hid // self.nh
        self.theta, self.causal, self.dtype = p["rope_theta"], p["causal"], p["dtype"]
        self.eps = float(numpy.float32(p["eps"]))
        self.torch = torch = torch_peer.torch_for(ctx)
        self.F = torch.nn.functional
        kind = torch_peer.DTYPES[self.dtype]
        x = ctx.alloc((self.b, self.s, self.hid), kind, "x")
        y = ctx.alloc((self.b, self.s, self.hid), kind, "y")
        hd, kvd = self.nh * self.d, self.nkv * self.d
        shapes = ((hd, self.hid), (kvd, self.hid), (kvd, self.hid), (self.hid, hd), (self.inter, self.hid),
                  (self.inter, self.hid), (self.hid, self.inter), (self.hid,), (self.hid,))
        w = [ctx.alloc(shape, kind, name) for shape, name in zip(shapes, NAMES)]
        ctx.input(x)                       # as transformer_block/cpu: x, y, then the weights in order
        ctx.output(y)
        for i, wi in enumerate(w):
            self._fill_weight(ctx, i, wi)
        self.x, self.y = torch_peer.tensor(torch, x, self.dtype), torch_peer.tensor(torch, y, self.dtype)
        self.w = [torch_peer.tensor(torch, wi, self.dtype) for wi in w]
        self.cos, self.sin = (t.to(self.x.dtype) for t in self._rope_table())
        self.ctx = ctx

    def _fill_weight(self, ctx, which, w):
        """tb_fill_weight: the generator, then v * (float)(1/sqrt(fan_in)) for a
        projection, 1 + 0.1 v for a norm, in float32; bf16 read and rounded back."""
        ctx.fill(w)
        v = (w.astype(numpy.uint32) << 16).view(numpy.float32) if self.dtype == "bf16" else w
        if which >= 7:
            v = numpy.float32(1.0) + numpy.float32(0.1) * v
        else:
            v = v * numpy.float32(1.0 / math.sqrt(self.inter if which == 6 else self.hid))
        w[...] = f32_to_bf16(v) if self.dtype == "bf16" else v

    def _rope_table(self, positions=None, dtype=None):
        """cos and sin [S, D] (each half repeated for rotate-half) of the angles
        p * theta^(-2i/D), taken in float64 and rounded to float32 once, as
        transformer_block_rope_table; dtype float64: the reference's, unrounded."""
        t = self.torch
        pos = t.arange(self.s, dtype=t.float64) if positions is None else positions.to(t.float64)
        inv = t.tensor([self.theta ** (-2.0 * i / self.d) for i in range(self.d // 2)], dtype=t.float64)
        ang = pos[:, None] * inv[None, :]
        cos, sin = (t.cat((f, f), dim=-1).to(dtype or t.float32) for f in (ang.cos(), ang.sin()))
        return cos, sin

    def _rope(self, t4, cos, sin):
        """Rotate half on [B, S, heads, D] with cos, sin [S, D]."""
        half = self.d // 2
        rot = self.torch.cat((-t4[..., half:], t4[..., :half]), dim=-1)
        return t4 * cos[:, None, :] + rot * sin[:, None, :]

    def step(self):
        t, F, w = self.torch, self.F, self.w
        b, s, d = self.b, self.s, self.d
        with t.inference_mode():
            n = F.rms_norm(self.x, (self.hid,), w[7], self.eps)
            q = self._rope(F.linear(n, w[0]).view(b, s, self.nh, d), self.cos, self.sin).transpose(1, 2)
            k = self._rope(F.linear(n, w[1]).view(b, s, self.nkv, d), self.cos, self.sin).transpose(1, 2)
            v = F.linear(n, w[2]).view(b, s, self.nkv, d).transpose(1, 2)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal, enable_gqa=self.nkv != self.nh)
            h = self.x + F.linear(a.transpose(1, 2).reshape(b, s, self.hid), w[3])
            m = F.rms_norm(h, (self.hid,), w[8], self.eps)
            t.add(h, F.linear(F.silu(F.linear(m, w[4])) * F.linear(m, w[5]), w[6]), out=self.y)

    def _flops(self):
        """transformer_block_flops: 2 per multiply-add of the six projections
        plus the attention's exact count."""
        tokens, kvd = self.b * self.s, self.nkv * self.d
        proj = 2.0 * tokens * (2 * self.hid * self.hid + 2 * kvd * self.hid + 3 * self.inter * self.hid)
        seen = self.s * (self.s + 1) / 2 if self.causal else self.s * self.s
        return proj + 4.0 * self.d * self.b * self.nh * seen

    def cost(self):
        """tb_cost_of's: the FLOPs above; bytes the weights as stored plus x
        read and y written."""
        elem = 2 if self.dtype == "bf16" else 4
        weights = sum(wi.numel() for wi in self.w)
        return {"flops": self._flops(), "bytes": (weights + 2.0 * self.x.numel()) * elem}

    def notes(self):
        t = self.torch
        return {"torch": t.__version__, "cpu_capability": t.backends.cpu.get_cpu_capability(),
                "threads": str(t.get_num_threads())}

    def _rows(self):
        """transformer_block_check's tokens: all when the reference fits
        CHECK_REF_FLOPS, else every stride-th and the last of each sequence."""
        hid, kvd, inter, seq = self.hid, self.nkv * self.d, self.inter, self.s
        per_row = 2.0 * (2.0 * hid * hid + 3.0 * inter * hid) + 4.0 * seq * hid
        kv_all = 2.0 * self.b * seq * 2.0 * kvd * hid
        tokens, stride = self.b * seq, 1
        if kv_all + tokens * per_row > CHECK_REF_FLOPS:
            affordable = (CHECK_REF_FLOPS - kv_all) / per_row
            stride = math.ceil(tokens / affordable) if affordable >= 1 else tokens
        return [r for r in range(tokens) if r % stride == 0 or r % seq == seq - 1], stride

    def _reference(self, rows):
        """The block in float64 for the listed tokens (K, V from every token
        of their sequences), transformer_block_ref's math: [len(rows), hidden]."""
        t = self.torch
        x = self.x.to(t.float64)
        w = [wi.to(t.float64) for wi in self.w]
        d, group = self.d, self.nh // self.nkv

        def norm(v, g):
            return v / t.sqrt((v * v).mean(-1, keepdim=True) + self.eps) * g
        out = []
        cos, sin = self._rope_table(dtype=t.float64)
        for bi in sorted({r // self.s for r in rows}):
            pos = t.tensor([r % self.s for r in rows if r // self.s == bi])
            xb = x[bi]
            nb = norm(xb, w[7])
            k = self._rope((nb @ w[1].T).view(1, self.s, self.nkv, d), cos, sin)[0]     # [S, KV, D]
            v = (nb @ w[2].T).view(self.s, self.nkv, d)
            q = self._rope((nb[pos] @ w[0].T).view(1, len(pos), self.nh, d), cos[pos], sin[pos])[0]
            kh, vh = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)   # [S, H, D]
            sc = t.einsum("phd,shd->hps", q, kh) / math.sqrt(d)
            if self.causal:
                sc = sc.masked_fill(t.arange(self.s)[None, None, :] > pos[None, :, None], -math.inf)
            a = t.einsum("hps,shd->phd", t.softmax(sc, dim=-1), vh).reshape(len(pos), self.hid)
            h = xb[pos] + a @ w[3].T
            m = norm(h, w[8])
            g = m @ w[4].T
            out.append(h + (g / (1.0 + t.exp(-g)) * (m @ w[5].T)) @ w[6].T)
        return t.cat(out)

    def check(self):
        """One step against the double reference with transformer_block_check's
        bound, |y - ref| <= rtol |ref| + atol rms(ref row): fp32 rtol = atol =
        64 sqrt(K) 2^-24 (K the longest dot product); bf16, whose activations
        are all bf16 here, the bound of the C block's bf16 dot path, rtol +
        2^-8 and atol + 2^-5."""
        t = self.torch
        self.step()
        rows, stride = self._rows()
        ref = self._reference(rows)
        tol = 64.0 * math.sqrt(max(self.hid, self.inter, self.s)) * 2.0 ** -24
        rtol, atol = (tol + 2.0 ** -8, tol + 2.0 ** -5) if self.dtype == "bf16" else (tol, tol)
        rms = ref.pow(2).mean(-1, keepdim=True).sqrt()
        which = "all" if stride == 1 else f"1 in {stride} + last of each sequence"
        what = (f"{len(rows)} of {self.b * self.s} tokens ({which}) vs float64 reference; "
                f"|err| <= {rtol:.2g} |ref| + {atol:.2g} rms(row)")
        got = self.y.reshape(self.b * self.s, self.hid)[rows]
        return torch_peer.verdict(t, got, ref, rtol * ref.abs() + atol * rms, what,
                                  lambda i: f"token {rows[i[0]]} [{i[1]}]")
