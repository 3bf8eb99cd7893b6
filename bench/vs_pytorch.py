#!/usr/bin/env python3
"""vs_pytorch.py - the harness's CPU kernels against what a PyTorch user would
call for the same work, and both against this machine's calibrated peaks,
measured side by side in one session.

    python3 bench/vs_pytorch.py [--mode auto|ab|direct] [--make-venv DIR | --venv DIR]
                                [--rounds N] [--quick] [--only TEXT] [--json FILE]

Run it from a built tree (`make -j2`): it runs harness/harness of the tree it
sits in. PyTorch: the newest from PyPI in a virtualenv, by default the
tree's .venv-torch (scripts/setup --with-torch). `--make-venv DIR` creates
DIR (python3 -m venv) and installs torch into it (the CPU wheel index first,
plain PyPI if that is unreachable); `--venv DIR` uses an existing one.

Two modes, the same table:
  - ab (the default where the python component is built: `harness list`
    shows python/cpu): each case a benchmark of one `harness ab` suite, the
    C variant its base and its PyTorch peer (components/python/torch, the
    same parameters and data, validated the same way) its candidate, so the
    harness runs, times and judges both sides (vs_pytorch_ab.py); calibrated
    before and after the rounds; ab's verdict and interval follow the table.
    The peers cover the cases with a harness-buffer form: not copy, not
    SDPA on contiguous [B, H, S, D] copies.
  - direct (--mode direct, or without the python component): torch called
    in this process (re-run under the venv's python), as below.

The PyTorch side is what a user writes, not a hand-made imitation:
  - attention: torch.nn.functional.scaled_dot_product_attention (is_causal,
    enable_gqa for grouped-query attention), on PyTorch's preferred contiguous
    [B, H, S, D] layout ("torch BHSD") and on the harness's [B, S, H, D]
    layout as transposed views ("torch BSHD", what a caller holding the
    harness's tensors would pass); fp32 and bf16;
  - RMSNorm: torch.nn.functional.rms_norm, fp32 and bf16 tensors;
  - the Llama block of configs/transformer_block.yaml: F.rms_norm, F.linear,
    rotate-half RoPE, SDPA with enable_gqa, F.silu; fp32, and bf16 with every
    tensor in bf16 (model.to(torch.bfloat16)).
Both sides run 2 threads (torch.set_num_threads; the harness's OpenMP
default here). Direct mode, every round: `harness calibrate --quick` (fp32 FMA, bf16 dot,
AMX bf16 and copy peaks), then each case's sides in an order that rotates
with the round, each a warm-up then timed calls, the median. A rate is the
harness's declared FLOPs (or bytes) per step over a median time, for both
sides, so both count the same work; "of peak" is that rate over the same
round's peak for the case's dtype: fp32 FMA for fp32, the bf16 peak for bf16
(AMX where measured, else AVX-512 BF16 dot, as the roofline picks), the copy
peak for RMSNorm. Reported: the median over rounds, and [min, max].

Figures, not tests. Exit: 0 done, 1 a harness validation mismatch, 2 usage
(or PyTorch / the build missing), 3 a harness run failed.
"""

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import vs_pytorch_ab

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARNESS = os.path.join(TOP, "harness", "harness")
THREADS = 2


def die(msg, code):
    print(f"vs_pytorch.py: {msg}", file=sys.stderr)
    sys.exit(code)


# ---- the virtualenv ------------------------------------------------------------

def make_venv(d):
    """DIR with the newest torch from PyPI (the CPU-only wheel index first: a
    few hundred MB instead of the CUDA build's GBs)."""
    py = os.path.join(d, "bin", "python")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", d], check=True)
    if subprocess.run([py, "-c", "import torch"], capture_output=True).returncode == 0:
        return py
    pip = [py, "-m", "pip", "install", "--upgrade", "torch", "numpy"]
    if subprocess.run(pip + ["--index-url", "https://download.pytorch.org/whl/cpu"]).returncode != 0:
        print("vs_pytorch.py: the CPU wheel index is unreachable; installing torch from PyPI", file=sys.stderr)
        subprocess.run(pip, check=True)
    return py


