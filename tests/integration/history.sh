#!/bin/sh
# harness record + history on real runs: twelve runs of one spin config on
# "main", the last five slower (a slower build of the same config, made by
# running the spin 20% longer and labelling the runs with the base config);
# history finds the change point at the first slower commit in every format;
# recording twice stores once; bad input (exit 2 or 3, the database
# unchanged).
. "$top_builddir/tests/setup"

# spin N DURATION_NS: one 3-window run, recorded as commit cN on main with
# the 50 us config whatever DURATION_NS is, and a quiet run's noise bound
# whatever this machine's load did (history sets aside a run whose bound
# reaches 2%: history_noise.sh tests that, here it would move the change
# point with the load of the machine running the tests). 100 steps a
# window (15 ms a run): on a loaded machine a neighbour waking on the
# spin's CPU can take part of every step for a few milliseconds, which in
# a 3 ms run (20 steps a window) moved a run's median by the 20% step and
# hid the change point once.
spin() {
    dir=$("$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/exp$1" --quiet \
        --set component.config.duration_ns="$2" --set schedule.measurement_steps=100 --set schedule.repeat=3 \
        --set profiling.trace=false --set profiling.memory=false) || return 1
    python3 - "$dir" <<'PY' || return 1
import json, sys, os
d = sys.argv[1]
s = json.load(open(os.path.join(d, "summary_ranks_1_rank_0.json")))
s["component"]["config"]["duration_ns"] = 50000
s["noise"]["median_shift_bound"] = 0.001
s["noise"]["evidence"] = "pinned by the test"
json.dump(s, open(os.path.join(d, "summary_ranks_1_rank_0.json"), "w"))
p = os.path.join(d, "resolved_config.yaml")
open(p, "w").write("\n".join("    duration_ns: 50000" if l.strip().startswith("duration_ns:") else l
                             for l in open(p).read().split("\n")))
PY
    "$HARNESS" record "$dir" --db "$SCRATCH/results.sqlite" --commit "c$1" --branch main >/dev/null || return 1
    echo "$dir"
}
i=1
while [ $i -le 12 ]; do
    if [ $i -le 7 ]; then d=50000; else d=60000; fi
    spin $i $d >"$SCRATCH/last" || fail "run and record $i"
    i=$((i + 1))
done
last=$(cat "$SCRATCH/last")

expect_exit 0 "history: text" "$HARNESS" history --db "$SCRATCH/results.sqlite"
grep -q "^series 1: spin/cpu {\"duration_ns\":50000} config [0-9a-f]\{8\}, rank 0/1, on .*: 12 runs, 1 change point$" \
    "$SCRATCH/out" || fail "text: the series line"
grep -q "^  change at #8 (commit c8): .* -> .* (+[12][0-9]\.[0-9]%), p = " "$SCRATCH/out" || fail "text: the change point"

expect_exit 0 "history: json" "$HARNESS" history --db "$SCRATCH/results.sqlite" --format json
python3 - "$SCRATCH/out" <<'PY' || fail "json report"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "harness.history/1"
(s,) = r["series"]
assert s["variant_key"] == "spin/cpu" and s["world_size"] == 1 and s["rank"] == 0
assert [p["commit"] for p in s["points"]] == ["c%d" % i for i in range(1, 13)]
assert all(p["ci95_median"][0] <= p["median"] <= p["ci95_median"][1] for p in s["points"])
(cp,) = s["change_points"]
assert cp["index"] == 7 and cp["commit"] == "c8", cp
assert 12 < cp["change_pct"] < 28, cp
assert cp["p"] <= 0.01
PY

# Each CI with the coverage its run recorded (the summary's ci_level), not a
# nominal 95%: a run of 4 samples has an 87.5% CI at best.
python3 - "$SCRATCH/out" >"$SCRATCH/levels" <<'PY' || fail "json: ci_level"
import json, sys
(s,) = json.load(open(sys.argv[1]))["series"]
assert all(0.95 <= p["ci_level"] < 1 for p in s["points"]), [p["ci_level"] for p in s["points"]]
print("\n".join("%.1f%%" % (100 * p["ci_level"]) for p in s["points"]))
PY
expect_exit 0 "history: text again" "$HARNESS" history --db "$SCRATCH/results.sqlite"
grep "^ *[0-9]*  c[0-9]" "$SCRATCH/out" | sed 's/.*\] \([0-9.]*%\).*/\1/' | cmp -s - "$SCRATCH/levels" ||
    fail "text: each CI's coverage, as in the JSON"
