#!/usr/bin/env python3
"""The GPU fields of the summaries under a folder of CUDA runs (one per
schedule option, from tests/gpu/run.sh): prints a markdown table, one row per
run, and exits 1 when a field a CUDA summary must carry is missing or absurd.

    usage: tests/gpu/check_summaries.py FOLDER
"""
import glob
import json
import os
import sys


def problems(j):
    """What is wrong with one CUDA summary, as a list of texts."""
    bad = []
    t, env, mem, roof = j["timing"], j["env"], j["memory"], j["roofline"]
    if j["status"] != "ok":
        bad.append(f"status {j['status']}")
    if "device_timer" not in t:
        bad.append("no timing.device_timer")
    h = t.get("host_launch", {})
    if not h.get("samples") and not h.get("samples_file", {}).get("count"):
        bad.append("no timing.host_launch samples")
    g = env.get("gpu_device") or {}
    if not g.get("name") or not g.get("sm_count"):
        bad.append("no env.gpu_device name / sm_count")
    d = mem.get("device") or {}
    if not d.get("peak_tracked_bytes") or not d.get("total_bytes"):
        bad.append("no memory.device tracked / total bytes")
    pct = roof.get("percent_of_peak_bandwidth")
    if pct is None or not 0 < pct <= 100:
        bad.append(f"percent_of_peak_bandwidth {pct} (missing: {roof.get('missing')})")
    if not j.get("gpu_kernels"):
        bad.append("no gpu_kernels table")
    if j.get("gpu_activity_dropped"):
        bad.append(f"{j['gpu_activity_dropped']} GPU activity records dropped")
    return bad


def main():
    rows, failed = [], False
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*", "*", "summary_ranks_1_rank_0.json"))):
        j = json.load(open(path))
        run = path.split(os.sep)[-3]
        t, thr, roof = j["timing"], j["throughput"], j["roofline"]
        top = (j.get("gpu_kernels") or [{}])[0]
        bad = problems(j)
        failed |= bool(bad)
        rows.append("| {} | {} | {:.2f} | {:.2f} | {:.0f} | {} | {} x{} | {} |".format(
            run, t.get("device_timer", {}).get("mode", "?"), t["median"] / 1e3,
            t.get("host_launch", {}).get("median", float("nan")) / 1e3, thr.get("gb_per_s") or 0,
            "-" if roof.get("percent_of_peak_bandwidth") is None else f"{roof['percent_of_peak_bandwidth']:.1f}",
            top.get("name", "-")[:40], top.get("calls", 0), "; ".join(bad) or "ok"))
    if not rows:
        print(f"no summaries under {sys.argv[1]}")
        return 1
    print("| run | timer | median us | host launch us | GB/s | % peak BW | top kernel | checks |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
