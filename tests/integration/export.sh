#!/bin/sh
# harness export: one row per rank and window from the window statistics,
# config.* and env.* columns (their union over folders), CSV quoting that
# Python's csv module reads back, several folders, a run that crashed while
# measuring, one that failed before measuring, a folder with only its
# status.json, and bad input (exit 2, nothing printed).
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

# Bad input: exit 2, a message naming what, and nothing on stdout.
expect_exit 2 "a missing folder" "$HARNESS" export "$a" nowhere
expect_err "export: nowhere: No such file or directory" "the missing folder is named"
[ -s "$SCRATCH/out" ] && fail "nothing printed for a bad folder" || pass "nothing printed for a bad folder"
mkdir empty
expect_exit 2 "a folder that is not an experiment" "$HARNESS" export empty
expect_err "not an experiment folder" "says it is not an experiment"
expect_exit 2 "an unknown format" "$HARNESS" export "$a" --format xlsx
expect_err "expected csv or json, got 'xlsx'" "names the formats"
expect_exit 2 "no folder" "$HARNESS" export
mkdir broken && echo '{"schema": "harness.summary/1", "rank": ' >broken/summary_ranks_1_rank_0.json
expect_exit 2 "a truncated summary" "$HARNESS" export broken
expect_err "broken/summary_ranks_1_rank_0.json" "the bad summary is named"
finish
