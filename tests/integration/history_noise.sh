#!/bin/sh
# harness record + history with interference: 30 runs made from one real
# spin run (its summary's samples scaled, its noise block set), a 5% step
# at run 16 (index 15), and runs 6 and 24 loaded (2.5x, a noise bound of
# 100%). record stores each run's bound and evidence; history sets the
# loaded runs aside in every format and finds the step alone; a loaded
# first run of the new level is named beside the change point, and so is
# one with the same bound whose median the load did not raise (kept); the same
# database with the bounds unknown (as schema 1 left them) falls back to
# the outlier test; --metric picks the column and refuses a bad one.
. "$top_builddir/tests/setup"

base=$("$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/base" --quiet \
    --set schedule.measurement_steps=20 --set schedule.repeat=3 --set profiling.trace=false \
    --set profiling.memory=false 2>/dev/null) || fail "a spin run"

# make_db DB LOADED...: the 30 runs into DB, the runs (0-based) in LOADED
# loaded; those in $BUSY (0-based, space-separated) with the bound of a
# loaded run but a median at the level.
make_db() {
    db=$1; shift
    rm -rf "$SCRATCH/runs"
    python3 - "$base" "$SCRATCH/runs" "${BUSY:-}" "$@" <<'PY' || return 1
import json, os, random, shutil, sys
base, out = sys.argv[1], sys.argv[2]
busy, loaded = {int(a) for a in sys.argv[3].split()}, {int(a) for a in sys.argv[4:]}
rng = random.Random(7)
for i in range(30):
    d = os.path.join(out, "run%02d" % i)
    shutil.copytree(base, d)
    f = os.path.join(d, "summary_ranks_1_rank_0.json")
    s = json.load(open(f))
    level = (1.05 if i >= 15 else 1.0) * (1 + 0.005 * rng.gauss(0, 1))
    if i in loaded or i in busy:
        level *= 2.5 if i in loaded else 1
        s["noise"].update(median_shift_bound=1.0, involuntary_switches=99,
                          evidence="99 involuntary context switches in 60 measured steps (run %d)" % i)
    else:
        s["noise"].update(median_shift_bound=0.004, evidence="quiet")
    s["timing"]["samples"] = [50000.0 * level * (1 + 0.001 * k) for k in range(len(s["timing"]["samples"]))]
    json.dump(s, open(f, "w"))
PY
    i=0
    while [ $i -lt 30 ]; do
        "$HARNESS" record "$SCRATCH/runs/run$(printf %02d $i)" --db "$db" --commit "c$i" --branch main \
            >/dev/null 2>&1 || return 1
        i=$((i + 1))
    done
}
make_db "$SCRATCH/noisy.sqlite" 5 23 || fail "recording the loaded series"

python3 - "$SCRATCH/noisy.sqlite" <<'PY' || fail "record stores each run's bound and evidence"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
assert c.execute("SELECT version FROM schema_version").fetchone() == (3,)
rows = dict(c.execute("SELECT e.git_commit, r.noise_bound FROM runs r JOIN experiments e ON e.id = r.experiment_id"))
assert rows["c5"] == 1.0 and rows["c23"] == 1.0 and rows["c0"] == 0.004, rows
(ev,) = c.execute("SELECT noise_evidence FROM runs r JOIN experiments e ON e.id = r.experiment_id "
                  "WHERE e.git_commit = 'c5'").fetchone()
assert ev == "99 involuntary context switches in 60 measured steps (run 5)", ev
PY

expect_exit 0 "history --format json" "$HARNESS" history --db "$SCRATCH/noisy.sqlite" --format json
python3 - "$SCRATCH/out" <<'PY' || fail "json: the loaded runs set aside, the step alone found"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["metric"] == "median" and r["method"]["noise_limit_pct"] == 2, (r["metric"], r["method"])
(s,) = r["series"]
pts = s["points"]
assert [p["set_aside"] for p in pts] == [("interference" if i in (5, 23) else None) for i in range(30)], \
    [p["set_aside"] for p in pts]
