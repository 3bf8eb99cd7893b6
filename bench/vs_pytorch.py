#!/usr/bin/python3
"""vs_pytorch.py - the harness's CPU kernels against the same computation in
PyTorch, and against this machine's limits, measured in one session.

    /usr/bin/python3 bench/vs_pytorch.py [--quick] [--rounds N] [--json FILE]

Run it from anywhere in a built tree (`make -j2 && make bench`): it runs
harness/harness and bench/attention_vs_sgemm of the tree it sits in. It needs
PyTorch (Debian's python3-torch, which only /usr/bin/python3 imports).

What it measures, per round (rounds alternate which side goes first, so that
drifting machine load hits both alike):
  - the limits: this machine's fp32 FMA peak and copy bandwidth from
    `harness calibrate --quick` (into a temporary file, every round); for
    reference, OpenBLAS sgemm 2048^3 (bench/attention_vs_sgemm's sgemm line,
    the same library the harness links) and torch.mm 2048^3 in fp32 (also a
    BLAS: Debian's torch calls libblas.so.3, i.e. OpenBLAS too), and the copy
    bandwidth through the harness's copy/cpu at the size of each RMSNorm tensor;
  - RMSNorm 8 x 1024 x 4096, fp32 and bf16;
  - attention, batch 1, 8 heads, S = 512, 1024, 2048, D = 64, 128, causal and
    not, fp32, layouts [batch][seq][heads][head_dim] as the harness's;
  - the Llama block of configs/transformer_block.yaml, fp32.
Each side: a warm-up, then timed calls one at a time, the median. The harness
validates each shape in the first round only. PyTorch's rate is computed from
the HARNESS's declared bytes / FLOPs per step, so both rates count the same
work. Fractions ("of limit") are of the calibrated peaks: GB/s of the copy
peak, GFLOP/s of the FMA peak. Every child process inherits this process's environment, so the sgemm
reference runs under the same OPENBLAS_CORETYPE (and OMP settings) as the
kernels.

The figures are not tests: targets missed are flagged, not failed. Exit status:
0 done, 1 a harness validation mismatch, 2 usage (or PyTorch / the build
missing), 3 a harness run or the sgemm bench failed.
"""

import argparse
import ctypes
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

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARNESS = os.path.join(TOP, "harness", "harness")
SGEMM_BENCH = os.path.join(TOP, "bench", "attention_vs_sgemm")
THREADS = 2

# Targets (issue 4): fractions of the machine's measured peaks (harness calibrate).
RMS_OF_PEAK_BW = 0.80
ATTN_OF_PEAK_FLOPS = 0.50      # for seq_len >= 1024
BLOCK_OF_PEAK_FLOPS = 0.60
NOISY = 0.25                   # rounds this far apart get a '*'

OK, NO = "\u2713", "\u2717"


def die(msg, code):
    print(f"vs_pytorch.py: {msg}", file=sys.stderr)
    sys.exit(code)


try:
    import torch
    import torch.nn.functional as F
except ImportError as e:      # pragma: no cover - depends on the machine
    die(f"cannot import PyTorch with {sys.executable} ({e}).\n"
        "  Install Debian's package:  apt-get install python3-torch\n"
        "  and run this script with /usr/bin/python3 (a pyenv or venv python does not see it).", 2)


# ---- the PyTorch side --------------------------------------------------------
#
# Basic ops only (torch 1.13 has no fused SDPA), inside torch.no_grad(), fp32
# math, outputs written into preallocated buffers where the op allows it (the
# harness's kernels write into buffers allocated at create time too; a fresh
# 128 MiB tensor per op costs PyTorch ~3x in page faults at the RMSNorm size).


