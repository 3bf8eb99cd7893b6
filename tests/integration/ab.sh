#!/bin/sh
# harness ab on spin at two speeds: 10% slower is a REGRESSION (exit 1),
# the same speed is SAME (exit 0), two plugin directories holding the same
# build are SAME, every round is listed (text, markdown, JSON), too few
# rounds are refused before anything runs, and bad input exits 2.
. "$top_builddir/tests/setup"

quick="--set schedule.measurement_steps=30 --set schedule.warmup_steps=5 --set profiling.trace=false
       --set profiling.memory=false"
cfg="$CONFIGS/spin_tiny.yaml"

# shellcheck disable=SC2086
expect_exit 1 "50 us vs 55 us" "$HARNESS" ab "$cfg" "$cfg" --cand-set component.config.duration_ns=55000 \
    --rounds 10 --output-dir "$SCRATCH/slow" $quick --format json --set schedule.measurement_steps=60
python3 - "$SCRATCH/out" <<'PY' || fail "50 vs 55: json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "regression" and r["exit_code"] == 1, r["verdict"]
(p,) = r["pairs"]
assert p["replicates"] == {"unit": "rounds", "base": 10, "cand": 10}, p["replicates"]
assert 1.07 < p["ratio"] < 1.13, p["ratio"]
lo, hi = p["ratio_interval"]
assert lo <= p["ratio"] <= hi and lo > 1.0, (lo, hi)
# n = 10 at alpha 0.05: the sign-test interval [d_(2), d_(9)], coverage
# 1 - 2 * 11/1024
assert abs(p["ratio_interval_coverage"] - 501 / 512) < 1e-12, p["ratio_interval_coverage"]
# the sign test: 2/1024 when every round has the candidate slower; a round
# disturbed by a busy machine may flip one pair (then 22/1024)
assert p["p"] <= 22 / 1024 + 1e-12, p["p"]
assert 0 < p["signed_rank_p"] <= 1, p["signed_rank_p"]
assert "sign test" in r["method"]
# every round: its order, both medians (ns) and their ratio
rounds = r["rounds"]
assert [x["round"] for x in rounds] == list(range(1, 11)), rounds
assert [x["first"] for x in rounds] == ["base", "cand"] * 5, [x["first"] for x in rounds]
for x in rounds:
    assert 40000 < x["base_median_ns"] < 60000 and 45000 < x["cand_median_ns"] < 70000, x
    assert abs(x["ratio"] - x["cand_median_ns"] / x["base_median_ns"]) < 1e-12, x
    assert x["base_status"] == x["cand_status"] == "ok" and x["failed"] is False, x
    assert "/slow/round-%02d-base/" % x["round"] in x["base_folder"], x
ratios = sorted(x["ratio"] for x in rounds)
assert abs(p["ratio"] - (ratios[4] * ratios[5]) ** 0.5) < 1e-9, (p["ratio"], ratios)
assert abs(lo - ratios[1]) < 1e-9 and abs(hi - ratios[8]) < 1e-9, (lo, hi, ratios)
PY
n=$(ls -d "$SCRATCH"/slow/round-*-base "$SCRATCH"/slow/round-*-cand | wc -l)
[ "$n" -eq 20 ] || fail "10 rounds of two runs: $n folders"
[ -s "$SCRATCH/slow/round-01-base.log" ] || fail "a round's log"

# The same speed: a generous threshold, as make check shares its machine with
# other builds (bench/regression_figures.sh: 15% of identical pairs are
# AMBIGUOUS at 5% on a machine at load 10).
# shellcheck disable=SC2086
expect_exit 0 "50 us vs 50 us" "$HARNESS" ab "$cfg" "$cfg" --rounds 8 --output-dir "$SCRATCH/same" $quick --threshold 20
grep -q "spin/cpu .*8/8 rounds .*SAME$" "$SCRATCH/out" || fail "50 vs 50: SAME on 8 rounds"
# the rounds' table: a header and 8 rows, base first in the odd rounds, at most 80 columns
grep -q "^round  first  base median  cand median  cand/base  state$" "$SCRATCH/out" || fail "text: the rounds' header"
[ "$(grep -cE "^ +[0-9]+  (base|cand) +[0-9.]+ us +[0-9.]+ us +[01]\.[0-9]{3}  (ok|busy)" "$SCRATCH/out")" -eq 8 ] ||
    fail "text: 8 rounds in the table"
grep -qE "^ +1  base " "$SCRATCH/out" && grep -qE "^ +2  cand " "$SCRATCH/out" || fail "text: the order alternates"
awk '/^round  first/ { on = 1 } on && /^$/ { on = 0 } on && length($0) > 80 { bad = 1 } END { exit bad }' \
    "$SCRATCH/out" || fail "text: the rounds' table fits 80 columns"
# compare on the same folders: no rounds (its report is unchanged)
expect_exit 0 "compare of two rounds' folders" "$HARNESS" compare "$SCRATCH/same/round-01-base" "$SCRATCH/same/round-02-cand" \
    --threshold 20 --on-ambiguous pass --format json
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert "rounds" not in r and "signed_rank_p" not in r["pairs"][0]' \
    "$SCRATCH/out" || fail "compare's JSON has no rounds"

# Two plugin directories, one build: a pull request that changed nothing.
for side in base cand; do
    mkdir -p "$SCRATCH/plugins-$side"
    cp "$top_builddir/plugins/.libs/calibration.so" "$top_builddir/plugins/calibration.la" "$SCRATCH/plugins-$side/"