def reexec_in(py):
    """Run this script again under py (a venv's python), unless this is it:
    compared by sys.prefix, since a venv's python is a link to the base one."""
    venv = os.path.dirname(os.path.dirname(os.path.abspath(py)))
    if os.path.realpath(sys.prefix) == os.path.realpath(venv) or os.environ.get("VS_PYTORCH_REEXEC"):
        return
    argv = [a for a in sys.argv[1:]]
    for opt in ("--make-venv", "--venv"):    # drop the option and its value
        while opt in argv:
            i = argv.index(opt)
            del argv[i:i + 2]
    env = dict(os.environ, VS_PYTORCH_REEXEC="1")
    os.execve(py, [py, os.path.abspath(__file__)] + argv, env)


# ---- the PyTorch side --------------------------------------------------------------

def torch_attention(torch, F, b, h, hkv, s, d, causal, dtype, layout):
    """SDPA on [B, H, S, D] tensors ("bhsd") or on [B, S, H, D] ones seen
    through transposes ("bshd", the harness's layout)."""
    shape_q, shape_kv = ((b, h, s, d), (b, hkv, s, d)) if layout == "bhsd" else ((b, s, h, d), (b, s, hkv, d))
    q, k, v = torch.randn(shape_q, dtype=dtype), torch.randn(shape_kv, dtype=dtype), torch.randn(shape_kv, dtype=dtype)
    if layout == "bshd":
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    gqa = hkv != h

    def step():
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)
    return step


def torch_rms_norm(torch, F, batch, seq, hidden, eps, dtype):
    x = torch.randn(batch, seq, hidden, dtype=dtype)
    w = (1.0 + 0.1 * torch.randn(hidden)).to(dtype)
    return lambda: F.rms_norm(x, (hidden,), w, eps)


