#!/usr/bin/env python3
"""bench/avx2_vs_pytorch.py [--rounds N] [--only TEXT] [--json FILE] [--venv DIR]

The AVX2 paths against PyTorch, side by side, on a CPU that may have more:
bench/vs_pytorch.py in direct mode (both sides in one process, interleaved,
the sides' order rotating every round) with every library held to AVX2 for
the whole run:

  HARNESS_CPU_ISA=avx2          the harness's attention, RMSNorm, RoPE and
                                SwiGLU kernels, and `harness calibrate`'s
                                fp32 FMA peak (AVX2 FMAs)
  OPENBLAS_CORETYPE=Haswell     the block's sgemm (OpenBLAS's AVX2 kernels)
  ATEN_CPU_CAPABILITY=avx2      PyTorch's own kernels (SDPA's flash kernel,
                                RMSNorm, SiLU)
  ONEDNN_MAX_CPU_ISA=AVX2       oneDNN (PyTorch's bf16 matmuls)
  MKL_ENABLE_INSTRUCTIONS=AVX2  MKL (PyTorch's fp32 F.linear)

so that a machine with AVX-512 (this project's Zen 4) stands in for one
without it (a Zen 3). Then a summary per case: the harness's rate as a
fraction of the AVX2 FMA peak calibrated in the same run (bf16 too: on
AVX2 it is widened to fp32 and bound by the same peak, where vs_pytorch.py
quotes the bf16 dot peak this CPU has), and PyTorch's time over the
harness's, paired within a round. Medians [min, max] over the rounds.
Exit: vs_pytorch.py's (0 done, 1 a validation mismatch, 2 usage or torch
missing, 3 a harness run failed).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

AVX2_ENV = dict(HARNESS_CPU_ISA="avx2", OPENBLAS_CORETYPE="Haswell", ATEN_CPU_CAPABILITY="avx2",
                ONEDNN_MAX_CPU_ISA="AVX2", MKL_ENABLE_INSTRUCTIONS="AVX2")


def mmm(v, spec):
    return f"{format(statistics.median(v), spec)} [{format(min(v), spec)}, {format(max(v), spec)}]"


def summarize(report):
    peak = max(p for p in report["peaks"]["fp32"] if p)
    print()
    print(f"AVX2 forced; the fp32 FMA peak of the run: {peak:.1f} GFLOP/s (the highest of the rounds' "
          f"calibrations, {min(report['peaks']['fp32']):.1f} the lowest)")
    print()
    print("| case | harness path | harness, of the AVX2 FMA peak | SDPA [B,H,S,D] or block / harness "
          "| SDPA on [B,S,H,D] views / harness |")
    print("| --- | --- | --- | --- | --- |")
    for c in report["cases"]:
        if c["unit"] != "GFLOP/s":
            continue
        fr = [c["work_per_step"] / ns / peak for ns in c["harness_ns"]]
        t = c["torch"]
        first = t.get("bhsd") or t.get("block")
        cols = [mmm(first["ratio"], ".2f") if first else "-",
                mmm(t["bshd"]["ratio"], ".2f") if "bshd" in t else "-"]
        print(f"| {c['name']} | {c['isa'] or '?'} | {mmm([100 * f for f in fr], '.0f')}% | {cols[0]} | {cols[1]} |")


def main():
    ap = argparse.ArgumentParser(description="the AVX2 paths against PyTorch held to AVX2, side by side")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", help="only the cases whose name contains this (vs_pytorch.py --only)")
    ap.add_argument("--json", metavar="FILE", help="also keep vs_pytorch.py's figures in FILE")
    ap.add_argument("--venv", metavar="DIR", help="a venv with torch (default: vs_pytorch.py's)")
    args = ap.parse_args()
    if args.rounds < 1:
        print("avx2_vs_pytorch.py: --rounds must be at least 1", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="avx2_vs_pytorch.") as d:
        path = os.path.abspath(args.json) if args.json else os.path.join(d, "vs.json")
        cmd = [sys.executable, os.path.join(TOP, "bench", "vs_pytorch.py"), "--mode", "direct",
               "--rounds", str(args.rounds), "--json", path]
        if args.only:
            cmd += ["--only", args.only]
        if args.venv:
            cmd += ["--venv", args.venv]
        print("environment: " + " ".join(f"{k}={v}" for k, v in AVX2_ENV.items()), flush=True)
        rc = subprocess.run(cmd, env=dict(os.environ, **AVX2_ENV)).returncode
        if not os.path.exists(path):
            return rc or 3
        with open(path) as f:
            report = json.load(f)
    summarize(report)
    return rc


if __name__ == "__main__":
    sys.exit(main())
