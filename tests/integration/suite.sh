#!/bin/sh
# Suites: `harness run` over several configs, a folder of them and a
# NAME.suite file, each --runs N times as fresh processes into one folder
# with an index.json; --filter over benchmark names (and sweep points);
# compare of two suite folders (each config's runs are its replicates, the
# pairs judged together with Benjamini-Hochberg); record and history of a
# suite; Ctrl-C; and the bad inputs: exit 2 naming what is wrong, with no
# suite folder left behind.
. "$top_builddir/tests/setup"

no_folder() { [ ! -e "$SCRATCH/bad" ] || { fail "$1: left $(ls "$SCRATCH/bad")"; rm -rf "$SCRATCH/bad"; }; }
mkdir -p "$SCRATCH/cfgs"
spin_config() {  # spin_config FILE NAME DURATION_NS
    cat >"$1" <<YAML
experiment: {name: $2}
schedule: {warmup_steps: 2, wait_steps: 1, measurement_steps: 15, repeat: 2}
profiling: {trace: false, memory: false}
component: {variant_key: spin, config: {duration_ns: $3}}
validate: false
YAML
}
spin_config "$SCRATCH/cfgs/a.yaml" spin_a 20000
spin_config "$SCRATCH/cfgs/b.yaml" spin_b 30000
cat >"$SCRATCH/sweep.yaml" <<'YAML'
experiment: {name: swept}
schedule: {warmup_steps: 2, wait_steps: 1, measurement_steps: 10, repeat: 2}
profiling: {trace: false, memory: false}
component: {variant_key: spin, config: {duration_ns: 10000}}
sweep: {component.config.duration_ns: [10000, 20000, 40000]}
validate: false
YAML
printf '# the spins\n%s\n\n  cfgs/b.yaml  \n' "cfgs/a.yaml" >"$SCRATCH/two.suite"

# A folder, twice over: every config, run 1 of each then run 2.
expect_exit 0 "a folder of configs, --runs 2" "$HARNESS" run "$SCRATCH/cfgs" --runs 2 --output-dir "$SCRATCH/s1"
suite=$(tail -1 "$SCRATCH/out")
case $suite in "$SCRATCH"/s1/*_suite) pass "the last line is the suite folder" ;; *) fail "last line: $suite" ;; esac
grep -q "^run 1/2  spin_a spin/cpu .* exit 0" "$SCRATCH/out" || fail "a line per run: $(cat "$SCRATCH/out")"
python3 - "$suite" <<'PY' || fail "index.json"
import json, os, sys
d = sys.argv[1]
x = json.load(open(os.path.join(d, "index.json")))
assert x["schema"] == "harness.suite/1" and x["status"] == "ok" and x["runs"] == 2 and x["filter"] is None, x
assert [c["path"].rsplit("/", 1)[1] for c in x["configs"]] == ["a.yaml", "b.yaml"], x["configs"]
order = [(e["config"].rsplit("/", 1)[1], e["run"]) for e in x["experiments"]]
assert order == [("a.yaml", 1), ("b.yaml", 1), ("a.yaml", 2), ("b.yaml", 2)], order
for e in x["experiments"]:
    (f,) = e["folders"]
    assert e["exit_code"] == 0 and os.path.isfile(os.path.join(d, f, "summary_ranks_1_rank_0.json")), e
PY

# A suite file (paths relative to it, comments and blank lines skipped) and
# a plain config given together; --quiet prints the folder alone.
expect_exit 0 "a suite file and a config, --quiet" "$HARNESS" run "$SCRATCH/two.suite" "$SCRATCH/sweep.yaml" \
    --quiet --output-dir "$SCRATCH/s2"
[ "$(wc -l <"$SCRATCH/out")" -eq 1 ] || fail "--quiet: more than the folder: $(cat "$SCRATCH/out")"
[ "$(ls -d "$(cat "$SCRATCH/out")"/*/ | wc -l)" -eq 5 ] || fail "2 configs and 3 sweep points: 5 folders"