assert not any(p["outlier"] for p in pts)
assert pts[5]["noise_bound"] == 1.0 and pts[5]["noise_evidence"].startswith("99 involuntary"), pts[5]
assert pts[0]["noise_bound"] == 0.004 and all(p["value"] == p["median"] for p in pts)
(cp,) = s["change_points"]
assert cp["index"] == 15 and 4 < cp["change_pct"] < 6, cp
assert cp["interference"] == [] and cp["note"] is None, cp
PY

expect_exit 0 "history: text" "$HARNESS" history --db "$SCRATCH/noisy.sqlite"
grep -q "^  2 runs set aside for interference (#6, #24)$" "$SCRATCH/out" || fail "text: the runs set aside"
grep -q "^     6  c5 .*  100.0%  \[.*\] [0-9.]*%  (set aside: interference)$" "$SCRATCH/out" ||
    fail "text: run 6 marked: $(grep '^     6 ' "$SCRATCH/out")"
grep -q "^  change at #16 (commit c15): .* (+[45]\.[0-9]%), p = " "$SCRATCH/out" || fail "text: the change point"
grep -q "a run with a noise bound of 2% or more set aside when it sits 2% above the runs around it" "$SCRATCH/out" ||
    fail "text: the rule in the method line"
expect_exit 0 "history: markdown" "$HARNESS" history --db "$SCRATCH/noisy.sqlite" --format markdown
grep -q '^| 24 set aside: interference | `c23` | ' "$SCRATCH/out" || fail "markdown: run 24 marked"
grep -q "Left out of the search: 2 runs set aside for interference (#6, #24)\.$" "$SCRATCH/out" ||
    fail "markdown: the runs set aside"
expect_exit 0 "history: html" "$HARNESS" history --db "$SCRATCH/noisy.sqlite" --format html
python3 - "$SCRATCH/out" <<'PY' || fail "html: the loaded runs drawn apart"
import sys, xml.dom.minidom
t = open(sys.argv[1]).read()
svg = t[t.index("<svg"):t.index("</svg>") + 6]
doc = xml.dom.minidom.parseString(svg)
apart = [e for tag in ("rect", "path") for e in doc.getElementsByTagName(tag)
         if e.getAttribute("class") == "interference"]
assert len(apart) == 2, len(apart)
titles = [e.getElementsByTagName("title")[0].firstChild.data for e in apart]
assert all("set aside for interference" in x and "99 involuntary" in x for x in titles), titles
assert len([e for e in doc.getElementsByTagName("circle") if e.getAttribute("class") == "point"]) == 28
assert "a run with interference" in t
PY

# The first run of the new level loaded too: the change is still found
# from the runs kept, and named as coinciding with the interference.
make_db "$SCRATCH/at_step.sqlite" 5 15 23 || fail "recording the series loaded at the step"
expect_exit 0 "history: interference at the step, json" "$HARNESS" history --db "$SCRATCH/at_step.sqlite" \
    --format json
python3 - "$SCRATCH/out" <<'PY' || fail "json: the change point's interference"
import json, sys
(s,) = json.load(open(sys.argv[1]))["series"]
(cp,) = s["change_points"]
assert cp["index"] == 15, cp
(i,) = cp["interference"]
assert i["index"] == 15 and i["commit"] == "c15" and i["noise_bound"] == 1.0, i
assert cp["note"] == "coincides with interference at run #16: 99 involuntary context switches in 60 measured " \
    "steps (run 15)", cp["note"]
PY
expect_exit 0 "history: interference at the step, text" "$HARNESS" history --db "$SCRATCH/at_step.sqlite"
grep -q "^    coincides with interference at run #16: 99 involuntary context switches" "$SCRATCH/out" ||
    fail "text: the change point's interference"
