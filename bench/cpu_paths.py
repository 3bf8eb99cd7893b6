#!/usr/bin/env python3
"""cpu_paths.py - every CPU instruction-set path of attention and the Llama
block, forced with HARNESS_CPU_ISA, side by side with the default on this
machine; optionally against a second built tree (an older commit), to show
what a change did to each path.

    python3 bench/cpu_paths.py [--rounds N] [--base TREE] [--isas LIST] [--quick]

Run it from a built tree (`make -j2`). Every round runs every (case, ISA)
once in this tree and, with --base, once in TREE, the two trees' order
alternating per round, so that drifting load hits both alike. Each run is
`harness run CONFIG --quiet` with one window (trace, memory and validation
off); its figure is the summary's median step time. Printed: a markdown
table, one row per (case, ISA asked): the path the run took (the summary's
component_notes.isa), GFLOP/s at the median over rounds [min, max], and with
--base the base tree's GFLOP/s and base time / this tree's time per round
(> 1: this tree is faster), median [min, max]. A figure, never a pass/fail.
Exit: 0 done, 2 usage, 3 a harness run failed.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (name, config, sets): the shapes of bench/vs_pytorch.py's fp32 and bf16 cases.
CASES = [
    ("attn fp32 1x16x1024x64 full", "attention.yaml",
     dict(num_heads=16, num_kv_heads=0, seq_len=1024, head_dim=64, causal="false", dtype="fp32")),
    ("attn fp32 1x8x1024x128 causal", "attention.yaml",
     dict(num_heads=8, num_kv_heads=0, seq_len=1024, head_dim=128, causal="true", dtype="fp32")),
    ("attn bf16 1x8x1024x128 causal", "attention.yaml",
     dict(num_heads=8, num_kv_heads=0, seq_len=1024, head_dim=128, causal="true", dtype="bf16")),
    ("block fp32 256 tok h1024", "transformer_block.yaml", dict(dtype="fp32")),
    ("block bf16 256 tok h1024", "transformer_block.yaml", dict(dtype="bf16")),
]

ISAS = ["default", "avx512_bf16", "avx512", "avx2", "portable"]


def run_harness(tree, config, sets, isa, steps):
    """One harness run in TREE; (median step seconds, GFLOP/s, path noted)."""
    env = dict(os.environ)
    env.pop("HARNESS_CPU_ISA", None)
    if isa != "default":
        env["HARNESS_CPU_ISA"] = isa
    with tempfile.TemporaryDirectory(prefix="cpu_paths.") as out:
        cmd = [os.path.join(tree, "harness", "harness"), "run", os.path.join(tree, "configs", config),
               "--quiet", "--output-dir", out, "--plugin-path", os.path.join(tree, "plugins", ".libs"),
               "--set", "schedule.repeat=1", "--set", f"schedule.measurement_steps={steps}",
               "--set", "schedule.warmup_steps=2", "--set", "schedule.wait_steps=1",
               "--set", "profiling.trace=false", "--set", "profiling.memory=false", "--set", "validate=false"]
        for k, v in sets.items():
            cmd += ["--set", f"component.config.{k}={v}"]
        p = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
        lines = p.stdout.strip().splitlines()
        summary = os.path.join(lines[-1], "summary_ranks_1_rank_0.json") if lines else ""
        if p.returncode != 0 or not os.path.exists(summary):
            sys.stderr.write(f"cpu_paths: {' '.join(cmd)} (HARNESS_CPU_ISA={isa})\n  exit {p.returncode}: "
                             f"{p.stderr.strip()}\n")
            sys.exit(3)
        with open(summary) as f:
            s = json.load(f)
    sec = s["timing"]["median"] * 1e-9
    return sec, s["throughput"]["flops_per_step"] / sec / 1e9, (s.get("component_notes") or {}).get("isa", "?")


def med(xs, fmt):
    return f"{statistics.median(xs):{fmt}} [{min(xs):{fmt}}, {max(xs):{fmt}}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--base", help="a second built tree to compare with (e.g. an older commit's)")
    ap.add_argument("--isas", default=",".join(ISAS), help=f"comma-separated, of {','.join(ISAS)}")
    ap.add_argument("--quick", action="store_true", help="3 measured steps instead of 10")
    args = ap.parse_args()
    isas = args.isas.split(",")
    if args.rounds < 1 or any(i not in ISAS for i in isas):
        ap.error(f"--rounds must be >= 1 and --isas a list of {','.join(ISAS)}")
    trees = [TOP] + ([os.path.abspath(args.base)] if args.base else [])
    for t in trees:
        if not os.access(os.path.join(t, "harness", "harness"), os.X_OK):
            ap.error(f"{t}/harness/harness is missing: build that tree first (make -j2)")
    steps = 3 if args.quick else 10
    res = {}   # (case, isa, tree index) -> list of (sec, gflops, path)
    for r in range(args.rounds):
        for name, config, sets in CASES:
            for isa in isas:
                order = list(range(len(trees)))
                if r % 2:
                    order.reverse()
                for ti in order:
                    res.setdefault((name, isa, ti), []).append(run_harness(trees[ti], config, sets, isa, steps))
        sys.stderr.write(f"  round {r + 1}/{args.rounds} done\n")

    head = "| case | HARNESS_CPU_ISA | path taken | GFLOP/s median [min, max] |"
    rule = "| --- | --- | --- | --- |"
    if args.base:
        head += " base GFLOP/s | base / this time median [min, max] |"
        rule += " --- | --- |"
    print(head)
    print(rule)
    for name, _, _ in CASES:
        for isa in isas:
            runs = res[(name, isa, 0)]
            paths = sorted({p for _, _, p in runs})
            row = f"| {name} | {isa} | {'/'.join(paths)} | {med([g for _, g, _ in runs], '.1f')} |"
            if args.base:
                base = res[(name, isa, 1)]
                row += (f" {statistics.median(g for _, g, _ in base):.1f} |"
                        f" {med([b[0] / t[0] for b, t in zip(base, runs)], '.2f')} |")
            print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
