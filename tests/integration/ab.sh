#!/bin/sh
# harness ab on spin at two speeds: 10% slower is a REGRESSION (exit 1),
# the same speed is SAME (exit 0), two plugin directories holding the same
# build are SAME, too few rounds are AMBIGUOUS, and bad input exits 2.
. "$top_builddir/tests/setup"

quick="--set schedule.measurement_steps=30 --set schedule.warmup_steps=5 --set profiling.trace=false
       --set profiling.memory=false"
cfg="$CONFIGS/spin_tiny.yaml"

# shellcheck disable=SC2086
expect_exit 1 "50 us vs 55 us" "$HARNESS" ab "$cfg" "$cfg" --cand-set component.config.duration_ns=55000 \
    --rounds 8 --output-dir "$SCRATCH/slow" $quick --format json --set schedule.measurement_steps=60
python3 - "$SCRATCH/out" <<'PY' || fail "50 vs 55: json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "regression" and r["exit_code"] == 1, r["verdict"]
(p,) = r["pairs"]
assert p["replicates"] == {"unit": "rounds", "base": 8, "cand": 8}, p["replicates"]
assert 1.07 < p["ratio"] < 1.13, p["ratio"]
lo, hi = p["ratio_interval"]
assert lo <= p["ratio"] <= hi and lo > 1.0, (lo, hi)
# n = 8 at alpha 0.05: the Tukey interval's coverage is 1 - 2 * 5/256
assert abs(p["ratio_interval_coverage"] - 0.9609375) < 1e-12, p["ratio_interval_coverage"]
# 2/256 when every round has the candidate slower; a round disturbed by a
# busy machine may flip one pair (then 4/256 or 6/256)
assert p["p"] <= 6 / 256 + 1e-12, p["p"]
assert "signed-rank" in r["method"]
PY
n=$(ls -d "$SCRATCH"/slow/round-*-base "$SCRATCH"/slow/round-*-cand | wc -l)
[ "$n" -eq 16 ] || fail "8 rounds of two runs: $n folders"
[ -s "$SCRATCH/slow/round-01-base.log" ] || fail "a round's log"

# The same speed: a generous threshold, as make check shares its machine with
# other builds (bench/regression_figures.sh: 15% of identical pairs are
# AMBIGUOUS at 5% on a machine at load 10).
# shellcheck disable=SC2086
expect_exit 0 "50 us vs 50 us" "$HARNESS" ab "$cfg" "$cfg" --rounds 8 --output-dir "$SCRATCH/same" $quick --threshold 20
grep -q "spin/cpu .*8/8 rounds .*SAME$" "$SCRATCH/out" || fail "50 vs 50: SAME on 8 rounds"

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
for side in ("base", "cand"):
    for f in glob.glob(sys.argv[2] + "/builds/round-*-%s/*/summary_ranks_1_rank_0.json" % side):
        s = json.load(open(f))
        assert s["component"]["plugin"].startswith(sys.argv[2] + "/plugins-" + side), s["component"]["plugin"]
PY

# Five rounds cannot reach alpha 0.05 (2/2^5 = 0.0625): AMBIGUOUS.
# shellcheck disable=SC2086
expect_exit 1 "five rounds" "$HARNESS" ab "$cfg" "$cfg" --cand-set component.config.duration_ns=80000 --rounds 5 \
    --output-dir "$SCRATCH/five" $quick
grep -q "too few rounds: 5 paired rounds can reach p = 0.0625 at best, above alpha 0.05; run 6 or more (--rounds 6)" \
    "$SCRATCH/out" || fail "five rounds: the reason and the rounds needed"

bad() {  # bad CODE MESSAGE DESC ARGS...
    code=$1; msg=$2; desc=$3; shift 3
    expect_exit "$code" "$desc" "$HARNESS" ab "$@"
    expect_err "$msg" "$desc: message"
}
bad 2 "ab: expected BASE_CONFIG and CAND_CONFIG" "one config" "$cfg"
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
