"""PyTorch's time for each figure run of tests/gpu/run.sh, on the same shape
and dtype, timed as table.py times it (one CUDA event pair per call, median
after a warmup), for results.py's "PyTorch / ours" column. Without PyTorch
(or without a GPU for it) it still writes the file, saying why, so the
results file says "n/a" and the reason rather than leaving a gap.

    usage: python3 tests/gpu/torch_times.py WORK   (writes WORK/torch.json)
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from table import TORCH_DTYPES, torch_attention, torch_median_ns, torch_rms_norm  # noqa: E402


def torch_transformer_block(cfg):
    """A Llama block as PyTorch writes it: RMSNorm, Q/K/V, RoPE, causal SDPA,
    output projection and residual, RMSNorm, SwiGLU MLP and residual."""
    import torch
    import torch.nn.functional as F
    dt = getattr(torch, TORCH_DTYPES[cfg.get("dtype", "fp32")])
    b, s, hid = cfg["batch_size"], cfg["seq_len"], cfg["hidden_size"]
    h = cfg["num_heads"]
    kv = cfg.get("num_kv_heads") or h
    d, inter = hid // h, cfg["intermediate_size"]

    def w(o, i):
        return torch.randn(o, i, device="cuda", dtype=dt) / i ** 0.5
    wq, wk, wv, wo = w(h * d, hid), w(kv * d, hid), w(kv * d, hid), w(hid, h * d)
    wg, wu, wd = w(inter, hid), w(inter, hid), w(hid, inter)
    n1 = torch.ones(hid, device="cuda", dtype=dt)
    n2 = torch.ones(hid, device="cuda", dtype=dt)
    x = torch.randn(b, s, hid, device="cuda", dtype=dt)
    inv = cfg.get("rope_theta", 10000.0) ** (-torch.arange(0, d, 2, device="cuda", dtype=torch.float32) / d)
    ang = torch.arange(s, device="cuda", dtype=torch.float32)[:, None] * inv[None, :]
    cos, sin = ang.cos().to(dt), ang.sin().to(dt)
    eps = cfg.get("eps", 1e-5)

    def rope(t):  # t: b, heads, s, d; pairs (2i, 2i+1)
        t1, t2 = t[..., 0::2], t[..., 1::2]
        return torch.stack((t1 * cos - t2 * sin, t1 * sin + t2 * cos), dim=-1).flatten(-2)

    def block():
        a = F.rms_norm(x, (hid,), n1, eps)
        q = rope((a @ wq.T).view(b, s, h, d).transpose(1, 2))
        k = rope((a @ wk.T).view(b, s, kv, d).transpose(1, 2))
        v = (a @ wv.T).view(b, s, kv, d).transpose(1, 2)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=bool(cfg.get("causal", True)), enable_gqa=kv != h)
        y = x + o.transpose(1, 2).reshape(b, s, h * d) @ wo.T
        m = F.rms_norm(y, (hid,), n2, eps)
        return y + (F.silu(m @ wg.T) * (m @ wu.T)) @ wd.T
    return torch_median_ns(block, warmup=5, calls=30)


def torch_allreduce(cfg):
    """torch.distributed's NCCL all-reduce in a world of one (in place: its only form)."""
    import torch
    import torch.distributed as dist
    if not dist.is_initialized():
        dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
    dt = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp64": torch.float64, "int32": torch.int32}[cfg["dtype"]]
    t = torch.ones(max(cfg["bytes"] // torch.tensor([], dtype=dt).element_size(), 1), device="cuda", dtype=dt)
    return torch_median_ns(lambda: dist.all_reduce(t))


OPS = {"rms_norm": torch_rms_norm, "attention": torch_attention, "transformer_block": torch_transformer_block,
       "allreduce": torch_allreduce}


def main(work):
    out = {"available": False, "reason": "", "version": None, "ns": {}, "errors": {}}
    try:
        import torch
        out["version"] = torch.__version__
        if not torch.cuda.is_available():
            out["reason"] = f"PyTorch {torch.__version__} sees no GPU"
    except Exception as e:  # no PyTorch on this machine: say so
        out["reason"] = f"no PyTorch here ({e.__class__.__name__}: {e})"
    if not out["reason"]:
        out["available"] = True
        cache = {}
        for path in sorted(glob.glob(os.path.join(work, "fig", "**", "summary_ranks_*_rank_0.json"), recursive=True)):
            tag = path.split(os.sep)[-3]
            s = json.load(open(path))
            family = s["component"]["variant_key"].split("/")[0]
            if family not in OPS or tag in out["ns"]:
                continue
            # attention/cuda, its 32-key build and attention/cublas share a shape: time PyTorch once.
            key = family + json.dumps(s["component"]["config"], sort_keys=True)
            try:
                if key not in cache:
                    cache[key] = OPS[family](s["component"]["config"])
                out["ns"][tag] = cache[key]
            except Exception as e:  # an op PyTorch refuses: that row says n/a
                out["errors"][tag] = f"{e.__class__.__name__}: {e}"
                print(f"torch_times: {tag}: {e}", file=sys.stderr)
            import torch
            torch.cuda.empty_cache()
    with open(os.path.join(work, "torch.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(f"torch_times: {len(out['ns'])} PyTorch times" if out["available"] else f"torch_times: n/a, {out['reason']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
