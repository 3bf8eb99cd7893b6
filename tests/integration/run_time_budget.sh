#!/bin/sh
# run --time-budget: the steps per window and the windows planned follow
# the rule of run/time_budget.h from what the run's own pilot measured, and
# the windows that ran are between the minimum and the most, all of that
# size (asserted on the counts written, never on times: the machine is
# noisy); the lines on stderr, the summary's schedule and
# resolved_config.yaml say what ran; the caps; auto stopping replaced; a
# suite gives every run of every benchmark the budget; ranks agree; a
# budget too small and values that are not a budget are exit 2.
. "$top_builddir/tests/setup"

spin_config() {  # spin_config FILE NAME DURATION_NS WAIT MEASUREMENT_STEPS REPEAT
    cat >"$1" <<YAML
experiment: {name: $2}
schedule: {warmup_steps: 2, wait_steps: $4, measurement_steps: $5, repeat: $6}
profiling: {trace: false, memory: false}
component: {variant_key: spin, config: {duration_ns: $3}}
validate: false
YAML
}
spin_config "$SCRATCH/ms.yaml" spin_ms 1000000 1 50 2
spin_config "$SCRATCH/auto.yaml" spin_auto 200000 0 auto 1
spin_config "$SCRATCH/long.yaml" spin_long 20000000 0 10 1
cat >"$SCRATCH/noop.yaml" <<'YAML'
experiment: {name: noop_budget}
schedule: {warmup_steps: 10, wait_steps: 0, measurement_steps: 10, repeat: 1}
profiling: {trace: false, memory: false}
component: {variant_key: noop}
validate: false
YAML

# check_sizes DIR BUDGET: every summary under DIR planned the sizes the
# rule gives for its own pilot (the rule again, in Python), ran windows of
# that size, as many as the rule's bounds allow, and says so.
check_sizes() {
    python3 - "$@" <<'PY'
import glob, json, math, os, sys
d, budget = sys.argv[1], float(sys.argv[2])

def two_digits(m):
    if m < 100:
        return m
    p = 1
    while m / p >= 100:
        p *= 10
    return math.floor(m / p) * p

def rule(step, spent, wait, asked, repeat):   # run/time_budget.c
    slots = max(math.floor((budget - spent) / step), 0)
    if slots < 2 * (wait + 1):
        return None
    want = min(max(5, repeat), 100)
    cap = max(10000, asked)
    windows = want
    if slots >= want * (wait + 1):
        steps = math.floor(slots / want) - wait
        if steps > cap:
            steps, windows = cap, min(100, math.floor(slots / (wait + cap)))
    else:
        windows = math.floor(slots / (wait + 1))
        steps = math.floor(slots / windows) - wait
    rounded = two_digits(steps)
    if asked > 0 and steps >= asked and rounded < asked:
        rounded = asked
    return windows, rounded

files = sorted(glob.glob(os.path.join(d, "**", "summary_ranks_1_rank_0.json"), recursive=True))
assert files, "no summaries under " + d
for f in files:
    s = json.load(open(f))
    sc, tb = s["schedule"], s["schedule"]["time_budget"]
    assert s["status"] == "ok", (f, s["error"])
    assert tb["budget_s"] == budget and tb["pilot_steps"] >= 3 and 0 < tb["spent_s"] < budget, tb
    asked = 0 if tb["config_measurement_steps"] == "auto" else tb["config_measurement_steps"]
    # step_ns is step_s x 1e9 as written: a last bit either way may be lost
    # and back, so the rule may see any of the three neighbours.
    sizes = {rule(tb["step_ns"] * 1e-9 * (1 + e), tb["spent_s"], sc["wait_steps"], asked, tb["config_repeat"])
             for e in (-1e-12, 0, 1e-12)}
    planned, steps = tb["windows_planned"], tb["steps_per_window"]
    assert (planned, steps) in sizes, (f, (planned, steps), sizes, tb)
    # How many windows ran is their own time's say, within the rule's bounds.
    ran = sc["repeat"]
    assert sc["measurement_steps"] == steps and 2 <= ran <= 100, (sc, tb)
    windows = s["timing"]["windows"]
    assert len(windows) == ran and all(w["n"] == steps for w in windows), [w["n"] for w in windows]
    assert all(w["stop_reason"] == "steps" and w["converged"] is None for w in windows), windows[0]
    assert sc["measured_steps"] == ran * steps and sc["wait_steps_run"] == ran * sc["wait_steps"], sc
    # The folder's resolved config: what ran, in comments above the config.
    head = open(os.path.join(os.path.dirname(f), "resolved_config.yaml")).read().split("\n")
    assert head[0] == "# Sized by --time-budget %g s (a step took %s): schedule.measurement_steps %d, windows while" % (
        budget, head[0].split("a step took ")[1].split(")")[0], steps), head[0]
    assert head[1] == "# they fit (%d planned; the summary's schedule.repeat says how many ran), in place of the" % planned, head[1]
    assert head[2] == "# repeat %d and measurement_steps %s below." % (
        tb["config_repeat"], tb["config_measurement_steps"]), head[2]
    print(os.path.basename(os.path.dirname(f)), "%d of %d windows of %d steps, a step %.4g ms" % (
        ran, planned, steps, tb["step_ns"] / 1e6))
PY
}