grep -q "^    16  c15 .*  <- change point  (set aside: interference)$" "$SCRATCH/out" ||
    fail "text: the change point's run marked set aside"

# The first run of the new level with the same bound, its median at the
# level: kept (its value shows the load did not raise it by a step), and
# named beside the change point.
BUSY=15 make_db "$SCRATCH/busy.sqlite" 5 23 || fail "recording the series busy at the step"
expect_exit 0 "history: busy at the step, json" "$HARNESS" history --db "$SCRATCH/busy.sqlite" --format json
python3 - "$SCRATCH/out" <<'PY' || fail "json: a busy run kept, named at the change point"
import json, sys
(s,) = json.load(open(sys.argv[1]))["series"]
p = s["points"][15]
assert p["set_aside"] is None and p["noise_bound"] == 1.0, p
(cp,) = s["change_points"]
assert cp["index"] == 15 and [i["index"] for i in cp["interference"]] == [15], cp
assert cp["note"].startswith("coincides with interference at run #16: 99 involuntary"), cp["note"]
PY

# Bounds unknown (runs recorded before schema 2): the outlier test alone,
# which catches these two spikes as it always did.
cp "$SCRATCH/noisy.sqlite" "$SCRATCH/unknown.sqlite"
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE runs SET noise_bound = NULL, noise_evidence = NULL"); c.commit()' \
    "$SCRATCH/unknown.sqlite" || fail "unknown bounds"
expect_exit 0 "history: unknown bounds" "$HARNESS" history --db "$SCRATCH/unknown.sqlite" --format json
python3 - "$SCRATCH/out" <<'PY' || fail "json: unknown bounds fall back to the outlier test"
import json, sys
(s,) = json.load(open(sys.argv[1]))["series"]
assert [p["set_aside"] for p in s["points"]] == [("outlier" if i in (5, 23) else None) for i in range(30)]
assert all(p["noise_bound"] is None and p["noise_evidence"] is None for p in s["points"])
assert [c["index"] for c in s["change_points"]] == [15], s["change_points"]
PY

# --metric: the series is that column of the runs.
expect_exit 0 "history --metric p90" "$HARNESS" history --db "$SCRATCH/noisy.sqlite" --metric p90 --format json
python3 - "$SCRATCH/out" "$SCRATCH/noisy.sqlite" <<'PY' || fail "json: --metric p90"
import json, sqlite3, sys
r = json.load(open(sys.argv[1]))
assert r["metric"] == "p90"
(s,) = r["series"]
p90 = [v for (v,) in sqlite3.connect(sys.argv[2]).execute("SELECT p90 FROM runs ORDER BY id")]
assert all(abs(p["value"] - v) <= 1e-12 * v for p, v in zip(s["points"], p90)) and len(p90) == 30  # cJSON: 15 digits
assert all(p["value"] > p["median"] for p in s["points"])
assert [c["index"] for c in s["change_points"]] == [15], s["change_points"]
PY
expect_exit 0 "history --metric mean, text" "$HARNESS" history --db "$SCRATCH/noisy.sqlite" --metric mean
grep -q "^     #  commit  *experiment  *mean  *median   noise  CI of the median, its coverage$" "$SCRATCH/out" ||
    fail "text: the metric's column: $(grep '  #  ' "$SCRATCH/out")"
grep -q "(each run's mean, alpha 0.01" "$SCRATCH/out" || fail "text: the metric in the method line"
for m in p50 MEDIAN ""; do
    expect_exit 2 "--metric '$m'" "$HARNESS" history --db "$SCRATCH/noisy.sqlite" --metric "$m"
    expect_err "--metric: expected median, p90, p99, mean or energy, got '$m'" "--metric '$m': message"
done
expect_exit 0 "harness help history" "$HARNESS" help history
grep -q -- "--metric M" "$SCRATCH/out" && grep -q "noise bound" "$SCRATCH/out" || fail "help: --metric and the rule"
finish