grep -q "95% CI" "$SCRATCH/out" && fail "text: a nominal 95% CI"
few=$("$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/few" --quiet --set schedule.measurement_steps=4 \
    --set schedule.repeat=1 --set profiling.trace=false --set profiling.memory=false) || fail "a run of 4 samples"
"$HARNESS" record "$few" --db "$SCRATCH/few.sqlite" --commit f1 --branch main >/dev/null || fail "record 4 samples"
expect_exit 0 "history: 4 samples" "$HARNESS" history --db "$SCRATCH/few.sqlite"
grep -q "^  *#  commit .*  CI of the median, its coverage$" "$SCRATCH/out" || fail "text: the CI column's header"
grep -q "^     1  f1 .*\] 87\.5%$" "$SCRATCH/out" || fail "text: a 4-sample CI is 87.5%"
expect_exit 0 "history: 4 samples, markdown" "$HARNESS" history --db "$SCRATCH/few.sqlite" --format markdown
grep -q "^| 1 | \`f1\` | .* | \[.*\] | 87\.5% |$" "$SCRATCH/out" || fail "markdown: a 4-sample CI is 87.5%"

expect_exit 0 "history: html" "$HARNESS" history --db "$SCRATCH/results.sqlite" --format html
python3 - "$SCRATCH/out" <<'PY' || fail "html report"
import sys, xml.dom.minidom
t = open(sys.argv[1]).read()
assert t.startswith("<!DOCTYPE html>") and t.rstrip().endswith("</html>")
assert "<script" not in t and "http://" not in t.replace('xmlns="http://www.w3.org/2000/svg"', "")
assert "https://" not in t
svg = t[t.index("<svg"):t.index("</svg>") + 6]
doc = xml.dom.minidom.parseString(svg)          # well-formed
marks = doc.getElementsByTagName("circle") + [p for p in doc.getElementsByTagName("path") + doc.getElementsByTagName(
    "rect") if p.getAttribute("class") in ("outlier", "interference")]
assert len(marks) == 12, len(marks)               # a run, or one set aside (at the edge when off the axis)
outliers = len([m for m in marks if m.getAttribute("class") in ("outlier", "interference")])
assert len([l for l in doc.getElementsByTagName("line") if l.getAttribute("class") == "ci"]) == 12 - outliers
assert len([l for l in doc.getElementsByTagName("line") if l.getAttribute("class") == "change"]) == 1
# scales to the page (several series stack without scrolling sideways)
root = doc.documentElement
assert root.getAttribute("width") == "100%" and root.getAttribute("viewBox"), root.toxml()[:200]
# the x axis names the commits, the change point's first; the chart's change is the table's
text = lambda e: "".join(n.data for n in e.getElementsByTagName("tspan")[0].childNodes) if e.getElementsByTagName(
    "tspan") else "".join(n.data for n in e.childNodes if n.nodeType == n.TEXT_NODE)
xt = [text(e) for e in doc.getElementsByTagName("text") if e.getAttribute("class") == "xtick"]
assert "c8" in xt and "c1" in xt and "c12" in xt, xt
(label,) = [e for e in doc.getElementsByTagName("text") if e.getAttribute("class") == "change-label"]
assert " at c8 " in label.firstChild.data, label.firstChild.data
assert "<td>8</td><td><code>c8</code></td>" in t
# round ticks from zero on a linear axis (the medians span under 3x)
yt = [e.firstChild.data for e in doc.getElementsByTagName("text") if e.getAttribute("class") == "ytick"]
assert yt[0] == "0", yt
vals = [float(v.split()[0]) for v in yt[1:]]
step = vals[0]
assert all(abs(v - step * (i + 1)) < 1e-9 * v for i, v in enumerate(vals)), yt
assert ("%g" % step)[0] in "125" and set(("%g" % step).lstrip("0.")[1:]) <= {"0"}, yt
PY

expect_exit 0 "history: markdown" "$HARNESS" history --db "$SCRATCH/results.sqlite" --format markdown
grep -q '^| 8 | `c8` | ' "$SCRATCH/out" || fail "markdown: the change point row"

expect_exit 0 "history: filters" "$HARNESS" history --db "$SCRATCH/results.sqlite" --variant spin/cpu --branch main \
    --rank 0 --world-size 1

