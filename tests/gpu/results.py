"""The results file of tests/gpu/run.sh: one work folder (or several, the
bundles of several slices, merged in order) turned into
<gpu>-<date>-<commit>.md and .json. Python's standard library only, so it
runs anywhere; tests/integration/gpu_results.sh proves it on CPU-made
experiment folders before a GPU ever runs it.

What it reads from each WORK folder (all optional; what is missing is said):
  facts.txt      key=value lines: gpu, driver, memory, nvcc, torch, ...
  verdicts.tsv   part <TAB> subject <TAB> verdict <TAB> detail, one line per
                 check (validate, sanitize, skip, ...); a later line for the
                 same part and subject replaces an earlier one
  exp/.../<tag>/*/summary_ranks_N_rank_0.json   validation runs
  fig/.../<tag>/*/summary_ranks_N_rank_0.json   the figures at realistic shapes
  tune/.../<tag>/*/summary_ranks_N_rank_0.json  tuning sweeps
  torch.json     {"available", "reason", "version", "ns": {tag: PyTorch ns}}
  gemm_rate.txt  tests/gpu/gemm_rate.c's output (the "mix" line)

    usage: python3 tests/gpu/results.py [--commit C] [--date YYYY-MM-DD]
                                        [--outdir DIR] WORK...
    prints the two paths written (default DIR: tests/gpu/results)
"""
import argparse
import datetime
import glob
import json
import os
import re
import sys

from switches import SWITCHES

# The rate each family is judged by, and the roofline percent that goes
# with it: memory-bound kernels by bytes, matrix work by FLOP/s of its dtype.
BANDWIDTH_FAMILIES = {"rms_norm", "allreduce"}
FLOPS_PEAK = {"bf16": "percent_of_peak_bf16_flops", "fp16": "percent_of_peak_fp16_flops"}


def read_facts(work, facts):
    path = os.path.join(work, "facts.txt")
    if os.path.exists(path):
        for line in open(path):
            key, sep, value = line.rstrip("\n").partition("=")
            if sep:
                facts[key.strip()] = value.strip()


def read_verdicts(work, verdicts):
    path = os.path.join(work, "verdicts.tsv")
    if os.path.exists(path):
        for line in open(path):
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 3:
                verdicts[(cols[0], cols[1])] = {"part": cols[0], "subject": cols[1], "verdict": cols[2],
                                                "detail": cols[3] if len(cols) > 3 else ""}


def read_summaries(work, kind, runs):
    """kind/.../<tag>/<folder>/summary_ranks_N_rank_0.json: rank 0 of each run, by tag (at any depth:
    attention_perf.sh's runs are in fig/attention/)."""
    for path in sorted(glob.glob(os.path.join(work, kind, "**", "summary_ranks_*_rank_0.json"), recursive=True)):
        tag = path.split(os.sep)[-3]
        try:
            s = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"results.py: {path}: {e}", file=sys.stderr)
            continue
        runs[path] = (tag, s)


def shape(family, cfg):
    """The shape in the words its field uses."""
    if family == "rms_norm":
        return f"{cfg.get('batch_size')} x {cfg.get('seq_len')} x {cfg.get('hidden_size')}"
    if family == "attention":
        kv = cfg.get("num_kv_heads") or cfg.get("num_heads")
        return (f"batch {cfg.get('batch_size')} x seq {cfg.get('seq_len')}, {cfg.get('num_heads')} heads"
                f"{'' if kv == cfg.get('num_heads') else f' ({kv} kv)'} of {cfg.get('head_dim')}, "
                f"{'causal' if cfg.get('causal') else 'not causal'}")
    if family == "transformer_block":
        return (f"{cfg.get('batch_size')} x {cfg.get('seq_len')} tokens, hidden {cfg.get('hidden_size')}, "
                f"{cfg.get('num_heads')} heads, MLP {cfg.get('intermediate_size')}")
    if family == "allreduce":
        return f"{cfg.get('bytes')} B, {'in place' if cfg.get('in_place') else 'out of place'}"
    return ", ".join(f"{k} {v}" for k, v in sorted(cfg.items()))


def gemm_mix(works):
    """cuBLASLt's TFLOP/s on the block's GEMMs (gemm_rate.c's mix line), the last found."""
    mix = None
    for w in works:
        path = os.path.join(w, "gemm_rate.txt")
        if os.path.exists(path):
            for line in open(path):
                f = line.split()
                if len(f) > 3 and f[0] == "mix":
                    mix = float(f[3])
    return mix


# attention_perf.sh's runs of attention/cuda, by the variant its tags end
# with (DTYPE_dD_sSEQ_CAUSAL_VARIANT): which of its kernels ran
# (HARNESS_ATTENTION_KERNEL, HARNESS_ATTENTION_TC_BK), and for the A/B which
# Hopper switch (hopper_switches' labels).
KERNEL_LABELS = {"cuda": " (mma.sync)", "cuda32": " (mma.sync, 32-key tiles)", "hopper": " (Hopper: wgmma + TMA)"}
KERNEL_LABELS.update({v: f" ({label})" for v, (_words, label) in SWITCHES.items()})


