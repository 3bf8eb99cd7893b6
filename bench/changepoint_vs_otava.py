#!/usr/bin/env python3
"""Change points of harness history (E-divisive means without the series'
outliers, permutation test, alpha 0.01, steps under 2% dropped) against the
true steps of synthetic series and against Apache Otava (pip install
apache-otava) on the same series: Otava's default (compute_change_points:
windowed split + merge, t-test, p 0.001) and its original E-divisive
(compute_change_points_orig, permutations). Figures, not a test.
  usage: python3 bench/changepoint_vs_otava.py [SUITE] [SERIES_PER_KIND]   (from the source tree)
  SUITE: readme (default: the table in bench/README.md, "Change points against
  Apache Otava", 30 series a kind), goal (30-run
  series with a 5% step at run 15 or none, with and without outliers, 20 a
  kind), loaded (30-run series with a 5% step at 15 and runs a loaded
  machine raised 1.3-2.8x, each with the noise bound its summary would
  carry: harness with the bounds, harness on the values alone as Otava
  sees them, Otava; 20 a kind), size (harness alone: extra change points
  between real steps and on pure noise, 1000 and 200 series)."""
import os, random, subprocess, sys, tempfile

suite = sys.argv[1] if len(sys.argv) > 1 else "readme"
tmp = tempfile.mkdtemp()
tool = os.path.join(tmp, "cp_series")
subprocess.run(["cc", "-O2", "-I.", "-Iharness", "bench/cp_series.c", "harness/compare/changepoint.c",
                "harness/util/stats.c", "-lm", "-o", tool], check=True)
try:
    from otava.analysis import compute_change_points, compute_change_points_orig
except ImportError:
    compute_change_points = compute_change_points_orig = None