# compare --baseline-db: the base is the series since its last change point
# (c8..c12, the slower level), five runs as replicates; the candidate is four
# runs (a single run's windows could only say SAME or AMBIGUOUS).
spin_unrecorded() {  # spin_unrecorded DIR DURATION_NS: four 50 us-labelled runs, not recorded
    d=$("$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/$1" --quiet --runs 4 \
        --set component.config.duration_ns="$2" --set schedule.measurement_steps=100 --set schedule.repeat=3 \
        --set profiling.trace=false --set profiling.memory=false) || return 1
    python3 - "$d" <<'PY' || return 1
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*/summary_ranks_1_rank_0.json"):
    s = json.load(open(f))
    s["component"]["config"]["duration_ns"] = 50000
    json.dump(s, open(f, "w"))
PY
    echo "$d"
}
fast=$(spin_unrecorded fast 50000) || fail "a fast candidate"
expect_exit 0 "compare --baseline-db: faster than the current level" "$HARNESS" compare --baseline-db \
    "$SCRATCH/results.sqlite" "$fast" --format json
python3 - "$SCRATCH/out" <<'PY' || fail "compare --baseline-db: json"
import json, sys
r = json.load(open(sys.argv[1]))
(p,) = r["pairs"]
assert p["replicates"] == {"unit": "runs", "base": 5, "cand": 4}, p["replicates"]
assert p["verdict"] == "improvement", p
assert 0.75 < p["ratio"] < 0.92, p["ratio"]
assert r["base"].endswith("results.sqlite (branch main)"), r["base"]
PY
# The base column is the level the candidate is compared with: the median of
# the five run medians since the change point, not the newest run's.
"$HARNESS" history --db "$SCRATCH/results.sqlite" --format json >"$SCRATCH/hist.json" || fail "history json for the base"
python3 - "$SCRATCH/out" "$SCRATCH/hist.json" <<'PY' || fail "compare --baseline-db: the base column"
import json, statistics, sys
(p,) = json.load(open(sys.argv[1]))["pairs"]
(s,) = json.load(open(sys.argv[2]))["series"]
level = statistics.median(q["median"] for q in s["points"][7:])
assert abs(p["base"]["median"] - level) <= 1e-9 * level, (p["base"]["median"], level)
assert p["base"]["ci95_median"][0] <= level <= p["base"]["ci95_median"][1], p["base"]
PY
# A candidate already recorded (c12) is not its own base: c8..c11 are.
expect_exit 0 "compare --baseline-db: a recorded candidate" "$HARNESS" compare --on-ambiguous pass --baseline-db \
    "$SCRATCH/results.sqlite" "$last" --format json
python3 - "$SCRATCH/out" "$SCRATCH/hist.json" <<'PY' || fail "compare --baseline-db: the candidate's own run left out"
import json, statistics, sys
(p,) = json.load(open(sys.argv[1]))["pairs"]
(s,) = json.load(open(sys.argv[2]))["series"]
assert p["replicates"]["base"] == 4, p["replicates"]
level = statistics.median(q["median"] for q in s["points"][7:11])
assert abs(p["base"]["median"] - level) <= 1e-9 * level, (p["base"]["median"], level)
PY
slower=$(spin_unrecorded slower 75000) || fail "a slow candidate"
expect_exit 1 "compare --baseline-db: slower than the current level" "$HARNESS" compare --baseline-db \
    "$SCRATCH/results.sqlite" "$slower"
grep -q "spin/cpu .*5/4 runs .*REGRESSION$" "$SCRATCH/out" || fail "compare --baseline-db: REGRESSION row"
grep -q "^cand: $slower (folder of experiments, 4 runs)$" "$SCRATCH/out" ||
    fail "compare --baseline-db: the suite folder is labelled: $(grep '^cand:' "$SCRATCH/out")"
expect_exit 2 "compare --baseline-db: a branch with no runs" "$HARNESS" compare --baseline-db \
    "$SCRATCH/results.sqlite" --baseline-branch nope "$slower"
expect_err "results.sqlite: no run recorded on branch nope matches a run of $slower" "a branch with no runs: message"

# Recording again stores nothing new.
expect_exit 0 "record twice" "$HARNESS" record "$last" --db "$SCRATCH/results.sqlite"
grep -q "recorded 0 runs from 1 experiment folder into .* (1 already stored)" "$SCRATCH/out" || fail "record twice"
# Folders of experiment folders, as compare takes them: each expands to the runs below.
expect_exit 0 "record folders of experiments" "$HARNESS" record "$SCRATCH/exp1" "$SCRATCH/exp2" \
    --db "$SCRATCH/results.sqlite"
grep -q "recorded 0 runs from 2 experiment folders into .* (2 already stored)" "$SCRATCH/out" ||
    fail "record folders of experiments: $(cat "$SCRATCH/out")"