def figure_row(tag, s, torch, mix):
    cfg = s["component"].get("config", {})
    key = s["component"]["variant_key"]
    family = key.split("/")[0]
    dtype = cfg.get("dtype", "-")
    median = (s.get("timing") or {}).get("median")
    tp, rf = s.get("throughput") or {}, s.get("roofline") or {}
    kernel = KERNEL_LABELS.get(tag.split("_", 4)[-1], "") if family == "attention" else ""
    row = {"tag": tag, "variant": key + kernel, "family": family,
           "dtype": dtype, "shape": shape(family, cfg), "median_us": median and median / 1e3,
           "validation": (s.get("validation") or {}).get("status"), "peak_source": rf.get("peak_source"),
           "notes": []}
    if family in BANDWIDTH_FAMILIES:
        row["unit"], row["rate"] = "GB/s", tp.get("gb_per_s")
        row["percent_of_peak"], row["peak"] = rf.get("percent_of_peak_bandwidth"), "memory bandwidth"
    else:
        row["unit"], row["rate"] = "TFLOP/s", tp.get("gflop_per_s") and tp["gflop_per_s"] / 1e3
        pk = FLOPS_PEAK.get(dtype, "percent_of_peak_flops")
        row["percent_of_peak"], row["peak"] = rf.get(pk), f"{dtype if dtype in FLOPS_PEAK else 'fp32'} dense FLOP/s"
    if family == "allreduce":
        # nccl-tests' busbw: algbw x 2(n-1)/n, the bytes each link carries.
        n = s.get("world_size", 1)
        algbw = row["rate"]
        row["unit"], row["rate"] = "GB/s busbw", algbw and algbw * 2 * (n - 1) / n
        row["percent_of_peak"], row["peak"] = None, "n/a"
        if n == 1 and cfg.get("in_place"):
            # the component declares no bytes then (components/allreduce): nothing moves
            row["notes"].append("1 rank, in place: nothing to move (NCCL returns at once); the time is the call's")
        else:
            row["notes"].append(f"{n} rank{'s' if n != 1 else ''}, algbw {fmt(algbw, '.1f')} GB/s; "
                                "busbw = algbw x 2(n-1)/n" + (" is 0 on one GPU: no bus is crossed" if n == 1 else ""))
    if family == "transformer_block" and mix and row["rate"]:
        row["vs_cublaslt"] = row["rate"] / mix
        row["notes"].append(f"cuBLASLt on its GEMMs: {mix:.1f} TFLOP/s; the block reaches "
                            f"{row['vs_cublaslt']:.0%} of it (goal 80%)")
    # NVML's energy of the measured windows (docs/timing-integrity.md, "Energy"), where it measured them
    en = s.get("energy") or {}
    row["energy_status"], row["joules_per_step"], row["watts"] = en.get("status"), en.get("joules_per_step"), en.get("watts")
    if row["joules_per_step"]:
        fpj = en.get("flop_per_joule")
        row["notes"].append(f"energy {row['joules_per_step'] * 1e3:.3g} mJ/step at {row['watts']:.0f} W"
                            + (f", {fpj / 1e9:.3g} GFLOP/J" if fpj else ""))
    torch_ns = (torch.get("ns") or {}).get(tag)
    row["torch_us"] = torch_ns and torch_ns / 1e3
    row["torch_over_ours"] = torch_ns / median if torch_ns and median else None
    if not torch.get("available"):
        row["notes"].append("PyTorch n/a")
    return row


def fmt(x, spec):
    """x as spec says; "-" when absent, and small values (CPU test runs) with 3 significant digits."""
    if x is None:
        return "-"
    return format(x, ".3g") if spec == ".1f" and 0 < abs(x) < 1 else format(x, spec)


