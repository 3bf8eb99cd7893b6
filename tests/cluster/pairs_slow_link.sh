#!/bin/sh
# The pair matrix finds a slow link: a bed of 4 nodes (tests/cluster/README.md),
# one rank each, node2's link to the bridge rate-limited both ways (tc's token
# bucket, 10 Mbit/s, against the veths' gigabits), every pair timed in turn
# (sendrecv/cpu, pairs: true). The slowest pair must include node2's rank,
# and every pair with it must be slower than every pair without it.
. "$top_builddir/tests/setup"
BED="$top_srcdir/tests/cluster/bed"
grep -q '^#define HAVE_MPI 1' "$top_builddir/build_config.h" || { echo "skip: built without MPI"; exit 77; }
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
command -v tc >/dev/null || { echo "skip: no tc (iproute2)"; exit 77; }
why=$("$BED" check) || { echo "skip: no test bed here: $why"; exit 77; }

mkdir -p "$top_builddir/tests/cluster" && OUT=$(mktemp -d "$top_builddir/tests/cluster/pairs.XXXXXX") || exit 99
trap 'rm -rf "$SCRATCH" "$OUT"' EXIT
cat >"$OUT/pairs.yaml" <<'YAML'
schedule: {warmup_steps: 3, wait_steps: 0, measurement_steps: 30, repeat: 1}
profiling: {memory: false, trace: false}
component: {variant_key: sendrecv, config: {bytes: 65536, pairs: true}}
validate: true
YAML
ASAN_OPTIONS=detect_leaks=0
export ASAN_OPTIONS
# The hub's side of node2's veth (v2) shapes what node2 receives, node2's
# eth0 what it sends.
expect_exit 0 "4 nodes, node2's link at 10 Mbit/s" timeout 150 "$BED" with 4 -- sh -c '
    id=$(cat "$HARNESS_BED/id")
    tc -n "$id-hub" qdisc add dev v2 root tbf rate 10mbit burst 32kbit latency 400ms &&
        tc -n "$id-node2" qdisc add dev eth0 root tbf rate 10mbit burst 32kbit latency 400ms || exit 3
    "$0" mpirun -np 4 --map-by node "$1" run "$2" --output-dir "$3/job" --quiet' \
    "$BED" "$HARNESS" "$OUT/pairs.yaml" "$OUT"
python3 - "$OUT/job" <<'PY' || fail "the slow link's pairs"
import glob, json, sys
d = glob.glob(sys.argv[1] + "/*/")[0]
job = json.load(open(d + "summary.json"))
hosts = [r["host"] for r in job["ranks"]]
assert hosts == ["node0", "node1", "node2", "node3"], hosts
p = job["pairs"]
m = p["median_ns"]
pair = lambda a, b: max(m[a][b], m[b][a])
slow = [pair(a, 2) for a in (0, 1, 3)]
fast = [pair(a, b) for a, b in ((0, 1), (0, 3), (1, 3))]
print("pairs with node2 (ns):", slow, "without:", fast)
assert 2 in p["slowest"]["ranks"], p["slowest"]
assert min(slow) > max(fast), (slow, fast)
assert "ranks" in open(d + "pairs.html").read()
PY
finish
