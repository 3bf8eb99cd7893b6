#!/bin/sh
# The harness's own per-step cost, two builds side by side: the noop config
# run by each, interleaved, ROUNDS times (profiling off, 200k steps per run).
# Prints min / median / max over the rounds of each build's median and mean
# step time and of the schedule's wall time per step (the loop around the
# timed call included).
#   usage: bench/noop_ab.sh BASE_BUILD_DIR CANDIDATE_BUILD_DIR [ROUNDS]
set -eu
base=${1:?usage: bench/noop_ab.sh BASE_BUILD_DIR CANDIDATE_BUILD_DIR [ROUNDS]}
cand=${2:?usage: bench/noop_ab.sh BASE_BUILD_DIR CANDIDATE_BUILD_DIR [ROUNDS]}
rounds=${3:-15}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq 1 "$rounds"); do
    for side in base cand; do
        [ "$side" = base ] && dir=$base || dir=$cand
        (cd "$dir" && ./harness/harness run configs/noop.yaml --set profiling.trace=false \
            --set profiling.memory=false --set schedule.measurement_steps=200000 \
            --output-dir "$tmp/$side.$i" >/dev/null 2>&1)
    done
done
python3 - "$tmp" "$rounds" <<'PY'
import glob, json, statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
print(f"{rounds} interleaved rounds; ns per step: min / median / max over rounds")
for side in ("base", "cand"):
    rows = []
    for i in range(1, rounds + 1):
        s = json.load(open(glob.glob(f"{tmp}/{side}.{i}/*/summary_*.json")[0]))
        sch = s["schedule"]
        steps = sch["measured_steps"] + sch["warmup_steps_run"] + sch["wait_steps_run"]
        rows.append((s["timing"]["median"], s["timing"]["mean"], 1e9 * sch["wall_s"] / steps))
    for j, what in enumerate(("median", "mean", "wall per step")):
        xs = [r[j] for r in rows]
        print(f"{side:5} {what:14} {min(xs):7.1f} {statistics.median(xs):7.1f} {max(xs):7.1f}")
PY
