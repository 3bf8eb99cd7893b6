#!/bin/sh
# harness export: one row per rank and window from the window statistics,
# config.* and env.* columns (their union over folders), CSV quoting that
# Python's csv module reads back, several folders, a run that crashed while
# measuring, one that failed before measuring, a folder with only its
# status.json, a job whose ranks failed (a row per rank, the status its
# status file gives), and bad input (exit 2, nothing printed).
. "$top_builddir/tests/setup"
CRASHY="--plugin-path $top_builddir/tests/fixtures/crashy"
# A comma and a quote in the folders' path: the experiment column needs quoting.
out='runs, "quoted"'

run_quiet() { "$HARNESS" run "$@" --quiet --output-dir "$out" 2>>run.err; }
a=$(run_quiet "$CONFIGS/rms_norm_tiny.yaml") || fail "run a"
b=$(run_quiet "$CONFIGS/rms_norm_tiny.yaml" --set schedule.repeat=3 --set component.config.hidden_size=9 \
    --set component.config.dtype=bf16) || fail "run b"
crashed=$(run_quiet "$CONFIGS/crashy.yaml" $CRASHY --set component.variant_key=crashy_segv \
    --set component.config.after=24)
[ -d "$crashed" ] || fail "a run that crashes while measuring leaves a folder"
failed=$(run_quiet "$CONFIGS/crashy.yaml" $CRASHY --set component.variant_key=crashy_segv \
    --set component.config.in=create)
[ -d "$failed" ] || fail "a run that crashes in create leaves a folder"
# A run killed before its summaries: only status.json is left.
killed="$out/killed"
mkdir -p "$killed" && cp "$crashed/status.json" "$killed/"

expect_exit 0 "export csv" "$HARNESS" export "$a" "$b" "$crashed" "$failed" "$killed"
cp out export.csv
expect_exit 0 "export json" "$HARNESS" export "$a" "$b" "$crashed" "$failed" "$killed" --format json
cp out export.json
expect_exit 0 "export -f csv equals the default" "$HARNESS" export -f csv "$a" "$b" "$crashed" "$failed" "$killed"
cmp -s out export.csv && pass "-f csv is the default" || fail "-f csv differs from the default"

python3 - "$a" "$b" "$crashed" "$failed" "$killed" <<'PY' && pass "csv and json rows, columns and values" || fail "export's content"
import csv, json, sys
a, b, crashed, failed, killed = sys.argv[1:]
rows = list(csv.DictReader(open("export.csv", newline="")))
raw = open("export.csv", newline="").read()
assert raw.endswith("\r\n") and '"runs, ""quoted""/' in raw, raw[:300]
records = json.load(open("export.json"))
assert len(rows) == len(records), (len(rows), len(records))
header = next(csv.reader(open("export.csv", newline="")))
assert header == list(records[0].keys()), "json and csv have the same columns in the same order"
for col in ["experiment", "name", "status", "error", "rank", "world_size", "variant_key", "device_type", "validation",
            "window", "n", "median_ns", "p99_ns", "ci_lo_ns", "ci_hi_ns", "ci_level", "gb_per_s",
            "bytes_per_step", "config.hidden_size", "config.dtype", "config.after", "env.host", "env.cpu",
            "env.caches.l1d", "env.harness_version"]:
    assert col in header, col
assert "samples" not in " ".join(header), "no per-sample columns"
by = {}
for r in records:
    by.setdefault(r["experiment"], []).append(r)
assert [r["window"] for r in by[a]] == [0, 1] and [r["window"] for r in by[b]] == [0, 1, 2], by
for r in by[a] + by[b]:
    assert r["status"] == "ok" and r["error"] is None and r["rank"] == 0 and r["world_size"] == 1
    assert r["variant_key"] == "rms_norm/cpu" and r["validation"] == "passed" and r["n"] == 5
    assert r["ci_lo_ns"] <= r["median_ns"] <= r["ci_hi_ns"], r
    assert abs(r["gb_per_s"] - r["bytes_per_step"] / r["median_ns"]) < 1e-9 * r["gb_per_s"], r
assert by[a][0]["config.hidden_size"] == 7 and by[b][0]["config.hidden_size"] == 9
assert by[a][0]["config.dtype"] == "fp32" and by[b][0]["config.dtype"] == "bf16"
assert by[a][0]["config.after"] is None, "a column another folder has is null here"
# The crash after 24 steps: the first window whole, the second cut short.
c = by[crashed]
assert [r["status"] for r in c] == ["crashed"] * len(c) and len(c) == 2, c
assert c[0]["n"] == 20 and c[1]["n"] < 20 and "SIGSEGV" in c[0]["error"], c
# Crashed in create: one row, no statistics.
f = by[failed]
assert len(f) == 1 and f[0]["status"] == "crashed" and f[0]["window"] is None and f[0]["median_ns"] is None, f
k = by[killed]
assert len(k) == 1 and k[0]["status"] == "crashed" and k[0]["variant_key"] == "crashy_segv/cpu", k
# CSV cells read back as the JSON values.
for r, j in zip(rows, records):
    for key, v in j.items():
        cell = r[key]
        if v is None:
            assert cell == "", (key, cell)
        elif isinstance(v, bool):
            assert cell == ("true" if v else "false"), (key, cell)
        elif isinstance(v, (int, float)):
            # cJSON prints doubles to 15 digits when they read back within an ulp.
            assert abs(float(cell) - v) <= 4e-16 * abs(v), (key, cell, v)
        else:
            assert cell == v, (key, cell, v)
PY

