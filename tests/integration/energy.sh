#!/bin/sh
# Energy per window (docs/timing-integrity.md, "Energy") through the real
# binary: a machine without a readable RAPL counter says "not available"
# once and nothing fails; a fake powercap tree (HARNESS_POWERCAP_ROOT) whose
# counter a writer advances at 50 W, wrapping, gives joules per step, watts
# and FLOP and bytes per joule that agree with one another; a counter that
# never moves is "stuck", windows under ten counter periods "too short";
# compare --metric energy judges hand-made experiment folders (runs as
# replicates: REGRESSION, IMPROVEMENT, too few; one run a side: windows,
# never a change; no energy: no replicates; bad values: exit 2); record and
# history --metric energy; export's energy columns.
. "$top_builddir/tests/setup"

json() {  # json FILE EXPR: print a Python expression of the JSON document s (a tuple's items spaced)
    python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); v = eval(sys.argv[2])
print(" ".join(map(str, v)) if isinstance(v, tuple) else v)' "$@"
}

# ---- no counter ---------------------------------------------------------------------
# A tree without a package zone is what a VM has: the run succeeds and says so once.
none=$(HARNESS_POWERCAP_ROOT="$SCRATCH/no-powercap" "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --quiet \
       --output-dir "$SCRATCH/none" --set schedule.repeat=3 2>"$SCRATCH/none.err") || fail "run without a counter"
summary="$none/summary_ranks_1_rank_0.json"
[ "$(json "$summary" 's["energy"]["status"], s["energy"]["available"], s["energy"]["joules_per_step"]')" = \
  "not_available False None" ] && pass "no counter: energy not_available, no figure" || fail "no counter: JSON"
json "$summary" 's["energy"]["missing"]' | grep -q "^not available: no RAPL package zone under $SCRATCH/no-powercap" &&
    pass "no counter: the summary says why" || fail "no counter: missing"
[ "$(json "$summary" '[w["energy"]["status"] for w in s["timing"]["windows"]]')" = \
  "['not_available', 'not_available', 'not_available']" ] || fail "no counter: each window not_available"
[ "$(grep -c "not available" "$none"/profiler_summary_ranks_1_rank_0.txt)" = 1 ] &&
    pass "no counter: said once in the text summary" || fail "no counter: said once in the text"
grep -q "^energy: not available: no RAPL package zone" "$none"/profiler_summary_ranks_1_rank_0.txt ||
    fail "no counter: the text's line"
grep -qi "energy" "$SCRATCH/none.err" && fail "no counter: a warning or error on stderr"
[ "$(json "$none/summary.json" 's["energy"]["ranks_measured"], s["ranks"][0]["energy"]["status"]')" = \
  "0 not_available" ] && pass "no counter: the job summary" || fail "no counter: job summary"
grep -q "^energy: not measured on any rank (rank 0: not_available)" "$none/summary.txt" || fail "job summary text"

# This machine itself: where no package zone is readable (a VM), "not available".
if ! cat /sys/class/powercap/intel-rapl:*/energy_uj >/dev/null 2>&1; then
    here=$(env -u HARNESS_POWERCAP_ROOT "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --quiet --output-dir "$SCRATCH/here" \
           2>/dev/null) || fail "run on this machine"
    json "$here/summary_ranks_1_rank_0.json" 's["energy"]["missing"]' | grep -q "^not available: " &&
        pass "this machine has no readable RAPL: not available" || fail "this machine: not available"
fi

# ---- a fake counter at 50 W --------------------------------------------------------------
# writer ROOT WATTS RANGE_UJ: advance package-0's counter as WATTS would,
# wrapping at RANGE_UJ, every 2 ms (a rename: a reader never sees half a
# file), until ROOT/stop appears. In the background: $! is its pid.
writer() {
    python3 - "$@" <<'PY' >/dev/null 2>&1 &
import os, sys, time
root, watts, top = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
z = os.path.join(root, "intel-rapl:0")
t0, start = time.monotonic(), top - 15_000_000   # 15 J below the top: it wraps about when the run starts
while not os.path.exists(os.path.join(root, "stop")) and time.monotonic() - t0 < 120:
    uj = int(start + (time.monotonic() - t0) * watts * 1e6) % top
    with open(os.path.join(z, "energy_uj.tmp"), "w") as f:
        f.write(f"{uj}\n")
    os.replace(os.path.join(z, "energy_uj.tmp"), os.path.join(z, "energy_uj"))
    time.sleep(0.002)
PY
}
tree() {  # tree ROOT: one package zone
    mkdir -p "$1/intel-rapl:0" && echo package-0 >"$1/intel-rapl:0/name" && echo 0 >"$1/intel-rapl:0/energy_uj" &&
        echo 400000000 >"$1/intel-rapl:0/max_energy_range_uj"
}
tree "$SCRATCH/rapl"
writer "$SCRATCH/rapl" 50 400000000   # a wrap every 8 s: at most one a window
pid=$!
sleep 0.2
live=$(HARNESS_POWERCAP_ROOT="$SCRATCH/rapl" "$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" --quiet \
       --output-dir "$SCRATCH/live" --set component.config.batch_size=16 --set component.config.seq_len=64 \
       --set component.config.hidden_size=1024 --set schedule.measurement_steps=1200 --set schedule.repeat=3 \
       2>/dev/null) || fail "run on the fake counter"
touch "$SCRATCH/rapl/stop"
wait "$pid"
python3 - "$live/summary_ranks_1_rank_0.json" <<'PY' && pass "fake 50 W counter: figures agree" || fail "fake counter"
import json, math, sys
s = json.load(open(sys.argv[1]))
e, t = s["energy"], s["throughput"]
assert e["available"] and e["source"] == "powercap RAPL package-0" and e["counter_period_s"] == 0.001, e
assert e["min_window_s"] == 0.01 and e["status"] == "measured" and e["windows_measured"] == 3, e
close = lambda a, b: math.isclose(a, b, rel_tol=1e-9)
assert close(e["joules_per_step"] * e["steps"], e["joules"]) and close(e["watts"] * e["seconds"], e["joules"]), e
assert close(e["flop_per_joule"], t["flops_per_step"] / e["joules_per_step"]), e
assert close(e["bytes_per_joule"], t["bytes_per_step"] / e["joules_per_step"]), e
assert close(e["uncertainty"], 3 * 0.001 / e["seconds"]), e
# the writer's 50 W, give or take what a loaded machine delays its writes by
assert 25 < e["watts"] < 75, e["watts"]
for w in s["timing"]["windows"]:
    x = w["energy"]
    assert x["status"] == "measured" and x["steps"] == 1200 and 25 < x["watts"] < 75, x
PY
grep -q "^energy (powercap RAPL package-0, updated every 1 ms at worst): .*J/step, .*W, .*FLOP/J, .*B/J (within .*) over \
3 of 3 windows$" "$live"/profiler_summary_ranks_1_rank_0.txt && pass "fake counter: the text's line" ||
    fail "fake counter: text"
grep -q "^  window 2: .*J/step" "$live"/profiler_summary_ranks_1_rank_0.txt || fail "fake counter: per window"
[ "$(json "$live/summary.json" 's["energy"]["ranks_measured"], s["energy"]["counters"]')" = "1 1" ] ||
    fail "fake counter: job summary"

# A counter that never moves over windows of ~10 ms (10 periods of 1 ms):
# stuck. Windows of ~1 ms: too short to measure, said with the least needed.
tree "$SCRATCH/frozen"
frozen=$(HARNESS_POWERCAP_ROOT="$SCRATCH/frozen" "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --quiet \
         --output-dir "$SCRATCH/frozen_run" --set schedule.measurement_steps=400 2>/dev/null) || fail "frozen run"
[ "$(json "$frozen/summary_ranks_1_rank_0.json" 's["energy"]["status"]')" = stuck ] && pass "a frozen counter: stuck" ||
    fail "a frozen counter"
grep -q "^energy (.*): the counter did not advance (stuck)" "$frozen"/profiler_summary_ranks_1_rank_0.txt ||
    fail "stuck: text"
short=$(HARNESS_POWERCAP_ROOT="$SCRATCH/frozen" "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --quiet \
        --output-dir "$SCRATCH/short_run" --set schedule.measurement_steps=4 2>/dev/null) || fail "short run"
[ "$(json "$short/summary_ranks_1_rank_0.json" 's["energy"]["status"], s["timing"]["windows"][0]["energy"]["joules"]')" \
  = "too_short None" ] && pass "a 0.2 ms window: too short, no joules" || fail "too short"
grep -q "^energy (.*): too short to measure (.* < 10 ms, 10 updates of the counter): windows of 10 ms or more" \
    "$short"/profiler_summary_ranks_1_rank_0.txt || fail "too short: text"

# ---- compare --metric energy ------------------------------------------------------------
# side DIR N JOULES [DISTINCT]: N copies of the no-counter run, each with
# energy per step JOULES x (1 + i/100) (its windows alike), as the runs of
# one benchmark; their time samples stay the same.
side() {
    python3 - "$none" "$SCRATCH/$1" "$2" "$3" <<'PY'
import json, os, shutil, sys
src, dst, n, j = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
for i in range(n):
    d = os.path.join(dst, f"2026-01-01__00-00-{i:02d}_aaaaaaaa")
    shutil.copytree(src, d)
    p = os.path.join(d, "summary_ranks_1_rank_0.json")
    s = json.load(open(p))
    v = j * (1 + i / 100)
    s["energy"].update(status="measured", joules_per_step=v, watts=100.0)
    for k, w in enumerate(s["timing"]["windows"]):
        w["energy"].update(status="measured", joules_per_step=v * (1 + k / 1000))
    json.dump(s, open(p, "w"))
PY
    echo "$SCRATCH/$1"
}
b5=$(side base5 5 1e-3) && k5=$(side cand5 5 1.25e-3) && k2=$(side cand2 2 1.25e-3) && b2=$(side base2 2 1e-3) ||
    fail "making experiment folders"
expect_exit 1 "compare --metric energy: 25% more energy a step" "$HARNESS" compare "$b5" "$k5" --metric energy
grep -q "base energy *cand energy" "$SCRATCH/out" || fail "--metric energy: the columns name the metric"
grep -q "spin/cpu .* 1.04 mJ *1.3 mJ *1.250 .*5/5 runs .*REGRESSION$" "$SCRATCH/out" ||
    fail "--metric energy: a REGRESSION on 5/5 runs, in joules"
grep -q "^verdict: REGRESSION: .*metric energy" "$SCRATCH/out" || fail "--metric energy: verdict line"
expect_exit 0 "the same folders by time: SAME" "$HARNESS" compare "$b5" "$k5"
grep -q "^verdict: SAME" "$SCRATCH/out" || fail "by time: SAME"
expect_exit 0 "less energy a step: IMPROVEMENT" "$HARNESS" compare "$k5" "$b5" --metric energy
grep -q "^cand used 1.25 .* times less energy per step than base" "$SCRATCH/out" || fail "improvement: its line"
expect_exit 1 "compare --metric energy: json" "$HARNESS" compare "$b5" "$k5" --metric energy --format json
python3 - "$SCRATCH/out" "$none/summary_ranks_1_rank_0.json" <<'PY' && pass "--metric energy: json" || fail "json"
import json, sys
r, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
(p,) = r["pairs"]
assert r["metric"] == "energy" and p["verdict"] == "regression" and p["replicates"]["unit"] == "runs", p
assert abs(p["base_value_j"] - 1.04e-3) < 1e-12 and abs(p["cand_value_j"] - 1.3e-3) < 1e-12, p   # the newest runs
assert "base_value_ns" not in p and p["base"]["median"] == s["timing"]["median"], p   # base.median stays ns
PY
# Two runs a side cannot reach alpha: the interval machinery's own cause.
expect_exit 1 "two runs a side" "$HARNESS" compare "$b2" "$k2" --metric energy --format json
[ "$(json "$SCRATCH/out" 's["pairs"][0]["verdict"], s["pairs"][0]["ambiguous_cause"]')" = \
  "ambiguous too_few_replicates" ] && pass "two runs a side: too_few_replicates" || fail "two runs a side"
# One run a side: its windows are the replicates, which bound a change but never call one.
expect_exit 1 "one run a side" "$HARNESS" compare "$b5/2026-01-01__00-00-00_aaaaaaaa" \
    "$k5/2026-01-01__00-00-00_aaaaaaaa" --metric energy --format json
[ "$(json "$SCRATCH/out" 's["pairs"][0]["replicates"]["unit"], s["pairs"][0]["ambiguous_cause"]')" = \
  "windows single_runs" ] && pass "one run a side: windows, single_runs" || fail "one run a side"
# No energy on either side: no replicates, said as such.
expect_exit 1 "no energy measured" "$HARNESS" compare "$none" "$none" --metric energy
grep -q "AMBIGUOUS (no replicates): .*no energy per step to compare" "$SCRATCH/out" && pass "no energy: no replicates" ||
    fail "no energy: why"
expect_exit 0 "no energy measured, by time" "$HARNESS" compare "$none" "$none"
# Bad values: exit 2, naming the key.
cp -R "$b5/2026-01-01__00-00-00_aaaaaaaa" "$SCRATCH/bad"
python3 - "$SCRATCH/bad/summary_ranks_1_rank_0.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["energy"]["joules_per_step"] = -1.0; json.dump(s, open(sys.argv[1], "w"))
PY
expect_exit 2 "energy per step below 0" "$HARNESS" compare "$SCRATCH/bad" "$none" --metric energy
expect_err "energy.joules_per_step: expected a positive number of joules or null" "below 0: named"
python3 - "$SCRATCH/bad/summary_ranks_1_rank_0.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["energy"]["joules_per_step"] = 1.0
s["timing"]["windows"][1]["energy"]["joules_per_step"] = "lots"; json.dump(s, open(sys.argv[1], "w"))
PY
expect_exit 2 "a window's energy not a number" "$HARNESS" compare "$SCRATCH/bad" "$none"
expect_err "timing.windows[1].energy.joules_per_step: expected a positive number" "a window's energy: named"
expect_exit 2 "--metric joules" "$HARNESS" compare "$b5" "$k5" --metric joules
expect_err "--metric: expected median, p90, p99, mean or energy, got 'joules'" "--metric: the values"

# ---- record, history, export ---------------------------------------------------------------
"$HARNESS" record "$b5" --db "$SCRATCH/r.sqlite" --commit c1 --branch main >/dev/null &&
    "$HARNESS" record "$k5" --db "$SCRATCH/r.sqlite" --commit c2 --branch main >/dev/null || fail "record"
"$HARNESS" record "$none" --db "$SCRATCH/r.sqlite" --commit c3 --branch main >/dev/null || fail "record without energy"
expect_exit 0 "history --metric energy" "$HARNESS" history --db "$SCRATCH/r.sqlite" --metric energy --format json
python3 - "$SCRATCH/out" <<'PY' && pass "history --metric energy: the runs that measured it" || fail "history json"
import json, sys
h = json.load(open(sys.argv[1]))
(s,) = h["series"]
v = [p["value"] for p in s["points"]]
assert len(v) == 10 and abs(v[0] - 1e-3) < 1e-12 and abs(v[-1] - 1.3e-3) < 1e-12, v   # the run without energy left out
PY
expect_exit 0 "history --metric energy: text" "$HARNESS" history --db "$SCRATCH/r.sqlite" --metric energy
grep -q " 1.25 mJ " "$SCRATCH/out" && pass "history: values in joules" || fail "history: joules in the text"
# The base from a database: the recorded windows' and runs' energy come back.
"$HARNESS" record "$b5" --db "$SCRATCH/base.sqlite" --commit c1 --branch main >/dev/null || fail "record the base"
expect_exit 1 "compare --baseline-db --metric energy" "$HARNESS" compare --baseline-db "$SCRATCH/base.sqlite" \
    --baseline-branch main "$k5" --metric energy
grep -q "spin/cpu .* 1.02 mJ *1.3 mJ .*5/5 runs .*REGRESSION$" "$SCRATCH/out" &&
    pass "--baseline-db --metric energy: the base level from the database" || fail "--baseline-db: energy"
expect_exit 1 "--baseline-db --metric energy, one cand run: windows" "$HARNESS" compare --baseline-db \
    "$SCRATCH/base.sqlite" --baseline-branch main "$k5/2026-01-01__00-00-00_aaaaaaaa" --metric energy --format json
[ "$(json "$SCRATCH/out" 's["pairs"][0]["replicates"]["unit"]')" = "runs/windows" ] ||
    fail "--baseline-db: a lone cand run's windows have energy"
expect_exit 0 "export: energy columns" "$HARNESS" export "$b5" --format json
python3 - "$SCRATCH/out" <<'PY' && pass "export: energy per window" || fail "export"
import json, sys
rows = json.load(open(sys.argv[1]))
rows = rows["rows"] if isinstance(rows, dict) else rows
assert len(rows) == 15, len(rows)
assert all(r["energy_status"] == "measured" and r["joules_per_step"] > 0 for r in rows), rows[0]
assert rows[0]["energy_source"].startswith("not available"), rows[0]["energy_source"]
PY
expect_exit 0 "export --rows runs: the run's energy" "$HARNESS" export "$b5" --format json --rows runs
python3 - "$SCRATCH/out" <<'PY' && pass "export --rows runs: energy per run" || fail "export --rows runs"
import json, sys
rows = json.load(open(sys.argv[1]))
rows = rows["rows"] if isinstance(rows, dict) else rows
assert sorted(round(r["joules_per_step"], 9) for r in rows) == [0.001, 0.00101, 0.00102, 0.00103, 0.00104], rows
assert all(r["watts"] == 100 and r["energy_status"] == "measured" for r in rows), rows[0]
PY
finish
