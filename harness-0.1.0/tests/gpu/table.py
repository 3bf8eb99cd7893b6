"""The table of tests/gpu/run.sh: one row per CUDA run (variant, dtype) with
the harness's figures and, where PyTorch has the same op, its time on the
same shape and dtype, timed the same way (one CUDA event pair per call,
median over the calls after a warmup); and the device's own copy rate for
the same bytes (a device-to-device copy of half the step's bytes, so read
plus write equal the step's traffic), the practical bandwidth limit that a
memory-bound kernel is judged against beside the datasheet peak.

    usage: python3 tests/gpu/table.py EXPERIMENTS_DIR
"""
import glob
import json
import os
import sys

TORCH_DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}
# A run's FLOP/s against the peak of its own dtype: bf16 and fp16 on tensor cores.
PEAK_KEY = {"bf16": "percent_of_peak_bf16_flops", "fp16": "percent_of_peak_fp16_flops"}


def torch_median_ns(fn, warmup=20, calls=200):
    import torch
    for _ in range(warmup):
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(calls)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(calls)]
    for s, e in zip(starts, ends):
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) * 1e6 for s, e in zip(starts, ends))
    return times[len(times) // 2]


def torch_rms_norm(cfg):
    import torch
    dtype = getattr(torch, TORCH_DTYPES[cfg.get("dtype", "fp32")])
    shape = (cfg["batch_size"], cfg["seq_len"], cfg["hidden_size"])
    x = torch.randn(shape, device="cuda", dtype=dtype)
    w = torch.randn(cfg["hidden_size"], device="cuda", dtype=dtype)
    eps = cfg["eps"]
    return torch_median_ns(lambda: torch.nn.functional.rms_norm(x, (cfg["hidden_size"],), w, eps))


def torch_attention(cfg):
    import torch
    dtype = getattr(torch, TORCH_DTYPES[cfg.get("dtype", "fp32")])
    b, h, d = cfg["batch_size"], cfg["num_heads"], cfg["head_dim"]
    kv = cfg.get("num_kv_heads") or h
    sq = cfg["seq_len"]
    sk = cfg.get("kv_seq_len") or sq
    q = torch.randn(b, h, sq, d, device="cuda", dtype=dtype)
    k = torch.randn(b, kv, sk, d, device="cuda", dtype=dtype)
    v = torch.randn(b, kv, sk, d, device="cuda", dtype=dtype)
    f = torch.nn.functional.scaled_dot_product_attention
    return torch_median_ns(lambda: f(q, k, v, is_causal=bool(cfg.get("causal")), enable_gqa=kv != h))


def copy_gbps(bytes_per_step):
    """GB/s of a device-to-device copy moving bytes_per_step (read + write)."""
    import torch
    n = max(int(bytes_per_step) // 2, 1)
    src = torch.empty(n, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    return 2 * n / torch_median_ns(lambda: dst.copy_(src))


TORCH_OPS = {"rms_norm": torch_rms_norm, "attention": torch_attention}


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def main():
    rows = []
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*", "*", "summary_*.json"))):
        s = json.load(open(path))
        cfg = s["component"]["config"]
        family = s["component"]["variant_key"].split("/")[0]
        torch_ns = None
        if family in TORCH_OPS:
            try:
                torch_ns = TORCH_OPS[family](cfg)
            except Exception as e:  # PyTorch missing or op unavailable: the row says so
                print(f"torch {family}: {e}", file=sys.stderr)
        t, tp, rf = s["timing"], s.get("throughput") or {}, s.get("roofline") or {}
        median = t.get("median")
        copy = None
        if tp.get("bytes_per_step"):
            try:
                copy = copy_gbps(tp["bytes_per_step"])
            except Exception as e:
                print(f"torch copy: {e}", file=sys.stderr)
        rows.append([
            s["component"]["variant_key"], cfg.get("dtype", "-"), s["validation"]["status"],
            fmt(median and median / 1e3, ".2f"), fmt(tp.get("gb_per_s"), ".0f"),
            fmt(tp.get("gflop_per_s") and tp["gflop_per_s"] / 1e3, ".2f"),
            fmt(rf.get("percent_of_peak_bandwidth"), ".1f"),
            fmt(copy and tp.get("gb_per_s") and tp["gb_per_s"] / copy, ".2f"),
            fmt(rf.get(PEAK_KEY.get(cfg.get("dtype"), "percent_of_peak_flops")), ".1f"),
            fmt(torch_ns and torch_ns / 1e3, ".2f"),
            fmt(torch_ns and median and torch_ns / median, ".2f"),
        ])
    head = ["variant", "dtype", "check", "median us", "GB/s", "TFLOP/s", "% peak BW", "of copy", "% peak FLOP/s (its dtype)",
            "torch us", "torch / ours"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