# 1 ms steps, 2 s: 5 windows planned (the config asks 2), each 1 wait + as
# many steps as fit: budget / step is 2000 slots, so at most that many
# planned, and even a pilot that reads the spin 4 times slower plans 250.
# A window starts only while the windows before took at most what is left,
# each measured step lasts 1 ms at least, so all but the last window hold
# at most 2000 steps: 2000 + one window's 400 at most, ever.
expect_exit 0 "1 ms steps, --time-budget 2" "$HARNESS" run "$SCRATCH/ms.yaml" --time-budget 2 --output-dir "$SCRATCH/ms"
check_sizes "$SCRATCH/ms" 2 >"$SCRATCH/sizes" && pass "the sizes are the rule's for the pilot: $(cat "$SCRATCH/sizes")" \
    || fail "sizes: $(cat "$SCRATCH/sizes")"
python3 - "$SCRATCH"/ms/*/summary_ranks_1_rank_0.json "$SCRATCH/err" <<'PY' \
    && pass "1 ms steps in 2 s: 5 windows of 50-400 planned, at most 2400 measured" || fail "1 ms steps in 2 s"
import json, sys
sc, err = json.load(open(sys.argv[1]))["schedule"], open(sys.argv[2]).read()
tb = sc["time_budget"]
assert tb["windows_planned"] == 5 and 50 <= tb["steps_per_window"] <= 400 and tb["step_ns"] >= 1e6, tb
assert sc["measured_steps"] <= 2400, sc
# Another number of windows than planned is said, in a second line.
said = "harness: run: %d windows ran in --time-budget 2 s, not the 5 planned: a measured step took " % sc["repeat"]
assert (said in err) == (sc["repeat"] != 5), (sc["repeat"], err)
PY
grep -qE '^harness: run: a step took [0-9.]+ ms; 5 windows of [0-9]+ steps fit in --time-budget 2 s$' "$SCRATCH/err" \
    && pass "one line on stderr says what fits" || fail "the line: $(cat "$SCRATCH/err")"
grep -qE '^  sized by --time-budget 2 s: a step took .* over [0-9]+ pilot steps, 5 windows planned \(the config: 50 x 2\)$' \
    "$SCRATCH"/ms/*/profiler_summary_ranks_1_rank_0.txt && pass "the text summary says so" \
    || fail "text summary: $(grep -A2 '^schedule' "$SCRATCH"/ms/*/profiler_summary_ranks_1_rank_0.txt)"
expect_exit 0 "the noted resolved config still validates" "$HARNESS" validate "$SCRATCH"/ms/*/resolved_config.yaml

# auto stopping gives way to the budget's sizes; a run without a budget says null.
expect_exit 0 "measurement_steps: auto, --time-budget 0.5" "$HARNESS" run "$SCRATCH/auto.yaml" --time-budget 0.5 \
    --output-dir "$SCRATCH/auto" --quiet
grep -q '^harness: run: a step took .* fit in --time-budget 0.5 s$' "$SCRATCH/err" \
    && pass "--quiet keeps the line" || fail "--quiet: $(cat "$SCRATCH/err")"
check_sizes "$SCRATCH/auto" 0.5 >"$SCRATCH/sizes" && pass "auto: fixed sizes by the rule: $(cat "$SCRATCH/sizes")" \
    || fail "auto: $(cat "$SCRATCH/sizes")"
expect_exit 0 "no budget" "$HARNESS" run "$SCRATCH/ms.yaml" --set schedule.measurement_steps=3 --output-dir "$SCRATCH/none" \
    --quiet
python3 - "$SCRATCH"/none/*/summary_ranks_1_rank_0.json <<'PY' && pass "without a budget: the config's sizes, time_budget null" \
    || fail "without a budget"
import json, sys
sc = json.load(open(sys.argv[1]))["schedule"]
assert sc["time_budget"] is None and sc["repeat"] == 2 and sc["measurement_steps"] == 3, sc
PY
grep -q 'time-budget' "$SCRATCH/err" && fail "a line about a budget without one: $(cat "$SCRATCH/err")"

# The caps: a step of well under a microsecond in 30 s would be millions of
# steps; 100 windows of 10000 measured, and the run ends early.
expect_exit 0 "the caps" "$HARNESS" run "$SCRATCH/noop.yaml" --time-budget 30 --output-dir "$SCRATCH/caps" --quiet
check_sizes "$SCRATCH/caps" 30 >"$SCRATCH/sizes" && grep -q '100 of 100 windows of 10000 steps' "$SCRATCH/sizes" \
    && pass "capped: $(cat "$SCRATCH/sizes")" || fail "caps: $(cat "$SCRATCH/sizes")"