def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c).replace("|", "/") for c in r) + " |" for r in rows]
    return "\n".join(out)


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower().replace("nvidia", "")).strip("-") or "unknown-gpu"


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--commit", default=None)
    ap.add_argument("--date", default=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"))
    ap.add_argument("--outdir", default="tests/gpu/results")
    ap.add_argument("work", nargs="+")
    a = ap.parse_args(argv)

    facts, verdicts, exp, fig, tune = {}, {}, {}, {}, {}
    torch = {"available": False, "reason": "tests/gpu/torch_times.py did not run"}
    for w in a.work:
        if not os.path.isdir(w):
            print(f"results.py: {w}: not a folder", file=sys.stderr)
            return 2
        read_facts(w, facts)
        read_verdicts(w, verdicts)
        read_summaries(w, "exp", exp)
        read_summaries(w, "fig", fig)
        read_summaries(w, "tune", tune)
        if os.path.exists(os.path.join(w, "torch.json")):
            torch = json.load(open(os.path.join(w, "torch.json")))
    mix = gemm_mix(a.work)

    any_summary = next(iter(list(fig.values()) + list(exp.values())), (None, {}))[1]
    env = any_summary.get("env") or {}
    gpu = facts.get("gpu") or (env.get("gpu_device") or {}).get("name") or env.get("gpu") or "unknown GPU"
    commit = (a.commit or facts.get("commit") or env.get("git_commit") or "unknown")[:12]
    # prepare.sh's SOURCE: "commit C edits E", E the hash of no edits when the tree was clean.
    edits = facts.get("source", "").partition(" edits ")[2]
    if edits and edits not in ("none", "e3b0c44298fc"):
        commit += "-dirty"
    device = {
        "gpu": gpu, "driver": facts.get("driver") or env.get("driver"), "memory": facts.get("memory"),
        "cuda_runtime": (env.get("gpu_device") or {}).get("runtime") or env.get("cuda"), "nvcc": facts.get("nvcc"),
        "peaks": (any_summary.get("roofline") or {}).get("peak_source"),
        "torch": torch.get("version") if torch.get("available") else f"n/a ({torch.get('reason')})",
    }
    figures = [figure_row(tag, s, torch, mix) for tag, s in sorted(fig.values(), key=lambda t: t[0])]
    tuning = [figure_row(tag, s, torch, None) for tag, s in sorted(tune.values(), key=lambda t: t[0])]
    validated = [{"tag": tag, "variant": s["component"]["variant_key"],
                  "dtype": s["component"].get("config", {}).get("dtype", "-"),
                  "validation": (s.get("validation") or {}).get("status"), "status": s.get("status")}
                 for tag, s in sorted(exp.values(), key=lambda t: t[0])]
    checks = sorted(verdicts.values(), key=lambda v: (v["part"], v["subject"]))
    missing = [p for p, have in (("validation", validated or any(v["part"] == "validate" for v in checks)),
                                 ("figures", figures),
                                 ("sanitizers", any(v["part"] == "sanitize" for v in checks)),
                                 ("tuning", tuning)) if not have]
    failed = [v for v in checks if v["verdict"] == "FAIL"] + \
             [v for v in validated if v["validation"] not in ("passed", "skipped", None)]

    name = f"{slug(gpu)}-{a.date}-{commit}"
    os.makedirs(a.outdir, exist_ok=True)
    doc = {"schema": "harness.gpu_results/1", "date": a.date, "commit": commit, "device": device,
           "validated": validated, "checks": checks, "figures": figures, "tuning": tuning, "not_run": missing,
           "failed": len(failed)}
    with open(os.path.join(a.outdir, name + ".json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")

    md = [f"# {gpu}: tests/gpu/run.sh, {a.date}, commit {commit}", ""]
    md.append(md_table(["", ""], [[k, v if v is not None else "-"] for k, v in device.items()]))
    md += ["", f"{len(failed)} check(s) failed." if failed else "No check failed.",
           "Not run: " + ", ".join(missing) + "." if missing else "Every part ran.", ""]
    md += ["## Every CUDA variant and dtype, validated", ""]
    md.append(md_table(["variant", "dtype", "check", "run"],
                       [[v["variant"], v["dtype"], v["validation"], v["status"]] for v in validated]) if validated
              else "(no validation runs)")
    md += ["", "## Checks (validation, options, sanitizers, skips)", ""]
    md.append(md_table(["part", "subject", "verdict", "detail"],
                       [[v["part"], v["subject"], v["verdict"], v["detail"]] for v in checks]) if checks
              else "(no checks recorded)")
    md += ["", "## Figures at realistic shapes", "",
           "% of peak: the datasheet's dense figure of this SKU (peaks column above); PyTorch / ours: PyTorch's "
           "median time over ours on the same shape and dtype (above 1: ours is faster)"
           + ("" if torch.get("available") else f"; PyTorch n/a: {torch.get('reason')}") + ".", ""]
    head = ["variant", "dtype", "shape", "median us", "rate", "unit", "% of peak", "PyTorch / ours", "notes"]
    md.append(md_table(head, [[r["variant"], r["dtype"], r["shape"], fmt(r["median_us"], ".1f"), fmt(r["rate"], ".1f"),
                               r["unit"], fmt(r["percent_of_peak"], ".1f"), fmt(r["torch_over_ours"], ".2f"),
                               "; ".join(r["notes"])] for r in figures]) if figures else "(no figures)")
    if tuning:
        md += ["", "## Tuning sweeps", ""]
        md.append(md_table(head[:-2], [[r["variant"] + f" [{r['tag']}]", r["dtype"], r["shape"],
                                        fmt(r["median_us"], ".1f"), fmt(r["rate"], ".1f"), r["unit"],
                                        fmt(r["percent_of_peak"], ".1f")] for r in tuning]))
    with open(os.path.join(a.outdir, name + ".md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print(os.path.join(a.outdir, name + ".md"))
    print(os.path.join(a.outdir, name + ".json"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