rng = random.Random(1)
# name: (length, [(index, relative step)], relative noise, outliers a series[, load]), series per kind;
# load: {"at": [(first run, runs)] loaded 1.3-2.8x (one factor a stretch) with a noise bound of 100%,
# "busy": share of the other runs with a bound of 100% and a median 0-1.5% up (a busy machine:
# bench/history_figures.sh measured this)}; the other runs' bounds 0-1.8%, a quiet run's.
suites = {
    "readme": ({
        "noise": (60, [], 0.01, 0),
        "one 10% step": (60, [(35, 0.10)], 0.01, 0),
        "one 3% step": (60, [(35, 0.03)], 0.01, 0),
        "two steps": (90, [(30, 0.08), (60, -0.05)], 0.01, 0),
    }, 30),
    "goal": ({
        "noise, 30": (30, [], 0.01, 0),
        "5% step at 15": (30, [(15, 0.05)], 0.01, 0),
        "noise + 2 spikes": (30, [], 0.01, 2),
        "5% step + 2 spikes": (30, [(15, 0.05)], 0.01, 2),
        "-49% at 8 of 16 + 2 spikes": (16, [(8, -0.49)], 0.02, 2),
    }, 20),
    "loaded": ({
        "5% step + 2 loaded runs (5, 23)": (30, [(15, 0.05)], 0.01, 0, {"at": [(5, 1), (23, 1)]}),
        "5% step + 3 loaded runs (22-24)": (30, [(15, 0.05)], 0.01, 0, {"at": [(5, 1), (22, 3)]}),
        "5% step + load from 23 on": (30, [(15, 0.05)], 0.01, 0, {"at": [(23, 7)]}),
        "noise + 3 loaded runs (10-12)": (30, [], 0.01, 0, {"at": [(10, 3)]}),
        "5% step, busy 2/3 + 2 loaded": (30, [(15, 0.05)], 0.01, 0, {"at": [(5, 1), (23, 1)], "busy": 2 / 3}),
    }, 20),
    "size": ({
        "noise, 30": (30, [], 0.01, 0),
        "8 levels, 20% steps": (80, [(i, 0.2 / (1 + 0.2 * (i // 10 - 1))) for i in range(10, 80, 10)], 0.01, 0),
    }, 0),
}
kinds, default_n = suites[suite]
n_per_kind = int(sys.argv[2]) if len(sys.argv) > 2 else default_n

def series(length, steps, noise, spikes, load=None):
    """The values, and with `load` each run's noise bound beside them (else None)."""
    level, out = 100000.0, []
    for i in range(length):
        for at, rel in steps:
            if i == at:
                level *= 1 + rel
        out.append(level * (1 + noise * rng.gauss(0, 1)))
    for i in rng.sample(range(length), spikes):   # a busy machine: a run 10-30 times slower
        out[i] *= rng.uniform(10, 30)
    if load is None:
        return out, None
    bounds = [rng.uniform(0, 0.018) for _ in range(length)]
    for i in range(length):
        if rng.random() < load.get("busy", 0):
            out[i] *= 1 + rng.uniform(0, 0.015)
            bounds[i] = 1.0
    for first, runs in load["at"]:
        r = rng.uniform(1.3, 2.8)
        for i in range(first, first + runs):
            out[i] *= r
            bounds[i] = 1.0
    return out, bounds

def score(found, truth, tol=1):
    hit = sum(any(abs(f - t) <= tol for f in found) for t in truth)
    false = sum(not any(abs(f - t) <= tol for t in truth) for f in found)
    return hit, false

def harness(data, *options, bounds=None):
    """cp_series on the series; with bounds (one list a series) each value as VALUE/BOUND."""
    lines = [" ".join(f"{v:.6f}" + (f"/{b:.6f}" if bounds else "") for v, b in zip(s, bs or [None] * len(s)))
             for s, bs in zip(data, bounds or [None] * len(data))]
    out = subprocess.run([tool, *options], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True).stdout.split("\n")
    return [[int(v) for v in line.split()] for line in out[:len(data)]]

def report(name, truth, data, rows, ours):
    for method, found in rows:
        hits = falses = agree = clean = alone = 0
        for f, o in zip(found, ours):
            h, fa = score(f, truth)
            hits += h
            falses += fa
            clean += not f
            alone += h == len(truth) and fa == 0
            agree += sorted(f) == sorted(o)
        print(f"{name:32} {method:30} {hits:>5}/{len(truth) * len(data):<6} {falses:>9} {clean:>7}/{len(data):<4}"
              f" {alone:>7}/{len(data):<4} {agree:>6}/{len(data)}")

print(f"{'series':32} {'method':30} {'steps found':>12} {'false cps':>9} {'no cp':>12} {'exactly':>12}"
      f" {'agree w/ harness':>11}")
for name, (length, steps, noise, spikes, *load) in kinds.items():
    truth = [at for at, _ in steps]
    if suite == "size":   # the test's size: a permutation test at alpha 0.05, 99 permutations
        count = 1000 if steps else 200
        data = [series(length, steps, noise, spikes)[0] for _ in range(count)]
        for options in (["--alpha", "0.05", "--permutations", "99", "--min-change", "0"],
                        ["--alpha", "0.05", "--permutations", "99"], []):
            found = harness(data, *options)
            report(name, truth, data, [("harness " + " ".join(options or ["(defaults)"]), found)], found)
        continue
    made = [series(length, steps, noise, spikes, *load) for _ in range(n_per_kind)]
    data = [values for values, _ in made]
    if load:   # what the bounds add: the same values without them, as Otava sees them
        ours = harness(data, bounds=[b for _, b in made])
        rows = [("harness, noise bounds", ours), ("harness, values alone", harness(data))]
    else:
        ours = harness(data)
        rows = [("harness (a=.01, min 2%)", ours), ("harness --min-change 0", harness(data, "--min-change", "0"))]
    if compute_change_points:
        rows.append(("otava default", [[cp.index for cp in compute_change_points(s)[0]] for s in data]))
        rows.append(("otava e-divisive", [[cp.index for cp in compute_change_points_orig(s, seed=1)[0]]
                                          for s in data]))
    report(name, truth, data, rows, ours)