def torch_block(torch, F, c, dtype):
    """The Llama block of components/transformer_block/transformer_block.h as
    a user writes it: weights [out][in] (nn.Linear's), rotate-half RoPE, SDPA
    with GQA, SwiGLU; every tensor in `dtype`."""
    b, s, hid = c["batch_size"], c["seq_len"], c["hidden_size"]
    nh = c["num_heads"]
    nkv = c["num_kv_heads"] or nh
    inter, theta, eps, causal = c["intermediate_size"], c["rope_theta"], c["eps"], c["causal"]
    d = hid // nh

    def weight(out_f, in_f):
        return (torch.randn(out_f, in_f) / math.sqrt(in_f)).to(dtype)
    x = torch.randn(b, s, hid, dtype=dtype)
    wq, wk, wv, wo = weight(nh * d, hid), weight(nkv * d, hid), weight(nkv * d, hid), weight(hid, nh * d)
    wg, wu, wd = weight(inter, hid), weight(inter, hid), weight(hid, inter)
    attn_norm, mlp_norm = (1 + 0.1 * torch.randn(hid)).to(dtype), (1 + 0.1 * torch.randn(hid)).to(dtype)
    inv_freq = theta ** (-torch.arange(0, d // 2, dtype=torch.float64) * 2.0 / d)
    ang = torch.outer(torch.arange(s, dtype=torch.float64), inv_freq)
    cos = torch.cat((ang.cos(), ang.cos()), dim=-1).to(dtype)    # [S, D]
    sin = torch.cat((ang.sin(), ang.sin()), dim=-1).to(dtype)

    def rope(t):                            # [B, heads, S, D]
        rot = torch.cat((-t[..., d // 2:], t[..., : d // 2]), dim=-1)
        return t * cos + rot * sin

    def step():
        n = F.rms_norm(x, (hid,), attn_norm, eps)
        q = rope(F.linear(n, wq).view(b, s, nh, d).transpose(1, 2))
        k = rope(F.linear(n, wk).view(b, s, nkv, d).transpose(1, 2))
        v = F.linear(n, wv).view(b, s, nkv, d).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=nkv != nh)
        h = x + F.linear(a.transpose(1, 2).reshape(b, s, hid), wo)
        m = F.rms_norm(h, (hid,), mlp_norm, eps)
        return h + F.linear(F.silu(F.linear(m, wg)) * F.linear(m, wu), wd)
    return step


def time_torch(fn, budget_s, min_warm_s):
    """Warm up (>= 2 calls and >= min_warm_s), then N calls timed one at a
    time, N from the warm-up's pace; the median ns."""
    t0 = time.perf_counter_ns()
    calls, last = 0, 0
    while calls < 2 or time.perf_counter_ns() - t0 < min_warm_s * 1e9:
        t = time.perf_counter_ns()
        fn()
        last = time.perf_counter_ns() - t
        calls += 1
    n = max(5, min(200, int(budget_s * 1e9 / max(last, 1))))
    ts = []
    for _ in range(n):
        t = time.perf_counter_ns()
        fn()
        ts.append(time.perf_counter_ns() - t)
    return statistics.median(ts)


# ---- the harness side ----------------------------------------------------------------

class HarnessError(Exception):
    pass


def run_harness(config, sets, outdir, steps, warmup, validate):
    cmd = [HARNESS, "run", os.path.join(TOP, "configs", config), "--quiet", "--output-dir", outdir,
           "--set", "schedule.repeat=1", "--set", f"schedule.measurement_steps={steps}",
           "--set", f"schedule.warmup_steps={warmup}", "--set", "schedule.wait_steps=1",
           "--set", "profiling.trace=false", "--set", "profiling.memory=false",
           "--set", f"validate={'true' if validate else 'false'}"]
    for k, v in sets.items():
        cmd += ["--set", f"component.config.{k}={v}"]
    p = subprocess.run(cmd, cwd=TOP, capture_output=True, text=True)
    lines = p.stdout.strip().splitlines()
    summary = os.path.join(lines[-1], "summary_ranks_1_rank_0.json") if lines else ""
    if p.returncode not in (0, 1) or not os.path.exists(summary):
        raise HarnessError(f"{' '.join(cmd)}\n  exit {p.returncode}: {p.stderr.strip()}")
    with open(summary) as f:
        s = json.load(f)
    s["_log"] = p.stderr
    shutil.rmtree(lines[-1], ignore_errors=True)
    return s


def machine_peaks():
    """`harness calibrate --quick` into a temporary file: the machine file's JSON."""
    with tempfile.TemporaryDirectory(prefix="vs_pytorch.calib.") as d:
        path = os.path.join(d, "machine.json")
        p = subprocess.run([HARNESS, "calibrate", "--quick", "--output", path], capture_output=True, text=True)
        if p.returncode != 0:
            raise HarnessError(f"harness calibrate: exit {p.returncode}: {p.stderr.strip()}")
        with open(path) as f:
            m = json.load(f)
        m["_stdout"] = p.stdout
        return m


def peak_of(m, kind):
    """GFLOP/s or GB/s of the peak a case is judged against."""
    p = m["peaks"]
    if kind == "bytes":
        return p["bytes_per_s"] / 1e9
    if kind == "bf16":
        v = p.get("amx_bf16_flops_per_s") or p.get("bf16_dot_flops_per_s") or 0
        return v / 1e9 if v > 0 else None
    return p["flops_per_s"] / 1e9


def peak_kind(case, isa):
    """The peak a case is judged against, as the harness's own roofline
    chooses it (harness/report/roofline_cpu.c): a bf16 case against a bf16
    unit only where the harness side ran on one (its isa note names amx or
    avx512_bf16); computed in fp32 FMAs (avx2, avx512), against the FMA peak,
    which both sides are then held to."""
    if case["peak"] == "bf16" and not (isa and ("amx" in isa or "avx512_bf16" in isa)):
        return "fp32"
    return case["peak"]


def load_block_config():
    """component.config of configs/transformer_block.yaml (flat key: value)."""
    conf, inside = {}, False
    with open(os.path.join(TOP, "configs", "transformer_block.yaml")) as f:
        for line in f:
            text = line.split("#", 1)[0].rstrip()
            if not text.strip():
                continue
            indent = len(text) - len(text.lstrip())
            if text.strip() == "config:" and indent == 2:
                inside = True
                continue
            if inside and indent <= 2:
                break
            if inside:
                k, v = (t.strip() for t in text.split(":", 1))
                conf[k] = v
    out = {}
    for k, v in conf.items():
        if v in ("true", "false"):
            out[k] = v == "true"
        elif re.fullmatch(r"-?\d+", v):
            out[k] = int(v)
        else:
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = v
    return out


def make_cases(torch, F, quick):
    """Each case: the harness config and sets, the peak kind, the torch
    variants (name -> builder; torch None: not built) and, where the case has
    a PyTorch peer (components/python/torch), its C variant and the torch
    variant the peer reproduces (ab mode)."""
    cases = []

    def tdt(dt):
        return {"fp32": torch.float32, "bf16": torch.bfloat16}[dt]
    for dt, elem in (("fp32", 4), ("bf16", 2)):
        nbytes = 8 * 1024 * 4096 * elem
        cases.append(dict(name=f"copy {nbytes >> 20} MiB (x2 moved)", config="copy.yaml", sets={"bytes": nbytes},
                          unit="GB/s", peak="bytes", est_s=2 * nbytes / 30e9, torch={}))
        cases.append(dict(name=f"rms_norm 8x1024x4096 {dt}", config="rms_norm.yaml", unit="GB/s", peak="bytes",
                          sets=dict(batch_size=8, seq_len=1024, hidden_size=4096, eps=1e-6, dtype=dt),
                          est_s=2 * nbytes / 20e9, family="rms_norm", variant="rms_norm/cpu", peer="F.rms_norm",
                          torch={"F.rms_norm": lambda dt=dt: torch_rms_norm(torch, F, 8, 1024, 4096, 1e-6, tdt(dt))}))
    attn = [(1024, 16, 16, 64, False), (1024, 8, 8, 128, True), (1024, 8, 2, 128, True)]
    if not quick:
        attn += [(2048, 8, 8, 128, False), (2048, 8, 2, 128, True)]
    for dt in ("fp32", "bf16"):
        for s, h, hkv, d, causal in attn:
            fl = 4.0 * h * s * s * d / (2 if causal else 1)
            name = f"attn {dt} 1x{h}x{s}x{d}{f' kv{hkv}' if hkv != h else ''} {'causal' if causal else 'full'}"
            cases.append(dict(name=name, config="attention.yaml", unit="GFLOP/s", peak=dt, est_s=fl / 100e9,
                              sets=dict(batch_size=1, num_heads=h, num_kv_heads=hkv, seq_len=s, kv_seq_len=0,
                                        head_dim=d, causal=str(causal).lower(), dtype=dt, scale=0),
                              family="attention", variant="attention/cpu", peer="bshd",
                              torch={lay: (lambda a=(1, h, hkv, s, d, causal, dt, lay):
                                           torch_attention(torch, F, *a[:6], tdt(a[6]), a[7]))
                                     for lay in ("bhsd", "bshd")}))
    bc = load_block_config()
    tokens = bc["batch_size"] * bc["seq_len"]
    for dt in ("fp32", "bf16"):
        sets = {k: (str(v).lower() if isinstance(v, bool) else v) for k, v in bc.items()}
        sets["dtype"] = dt
        cases.append(dict(name=f"block {dt} {tokens} tok h{bc['hidden_size']} "
                          f"{bc['num_heads']}/{bc['num_kv_heads'] or bc['num_heads']}h i{bc['intermediate_size']}",
                          config="transformer_block.yaml", sets=sets, unit="GFLOP/s", peak=dt, est_s=0.05,
                          family="transformer_block", variant="transformer_block/cpu", peer="block",
                          torch={"block": lambda dt=dt: torch_block(torch, F, bc, tdt(dt))}))
    return cases


def settle():
    """Lets the other side's idle OpenMP threads fall asleep (they spin a while)."""
    time.sleep(0.2)


def mmm(v):
    """median [min, max] of a list."""
    return statistics.median(v), min(v), max(v)


def fmt(v, spec):
    m, lo, hi = mmm(v)
    return f"{m:{spec}} [{lo:{spec}}, {hi:{spec}}]"


def measure_direct(torch, cases, rounds, budget, args):
    """The sides in this process: each round `harness calibrate --quick`,
    then each case's harness run and torch calls, the order rotating.
    (res, calib, status)."""
    outdir = tempfile.mkdtemp(prefix="vs_pytorch.")
    res = {c["name"]: dict(h=[], t={k: [] for k in c["torch"]}, summary=None, valid="off", isa=None)
           for c in cases}
    calib = []
    status = 0
    fns = {}
    try:
        with torch.no_grad():
            for r in range(rounds):
                calib.append(machine_peaks())
                settle()
                for i, c in enumerate(cases):
                    e = res[c["name"]]
                    for k, build in c["torch"].items():
                        fns.setdefault((c["name"], k), build())
                    est = statistics.median(e["h"]) * 1e-9 if e["h"] else c["est_s"]
                    steps = max(5, min(200, int(budget / est)))
                    warm = max(2, min(20, int(0.2 / est)))
                    validate = r == 0 and not args.no_validate

                    def do_harness():
                        s = run_harness(c["config"], c["sets"], outdir, steps, warm, validate)
                        if s["status"] != "ok":
                            raise HarnessError(f"{c['name']}: status {s['status']}: {s.get('error')}")
                        e["summary"] = s
                        e["h"].append(s["timing"]["median"])
                        m = re.search(r"isa: (.*)", s["_log"]) or re.search(r"bf16 path (\S+):", s["_log"])
                        notes = s.get("component_notes") or s.get("notes") or {}
                        e["isa"] = notes.get("isa") or (m.group(1) if m else e["isa"])
                        if validate:
                            e["valid"] = "passed" if s["validation"].get("passed") else "FAILED"

                    def torch_side(k):
                        def go():
                            e["t"][k].append(time_torch(fns[(c["name"], k)], budget, 0.05 if args.quick else 0.2))
                        return go

                    sides = [do_harness] + [torch_side(k) for k in c["torch"]]
                    shift = (r + i) % len(sides)
                    for fn in sides[shift:] + sides[:shift]:
                        fn()
                        settle()
                    if e["valid"] == "FAILED":
                        status = 1
                print(f"  round {r + 1}/{rounds} done", file=sys.stderr, flush=True)
    except HarnessError as err:
        print(f"vs_pytorch.py: {err}", file=sys.stderr)
        status = 3
    finally:
        shutil.rmtree(outdir, ignore_errors=True)
    return res, calib, status


def measure_ab(cases, budget, args, venv_python):
    """The sides as `harness ab` rounds (vs_pytorch_ab.py), calibrated before
    and after. (res, calib, status): res as measure_direct's, the peer's times
    under its torch variant's name, plus ab's verdict per case."""
    def steps_of(c):
        return max(5, min(200, int(budget / c["est_s"]))), max(2, min(20, int(0.2 / c["est_s"])))
    calib = [machine_peaks()]
    try:
        got, code = vs_pytorch_ab.run(cases, steps_of, not args.no_validate, venv_python, args.rounds)
    except RuntimeError as err:
        print(f"vs_pytorch.py: {err}", file=sys.stderr)
        return {}, calib, 3
    calib.append(machine_peaks())
    res = {}
    for c in cases:
        e = got[c["name"]]
        e["t"] = {c["peer"]: e["t"]}
        res[c["name"]] = e
    status = 1 if any(e["valid"] == "FAILED" for e in res.values()) else 0
    return res, calib, status


def print_report(cases, res, calib, rounds_line, args, extra_json):
    """The peaks, the table, the notes below it; --json. Returns nothing."""
    ident = calib[0]["identity"]
    peaks = {k: [peak_of(m, k) for m in calib] for k in ("fp32", "bf16", "bytes")}
    print()
    print(f"machine: {ident['cpu_model']}, {ident['logical_cpus']} logical CPUs, {ident['threads']} threads")
    print(f"peaks (harness calibrate --quick, {rounds_line}): median [min, max]; 'of peak' below uses the\n"
          "  highest of them (other load only lowers a peak measurement, never raises it)")
    print(f"  fp32 FMA       {fmt(peaks['fp32'], '7.1f')} GFLOP/s ({calib[0]['peaks'].get('flops_isa', '?')})")
    for line in calib[0]["_stdout"].splitlines():
        if line.startswith(("bf16 dot", "AMX")) and "not measured" in line:
            print(f"  {line}")
    dot = [m["peaks"].get("bf16_dot_flops_per_s", 0) / 1e9 for m in calib]
    amx = [m["peaks"].get("amx_bf16_flops_per_s", 0) / 1e9 for m in calib]
    if max(dot) > 0:
        print(f"  bf16 dot       {fmt(dot, '7.1f')} GFLOP/s (AVX-512 BF16 vdpbf16ps)")
    if max(amx) > 0:
        print(f"  AMX bf16       {fmt(amx, '7.1f')} GFLOP/s (tdpbf16ps)")
    print(f"  copy           {fmt(peaks['bytes'], '7.1f')} GB/s (bytes read + written)")

    print()
    print("| case | side | ms median [min, max] | rate (GFLOP/s or GB/s) | of peak | torch / harness time "
          "median [min, max] |")
    print("| --- | --- | --- | --- | --- | --- |")
    report = []
    above_peak = []
    for c in cases:
        e = res.get(c["name"])
        if not e or not e["h"] or not e["summary"]:
            continue
        s = e["summary"]["throughput"]
        work = s["bytes_per_step"] if c["unit"] == "GB/s" else s["flops_per_step"]
        kind = peak_kind(c, e["isa"])
        best = max((p for p in peaks[kind] if p), default=None)

        def frac(times):
            f = [work / t / best for t in times] if best else []
            if not f:
                return "-"
            above = " ABOVE PEAK" if max(f) > 1 else ""
            if above:
                above_peak.append(c["name"])
            return f"{statistics.median(f):.0%} [{min(f):.0%}, {max(f):.0%}]{above}"
        rep = dict(name=c["name"], unit=c["unit"], peak=kind, harness_ns=e["h"], validation=e["valid"],
                   isa=e["isa"], work_per_step=work, torch={})
        isa = f" ({e['isa']})" if e["isa"] else ""
        print(f"| {c['name']} | harness{isa} | {fmt([x / 1e6 for x in e['h']], '.3f')} | "
              f"{work / statistics.median(e['h']):.1f} | {frac(e['h'])} | valid: {e['valid']} |")
        for k, ts in e["t"].items():
            if not ts:
                continue
            ratios = [t / h for h, t in zip(e["h"], ts)]
            rep["torch"][k] = dict(ns=ts, ratio=ratios)
            label = {"bhsd": "torch SDPA [B,H,S,D]", "bshd": "torch SDPA on [B,S,H,D] views",
                     "block": "torch F.rms_norm, F.linear, SDPA, F.silu"}.get(k, f"torch {k}")
            if "verdict" in e:
                label += " (peer, under ab)"
            print(f"| | {label} | {fmt([x / 1e6 for x in ts], '.3f')} | {work / statistics.median(ts):.1f} | "
                  f"{frac(ts)} | {fmt(ratios, '.2f')} |")
        if "verdict" in e:
            rep["ab"] = {k: e[k] for k in ("verdict", "ratio", "interval", "coverage")}
        report.append(rep)
    print()
    print("Rates count the harness's declared work per step (FLOPs; bytes for copy and rms_norm) for both\n"
          "sides, at the median time. 'of peak': each round's rate over the highest calibrated peak of the\n"
          "run for the unit the harness side ran on (fp32 FMA; for bf16, AMX or the AVX-512 BF16 dot where\n"
          "its isa names one, else the FMA peak: bf16 computed in fp32; copy for rms_norm). torch / harness: the two sides' times in the same round, > 1: the harness is\n"
          "faster. Every figure is the median over rounds with the rounds' [min, max].")
    ab = [(c["name"], res[c["name"]]) for c in cases if "verdict" in res.get(c["name"], {})]
    if ab:
        print("harness ab (candidate: the peer; its verdict is the peer's against the harness, so\n"
              "REGRESSION means torch is slower): torch / harness ratio of medians, its sign-test interval")
        for name, e in ab:
            lo, hi = e["interval"] or (None, None)
            span = f" [{lo:.2f}, {hi:.2f}] ({e['coverage']:.1%})" if lo is not None else ""
            print(f"  {name}: {e['ratio']:.2f}{span}, {e['verdict']}" if e["ratio"] else f"  {name}: {e['verdict']}")
    if above_peak:
        print(f"ABOVE PEAK ({', '.join(sorted(set(above_peak)))}): a round measured more than any calibrate of\n"
              "the run, which no kernel can: the peak was measured low (other load during calibrate), the\n"
              "machine's bandwidth or clock moved between the two, or the work fits a cache the peak's\n"
              "buffers do not. Read that round's figures as unreliable, not as fast.")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(machine=ident, threads=THREADS, peaks=peaks, bf16_dot=dot, amx_bf16=amx, cases=report,
                           **extra_json), f, indent=1)


def main():
    ap = argparse.ArgumentParser(description="harness kernels vs PyTorch (what a user calls) and vs the peaks")
    ap.add_argument("--mode", choices=("auto", "ab", "direct"), default="auto",
                    help="ab: harness ab rounds against the PyTorch peers (needs the python component); direct: "
                         "torch called in this process; auto (default): ab where it can run")
    ap.add_argument("--make-venv", metavar="DIR", help="create DIR with the newest torch from PyPI and use it")
    ap.add_argument("--venv", metavar="DIR", help="use DIR/bin/python (a venv with torch; default: .venv-torch "
                    "of the tree where it exists)")
    ap.add_argument("--quick", action="store_true", help="1 round, fewer shapes, ~0.3 s per measurement")
    ap.add_argument("--rounds", type=int, help="rounds (direct: default 5, the order of the sides rotates; ab: "
                    "its own default, the fewest that can call a change among the cases)")
    ap.add_argument("--no-validate", action="store_true", help="skip the validation (direct: of round 1; ab: of "
                    "every run)")
    ap.add_argument("--only", help="only the cases whose name contains this (the peaks always run)")
    ap.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    args = ap.parse_args()
    venv = args.make_venv or args.venv or (os.path.join(TOP, ".venv-torch") if os.path.isdir(
        os.path.join(TOP, ".venv-torch")) else None)
    venv_python = os.path.join(os.path.abspath(venv), "bin", "python") if venv else ""
    if args.make_venv:
        make_venv(os.path.abspath(args.make_venv))
    if not os.access(HARNESS, os.X_OK):
        die(f"{HARNESS} is missing: build first (make -j2)", 2)
    if args.mode == "direct" or os.environ.get("VS_PYTORCH_REEXEC"):   # the re-run under the venv: direct
        why = "--mode direct"
    else:
        why = vs_pytorch_ab.unavailable(venv_python)
    if args.mode == "ab" and why:
        die(f"--mode ab: {why}", 2)
    if why and args.mode == "auto":
        print(f"vs_pytorch.py: direct mode: {why}", file=sys.stderr)
    if why and venv_python:
        reexec_in(venv_python)
    rounds = args.rounds or (1 if args.quick else 5)
    budget = 0.3 if args.quick else 1.0
    if rounds < 1:
        die("--rounds must be at least 1", 2)
    torch = F = None
    if why:
        try:
            import torch
            import torch.nn.functional as F
        except ImportError as e:
            die(f"cannot import torch with {sys.executable} ({e}); try --make-venv DIR", 2)
        if not hasattr(F, "rms_norm"):
            die(f"torch {torch.__version__} has no F.rms_norm (2.4+); try --make-venv DIR", 2)
        torch.set_num_threads(THREADS)
    os.environ.setdefault("OMP_NUM_THREADS", str(THREADS))
    cases = make_cases(torch, F, args.quick)
    if args.only:
        cases = [c for c in cases if args.only in c["name"] or c["name"].startswith("copy")]
    if not why:
        cases = [c for c in cases if "peer" in c]

    commit = subprocess.run(["git", "-C", TOP, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "?"
    print("harness vs PyTorch (what a user calls), and vs this machine's calibrated peaks")
    print(f"  date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}, "
          f"HARNESS_CPU_ISA={os.environ.get('HARNESS_CPU_ISA', '(unset)')}")
    if why:
        cap = torch.backends.cpu.get_cpu_capability() if hasattr(torch.backends, "cpu") else "?"
        print(f"  direct: PyTorch {torch.__version__} ({sys.executable}), {torch.get_num_threads()} threads, CPU "
              f"capability {cap}, mkldnn bf16 {getattr(torch.backends.mkldnn, 'is_available', lambda: '?')()}")
        print(f"  rounds {rounds}, ~{budget:g} s per measurement, the sides' order rotating per round")
    else:
        print(f"  ab: the PyTorch peers (components/python/torch) under the python component, {venv_python}; "
              f"~{budget:g} s per run, rounds {args.rounds or 'ab default'}")
    sys.stdout.flush()
    if why:
        res, calib, status = measure_direct(torch, cases, rounds, budget, args)
        line, extra = "every round", dict(torch=torch.__version__, rounds=rounds, mode="direct")
    else:
        res, calib, status = measure_ab(cases, budget, args, venv_python)
        line, extra = "before and after the rounds", dict(mode="ab")
    if not calib or not res:
        return status or 3
    print_report(cases, res, calib, line, args, dict(commit=commit, **extra))
    return status


if __name__ == "__main__":
    sys.exit(main())