def torch_copy(nbytes):
    src = torch.randn(nbytes // 4)
    dst = torch.empty_like(src)
    return lambda: dst.copy_(src)


def torch_rms_norm(batch, seq, hidden, eps, dtype):
    x = torch.randn(batch, seq, hidden).to(dtype)
    w = (1.0 + 0.1 * torch.randn(hidden)).to(dtype)
    y = torch.empty_like(x)
    if dtype == torch.float32:
        def step():
            # ||x|| in one read pass (no x^2 temporary), then y = x * r * w.
            r = torch.linalg.vector_norm(x, dim=-1, keepdim=True)
            r = torch.rsqrt(r.square_().div_(hidden).add_(eps))
            torch.mul(x, r, out=y)
            y.mul_(w)
        return step
    # bf16 storage, fp32 math, rounded once at the end (as the harness does):
    # mixed bf16 x fp32 ops take a slow path in torch 1.13 (~6x slower), so
    # convert into an fp32 scratch, work there in place, convert back.
    xf = torch.empty(x.shape, dtype=torch.float32)
    wf = w.float()

    def step():
        xf.copy_(x)
        r = torch.linalg.vector_norm(xf, dim=-1, keepdim=True)
        r = torch.rsqrt(r.square_().div_(hidden).add_(eps))
        xf.mul_(r).mul_(wf)
        y.copy_(xf)
    return step


def causal_mask(sq, sk):
    """Additive mask, bottom-right aligned: query i sees key j <= i + sk - sq."""
    return torch.full((sq, sk), float("-inf")).triu_(1 + sk - sq)


def sdpa(q, k, v, scale, mask):
    """q [B, H, Sq, D], k/v [B, H, Sk, D] (views are fine) -> [B, H, Sq, D]."""
    b, h, sq, d = q.shape
    sk = k.shape[2]
    q3, k3, v3 = q.reshape(b * h, sq, d), k.reshape(b * h, sk, d), v.reshape(b * h, sk, d)
    if mask is not None:
        s = torch.baddbmm(mask, q3, k3.transpose(1, 2), alpha=scale)   # mask + scale * Q K^T
    else:
        s = torch.bmm(q3, k3.transpose(1, 2)).mul_(scale)
    p = torch.softmax(s, dim=-1)
    return torch.bmm(p, v3).view(b, h, sq, d)


def torch_attention(batch, heads, seq, head_dim, causal):
    # The harness's layouts: q, k, v, o [batch][seq][heads][head_dim].
    q, k, v = (torch.randn(batch, seq, heads, head_dim) for _ in range(3))
    o = torch.empty_like(q)
    scale = 1.0 / math.sqrt(head_dim)
    mask = causal_mask(seq, seq) if causal else None
    ot = o.transpose(1, 2)                  # o viewed as [B, H, S, D]

    def step():
        ot.copy_(sdpa(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), scale, mask))
    return step