# Bad input: exit 2 or 3 naming the culprit, the database unchanged.
sum() { cksum <"$SCRATCH/results.sqlite"; }
before=$(sum)
bad() {  # bad CODE MESSAGE DESC ARGS...
    code=$1; msg=$2; desc=$3; shift 3
    expect_exit "$code" "$desc" "$HARNESS" "$@"
    expect_err "$msg" "$desc: message"
}
bad 2 "no recorded run matches (variant nope/cpu, branch main)" "a filter that matches nothing" \
    history --db "$SCRATCH/results.sqlite" --variant nope/cpu --branch main
mkdir "$SCRATCH/plain"
bad 2 "$SCRATCH/plain: not an experiment folder" "a folder that is not an experiment" \
    record "$last" "$SCRATCH/plain" --db "$SCRATCH/results.sqlite"
# A run killed outright (SIGKILL) leaves status.json "running" and no
# summary: not recorded, and said so (exit 2: input record cannot take).
cp -R "$last" "$SCRATCH/killed"
rm -f "$SCRATCH"/killed/summary* "$SCRATCH"/killed/profiler_* "$SCRATCH"/killed/samples_*
python3 -c 'import json, sys; p = sys.argv[1]; s = json.load(open(p)); s.update(status="running", complete=False)
json.dump(s, open(p, "w"))' "$SCRATCH/killed/status.json" || fail "marking a run killed"
bad 2 "$SCRATCH/killed: the run did not finish: no summary, and status.json says killed: killed (SIGKILL, out of \
memory, a reboot) before writing its summary (it says running, but its process (pid" "a killed run" record "$SCRATCH/killed" --db "$SCRATCH/results.sqlite"
cp -R "$last" "$SCRATCH/corrupt"
printf '{"schema": "harness.summary/1", ' >"$SCRATCH/corrupt/summary_ranks_1_rank_0.json"
bad 2 "$SCRATCH/corrupt/summary_ranks_1_rank_0.json:1:" "a corrupt summary" \
    record "$SCRATCH/corrupt" --db "$SCRATCH/results.sqlite"
bad 2 "record: --commit is empty (an unset variable?)" "an empty --commit (\$GIT_SHA unset)" \
    record "$SCRATCH/corrupt" --db "$SCRATCH/results.sqlite" --commit "" --branch main
bad 2 "record: --branch is empty" "an empty --branch" record "$last" --db "$SCRATCH/results.sqlite" --branch ""
[ "$(sum)" = "$before" ] || fail "the database changed after bad input"
printf 'not a database, only some text that is long enough for a header..............\n' >"$SCRATCH/text.sqlite"
bad 2 "$SCRATCH/text.sqlite: " "a file that is not a database" history --db "$SCRATCH/text.sqlite"
bad 2 "$SCRATCH/text.sqlite: " "recording into a file that is not a database" \
    record "$last" --db "$SCRATCH/text.sqlite"
# a damaged database: a clean copy (the backup API folds the WAL in), then
# pages 3-8 (machines, experiments, runs) overwritten
python3 - "$SCRATCH/results.sqlite" "$SCRATCH/damaged.sqlite" <<'PY' || fail "making a damaged database"
import sqlite3, sys
src, dst = sqlite3.connect(sys.argv[1]), sqlite3.connect(sys.argv[2])
src.backup(dst)
dst.execute("PRAGMA journal_mode = DELETE")
dst.close()
b = bytearray(open(sys.argv[2], "rb").read())
page = int.from_bytes(b[16:18], "big")
for i in range(2 * page, min(len(b), 8 * page)):
    b[i] = 0xA5
open(sys.argv[2], "wb").write(b)
PY
bad 2 "$SCRATCH/damaged.sqlite: reading the runs: database disk image is malformed" "a damaged database" \
    history --db "$SCRATCH/damaged.sqlite"
bad 2 "$SCRATCH/absent.sqlite: No such file" "history of no database" history --db "$SCRATCH/absent.sqlite"
[ ! -e "$SCRATCH/absent.sqlite" ] || fail "history created a database"
cp "$SCRATCH/results.sqlite" "$SCRATCH/newer.sqlite"
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('UPDATE schema_version SET version = 7'); c.commit()" \
    "$SCRATCH/newer.sqlite" || fail "making a newer database"
bad 2 "written by a newer harness (schema version 7; this harness reads up to 3)" "a newer schema" \
    record "$last" --db "$SCRATCH/newer.sqlite"
