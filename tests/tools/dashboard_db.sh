# tests/tools/dashboard_db.sh - sourced by the dashboard's tests after
# tests/setup: dashboard_db DB RUNS STEP_AT builds a results database of RUNS
# commits (c1, c2, ...) of 5 benchmarks in 2 suites - spin/cpu at 4
# durations and one rms_norm/cpu config - in seconds: one real tiny run of
# each, then per commit a copy of it whose samples and statistics are scaled
# by a little deterministic noise (0.5%; a run of its own: its summary's bytes
# differ), recorded with `harness record` as CI records commits. From commit
# STEP_AT on, spin/cpu at 40 us is 25% slower: the one change point planted.
# Each run's noise bound is pinned quiet (the machine's load must not set a
# run aside here; history_noise.sh tests that).
dashboard_db() {
    db=$1
    mkdir -p "$SCRATCH/dash_base" || return 1
    bases=
    for d in 20000 30000 40000 50000; do
        dir=$("$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/dash_base/spin$d" --quiet \
            --set component.config.duration_ns=$d --set schedule.measurement_steps=20 \
            --set profiling.trace=false --set profiling.memory=false 2>/dev/null) || return 1
        bases="$bases $dir"
    done
    dir=$("$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" --output-dir "$SCRATCH/dash_base/rms" --quiet \
        --set profiling.trace=false --set profiling.memory=false 2>/dev/null) || return 1
    # shellcheck disable=SC2086
    python3 - "$SCRATCH/dash_runs" "$2" "$3" $bases "$dir" <<'PY' || return 1
import json, os, random, shutil, sys

out, runs, step_at, bases = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
# the fields of timing (and of its windows) that are times: scaled with the samples
TIMES = {"median", "mean", "stddev", "min", "max", "iqr", "p5", "p25", "p75", "p90", "p95", "p99", "samples",
         "ci_median", "ci95_median", "median_of_window_medians"}

def scaled(v, f):
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, float)):
        return v * f
    if isinstance(v, list) and all(isinstance(x, (int, float)) for x in v):
        return [x * f for x in v]
    return v

def scale(obj, f):
    for k, v in obj.items():
        if isinstance(v, dict):
            scale(v, f)
        elif k == "windows":
            for w in v:
                scale(w, f)
        elif k in TIMES:
            obj[k] = scaled(v, f)

rng = random.Random(41)
for i in range(1, runs + 1):
    for b, base in enumerate(bases):
        d = os.path.join(out, "c%d" % i, "2026-11-%02d__00-00-%02d_%08x" % (1 + i % 28, b, i * 8 + b))
        shutil.copytree(base, d)
        p = os.path.join(d, "summary_ranks_1_rank_0.json")
        s = json.load(open(p))
        f = rng.uniform(0.995, 1.005) * (1.25 if b == 2 and i >= step_at else 1.0)
        scale(s["timing"], f)
        s["noise"]["median_shift_bound"] = 0.001
        s["noise"]["evidence"] = "pinned by the test"
        s["env"]["started_at"] = "2026-11-29T00:%02d:%02dZ" % (i, b)
        json.dump(s, open(p, "w"))
PY
    i=1
    while [ "$i" -le "$2" ]; do
        "$HARNESS" record "$SCRATCH/dash_runs/c$i"/* --db "$db" --commit "c$i" --branch main >/dev/null 2>&1 ||
            return 1
        i=$((i + 1))
    done
}