# --filter: over configs and over sweep points, in a suite and in one run.
expect_exit 0 "--filter over a suite" "$HARNESS" run "$SCRATCH/cfgs" "$SCRATCH/sweep.yaml" --filter 'spin_b|=40000$' \
    --quiet --output-dir "$SCRATCH/s3"
python3 - "$(cat "$SCRATCH/out")" <<'PY' || fail "--filter: the runs it kept"
import json, os, sys
x = json.load(open(os.path.join(sys.argv[1], "index.json")))
kept = {c["path"].rsplit("/", 1)[1]: c["points_kept"] for c in x["configs"]}
assert kept == {"b.yaml": 1, "sweep.yaml": 1}, kept
assert sum(len(e["folders"]) for e in x["experiments"]) == 2, x["experiments"]
PY
expect_exit 0 "--filter on one sweep" "$HARNESS" run "$SCRATCH/sweep.yaml" --filter 'duration_ns=20000' \
    --output-dir "$SCRATCH/s4"
grep -q "skipped (--filter)" "$SCRATCH/out" || fail "the sweep table shows the points skipped"
[ "$(ls -d "$SCRATCH"/s4/*/ | wc -l)" -eq 1 ] || fail "--filter on one sweep: one folder"
expect_exit 0 "list --filter" "$HARNESS" list --filter '^spin/'
grep -q "^spin/cpu " "$SCRATCH/out" && ! grep -q "^noop/cpu" "$SCRATCH/out" || fail "list --filter shows spin alone"

# compare two suites: each config's runs are its replicates; two pairs are
# judged together (Benjamini-Hochberg, q in the JSON).
"$HARNESS" run "$SCRATCH/cfgs" --runs 4 --quiet --output-dir "$SCRATCH/base" >"$SCRATCH/base.path" 2>/dev/null ||
    fail "base suite"
"$HARNESS" run "$SCRATCH/cfgs" --runs 4 --quiet --output-dir "$SCRATCH/cand" >"$SCRATCH/cand.path" 2>/dev/null ||
    fail "cand suite"
expect_exit 0 "compare two suites" "$HARNESS" compare "$(cat "$SCRATCH/base.path")" "$(cat "$SCRATCH/cand.path")" \
    --threshold 30 --format json
python3 - "$SCRATCH/out" <<'PY' || fail "compare two suites: json"
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["pairs"]) == 2 and r["verdict"] == "same", r["verdict"]
for p in r["pairs"]:
    assert p["replicates"] == {"unit": "runs", "base": 4, "cand": 4}, p["replicates"]
    assert p["q_fdr"] is not None and p["q_fdr"] >= p["p"], p
assert any("2 pairs judged together" in n and "Benjamini-Hochberg" in n for n in r["notes"]), r["notes"]
PY

expect_exit 0 "compare --filter" "$HARNESS" compare "$(cat "$SCRATCH/base.path")" "$(cat "$SCRATCH/cand.path")" \
    --threshold 30 --filter '^spin_b ' --format json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert [p["config"]["duration_ns"] for p in r["pairs"]] == [30000]' \
    "$SCRATCH/out" || fail "compare --filter keeps spin_b alone"
expect_exit 2 "compare --filter matching nothing" "$HARNESS" compare "$(cat "$SCRATCH/base.path")" \
    "$(cat "$SCRATCH/cand.path")" --filter zzz
expect_err "--filter 'zzz' matches none of its 8 runs" "compare --filter matching nothing: message"

# ab over a suite: every benchmark's pair each round, the rounds listed by
# benchmark, the p adjusted together; --filter picks benchmarks.
expect_exit 2 "ab: too few rounds for a lone change" "$HARNESS" ab "$SCRATCH/cfgs" --rounds 6 --output-dir "$SCRATCH/ab"
expect_err "--rounds 6: a lone change among 2 benchmarks judged together needs p <= alpha / 2 = 0.025, and 6 rounds reach p = 0.0312 at best; use --rounds 7 or more" \
    "ab: too few rounds for a lone change: message"
[ -d "$SCRATCH/ab" ] && fail "ab: too few rounds: something ran"
expect_exit 0 "ab over a suite" "$HARNESS" ab "$SCRATCH/cfgs" --rounds 7 --threshold 30 --output-dir "$SCRATCH/ab" \
    --format json