# locked: another writer holds it past the lock timeout (--db-timeout 1:
# about a second of waiting, said with the limit; db_load.sh tests more)
python3 - "$SCRATCH/results.sqlite" "$HARNESS" "$last" <<'PY' || fail "locked database"
import sqlite3, subprocess, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
t = time.monotonic()
r = subprocess.run([sys.argv[2], "record", sys.argv[3], "--db", sys.argv[1], "--db-timeout", "1"],
                   capture_output=True, text=True)
took = time.monotonic() - t
assert r.returncode == 3, (r.returncode, r.stderr)
assert "database is locked: waited 1.0 s for the lock" in r.stderr and sys.argv[1] in r.stderr, r.stderr
assert "nothing recorded" in r.stderr, r.stderr
assert 0.9 < took < 10, took
c.execute("ROLLBACK")
PY
[ "$(sum)" = "$before" ] || fail "the database changed after a locked record"
bad 2 "record: --db FILE is required" "record without --db" record "$last"
bad 2 "history: --db FILE is required" "history without --db" history
# an alpha below the smallest permutation p, 1/(permutations+1), could never find a change point
bad 2 "history: --alpha 0.001 can never be reached with --permutations 499 (the smallest permutation p is \
1/(499+1) = 0.002): use --permutations 999 or more (the rule: permutations >= ceil(1/alpha) - 1), or a larger --alpha" \
    "--alpha below 1/(permutations+1)" history --db "$SCRATCH/results.sqlite" --alpha 0.001
bad 2 "history: --alpha 0.003 can never be reached with --permutations 332" "--alpha 0.003 with 332 permutations" \
    history --db "$SCRATCH/results.sqlite" --permutations 332 --alpha 0.003
expect_exit 0 "history: --alpha 0.003 with 333 permutations (1/334 <= 0.003)" "$HARNESS" history \
    --db "$SCRATCH/results.sqlite" --alpha 0.003 --permutations 333
grep -q "alpha 0.003, 333 permutations" "$SCRATCH/out" || fail "history: --alpha 0.003 --permutations 333 used"

# --min-change: a percentage, stated in the report; a bad value names the option.
expect_exit 0 "history: --min-change 5%" "$HARNESS" history --db "$SCRATCH/results.sqlite" --min-change 5%
grep -q "steps under 5% dropped" "$SCRATCH/out" || fail "history: --min-change 5% used"
grep -q "^  change at #8 (commit c8)" "$SCRATCH/out" || fail "history: --min-change 5% keeps the 20% step"
expect_exit 0 "history: --min-change 50" "$HARNESS" history --db "$SCRATCH/results.sqlite" --min-change 50
grep -q "12 runs, 0 change points$" "$SCRATCH/out" || fail "history: --min-change 50 drops the 20% step"
expect_exit 0 "history: the default min change" "$HARNESS" history --db "$SCRATCH/results.sqlite" --format json
python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))["method"]; assert m["min_change_pct"] == 2, m' \
    "$SCRATCH/out" || fail "history json: min_change_pct 2 by default"
for v in abc -1 101 5x ""; do
    bad 2 "--min-change: expected a percentage from 0 to 100 (2 or 2%), got '$v'" "--min-change '$v'" \
        history --db "$SCRATCH/results.sqlite" --min-change "$v"
done

expect_exit 0 "record --help" "$HARNESS" record --help
expect_exit 0 "history --help" "$HARNESS" history --help
grep -q "E-divisive" "$SCRATCH/out" || fail "history --help: the method"
grep -q "min-change PCT .*under PCT percent" "$SCRATCH/out" && grep -q "(default 2; 0 keeps every significant one)" \
    "$SCRATCH/out" || fail "history --help: --min-change and its default"
# An interrupted run: record keeps it and says history will leave it out;
# history, finding nothing else, says why (the two agree).
dir=$("$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/int" --quiet 2>/dev/null)
python3 - "$dir/summary_ranks_1_rank_0.json" <<'PY' || fail "mark the run interrupted"
import json, sys
s = json.load(open(sys.argv[1]))
s["status"] = "interrupted"
json.dump(s, open(sys.argv[1], "w"))
PY
expect_exit 0 "record an interrupted run" "$HARNESS" record "$dir" --db "$SCRATCH/int.sqlite"
grep -q "^recorded 1 run " "$SCRATCH/out" || fail "record: $(cat "$SCRATCH/out")"
expect_err "1 of the runs recorded did not finish ok" "record says history will leave it out"
expect_exit 2 "history of only an interrupted run" "$HARNESS" history --db "$SCRATCH/int.sqlite"
expect_err "the database holds 1 run that did not finish ok" "history says why it shows no run"
finish