# A suite: every run of every benchmark (and sweep point) gets the budget.
cat >"$SCRATCH/sweep.yaml" <<'YAML'
experiment: {name: swept}
schedule: {warmup_steps: 1, wait_steps: 0, measurement_steps: 10, repeat: 1}
profiling: {trace: false, memory: false}
component: {variant_key: spin, config: {duration_ns: 100000}}
sweep: {component.config.duration_ns: [100000, 300000]}
validate: false
YAML
expect_exit 0 "a suite, --runs 2 --time-budget 0.3" "$HARNESS" run "$SCRATCH/sweep.yaml" "$SCRATCH/auto.yaml" --runs 2 \
    --time-budget 0.3 --output-dir "$SCRATCH/suite" --quiet
[ "$(grep -c 'fit in --time-budget 0.3 s$' "$SCRATCH/err")" -eq 6 ] && pass "a line per run and point" \
    || fail "suite lines: $(cat "$SCRATCH/err")"
check_sizes "$SCRATCH/suite" 0.3 >"$SCRATCH/sizes" && [ "$(wc -l <"$SCRATCH/sizes")" -eq 6 ] \
    && pass "each of 6 runs sized by its own pilot" || fail "suite: $(cat "$SCRATCH/sizes")"

# Too small: 20 ms steps, whose pilot alone takes 60 ms, in 50 ms. Exit 2
# naming the option, the step and what would fit; the folder says failed.
expect_exit 2 "a budget too small" "$HARNESS" run "$SCRATCH/long.yaml" --time-budget 0.05 --output-dir "$SCRATCH/small"
expect_err "harness: --time-budget 0.05 s is too small: a step took " "the error names the budget and the step"
expect_err "so fewer than 2 windows of 0 wait + 1 measured step fit; give --time-budget " "and what would fit"
python3 - "$SCRATCH"/small/*/ "$SCRATCH/err" <<'PY' && pass "status.json: failed, exit 2; the budget asked fits the minimum" \
    || fail "too small's folder"
import json, re, sys
d, err = sys.argv[1], open(sys.argv[2]).read()
st = json.load(open(d + "status.json"))
assert st["status"] == "failed" and st["exit_code"] == 2 and "--time-budget 0.05 s is too small" in st["error"], st
s = json.load(open(d + "summary_ranks_1_rank_0.json"))
assert s["status"] == "failed" and s["schedule"]["measured_steps"] == 0, s["schedule"]
need = float(re.search(r"give --time-budget ([0-9.]+) or more", err).group(1))
step = re.search(r"a step took ([0-9.]+) ms", err)
assert need > 0.05 and step and float(step.group(1)) >= 20, err   # 2 steps of 20 ms at least, beyond the spent
PY

# Values that are not a budget: exit 2 before anything runs, no folder.
for v in 0 -1 abc inf nan '' 1e999 2s; do
    expect_exit 2 "--time-budget '$v'" "$HARNESS" run "$SCRATCH/ms.yaml" --time-budget "$v" --output-dir "$SCRATCH/bad"
    expect_err "harness: --time-budget: expected seconds > 0, got '$v'" "'$v' refused, saying why"
done
[ ! -e "$SCRATCH/bad" ] && pass "no folder for a bad value" || fail "a bad value left $(ls "$SCRATCH/bad")"
expect_exit 2 "validate takes no --time-budget" "$HARNESS" validate "$SCRATCH/ms.yaml" --time-budget 1

# Ranks: each pilot batch's end and the sizes are agreed, so every rank
# runs the same windows (a collective step would hang otherwise).
if grep -q '^#define HAVE_MPI 1' "$top_builddir/build_config.h" && command -v mpirun >/dev/null; then
    cat >"$SCRATCH/ar.yaml" <<'YAML'
schedule: {warmup_steps: 2, wait_steps: 0, measurement_steps: 5, repeat: 2}
profiling: {trace: false, memory: false}
component: {variant_key: allreduce, config: {bytes: 4104}}
validate: true
YAML
    # As in mpi.sh: LeakSanitizer off for the ranks.
    MPIRUN="env ASAN_OPTIONS=detect_leaks=0 mpirun --allow-run-as-root --oversubscribe --mca btl self,vader"
    expect_exit 0 "allreduce on 2 ranks, --time-budget 0.5" $MPIRUN -np 2 timeout 120 "$HARNESS" run "$SCRATCH/ar.yaml" \
        --time-budget 0.5 --output-dir "$SCRATCH/ranks" --quiet
    [ "$(grep -c 'fit in --time-budget 0.5 s$' "$SCRATCH/err")" -eq 1 ] && pass "rank 0 alone says what fits" \
        || fail "ranks' lines: $(cat "$SCRATCH/err")"
    python3 - "$SCRATCH"/ranks/*/ <<'PY' && pass "both ranks ran the same agreed sizes" || fail "ranks' sizes"
import json, sys
tbs = []
for r in range(2):
    s = json.load(open(sys.argv[1] + "summary_ranks_2_rank_%d.json" % r))
    assert s["status"] == "ok", s["error"]
    tb = s["schedule"]["time_budget"]
    assert s["schedule"]["measured_steps"] == s["schedule"]["repeat"] * tb["steps_per_window"], s["schedule"]
    tb["ran"] = s["schedule"]["repeat"]
    tbs.append(tb)
assert tbs[0] == tbs[1], tbs
PY
else
    echo "no MPI: the ranks' agreement not tried here"
fi
finish