done
# shellcheck disable=SC2086
expect_exit 0 "two plugin builds" "$HARNESS" ab "$cfg" "$cfg" --rounds 6 --output-dir "$SCRATCH/builds" $quick --threshold 20 \
    --base-plugin-path "$SCRATCH/plugins-base" --cand-plugin-path "$SCRATCH/plugins-cand" --format json
python3 - "$SCRATCH/out" "$SCRATCH" <<'PY' || fail "two plugin builds: json"
import json, sys, glob
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "same", r["verdict"]
assert len(r["rounds"]) == 6, r["rounds"]
for side in ("base", "cand"):
    for f in glob.glob(sys.argv[2] + "/builds/round-*-%s/*/summary_ranks_1_rank_0.json" % side):
        s = json.load(open(f))
        assert s["component"]["plugin"].startswith(sys.argv[2] + "/plugins-" + side), s["component"]["plugin"]
PY

# Markdown: the rounds folded under the verdict's table.
# shellcheck disable=SC2086
expect_exit 0 "markdown" "$HARNESS" ab "$cfg" "$cfg" --rounds 6 --output-dir "$SCRATCH/md" $quick --threshold 20 \
    --format markdown
grep -q "^<details><summary>6 rounds " "$SCRATCH/out" || fail "markdown: the rounds' summary"
grep -q "^| round | first | base median | cand median | cand/base | state |$" "$SCRATCH/out" || fail "markdown: header"
[ "$(grep -cE "^\| [1-6] \| (base|cand) \| [0-9.]+ us \| [0-9.]+ us \| [01]\.[0-9]{3} \| " "$SCRATCH/out")" -eq 6 ] ||
    fail "markdown: 6 rounds in the table"

# Rounds that can never reach alpha (2/2^5 = 0.0625 > 0.05) are refused
# before anything runs, whichever of --rounds and --alpha comes first.
bad_rounds() {  # bad_rounds MESSAGE DESC ARGS...
    msg=$1; desc=$2; shift 2
    expect_exit 2 "$desc" "$HARNESS" ab "$cfg" "$cfg" --output-dir "$SCRATCH/few" "$@"
    expect_err "$msg" "$desc: message"
    [ ! -e "$SCRATCH/few" ] || fail "$desc: nothing runs: $(ls "$SCRATCH/few")"
}
bad_rounds "harness: --rounds 2: 2 rounds can reach p = 0.5 at best, above --alpha 0.05; use --rounds 6 or more" \
    "two rounds" --rounds 2
bad_rounds "--rounds 5: 5 rounds can reach p = 0.0625 at best, above --alpha 0.05; use --rounds 6 or more" \
    "five rounds" --rounds 5
bad_rounds "--rounds 1: 1 round can reach p = 1 at best" "one round" --rounds 1
bad_rounds "--rounds 7: 7 rounds can reach p = 0.0156 at best, above --alpha 0.01; use --rounds 8 or more" \
    "--alpha after --rounds" --rounds 7 --alpha 0.01
bad_rounds "--rounds 10: 10 rounds can reach p = 0.00195 at best, above --alpha 0.001; use --rounds 11 or more" \
    "--alpha alone, the default rounds" --alpha 0.001

bad() {  # bad CODE MESSAGE DESC ARGS...
    code=$1; msg=$2; desc=$3; shift 3
    expect_exit "$code" "$desc" "$HARNESS" ab "$@"
    expect_err "$msg" "$desc: message"
}
bad 2 "ab: expected BASE_CONFIG and CAND_CONFIG, or a suite" "no config" --rounds 6
bad 2 "--rounds: expected an integer" "bad rounds" "$cfg" "$cfg" --rounds 0
# Both sides are validated before any round: a bad one fails at once, with the
# child's message, and nothing runs.
bad 2 "ab: the base side ($SCRATCH/nope.yaml) is not valid, nothing was run: $SCRATCH/nope.yaml: " \
    "a missing config" "$SCRATCH/nope.yaml" "$cfg" --output-dir "$SCRATCH/bad"
bad 2 "ab: the cand side ($cfg with its --set and --plugin-path) is not valid, nothing was run: --set component.variant_key=my_spin/cpu: component.variant_key: unknown variant 'my_spin/cpu'" \
    "an unknown candidate variant" "$cfg" "$cfg" --cand-set component.variant_key=my_spin/cpu --output-dir "$SCRATCH/bad"
[ -z "$(ls "$SCRATCH/bad" 2>/dev/null)" ] || fail "a bad side runs no round: $(ls "$SCRATCH/bad")"
cat >"$SCRATCH/sweep.yaml" <<'YAML'
schedule: {warmup_steps: 1, measurement_steps: 5}
profiling: {trace: false, memory: false}
component: {variant_key: spin, config: {duration_ns: 1000}}
validate: false
sweep: {component.config.duration_ns: [1000, 2000]}
YAML
bad 2 "sweep.yaml wrote several experiment folders (a sweep?)" "a sweep" "$SCRATCH/sweep.yaml" "$SCRATCH/sweep.yaml" \
    --output-dir "$SCRATCH/sweep"
expect_exit 0 "--help" "$HARNESS" ab --help
grep -q "Interleaved A/B" "$SCRATCH/out" || fail "--help"
finish