python3 - "$SCRATCH/out" <<'PY' || fail "ab over a suite: json"
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["pairs"]) == 2 and all(p["replicates"]["unit"] == "rounds" for p in r["pairs"]), r["pairs"]
assert [(x["benchmark"], x["round"]) for x in r["rounds"]] == [(b, i) for b in (1, 2) for i in range(1, 8)]
# ABBA along the rounds and along a round's benchmarks
assert [x["first"] for x in r["rounds"][:2]] == ["base", "cand"] and r["rounds"][7]["first"] == "cand"
assert all(p["q_fdr"] is not None for p in r["pairs"]), r["pairs"]
PY
[ -d "$SCRATCH/ab/01-a" ] && [ -d "$SCRATCH/ab/02-b" ] || fail "ab over a suite: a folder per benchmark"
expect_exit 0 "ab --filter" "$HARNESS" ab "$SCRATCH/cfgs" --filter spin_a --rounds 6 --threshold 30 \
    --output-dir "$SCRATCH/ab2"
grep -q "^bench/round" "$SCRATCH/out" && fail "ab --filter: one benchmark has plain rounds" || pass "ab --filter: one benchmark"
[ ! -d "$SCRATCH/ab2/02-b" ] || fail "ab --filter ran spin_b"
expect_exit 2 "ab --time-budget too small" "$HARNESS" ab "$SCRATCH/cfgs" --time-budget 0.01 --output-dir "$SCRATCH/ab3"
expect_err "--time-budget 0.01 s: the first round of 2 benchmarks took" "the budget: message"
expect_err "fewer than the 7 that can call a lone change at --alpha 0.05 among them; give at least" "the budget: what it needs"
expect_exit 0 "ab --time-budget" "$HARNESS" ab "$SCRATCH/cfgs/a.yaml" "$SCRATCH/cfgs/a.yaml" --time-budget 600 \
    --rounds 7 --threshold 30 --output-dir "$SCRATCH/ab4"
expect_err "7 rounds fit in --time-budget 600 s" "the budget: rounds capped by --rounds"
expect_exit 2 "ab --filter matching nothing" "$HARNESS" ab "$SCRATCH/cfgs" --filter zzz --output-dir "$SCRATCH/bad"
no_folder "ab --filter matching nothing"

# record and history of a suite folder.
expect_exit 0 "record a suite" "$HARNESS" record "$(cat "$SCRATCH/base.path")" --db "$SCRATCH/r.sqlite" \
    --commit c1 --branch main
grep -q "recorded 8 runs from 8 experiment folders" "$SCRATCH/out" || fail "record: $(cat "$SCRATCH/out")"
expect_exit 0 "history of a suite, html" "$HARNESS" history --db "$SCRATCH/r.sqlite" --format html
grep -q "<svg" "$SCRATCH/out" || fail "history html: no chart"
expect_exit 0 "history --filter" "$HARNESS" history --db "$SCRATCH/r.sqlite" --filter 'duration_ns=30000' --format json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert len(r["series"]) == 1, len(r["series"])' \
    "$SCRATCH/out" || fail "history --filter keeps one series"
expect_exit 2 "history --filter matching nothing" "$HARNESS" history --db "$SCRATCH/r.sqlite" --filter zzz
expect_err "--filter 'zzz' matches none of the 2 series" "history --filter matching nothing: message"
# the candidate suite against the recorded base: four runs a side per series
expect_exit 0 "compare --baseline-db of a suite" "$HARNESS" compare --baseline-db "$SCRATCH/r.sqlite" \
    "$(cat "$SCRATCH/cand.path")" --threshold 30 --format json
python3 - "$SCRATCH/out" <<'PY' || fail "compare --baseline-db of a suite: json"
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["pairs"]) == 2 and r["verdict"] == "same", r["verdict"]
assert all(p["replicates"] == {"unit": "runs", "base": 4, "cand": 4} for p in r["pairs"]), r["pairs"]
PY
expect_exit 0 "export --filter" "$HARNESS" export "$(cat "$SCRATCH/base.path")" --filter spin_a --format json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert {x["name"] for x in r} == {"spin_a"} and len(r) == 8, r' \
    "$SCRATCH/out" || fail "export --filter: spin_a's 4 runs x 2 windows"
