#!/bin/sh
# The machine formats, each read back by a consumer of its own (issue 41):
# export --format bmf validated against a JSON schema written from Bencher's
# documentation (tests/integration/formats/bmf.schema.json, with jsonschema);
# gha and gha-throughput in github-action-benchmark's custom shape; gbench
# read by a reader written from Google Benchmark's format
# (formats/read_gbench.py: what its compare.py needs), which sees a 50 us
# spin against an 80 us one as +60%; one benchmark name in every format;
# compare and ab --format junit parsed by junitparser (counts, messages, the
# outcome per verdict and --on-ambiguous, XML escaping of a hostile name);
# --report FORMAT=FILE beside stdout; bad formats (exit 2) and an unwritable
# report (exit 3, named, before ab runs a round).
. "$top_builddir/tests/setup"
FORMATS="$top_srcdir/tests/integration/formats"
if ! python3 -c "import jsonschema, junitparser" 2>/dev/null; then
    echo "SKIP: python3 lacks jsonschema or junitparser (scripts/setup installs them from PyPI)"
    exit 77
fi

# spin DIR DURATION_NS REPEAT RUNS: spin_tiny runs into $SCRATCH/DIR, all
# labelled duration_ns=50000 (an 80 us build then matches a 50 us one, as a
# slower build of one benchmark would) and their noise bound cleared (the
# interference veto has its own tests in compare.sh); prints the folder.
spin() {
    dir=$("$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/$1" --quiet --runs "$4" \
        --set component.config.duration_ns="$2" --set schedule.measurement_steps=30 \
        --set schedule.repeat="$3" --set profiling.trace=false --set profiling.memory=false \
        2>>"$SCRATCH/spin.err") || return 1
    python3 - "$dir" <<'PY' || return 1
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/summary_ranks_1_rank_0.json") + glob.glob(sys.argv[1] + "/*/summary_ranks_1_rank_0.json"):
    s = json.load(open(f))
    s["component"]["config"]["duration_ns"] = 50000
    for o in [s.get("noise")] + [w.get("noise") for w in s["timing"].get("windows", [])]:
        if isinstance(o, dict) and "median_shift_bound" in o:
            o["median_shift_bound"] = 0
    json.dump(s, open(f, "w"))
PY
    echo "$dir"
}
base5=$(spin base5 50000 3 5) || fail "five 50 us runs"
slow5=$(spin slow5 80000 3 5) || fail "five 80 us runs"
base1=$(spin base1 50000 5 1) || fail "one 50 us run"
slow1=$(spin slow1 80000 5 1) || fail "one 80 us run"
one=$("$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" --output-dir "$SCRATCH/one" --quiet --set schedule.repeat=3 \
    --set profiling.trace=false --set profiling.memory=false 2>>"$SCRATCH/spin.err") || fail "an rms_norm run"

# ---- export: bmf, gha, gha-throughput, gbench, and csv's benchmark column
for f in bmf gha gha-throughput gbench json; do
    expect_exit 0 "export --format $f" "$HARNESS" export "$base5" "$one" --format "$f"
    cp "$SCRATCH/out" "export.$f"
done
expect_exit 0 "export --rows runs" "$HARNESS" export "$base5" "$one" --format json --rows runs
cp "$SCRATCH/out" export.runs
expect_exit 0 "export gbench of the 80 us runs" "$HARNESS" export "$slow5" --format gbench
cp "$SCRATCH/out" slow.gbench
python3 - "$FORMATS" <<'PY' && pass "bmf, gha and gbench read back" || fail "the machine formats"
import json, statistics, sys
import jsonschema
sys.path.insert(0, sys.argv[1])
import read_gbench

runs = json.load(open("export.runs"))
windows = json.load(open("export.json"))
names = list(dict.fromkeys(r["benchmark"] for r in windows))
spin, rms = "spin_tiny/spin/cpu/duration_ns=50000", \
    "rms_norm_tiny/rms_norm/cpu/batch_size=2,seq_len=3,hidden_size=7,eps=1e-06,dtype=fp32"
assert names == [spin, rms], names

# Bencher: the schema, then the figures (latency from the runs' medians)
bmf = json.load(open("export.bmf"))
jsonschema.validate(bmf, json.load(open(sys.argv[1] + "/bmf.schema.json")))
assert list(bmf) == names, list(bmf)
spin_medians = [r["median_ns"] for r in runs if r["benchmark"] == spin]
assert len(spin_medians) == 5, spin_medians
lat = bmf[spin]["latency"]
assert lat["value"] == statistics.median(spin_medians), (lat, spin_medians)
assert (lat["lower_value"], lat["upper_value"]) == (min(spin_medians), max(spin_medians)), lat
(r,) = [r for r in runs if r["benchmark"] == rms]
lat = bmf[rms]["latency"]
assert (lat["value"], lat["lower_value"], lat["upper_value"]) == (r["median_ns"], r["ci_lo_ns"], r["ci_hi_ns"]), lat
for name in names:
    m = bmf[name]
    assert abs(m["throughput"]["value"] * m["latency"]["value"] - 1e9) < 1e-3, m
    assert m["throughput"]["lower_value"] <= m["throughput"]["value"] <= m["throughput"]["upper_value"], m
    measured = [r["joules_per_step"] for r in runs if r["benchmark"] == name and r["joules_per_step"] is not None]
    assert ("energy" in m) == bool(measured), (m, measured)

# github-action-benchmark: an array of {name, unit, value, range, extra}
for fmt, unit in (("gha", "ns"), ("gha-throughput", "steps/s")):
    gha = json.load(open("export." + fmt))
    assert isinstance(gha, list) and [e["name"] for e in gha] == names, gha
    for e in gha:
        assert sorted(e) == ["extra", "name", "range", "unit", "value"], e
        assert e["unit"] == unit and isinstance(e["value"], (int, float)) and e["value"] > 0, e
        assert e["range"].startswith("\u00b1 ") and float(e["range"][2:]) >= 0, e
        assert isinstance(e["extra"], str) and "median" in e["extra"], e
        latency = bmf[e["name"]]["latency"]["value"]
        # the rate is the exporter's own division: equal to within rounding, not to the bit
        expect = latency if unit == "ns" else 1e9 / latency
        assert abs(e["value"] - expect) <= 1e-12 * expect, (e, latency)

# Google Benchmark: the reader, a repetition per window, the aggregates, and
# compare.py's change between the 50 us and the 80 us runs
g = read_gbench.read("export.gbench")
reps = [b for b in g["benchmarks"] if b["run_type"] == "iteration" and b["name"] == spin]
assert len(reps) == 15 and [b["real_time"] for b in reps] == \
    [w["median_ns"] for w in windows if w["benchmark"] == spin], reps
aggs = {b["aggregate_name"]: b for b in g["benchmarks"] if b["run_type"] == "aggregate" and b["run_name"] == spin}
assert sorted(aggs) == ["cv", "mean", "median", "stddev"], aggs
times = [b["real_time"] for b in reps]
assert abs(aggs["mean"]["real_time"] - statistics.mean(times)) < 1e-6 * aggs["mean"]["real_time"], aggs["mean"]
assert aggs["median"]["real_time"] == statistics.median(times), aggs["median"]
assert abs(aggs["stddev"]["real_time"] - statistics.stdev(times)) <= 1e-6 * aggs["mean"]["real_time"], aggs["stddev"]
assert {b["run_name"] for b in g["benchmarks"]} == set(names)
assert g["context"]["num_cpus"] >= 1 and g["context"]["host_name"], g["context"]
change = read_gbench.compare(g, read_gbench.read("slow.gbench"))
assert set(change) == {spin, spin + "_mean", spin + "_median", spin + "_stddev", spin + "_cv"}, change
(med,) = change[spin + "_median"]
assert 0.45 < med[0] < 0.75, med
PY
# A run that is not ok: left out of bmf (said on stderr), an error in gbench.
failed=$(cp -r "$base1" "$SCRATCH/failed" && echo "$SCRATCH/failed")
python3 - "$failed/summary_ranks_1_rank_0.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["status"], s["error"] = "failed", "it <broke> & stopped"
json.dump(s, open(sys.argv[1], "w"))
PY
expect_exit 0 "bmf of a failed run" "$HARNESS" export "$failed" "$one" --format bmf
expect_err "export --format bmf: 1 row left out" "bmf says what it left out"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert list(d)==['rms_norm_tiny/rms_norm/cpu/batch_size=2,seq_len=3,hidden_size=7,eps=1e-06,dtype=fp32'], d" \
    "$SCRATCH/out" && pass "bmf: only the ok run" || fail "bmf with a failed run: $(cat "$SCRATCH/out")"
expect_exit 0 "gbench of a failed run" "$HARNESS" export "$failed" --format gbench
python3 - "$FORMATS" "$SCRATCH/out" <<'PY' && pass "gbench: the failed run's windows are errors" || fail "gbench errors"
import sys
sys.path.insert(0, sys.argv[1])
import read_gbench
g = read_gbench.read(sys.argv[2])
assert g["benchmarks"] and all(b["error_occurred"] and b["error_message"] == "it <broke> & stopped"
                               for b in g["benchmarks"]), g["benchmarks"]
PY
expect_exit 2 "export --format xml" "$HARNESS" export "$one" --format xml
expect_err "export: --format: expected csv, json, bmf, gha, gha-throughput or gbench, got 'xml'" "names the formats"
expect_exit 2 "export --format bmf --rows windows" "$HARNESS" export "$one" --format bmf --rows windows
expect_err "--rows is for csv and json" "--rows with a machine format"

# ---- compare --format junit: the outcome per verdict
junit() {   # junit FILE TESTS FAILURES ERRORS SKIPPED TEXT...: counts, and each TEXT in a message
    python3 - "$@" <<'PY'
import sys
from junitparser import JUnitXml, Failure, Error, Skipped
path, tests, failures, errors, skipped, *texts = sys.argv[1:]
xml = JUnitXml.fromfile(path)
(suite,) = list(xml)
assert (suite.tests, suite.failures, suite.errors, suite.skipped) == tuple(map(int, (tests, failures, errors, skipped))), \
    (suite.tests, suite.failures, suite.errors, suite.skipped)
cases = list(suite)
assert len(cases) == int(tests)
messages = " | ".join((r.message or "") for c in cases for r in c.result)
for t in texts:
    assert t in messages or t in " ".join(c.name for c in cases), (t, messages)
PY
}
expect_exit 1 "compare junit: a regression" "$HARNESS" compare "$base5" "$slow5" --format junit
junit "$SCRATCH/out" 1 1 0 0 "REGRESSION: cand/base 1." "interval [1." "spin_tiny/spin/cpu/duration_ns=50000" &&
    pass "REGRESSION is a failure with the ratio and its interval" || fail "junit regression: $(cat "$SCRATCH/out")"
cp "$SCRATCH/out" regression.xml
expect_exit 0 "compare junit: the same runs" "$HARNESS" compare "$base5" "$base5" --format junit
junit "$SCRATCH/out" 1 0 0 0 && pass "SAME passes" || fail "junit same: $(cat "$SCRATCH/out")"
expect_exit 1 "compare junit: single runs" "$HARNESS" compare "$base1" "$slow1" --format junit
junit "$SCRATCH/out" 1 1 0 0 "AMBIGUOUS (single runs)" && pass "AMBIGUOUS fails by default" ||
    fail "junit ambiguous: $(cat "$SCRATCH/out")"
expect_exit 0 "compare junit: single runs, ambiguous passes" "$HARNESS" compare "$base1" "$slow1" --format junit \
    --on-ambiguous pass
junit "$SCRATCH/out" 1 0 0 1 "AMBIGUOUS (single runs)" && pass "AMBIGUOUS is skipped when it passes" ||
    fail "junit ambiguous pass: $(cat "$SCRATCH/out")"
expect_exit 1 "compare junit: a failed run" "$HARNESS" compare "$base1" "$failed" --format junit
junit "$SCRATCH/out" 1 0 1 0 "FAILED: cand status failed (it <broke> & stopped)" && pass "FAILED is an error" ||
    fail "junit failed: $(cat "$SCRATCH/out")"
# A hostile experiment name: escaped, read back whole.
hostile=$(cp -r "$base1" "$SCRATCH/hostile" && echo "$SCRATCH/hostile")
python3 - "$hostile/summary_ranks_1_rank_0.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["experiment"]["name"] = "a<b>&\"c'\x01]]>"
json.dump(s, open(sys.argv[1], "w"))
PY
expect_exit 0 "compare junit: a hostile name" "$HARNESS" compare "$hostile" "$hostile" --format junit
junit "$SCRATCH/out" 1 0 0 0 "a<b>&\"c']]>/spin/cpu/duration_ns=50000" && pass "XML escaped, the name intact" ||
    fail "junit escaping: $(cat "$SCRATCH/out")"

# ---- --report FORMAT=FILE: the same verdict in more formats, from one run
expect_exit 1 "compare --report" "$HARNESS" compare "$base5" "$slow5" --format markdown \
    --report junit="$SCRATCH/r.xml" --report json="$SCRATCH/r.json"
head -1 "$SCRATCH/out" | grep -q '^\*\*harness compare: REGRESSION\*\*' && pass "stdout: the markdown" ||
    fail "--report: stdout $(head -3 "$SCRATCH/out")"
cmp -s "$SCRATCH/r.xml" regression.xml && pass "the junit file is --format junit's" || fail "--report junit differs"
python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['verdict'] == 'regression'" "$SCRATCH/r.json" &&
    pass "the json file" || fail "--report json"
ls -a "$SCRATCH" | grep -q '^\.r\.' && fail "a temporary file left behind" || pass "no temporary file left"
expect_exit 2 "--report xml=FILE" "$HARNESS" compare "$base5" "$slow5" --report xml="$SCRATCH/x.xml"
expect_err "--report xml=$SCRATCH/x.xml: unknown format 'xml'; expected text, markdown, json or junit" \
    "an unknown report format names the valid ones"
expect_exit 2 "--report junit" "$HARNESS" compare "$base5" "$slow5" --report junit
expect_err "--report: expected FORMAT=FILE" "a report without its file"
expect_exit 3 "--report to a missing folder" "$HARNESS" compare "$base5" "$slow5" --report junit=/nonexistent/r.xml
expect_err "cannot write /nonexistent/r.xml" "the unwritable report is named"
mkdir ro && chmod 555 ro
if [ "$(id -u)" -ne 0 ]; then
    expect_exit 3 "--report into a read-only folder" "$HARNESS" compare "$base5" "$slow5" --report junit=ro/r.xml
    expect_err "cannot write ro/r.xml" "the read-only report is named"
fi
mkdir -p dir.xml
expect_exit 3 "--report onto a folder" "$HARNESS" compare "$base5" "$slow5" --report junit=dir.xml
expect_err "--report: cannot write dir.xml" "a report that cannot replace its path is named"

# ---- ab: markdown on stdout and JUnit in a file from one run
quick="--set schedule.measurement_steps=20 --set schedule.warmup_steps=2 --set profiling.trace=false
       --set profiling.memory=false"
# shellcheck disable=SC2086
expect_exit 3 "ab --report unwritable" "$HARNESS" ab "$CONFIGS/spin_tiny.yaml" "$CONFIGS/spin_tiny.yaml" \
    --rounds 6 --output-dir "$SCRATCH/ab_bad" $quick --report junit=/nonexistent/ab.xml
expect_err "cannot write /nonexistent/ab.xml" "ab names the unwritable report"
[ -e "$SCRATCH/ab_bad" ] && fail "ab ran rounds before refusing the report" || pass "nothing ran"
# shellcheck disable=SC2086
"$HARNESS" ab "$CONFIGS/spin_tiny.yaml" "$CONFIGS/spin_tiny.yaml" --rounds 6 --output-dir "$SCRATCH/ab" $quick \
    --quiet --on-ambiguous pass --format markdown --report junit="$SCRATCH/ab.xml" >ab.md 2>ab.err
rc=$?
[ "$rc" -le 1 ] && pass "ab ran (exit $rc)" || fail "ab: exit $rc: $(cat ab.err)"
head -1 ab.md | grep -q '^\*\*harness ab: ' && pass "ab: the markdown on stdout" || fail "ab stdout: $(head -3 ab.md)"
python3 - "$SCRATCH/ab.xml" <<'PY' && pass "ab: the junit file" || fail "ab junit: $(cat "$SCRATCH/ab.xml")"
import sys
from junitparser import JUnitXml
(suite,) = list(JUnitXml.fromfile(sys.argv[1]))
assert suite.name == "harness ab" and suite.tests == 1 and suite.errors == 0, (suite.name, suite.tests)
(case,) = list(suite)
assert case.name == "spin_tiny/spin/cpu/duration_ns=50000" and case.classname == "spin_tiny", (case.name, case.classname)
PY
finish