# A job of 2 ranks (made of run a): rank 0 left no summary (status.json
# says failed), rank 1's summary says ok but its status file says running,
# from a process that is gone: killed.
# A row per rank, each with the status its status file gives, as for a
# one-rank run that failed before measuring.
job="$out/job"
mkdir -p "$job"
python3 - "$a" "$job" <<'PY' || fail "making a 2-rank job"
import json, sys
src, dst = sys.argv[1:]
s, st = json.load(open(f"{src}/summary_ranks_1_rank_0.json")), json.load(open(f"{src}/status.json"))
s["rank"], s["world_size"] = 1, 2
json.dump(s, open(f"{dst}/summary_ranks_2_rank_1.json", "w"))
st.update(status="running", complete=False)
json.dump(st, open(f"{dst}/status_ranks_2_rank_1.json", "w"))
st.update(status="failed", error="cannot write summary_ranks_2_rank_0.json: No space left on device")
json.dump(st, open(f"{dst}/status.json", "w"))
PY
expect_exit 0 "export a job whose ranks failed" "$HARNESS" export "$job" --format json
python3 - "$SCRATCH/out" <<'PY' && pass "a row per rank, with its status" || fail "export of a job whose ranks failed"
import json, sys
rows = json.load(open(sys.argv[1]))
r0 = [r for r in rows if r["rank"] == 0]
r1 = [r for r in rows if r["rank"] == 1]
assert len(r0) == 1 and len(r1) == 2 and len(rows) == 3, rows
assert r0[0]["status"] == "failed" and "No space left" in r0[0]["error"] and r0[0]["world_size"] == 2, r0
assert r0[0]["variant_key"] == "rms_norm/cpu" and r0[0]["median_ns"] is None, r0
for r in r1:
    assert r["status"] == "killed" and r["world_size"] == 2 and r["median_ns"] > 0, r
    assert "status_ranks_2_rank_1.json says killed, the summary ok: it says running, but" in r["error"], r
PY
rm -f "$job/status.json" "$job/status_ranks_2_rank_1.json"
expect_exit 0 "export a job with a rank that left no file" "$HARNESS" export "$job" --format json
python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))[0]
assert r["rank"] == 0 and r["status"] == "missing" and "no status file" in r["error"], r' "$SCRATCH/out" &&
    pass "a rank with no file: status missing" || fail "a rank with no file"

# The folder of them all, as compare takes it: every row of naming each
# (and the job's, made since in the same folder).
expect_exit 0 "export a folder of experiments" "$HARNESS" export "$out" --format json
python3 - "$SCRATCH/out" "$SCRATCH/export.json" <<'PY' && pass "a folder of experiments: every run's rows" ||
import json, sys
got, named = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
key = lambda r: (r["experiment"], r["rank"], r.get("window"))
assert set(map(key, named)) <= set(map(key, got)) and len(got) > len(named), (len(got), len(named))
PY
    fail "export of a folder of experiments"

# Bad input: exit 2, a message naming what, and nothing on stdout.
# --rows runs: a row per rank with its whole-run statistics (the summary's
# timing), no window; --rows windows is the default's table.
expect_exit 0 "export --rows runs" "$HARNESS" export "$a" "$b" --rows runs --format json
python3 - "$SCRATCH/out" "$a/summary_ranks_1_rank_0.json" "$b/summary_ranks_1_rank_0.json" <<'PY' &&
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 2, len(rows)
for row, path in zip(rows, sys.argv[2:]):
    t = json.load(open(path))["timing"]
    assert row["window"] is None and row["n"] == t["n"] and row["median_ns"] == t["median"], (row, t["n"])
    assert row["ci_lo_ns"] == t["ci95_median"][0] and row["gb_per_s"] > 0, row
assert rows[1]["n"] == 3 * json.load(open(sys.argv[3]))["timing"]["windows"][0]["n"]
PY
    pass "--rows runs: one row per run, its statistics" || fail "--rows runs: $(head -c 600 "$SCRATCH/out")"
expect_exit 0 "export --rows windows" "$HARNESS" export "$a" "$b" "$crashed" "$failed" "$killed" --rows windows
cmp -s "$SCRATCH/out" export.csv && pass "--rows windows is the default" || fail "--rows windows differs from the default"
expect_exit 2 "--rows steps" "$HARNESS" export "$a" --rows steps
expect_err "export: --rows: expected windows or runs, got 'steps'" "--rows: a bad value is named"
expect_exit 2 "a missing folder" "$HARNESS" export "$a" nowhere
expect_err "export: nowhere: no such folder; expected an experiment folder" "the missing folder is named"
[ -s "$SCRATCH/out" ] && fail "nothing printed for a bad folder" || pass "nothing printed for a bad folder"
mkdir empty
expect_exit 2 "a folder that is not an experiment" "$HARNESS" export empty
expect_err "not an experiment folder" "says it is not an experiment"
expect_exit 2 "an unknown format" "$HARNESS" export "$a" --format xlsx
expect_err "expected csv, json, bmf, gha, gha-throughput or gbench, got 'xlsx'" "names the formats"
expect_exit 2 "no folder" "$HARNESS" export
mkdir broken && echo '{"schema": "harness.summary/1", "rank": ' >broken/summary_ranks_1_rank_0.json
expect_exit 2 "a truncated summary" "$HARNESS" export broken
expect_err "broken/summary_ranks_1_rank_0.json" "the bad summary is named"
# Another version's summary: refused (exit 2) with the file and both ids
# named, as compare refuses it (util/folder_format.h).
mkdir newer && echo '{"schema": "harness.summary/9", "status": "ok", "rank": 0, "world_size": 1}' \
    >newer/summary_ranks_1_rank_0.json
expect_exit 2 "a summary of an unknown schema" "$HARNESS" export newer
expect_err "newer/summary_ranks_1_rank_0.json: schema \"harness.summary/9\" is not \"harness.summary/1\"" \
    "the unknown schema's file is named"
finish