expect_exit 2 "export --filter matching nothing" "$HARNESS" export "$(cat "$SCRATCH/base.path")" --filter zzz
expect_err "--filter 'zzz' matches none of the 8 runs read" "export --filter matching nothing: message"

# Ctrl-C: the suite stops, its index says interrupted, exit 130.
spin_config "$SCRATCH/long.yaml" long 1000000
"$HARNESS" run "$SCRATCH/long.yaml" --runs 50 --set schedule.measurement_steps=200 --quiet \
    --output-dir "$SCRATCH/s5" >"$SCRATCH/out" 2>"$SCRATCH/err" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
code=$?
[ "$code" -eq 130 ] && pass "Ctrl-C: exit 130" || fail "Ctrl-C: exit $code"
python3 - "$SCRATCH"/s5/*_suite/index.json <<'PY' || fail "Ctrl-C: index.json"
import json, sys
x = json.load(open(sys.argv[1]))
assert x["status"] == "interrupted" and 1 <= len(x["experiments"]) < 50, (x["status"], len(x["experiments"]))
PY

# Bad inputs: exit 2, the culprit named, no suite folder made.
printf 'cfgs/a.yaml\nmissing.yaml\n' >"$SCRATCH/missing.suite"
expect_exit 2 "a suite file naming a missing config" "$HARNESS" run "$SCRATCH/missing.suite" --output-dir "$SCRATCH/bad"
expect_err "missing.suite:2: $SCRATCH/missing.yaml: no such config file" "names the suite file, line and config"
no_folder "missing config"
printf '# nothing here\n\n' >"$SCRATCH/empty.suite"
expect_exit 2 "an empty suite file" "$HARNESS" run "$SCRATCH/empty.suite" --output-dir "$SCRATCH/bad"
expect_err "empty.suite: a suite file that lists no config" "an empty suite: message"
no_folder "empty suite"
mkdir "$SCRATCH/nothing"
expect_exit 2 "a folder with no config" "$HARNESS" run "$SCRATCH/nothing" --output-dir "$SCRATCH/bad"
expect_err "nothing: a folder with no config in it" "an empty folder: message"
expect_exit 2 "a filter that matches nothing" "$HARNESS" run "$SCRATCH/cfgs" --filter zzz --output-dir "$SCRATCH/bad"
expect_err "--filter 'zzz' matches none of the 2 configs' benchmarks" "a filter that matches nothing: message"
expect_err "'spin_a spin/cpu'" "a filter that matches nothing: the names it could have matched"
no_folder "a filter that matches nothing"
expect_exit 2 "a filter that is no regex" "$HARNESS" run "$SCRATCH/cfgs" --filter '(' --output-dir "$SCRATCH/bad"
expect_err "--filter '(': not a valid extended regular expression" "a bad regex: message"
printf 'schedule: {measurement_stepz: 3}\ncomponent: {variant_key: spin}\n' >"$SCRATCH/cfgs/c.yaml"
expect_exit 2 "a bad config among good ones" "$HARNESS" run "$SCRATCH/cfgs" --runs 2 --output-dir "$SCRATCH/bad"
expect_err "c.yaml:1" "the bad config is named with its line"
no_folder "a bad config: nothing ran"
expect_exit 2 "a suite under a launcher" env OMPI_COMM_WORLD_SIZE=2 "$HARNESS" run "$SCRATCH/cfgs/a.yaml" --runs 2 \
    --output-dir "$SCRATCH/bad"
expect_err "a job of 2 ranks (OMPI_COMM_WORLD_SIZE) cannot do" "a suite under a launcher: message"
no_folder "a suite under a launcher"
expect_exit 2 "--runs 0" "$HARNESS" run "$SCRATCH/cfgs/a.yaml" --runs 0
expect_err "--runs: expected an integer in [1, 1000], got '0'" "--runs 0: message"
finish
