#!/bin/sh
# Across nodes in make check: a bed of 2 nodes (network namespaces, each its
# own hostname and /tmp; tests/cluster/README.md) runs 2 ranks on each over
# TCP under mpirun. One experiment folder, on a path both nodes see, holds
# every rank's files and rank 0's job summary, whose per-node rollup names
# both nodes and says why it judges no outlier (two nodes); `harness
# compare` of two such jobs has a per-node section.
. "$top_builddir/tests/setup"
BED="$top_srcdir/tests/cluster/bed"
grep -q '^#define HAVE_MPI 1' "$top_builddir/build_config.h" || { echo "skip: built without MPI"; exit 77; }
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
why=$("$BED" check) || { echo "skip: no test bed here: $why"; exit 77; }

# The nodes' /tmp is their own: the folder goes under the build tree.
mkdir -p "$top_builddir/tests/cluster" && OUT=$(mktemp -d "$top_builddir/tests/cluster/quick.XXXXXX") || exit 99
trap 'rm -rf "$SCRATCH" "$OUT"' EXIT
cd "$OUT" || exit 99
unset HARNESS_BED
# Sanitizer builds: LeakSanitizer off in the ranks, as in tests/integration/mpi.sh.
ASAN_OPTIONS=detect_leaks=0
# Two jobs in one bed, the second for compare.
expect_exit 0 "2 nodes x 2 ranks over TCP" timeout 100 "$BED" with 2 -- sh -c '
    echo "$HARNESS_BED" >"$3/bed"
    for job in runs cand; do
        "$0" mpirun -np 4 --oversubscribe "$1" run "$2" --output-dir "$3/$job" --quiet || exit
    done' "$BED" "$HARNESS" "$CONFIGS/rms_norm_tiny.yaml" "$OUT"
python3 - "$OUT/runs" <<'PY' || fail "the folder or the job summary"
import glob, json, sys
folders = glob.glob(sys.argv[1] + "/*/")
assert len(folders) == 1, folders
d = folders[0]
for r in range(4):
    s = json.load(open(f"{d}/summary_ranks_4_rank_{r}.json"))
    assert s["status"] == "ok", (r, s["status"])
job = json.load(open(d + "/summary.json"))
hosts = [r["host"] for r in job["ranks"]]
assert hosts == ["node0", "node0", "node1", "node1"], hosts
nodes = job["nodes"]
assert [(n["host"], n["ranks"]) for n in nodes["list"]] == [("node0", [0, 1]), ("node1", [2, 3])], nodes["list"]
assert nodes["judged"] is False and nodes["nodes_measured"] == 2, nodes
for n in nodes["list"]:
    assert n["ranks_measured"] == 2 and n["median_ns"] > 0 and n["slowest_rank"] in n["ranks"], n
    assert n["outlier"] is False, n
text = open(d + "/summary.txt").read()
assert "per node" in text and "not judged, 2 nodes measured (the rule needs 3)" in text, text
PY
# bed with: down after the command, every trace of the bed gone.
bed=$(cat "$OUT/bed")
[ ! -e "$bed" ] || fail "the bed's state dir $bed is left"
ip netns list | grep -q "^${bed##*/}-" && fail "a namespace of the bed is left"
ls -d /sys/fs/cgroup/cpu/harness-bed-"${bed##*/}"-* /sys/fs/cgroup/harness-bed-"${bed##*/}"-* 2>/dev/null &&
    fail "a cgroup of the bed is left"

# The bed's own bad inputs: exit 2, saying what.
expect_exit 2 "bed up 0" "$BED" up 0
expect_err "node count 0 is not in 1..200" "names the count"
expect_exit 2 "bed mpirun without a bed" "$BED" mpirun -np 1 true
expect_err "HARNESS_BED is not set" "says what is missing"
expect_exit 2 "a node the bed lacks" "$BED" with 1 -- "$top_srcdir/tests/cluster/node-exec" node7 true
expect_err "no node 'node7'" "names the node"

"$HARNESS" compare "$OUT"/runs/* "$OUT"/cand/* >"$SCRATCH/out" 2>"$SCRATCH/err"
rc=$?
[ "$rc" -le 1 ] || fail "compare of two jobs: exit $rc"
python3 - "$SCRATCH/out" <<'PY' || { fail "compare: the per-node section"; cat "$SCRATCH/out" "$SCRATCH/err"; }
import re, sys
text = open(sys.argv[1]).read()
section = text[text.index("per node"):].splitlines()
assert section[1].split() == ["node", "base", "cand", "ratio"], section
rows = [l.split() for l in section[2:] if l.strip()]
assert [r[0] for r in rows] == ["node0", "node1"], rows
assert all(re.fullmatch(r"\d+\.\d{3}", r[-1]) for r in rows), rows
PY
# A job summary that is not one: exit 2 naming it, before any report.
cp -R "$OUT/cand" "$OUT/bad"
printf '{"schema": "harness.job_summary/1", "world_size": 4, "ranks": [], "windows": [], "nodes": {"list": 3}}' \
    >"$(echo "$OUT"/bad/*)/summary.json"
expect_exit 2 "compare: a malformed summary.json" "$HARNESS" compare "$OUT"/runs/* "$OUT"/bad/*
expect_err "summary.json: nodes.list: expected an array" "names the file and the key"
[ -s "$SCRATCH/out" ] && fail "compare printed a report before the error"
finish
