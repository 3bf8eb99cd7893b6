#!/bin/sh
# Figures a user can trust, through the real binary: the environment in
# both summaries, the oversubscription warning (threads beyond the CPUs,
# with a busy sibling process) on stderr and in both summaries, a window
# that ran out of steps shown as not converged everywhere, and CI levels
# that match the exact binomial coverage.
. "$top_builddir/tests/setup"

cpus=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
threads=$((2 * cpus))

# A busy sibling: real competition for the cores while the run measures.
sh -c 'while :; do :; done' &
busy=$!
trap 'kill "$busy" 2>/dev/null; rm -rf "$SCRATCH"' EXIT

expect_exit 0 "run with $threads OpenMP threads on $cpus CPUs" env OMP_NUM_THREADS=$threads \
    "$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" --output-dir "$SCRATCH/over"
kill "$busy" 2>/dev/null
expect_err "harness: warning: oversubscribed: $threads OpenMP threads on" "oversubscription warned on stderr"
[ "$(grep -c 'warning: oversubscribed' "$SCRATCH/err")" -eq 1 ] || fail "the warning is printed once"
dir=$(sed -n 's/^experiment: //p' "$SCRATCH/out")
txt="$dir/profiler_summary_ranks_1_rank_0.txt"
json="$dir/summary_ranks_1_rank_0.json"
sed -n '/^Warnings:/,$p' "$txt" | grep -q "oversubscribed: $threads OpenMP threads" ||
    fail "the text summary's Warnings section lists it"
for field in 'cpu .*(family .*, model .*, stepping .*)' 'caches: L1d ' 'frequency governor: ' \
    'load average (1, 5, 15 min): .* at start, .* at end' 'in the affinity mask' "$threads OpenMP threads" \
    'build: .*; flags .*; sanitizers: ' 'clock .*, measured resolution ' 'executable /'; do
    grep -q "$field" "$txt" || fail "the text summary's environment has '$field'"
done
grep -q '93.75%' "$txt" || fail "the text summary labels 5-step windows' CIs 93.75%"
python3 - "$json" "$threads" <<'PY' || fail "JSON: env, warnings, per-window times, CI levels"
import json, sys
from fractions import Fraction
from math import comb
s = json.load(open(sys.argv[1]))
threads = int(sys.argv[2])
assert any(w.startswith("oversubscribed: %d OpenMP threads" % threads) for w in s["warnings"]), s["warnings"]
e = s["env"]
for k in ("cpu", "cpu_family", "cpu_model_number", "cpu_stepping", "scaling_governor", "compiler", "cflags",
          "sanitizers", "executable", "clock", "kernel_clocksource"):
    assert isinstance(e[k], str) and e[k], k
assert isinstance(e["configure_args"], str)   # empty for a plain ./configure
assert set(e["caches"]) == {"l1d", "l1i", "l2", "l3"}
assert e["omp_threads"] == threads and 1 <= e["affinity_cpus"] <= e["logical_cpus"]
assert len(e["load_average"]["start"]) == 3 and len(e["load_average"]["end"]) == 3
assert e["clock_resolution_ns"] > 0 and s["timing"]["clock_resolution_ns"] == e["clock_resolution_ns"]
assert e["clock"] == s["timing"]["clock"]
if e["clock"] == "tsc":
    assert e["kernel_clocksource"] == "tsc"

# The order-statistic CI [x(j), x(n+1-j)] covers the median with probability
# 1 - 2 P(B <= j-1), B ~ Binomial(n, 1/2): exactly, with scipy when present.
def coverage(n, lo):
    try:
        from scipy.stats import binom
        return 1 - 2 * binom.cdf(lo, n, 0.5)
    except ImportError:
        return float(1 - 2 * Fraction(sum(comb(n, i) for i in range(lo + 1)), 2 ** n))
t = s["timing"]
for w in t["windows"]:
    assert w["n"] == 5 and abs(w["ci_level"] - coverage(5, 0)) < 1e-12, w["ci_level"]
    assert abs(w["ci_level"] - 0.9375) < 1e-12
    # Windows of 5 short steps: far under 50 ms, too short for the process CPU clock.
    assert 0 < w["wall_ns"] < 50e6 and w["cpu_ns"] >= 0 and w["cpu_per_wall"] is None, w
    assert w["converged"] is None
assert t["n"] == 10 and abs(t["ci_level"] - coverage(10, 1)) < 1e-12   # n = 10: [x(2), x(9)]
a = t["across_windows"]
assert a["unit_of_replication"] == "window" and a["n"] == 2 and abs(a["ci_level"] - coverage(2, 0)) < 1e-12
PY

# A window of 60 ms, long enough for the ratio: one busy thread reads at most
# about 1 (the 200 us windows above once read 4.4); a loaded machine reads less
# (0.26 at load 8 on 2 cores), so no lower bound.
expect_exit 0 "a long window's cpu/wall" "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/long" \
    --set component.config.duration_ns=12000000 --set schedule.repeat=1
python3 - "$SCRATCH"/long/*/summary_ranks_1_rank_0.json <<'PY' || fail "a 60 ms window's cpu_per_wall"
import json, sys
w = json.load(open(sys.argv[1]))["timing"]["windows"][0]
assert w["wall_ns"] >= 50e6 and abs(w["cpu_per_wall"] - w["cpu_ns"] / w["wall_ns"]) < 1e-9, w
assert 0 < w["cpu_per_wall"] < 1.7, w
PY

# measurement_steps: auto with an unreachable target stops at max_steps and says so.
expect_exit 0 "auto window that cannot converge" "$HARNESS" run "$CONFIGS/spin_tiny.yaml" \
    --output-dir "$SCRATCH/auto" --set schedule.measurement_steps=auto --set schedule.stopping.max_rel_ci=1e-12 \
    --set schedule.stopping.min_steps=5 --set schedule.stopping.max_steps=12 --set component.config.duration_ns=2000
expect_err "harness: warning: window 1 did not converge: it stopped on max_steps after 12 steps" \
    "not converged on stderr"
grep -q 'max_steps: NOT converged' "$SCRATCH/out" || fail "the console table marks the window NOT converged"
dir=$(sed -n 's/^experiment: //p' "$SCRATCH/out")
grep -q 'max_steps: NOT converged' "$dir/profiler_summary_ranks_1_rank_0.txt" ||
    fail "the text summary's table marks the window NOT converged"
sed -n '/^Warnings:/,$p' "$dir/profiler_summary_ranks_1_rank_0.txt" | grep -q 'window 1 did not converge' ||
    fail "the text summary's Warnings list it"
grep -q 'x 1 window$' "$dir/profiler_summary_ranks_1_rank_0.txt" || fail "'1 window', not '1 windows'"
python3 - "$dir/summary_ranks_1_rank_0.json" <<'PY' || fail "JSON: the window did not converge"
import json, sys
s = json.load(open(sys.argv[1]))
w = s["timing"]["windows"][0]
assert w["stop_reason"] == "max_steps" and w["converged"] is False and w["n"] == 12, w
assert any("window 1 did not converge" in x for x in s["warnings"]), s["warnings"]
PY
finish