def torch_block(c):
    """The Llama block of components/transformer_block/transformer_block.h:
    weights [out][in] (nn.Linear's layout), rotate-half RoPE, GQA by repeating
    kv heads, SwiGLU; data scaled as components/transformer_block/transformer_block_cpu_adapter.c does."""
    b, s, hid = c["batch_size"], c["seq_len"], c["hidden_size"]
    nh = c["num_heads"]
    nkv = c["num_kv_heads"] or nh
    inter, theta, eps, causal = c["intermediate_size"], c["rope_theta"], c["eps"], c["causal"]
    d = hid // nh
    rep = nh // nkv

    def weight(out_f, in_f):
        return torch.randn(out_f, in_f) / math.sqrt(in_f)
    x = torch.randn(b, s, hid)
    wq, wk, wv, wo = weight(nh * d, hid), weight(nkv * d, hid), weight(nkv * d, hid), weight(hid, nh * d)
    wg, wu, wd = weight(inter, hid), weight(inter, hid), weight(hid, inter)
    attn_norm, mlp_norm = 1 + 0.1 * torch.randn(hid), 1 + 0.1 * torch.randn(hid)
    # RoPE table at setup, angles in double: p * theta^(-2i/D), i < D/2.
    inv_freq = theta ** (-torch.arange(0, d // 2, dtype=torch.float64) * 2.0 / d)
    ang = torch.outer(torch.arange(s, dtype=torch.float64), inv_freq)
    cos = torch.cat((ang.cos(), ang.cos()), dim=-1).float()    # [S, D]
    sin = torch.cat((ang.sin(), ang.sin()), dim=-1).float()
    mask = causal_mask(s, s) if causal else None
    scale = 1.0 / math.sqrt(d)

    def rms(t, w):
        return t * torch.rsqrt(t.square().mean(-1, keepdim=True) + eps) * w

    def rope(t):                            # [B, heads, S, D]
        rot = torch.cat((-t[..., d // 2:], t[..., : d // 2]), dim=-1)
        return t * cos + rot * sin

    def repeat_kv(t):                       # [B, nkv, S, D] -> [B, nh, S, D]; head h reads kv h / rep
        if rep == 1:
            return t
        return t[:, :, None].expand(b, nkv, rep, s, d).reshape(b, nh, s, d)

    def step():
        n = rms(x, attn_norm)
        q = rope(F.linear(n, wq).view(b, s, nh, d).transpose(1, 2))
        k = rope(F.linear(n, wk).view(b, s, nkv, d).transpose(1, 2))
        v = F.linear(n, wv).view(b, s, nkv, d).transpose(1, 2)
        a = sdpa(q, repeat_kv(k), repeat_kv(v), scale, mask).transpose(1, 2).reshape(b, s, hid)
        h = x + F.linear(a, wo)
        m = rms(h, mlp_norm)
        return h + F.linear(F.silu(F.linear(m, wg)) * F.linear(m, wu), wd)
    return step


def time_torch(fn, budget_s, min_warm_s):
    """Warm up (>= 2 calls and >= min_warm_s), then N calls timed one at a
    time, N from the warm-up's pace; returns (median ns, N)."""
    t0 = time.perf_counter_ns()
    calls = 0
    last = 0
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
    return statistics.median(ts), n


# ---- the harness side --------------------------------------------------------

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
    p = subprocess.run(cmd, cwd=TOP, capture_output=True, text=True)   # inherits os.environ
    lines = p.stdout.strip().splitlines()
    summary = os.path.join(lines[-1], "summary_ranks_1_rank_0.json") if lines else ""
    if p.returncode not in (0, 1) or not os.path.exists(summary):
        raise HarnessError(f"{' '.join(cmd)}\n  exit {p.returncode}: {p.stderr.strip()}")
    with open(summary) as f:
        s = json.load(f)
    shutil.rmtree(lines[-1], ignore_errors=True)
    return s


# ---- the limits ----------------------------------------------------------------

def machine_peaks():
    """This machine's identity and peaks from `harness calibrate --quick` (one round)."""
    with tempfile.TemporaryDirectory(prefix="vs_pytorch.calib.") as d:
        path = os.path.join(d, "machine.json")
        p = subprocess.run([HARNESS, "calibrate", "--quick", "--output", path], capture_output=True, text=True)
        if p.returncode != 0:
            raise HarnessError(f"harness calibrate: exit {p.returncode}: {p.stderr.strip()}")
        with open(path) as f:
            return json.load(f)


def sgemm_bench():
    """GFLOP/s of OpenBLAS sgemm 2048^3 from bench/attention_vs_sgemm (one round)."""
    p = subprocess.run([SGEMM_BENCH, "1"], cwd=TOP, capture_output=True, text=True)
    m = re.search(r"sgemm 2048 x 2048 x 2048\s+([0-9.]+) GFLOP/s", p.stdout)
    if p.returncode != 0 or not m:
        raise HarnessError(f"{SGEMM_BENCH} 1: exit {p.returncode}: {p.stderr.strip() or p.stdout.strip()}")
    return float(m.group(1))


def torch_mm_gflops(a, b, c, calls=5):
    torch.mm(a, b, out=c)
    ts = []
    for _ in range(calls):
        t = time.perf_counter_ns()
        torch.mm(a, b, out=c)
        ts.append(time.perf_counter_ns() - t)
    return 2.0 * 2048 ** 3 / statistics.median(ts)


def openblas_corename():
    for name in ("libopenblas.so.0", "libopenblasp.so.0"):
        try:
            lib = ctypes.CDLL(name)
            lib.openblas_get_corename.restype = ctypes.c_char_p
            return lib.openblas_get_corename().decode()
        except (OSError, AttributeError):
            continue
    return "unknown (libopenblas.so.0 not found)"


def cpu_capability():
    get = getattr(getattr(torch.backends, "cpu", None), "get_cpu_capability", None)
    if get:
        return get()
    m = re.search(r"CPU capability usage: (\S+)", torch.__config__.show())
    return m.group(1) if m else "?"


class OtherLoad:
    """CPU time the rest of the machine used while we ran: busy time from
    /proc/stat less this process's and its children's. None where there is
    no /proc/stat."""

    def __init__(self):
        self.t0, self.busy0, self.own0 = time.monotonic(), self.busy(), self.own()

    @staticmethod
    def busy():
        try:
            with open("/proc/stat") as f:
                v = [int(x) for x in f.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        # user nice system idle iowait irq softirq steal: all but idle and iowait
        return (sum(v[:8]) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def own():
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system

    def stop(self):
        wall, busy = time.monotonic() - self.t0, self.busy()
        if busy is None or self.busy0 is None:
            return wall, None
        return wall, max(0.0, (busy - self.busy0) - (self.own() - self.own0))


def settle():
    """Lets OpenBLAS's and OpenMP's idle threads fall asleep before the other
    side starts (they spin for a while after their work)."""
    time.sleep(0.2)


# ---- cases ----------------------------------------------------------------------

def load_block_config():
    """component.config of configs/transformer_block.yaml (flat `key: value`
    lines; no YAML module needed)."""
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


def make_cases():
    cases = []
    rms = dict(batch_size=8, seq_len=1024, hidden_size=4096, eps=1e-6)
    for dt, tdt, elem in (("fp32", torch.float32, 4), ("bf16", torch.bfloat16, 2)):
        nbytes = 8 * 1024 * 4096 * elem
        cases.append(dict(kind="copy", name=f"copy {nbytes >> 20} MiB", config="copy.yaml",
                          sets={"bytes": nbytes}, unit="GB/s", est_s=2 * nbytes / 30e9,
                          torch=lambda n=nbytes: torch_copy(n)))
        cases.append(dict(kind="rms", name=f"rms_norm 8x1024x4096 {dt}", config="rms_norm.yaml",
                          sets=dict(rms, dtype=dt), unit="GB/s", est_s=2 * nbytes / 20e9, copy=f"copy {nbytes >> 20} MiB",
                          torch=lambda t=tdt: torch_rms_norm(8, 1024, 4096, 1e-6, t)))
    for s in (512, 1024, 2048):
        for d in (64, 128):
            for causal in (False, True):
                fl = 4.0 * 8 * s * s * d / (2 if causal else 1)
                cases.append(dict(kind="attn", name=f"attention S={s} D={d} {'causal' if causal else 'full'}",
                                  config="attention.yaml", seq=s,
                                  sets=dict(batch_size=1, num_heads=8, num_kv_heads=0, seq_len=s, kv_seq_len=0,
                                            head_dim=d, causal=str(causal).lower(), dtype="fp32", scale=0),
                                  unit="GFLOP/s", est_s=fl / 100e9,
                                  torch=lambda s=s, d=d, c=causal: torch_attention(1, 8, s, d, c)))
    bc = load_block_config()
    bc["dtype"] = "fp32"
    tokens = bc["batch_size"] * bc["seq_len"]
    cases.append(dict(kind="block", name=f"block {tokens} tok h{bc['hidden_size']} "
                      f"{bc['num_heads']}/{bc['num_kv_heads'] or bc['num_heads']}h i{bc['intermediate_size']}",
                      config="transformer_block.yaml",
                      sets={k: (str(v).lower() if isinstance(v, bool) else v) for k, v in bc.items()},
                      unit="GFLOP/s", est_s=0.05, torch=lambda c=bc: torch_block(c)))
    return cases


def rate(case, summary, ns):
    """The case's rate at a step time of ns, from the harness's declared cost."""
    t = summary["throughput"]
    work = t["bytes_per_step"] if case["unit"] == "GB/s" else t["flops_per_step"]
    return work / ns          # bytes/ns = GB/s, flop/ns = GFLOP/s


# ---- main -------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description="harness kernels vs PyTorch and vs the machine's limits")
    ap.add_argument("--quick", action="store_true", help="1 round, ~0.3 s per measurement (default: 5 rounds, ~1 s)")
    ap.add_argument("--rounds", type=int, help="rounds (alternating harness / PyTorch order)")
    ap.add_argument("--no-validate", action="store_true", help="skip the harness's validation in the first round")
    ap.add_argument("--only", help="run only the cases whose name contains this (the limits always run)")
    ap.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    args = ap.parse_args()
    rounds = args.rounds or (1 if args.quick else 5)
    budget = 0.3 if args.quick else 1.0
    if rounds < 1:
        die("--rounds must be at least 1", 2)
    if not os.access(HARNESS, os.X_OK):
        die(f"{HARNESS} is missing: build first (make -j2 && make bench)", 2)
    have_bench = os.access(SGEMM_BENCH, os.X_OK)

    torch.set_num_threads(THREADS)
    cases = make_cases()
    if args.only:
        keep = [c for c in cases if args.only in c["name"]]
        names = {c.get("copy") for c in keep}      # an RMSNorm row needs its copy row
        cases = [c for c in cases if c in keep or c["name"] in names]
        if not cases:
            die(f"--only {args.only!r} matches no case", 2)

    coretype = os.environ.get("OPENBLAS_CORETYPE")
    print("harness vs PyTorch, and vs this machine's limits")
    print(f"  OPENBLAS_CORETYPE   {coretype if coretype is not None else '(unset)'}  -> OpenBLAS runs "
          f"{openblas_corename()} kernels (in this process; the harness and sgemm bench inherit the same env)")
    print(f"  PyTorch             {torch.__version__}, {torch.get_num_threads()} threads, "
          f"ATen CPU capability {cpu_capability()}")
    print(f"  rounds              {rounds}, ~{budget:g} s per measurement, harness / PyTorch order "
          f"alternating")
    sys.stdout.flush()

    load = OtherLoad()
    outdir = tempfile.mkdtemp(prefix="vs_pytorch.")
    res = {c["name"]: dict(h=[], t=[], hn=[], tn=[], summary=None, valid="off") for c in cases}
    sg_bench, sg_torch, calib = [], [], []
    status = 0
    a = torch.randn(2048, 2048)
    bm = torch.randn(2048, 2048)
    cm = torch.empty(2048, 2048)
    fns = {}
    try:
        with torch.no_grad():
            for r in range(rounds):
                # the limits first, each round
                calib.append(machine_peaks())
                settle()
                if have_bench:
                    sg_bench.append(sgemm_bench())
                settle()
                sg_torch.append(torch_mm_gflops(a, bm, cm))
                settle()
                for i, c in enumerate(cases):
                    e = res[c["name"]]
                    if c["name"] not in fns:
                        fns[c["name"]] = c["torch"]()
                    est = statistics.median(e["h"]) * 1e-9 if e["h"] else c["est_s"]
                    steps = max(5, min(200, int(budget / est)))
                    warm = max(2, min(20, int(0.2 / est)))
                    validate = r == 0 and not args.no_validate

                    def do_harness():
                        s = run_harness(c["config"], c["sets"], outdir, steps, warm, validate)
                        if s["status"] not in ("ok",):
                            raise HarnessError(f"{c['name']}: status {s['status']}: {s.get('error')}")
                        e["summary"] = s
                        e["h"].append(s["timing"]["median"])
                        e["hn"].append(s["timing"]["n"])
                        if validate:
                            v = s["validation"]
                            e["valid"] = "passed" if v.get("passed") else "FAILED"

                    def do_torch():
                        ns, n = time_torch(fns[c["name"]], budget, 0.05 if args.quick else 0.2)
                        e["t"].append(ns)
                        e["tn"].append(n)

                    order = (do_harness, do_torch) if (r + i) % 2 == 0 else (do_torch, do_harness)
                    for fn in order:
                        fn()
                        settle()
                    if e["valid"] == "FAILED":
                        status = 1
                print(f"  round {r + 1}/{rounds} done", file=sys.stderr, flush=True)
    except HarnessError as err:
        print(f"vs_pytorch.py: {err}", file=sys.stderr)
        status = 3
        if not any(res[c["name"]]["h"] for c in cases):
            sys.exit(3)
    finally:
        shutil.rmtree(outdir, ignore_errors=True)

    # ---- report
    sgemm = statistics.median(sg_bench) if sg_bench else None
    sgemm_t = statistics.median(sg_torch)
    wall, others = load.stop()
    if not calib:
        sys.exit(status or 3)
    # Per round, in the rates' units: flop/ns = GFLOP/s, bytes/ns = GB/s.
    fma_rounds = [m["peaks"]["flops_per_s"] / 1e9 for m in calib]
    bw_rounds = [m["peaks"]["bytes_per_s"] / 1e9 for m in calib]
    fma, bw = statistics.median(fma_rounds), statistics.median(bw_rounds)
    ident = calib[0]["identity"]
    print()
    print(f"machine: {ident['cpu_model']}, {ident['logical_cpus']} logical CPUs, {ident['threads']} threads "
          f"(harness calibrate --quick, every round)")
    print("limits (medians over rounds)")
    print(f"  fp32 FMA peak ({calib[0]['peaks'].get('flops_isa', '?')})                        {fma:7.1f} GFLOP/s   "
          f"(rounds: {', '.join(f'{x:.0f}' for x in fma_rounds)})")
    print(f"  copy peak (bytes read + written)                  {bw:7.1f} GB/s      "
          f"(rounds: {', '.join(f'{x:.0f}' for x in bw_rounds)})")
    if sgemm is not None:
        print(f"  OpenBLAS sgemm 2048^3 (bench/attention_vs_sgemm)  {sgemm:7.1f} GFLOP/s   "
              f"= {sgemm / fma:.0%} of the FMA peak (rounds: {', '.join(f'{x:.0f}' for x in sg_bench)})")
    else:
        print(f"  OpenBLAS sgemm: {SGEMM_BENCH} missing (make bench)")
    print(f"  torch.mm 2048^3 fp32                              {sgemm_t:7.1f} GFLOP/s   "
          f"= {sgemm_t / fma:.0%} of the FMA peak (rounds: {', '.join(f'{x:.0f}' for x in sg_torch)})")
    copy_rates = {}                 # per round, GB/s
    for c in cases:
        e = res[c["name"]]
        if c["kind"] == "copy" and e["h"]:
            copy_rates[c["name"]] = [rate(c, e["summary"], x) for x in e["h"]]
            g = rate(c, e["summary"], statistics.median(e["h"]))
            print(f"  harness copy/cpu, {c['name'][5:]:>8} (2 x bytes moved)       {g:7.1f} GB/s      "
                  f"= {g / bw:.0%} of the copy peak (rounds: {', '.join(f'{x:.0f}' for x in copy_rates[c['name']])})")
    if others is not None:
        print(f"  other load on the machine during the run: {others:.0f} core-seconds in {wall:.0f} s "
              f"({others / (wall * THREADS):.0%} of the {THREADS} cores)")

    hdr = (f"{'kernel':<32} {'harness':>10} {'torch':>10} {'torch/':>7} {'harness':>9} {'torch':>9} "
           f"{'harness':>8} {'torch':>7} {'target':>7} {'faster':>6} {'valid':>6}")
    hdr2 = (f"{'':<32} {'ms':>10} {'ms':>10} {'harness':>7} {'rate':>9} {'rate':>9} "
            f"{'of limit':>8} {'of lim':>7} {'':>7} {'':>6} {'':>6}")
    print()
    print(hdr)
    print(hdr2)
    print("-" * len(hdr))
    report = []
    noisy = False
    for c in cases:
        e = res[c["name"]]
        if not e["h"] or not e["t"]:
            continue
        hm, tm = statistics.median(e["h"]), statistics.median(e["t"])
        hr, tr = rate(c, e["summary"], hm), rate(c, e["summary"], tm)
        # Paired: each round's ratio of two neighbouring measurements, then
        # the median over rounds, so a noisy round moves both sides alike.
        ratio = statistics.median(t / h for h, t in zip(e["h"], e["t"]))
        lim_rounds = target = None
        # Each round against the same round's calibrated peak.
        if c["kind"] == "copy":
            lim_rounds = bw_rounds
        elif c["kind"] == "rms":
            lim_rounds, target = bw_rounds, RMS_OF_PEAK_BW
        elif c["kind"] == "attn":
            lim_rounds, target = fma_rounds, (ATTN_OF_PEAK_FLOPS if c["seq"] >= 1024 else None)
        elif c["kind"] == "block":
            lim_rounds, target = fma_rounds, BLOCK_OF_PEAK_FLOPS
        frac = tfrac = None
        if lim_rounds:
            frac = statistics.median(rate(c, e["summary"], h) / l for h, l in zip(e["h"], lim_rounds))
            tfrac = statistics.median(rate(c, e["summary"], t) / l for t, l in zip(e["t"], lim_rounds))
        spread = max((max(v) - min(v)) / statistics.median(v) for v in (e["h"], e["t"]))
        mark = "*" if spread > NOISY else " "
        noisy |= spread > NOISY
        flag = "-" if target is None or frac is None else (f"{OK} {target:.0%}" if frac >= target else f"{NO} {target:.0%}")
        faster = "-" if c["kind"] == "copy" else (OK if ratio > 1 else NO)
        report.append(dict(name=c["name"], kind=c["kind"], unit=c["unit"], harness_ns=hm, torch_ns=tm,
                           harness_rounds_ns=e["h"], torch_rounds_ns=e["t"], harness_steps=e["hn"],
                           torch_calls=e["tn"], ratio=ratio, harness_rate=hr, torch_rate=tr,
                           validation=e["valid"], bytes_per_step=e["summary"]["throughput"]["bytes_per_step"],
                           flops_per_step=e["summary"]["throughput"]["flops_per_step"],
                           fraction_of_limit=frac, torch_fraction_of_limit=tfrac, target=target,
                           target_met=None if flag == "-" else frac >= target,
                           faster_than_torch=None if c["kind"] == "copy" else ratio > 1, round_spread=spread))
        fr = f"{frac:8.1%}" if frac is not None else f"{'':>8}"
        tf = f"{tfrac:7.1%}" if tfrac is not None else f"{'':>7}"
        print(f"{c['name']:<31}{mark} {hm / 1e6:10.3f} {tm / 1e6:10.3f} {ratio:7.2f} {hr:9.1f} {tr:9.1f} "
              f"{fr} {tf} {flag:>7} {faster:>6} {e['valid']:>6}")
    print("-" * len(hdr))
    print("ms: median over rounds of each round's median. Rates: GB/s for copy and rms_norm, GFLOP/s for\n"
          "attention and the block, both sides from the harness's bytes/FLOPs per step. torch/harness and\n"
          "'of limit' are paired per round (each against the same round's torch, calibrated copy peak or\n"
          "fp32 FMA peak), then the median over rounds. torch/harness > 1: the harness is faster.\n"
          "Targets: rms_norm >= 80% of the copy peak, attention >= 50% of the FMA peak for S >= 1024, the\n"
          "block >= 60% of the FMA peak, each faster than PyTorch.")
    if noisy:
        print(f"* its rounds disagree by more than {NOISY:.0%} (max - min over the median) on one side: the\n"
              "  machine drifted (the 'other load' above counts this VM only, not contention from outside it);\n"
              "  the paired ratios hold up better than the times; more --rounds help")
    met = [r for r in report if r["target_met"] is not None]
    fast = [r for r in report if r["faster_than_torch"] is not None]
    print(f"targets met: {sum(r['target_met'] for r in met)}/{len(met)} of limit, "
          f"{sum(r['faster_than_torch'] for r in fast)}/{len(fast)} faster than PyTorch")
    big = [r for r in report if r["kind"] == "block" or
           (r["kind"] == "attn" and int(re.search(r"S=(\d+)", r["name"]).group(1)) >= 1024)]
    if sgemm is not None and big:
        print(f"against torch.mm's {sgemm_t:.0f} GFLOP/s instead of sgemm's {sgemm:.0f} (at median times): "
              + ", ".join(f"{r['name'].split(' i')[0].replace('attention ', '')} {r['harness_rate'] / sgemm_t:.0%}"
                          for r in big))

    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(machine=calib[0]["identity"], fma_peak_gflops=fma, fma_peak_rounds=fma_rounds,
                           copy_peak_gbps=bw, copy_peak_rounds=bw_rounds, openblas_coretype=coretype, openblas_corename=openblas_corename(),
                           torch=torch.__version__, threads=THREADS, rounds=rounds,
                           sgemm_gflops=sgemm, sgemm_rounds=sg_bench, torch_mm_gflops=sgemm_t,
                           torch_mm_rounds=sg_torch, other_load_core_s=others, wall_s=wall,
                           cases=report), f, indent=1)
    return status


if __name__ == "__main__":
    sys.exit(main())
