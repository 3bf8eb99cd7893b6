#!/bin/sh
# outlier.sh - the slow-node bench (not in make check; minutes): a bed of 4
# nodes x 2 ranks (tests/cluster/README.md) runs RUNS clean jobs and RUNS jobs
# with node2 slowed, alternately, and counts the jobs whose job summary flags
# node2 as an outlier (goal: at least 9 in 10) and the clean jobs that flag no
# node (goal: at least 9 in 10). Exit 0 when both goals hold, 1 when not, 77
# when no bed can be made here.
#
#   tests/cluster/outlier.sh [RUNS [HOW PERCENT]]     (defaults: 10 weight 50)
#
# HOW PERCENT is `bed slow`'s: "weight 100" puts node2's processes in a CPU
# cgroup of one ordinary process's weight, so that on contended cores (8
# ranks on 2 cores, or a busy machine) its two ranks together get what one
# rank of another node gets: each about half. On a machine with a core per
# rank nothing is contended: use "quota 50" (the node's ranks together at most
# half a CPU). Run as root from the build tree (or set top_builddir); the
# folders go to tests/cluster/outlier.out/ there, kept for a look.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/../.." && pwd)}
HARNESS="$top_builddir/harness/harness"
BED="$here/bed"
runs=${1:-10}
how=${2:-weight} pct=${3:-50}
why=$("$BED" check) || { echo "skip: no test bed here: $why"; exit 77; }
[ -x "$HARNESS" ] || { echo "outlier.sh: no $HARNESS (build first, or set top_builddir)" >&2; exit 2; }

out="$top_builddir/tests/cluster/outlier.out"
rm -rf "$out" && mkdir -p "$out" || exit 2
# rms_norm/cpu of 8 x 512 x 2048 fp32: about 1 ms a step on one core, long
# against the scheduler's slices, so that a rank's share of a contended core
# shows in its median; 30 steps a job.
cat >"$out/outlier.yaml" <<'YAML'
experiment: {name: outlier}
schedule: {warmup_steps: 3, wait_steps: 0, measurement_steps: 30, repeat: 1}
profiling: {trace: false, memory: false}
component:
  variant_key: rms_norm
  config: {batch_size: 8, seq_len: 512, hidden_size: 2048, eps: 1e-6, dtype: fp32}
validate: false
YAML

# job NAME: one job of 8 ranks, 2 a node (slots 2, by slot).
job() {
    OMP_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=0 timeout 300 "$BED" mpirun -np 8 --oversubscribe \
        "$HARNESS" run "$out/outlier.yaml" --output-dir "$out/$1" --quiet >"$out/$1.log" 2>&1 ||
        { echo "outlier.sh: job $1 failed:"; tail -20 "$out/$1.log"; exit 3; }
}

HARNESS_BED=$("$BED" up 4) || exit 2
export HARNESS_BED
trap '"$BED" down' EXIT
trap 'exit 130' INT TERM HUP
cd "$out" || exit 2
i=1
while [ "$i" -le "$runs" ]; do
    job "clean-$i"
    "$BED" slow node2 "$how" "$pct" || exit 2
    job "slow-$i"
    "$BED" slow node2 off
    i=$((i + 1))
done

# Per job: the nodes flagged and the node medians; then the counts.
python3 - "$out" "$runs" <<'PY'
import glob, json, sys
out, runs = sys.argv[1], int(sys.argv[2])
def nodes(name):
    path = glob.glob(f"{out}/{name}/*/summary.json")
    assert len(path) == 1, f"{name}: {path}"
    return json.load(open(path[0]))["nodes"]
found = clean_ok = 0
for i in range(1, runs + 1):
    for kind in ("clean", "slow"):
        x = nodes(f"{kind}-{i}")
        flagged = [n["host"] for n in x["list"] if n["outlier"]]
        meds = " ".join(f'{n["host"]} {n["median_ns"] / 1e6:.2f}' for n in x["list"])
        print(f"{kind}-{i}: flagged {','.join(flagged) or 'none':12s} medians (ms) {meds}; "
              f"threshold {x['threshold_ns'] / 1e6:.2f}")
        if kind == "slow":
            found += "node2" in flagged
        else:
            clean_ok += not flagged
print(f"slowed node2 flagged in {found} of {runs} jobs; clean jobs flagging no node: {clean_ok} of {runs}")
sys.exit(0 if found * 10 >= 9 * runs and clean_ok * 10 >= 9 * runs else 1)
PY
