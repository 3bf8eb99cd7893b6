#!/usr/bin/env python3
"""Change points of harness history (E-divisive means, permutation test,
alpha 0.01) against the true steps of synthetic series and against Apache
Otava (pip install apache-otava) on the same series: Otava's default
(compute_change_points: windowed split + merge, t-test, p 0.001) and its
original E-divisive (compute_change_points_orig, permutations).
Figures, not a test.
  usage: python3 bench/changepoint_vs_otava.py [SERIES_PER_KIND]   (from the source tree)"""
import os, random, subprocess, sys, tempfile

n_per_kind = int(sys.argv[1]) if len(sys.argv) > 1 else 30
tmp = tempfile.mkdtemp()
tool = os.path.join(tmp, "cp_series")
subprocess.run(["cc", "-O2", "-I.", "-Iharness", "bench/cp_series.c", "harness/compare/changepoint.c", "-lm",
                "-o", tool], check=True)
try:
    from otava.analysis import compute_change_points, compute_change_points_orig
except ImportError:
    compute_change_points = compute_change_points_orig = None

rng = random.Random(1)
kinds = {  # name: (length, [(index, relative step)], relative noise)
    "noise": (60, [], 0.01),
    "one 10% step": (60, [(35, 0.10)], 0.01),
    "one 3% step": (60, [(35, 0.03)], 0.01),
    "two steps": (90, [(30, 0.08), (60, -0.05)], 0.01),
}
def series(length, steps, noise):
    level, out = 100000.0, []
    for i in range(length):
        for at, rel in steps:
            if i == at:
                level *= 1 + rel
        out.append(level * (1 + noise * rng.gauss(0, 1)))
    return out

def score(found, truth, tol=1):
    hit = sum(any(abs(f - t) <= tol for f in found) for t in truth)
    false = sum(not any(abs(f - t) <= tol for t in truth) for f in found)
    return hit, false

print(f"{'series':14} {'method':22} {'steps found':>12} {'false cps':>10} {'agree w/ harness':>17}")
for name, (length, steps, noise) in kinds.items():
    data = [series(length, steps, noise) for _ in range(n_per_kind)]
    out = subprocess.run([tool], input="\n".join(" ".join(f"{v:.6f}" for v in s) for s in data) + "\n",
                         capture_output=True, text=True, check=True).stdout.split("\n")
    ours = [[int(v) for v in line.split()] for line in out[:len(data)]]
    truth = [at for at, _ in steps]
    rows = [("harness (E-div, a=.01)", ours)]
    if compute_change_points:
        rows.append(("otava default", [[cp.index for cp in compute_change_points(s)[0]] for s in data]))
        rows.append(("otava e-divisive", [[cp.index for cp in compute_change_points_orig(s, seed=1)[0]]
                                          for s in data]))
    for method, found in rows:
        hits = falses = agree = 0
        for f, o in zip(found, ours):
            h, fa = score(f, truth)
            hits += h
            falses += fa
            agree += sorted(f) == sorted(o)
        print(f"{name:14} {method:22} {hits:>5}/{len(truth) * len(data):<6} {falses:>10} {agree:>10}/{len(data)}")
