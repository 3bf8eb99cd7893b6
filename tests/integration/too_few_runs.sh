#!/bin/sh
# Too few runs a side, and the advice (issue 40, item 2). 3 runs a side of
# identical code, interval within the threshold: SAME, exit 0 (their widest
# interval covers 90% = 1 - 2 alpha: the test of equivalence at alpha 0.05),
# though 3 a side can never call a change (p >= 0.1). 2 a side cover 66.7%:
# AMBIGUOUS (too few replicates), and the advice names the runs that work,
# computed as the verdict computes: 4 a side for one pair (p down to
# 0.0286, a 97.1% interval), 5 for two pairs judged together (0.00794 <=
# alpha / 2, 96.8%); those runs then give SAME.
. "$top_builddir/tests/setup"

# --threshold 25: identical spins on a loaded runner stay well within it
spin_config() {  # spin_config FILE NAME DURATION_NS (runs match by variant and component config)
    cat >"$1" <<YAML
experiment: {name: $2}
schedule: {warmup_steps: 2, wait_steps: 1, measurement_steps: 30, repeat: 2}
profiling: {trace: false, memory: false}
component: {variant_key: spin, config: {duration_ns: $3}}
validate: false
YAML
}
mkdir -p "$SCRATCH/cfgs"
spin_config "$SCRATCH/cfgs/a.yaml" spin_a 20000
spin_config "$SCRATCH/cfgs/b.yaml" spin_b 30000
runs() {  # runs N DIR CONFIG...: a suite folder of N runs of each config
    n=$1 dir=$2
    shift 2
    "$HARNESS" run "$@" --runs "$n" --quiet --output-dir "$SCRATCH/$dir" 2>/dev/null | tail -1
}

# 1. 3 runs a side, one pair: SAME, exit 0 (was AMBIGUOUS, too few replicates, exit 1).
b3=$(runs 3 b3 "$SCRATCH/cfgs/a.yaml")
c3=$(runs 3 c3 "$SCRATCH/cfgs/a.yaml")
expect_exit 0 "3 runs a side of identical code: SAME" "$HARNESS" compare "$b3" "$c3" --threshold 25 --format json
python3 - "$SCRATCH/out" <<'PY' && pass "SAME at a 90.0% interval, no cause" || fail "3 a side: $(cat "$SCRATCH/out")"
import json, sys
(p,) = json.load(open(sys.argv[1]))["pairs"]
assert p["verdict"] == "same" and p["ambiguous_cause"] is None, p
assert abs(p["ratio_interval_coverage"] - 0.9) < 1e-9 and p["replicates"]["base"] == 3, p
PY

# 2. 2 runs a side: AMBIGUOUS (too few replicates), advising --runs 4 with
# what 4 give; SAME's coverage said.
b2=$(runs 2 b2 "$SCRATCH/cfgs/a.yaml")
c2=$(runs 2 c2 "$SCRATCH/cfgs/a.yaml")
expect_exit 1 "2 runs a side: too few" "$HARNESS" compare "$b2" "$c2" --threshold 25
grep -q "^AMBIGUOUS (too few replicates): .*covers 66.7%, and SAME needs 90% (1 - 2 alpha)" "$SCRATCH/out" &&
    pass "it says SAME needs a 90% interval" || fail "2 a side, SAME's coverage: $(cat "$SCRATCH/out")"
grep -q "give each side 4 or more runs (harness run --runs 4: p down to 0.0286, a 97.1% interval)" "$SCRATCH/out" &&
    pass "it advises 4 runs a side, with their p and interval" || fail "2 a side, advice: $(cat "$SCRATCH/out")"
! grep -q "schedule.repeat" "$SCRATCH/out" || fail "windows advised for a change: $(cat "$SCRATCH/out")"

# 3. Two pairs judged together, 2 runs a side: a lone change needs p <=
# alpha / 2, so 5 runs a side (4 reach only 0.0286); the note says so too.
s2b=$(runs 2 s2b "$SCRATCH/cfgs/a.yaml" "$SCRATCH/cfgs/b.yaml")
s2c=$(runs 2 s2c "$SCRATCH/cfgs/a.yaml" "$SCRATCH/cfgs/b.yaml")
expect_exit 1 "a suite of two, 2 runs a side: too few" "$HARNESS" compare "$s2b" "$s2c" --threshold 25
[ "$(grep -c "give each side 5 or more runs (harness run --runs 5: p down to 0.00794 <= alpha / 2 pairs, a 96.8% interval)" "$SCRATCH/out")" -eq 2 ] &&
    pass "each pair advises 5 runs a side" || fail "suite advice: $(cat "$SCRATCH/out")"
grep -q "^note: a lone change among 2 pairs needs p <= 0.025, .*: give each side 5 runs or more (harness run --runs 5)$" \
    "$SCRATCH/out" && pass "the note names 5 runs" || fail "suite note: $(cat "$SCRATCH/out")"

# 4. The advice works: 5 runs a side of the two, SAME both, exit 0, no note of too few.
s5b=$(runs 5 s5b "$SCRATCH/cfgs/a.yaml" "$SCRATCH/cfgs/b.yaml")
s5c=$(runs 5 s5c "$SCRATCH/cfgs/a.yaml" "$SCRATCH/cfgs/b.yaml")
expect_exit 0 "a suite of two, 5 runs a side: SAME" "$HARNESS" compare "$s5b" "$s5c" --threshold 25
grep -q "^verdict: SAME: 0 regressions, 0 improvements, 2 same" "$SCRATCH/out" && pass "both SAME" ||
    fail "5 a side: $(cat "$SCRATCH/out")"
! grep -q "lone change among" "$SCRATCH/out" || fail "5 a side still too few: $(cat "$SCRATCH/out")"

finish
