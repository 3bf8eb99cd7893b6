#!/bin/sh
# send_recv (plugin ABI 2.5) and sendrecv/cpu: a job of one exchanges with
# itself; fixed partners (r xor 1); every pair in turn (pairs: true, the
# circle method) on 3 and 4 ranks: each rank's summary has a send_recv row
# per peer with the same number of calls, the job summary the whole matrix,
# the slowest pair and the heat map pairs.html. The slowed-link case (one
# pair named) is tests/cluster/pairs_slow_link.sh, on the multi-node bed.
. "$top_builddir/tests/setup"
cat >"$SCRATCH/sr.yaml" <<'YAML'
schedule: {warmup_steps: 2, wait_steps: 0, measurement_steps: 12, repeat: 2}
profiling: {memory: false, trace: false}
component: {variant_key: sendrecv, config: {bytes: 4096, pairs: true}}
validate: true
YAML
expect_exit 0 "sendrecv/cpu alone (an exchange with itself)" "$HARNESS" run "$SCRATCH/sr.yaml" \
    --output-dir "$SCRATCH/alone" --quiet
grep -q '"passed":[[:space:]]*true' "$SCRATCH"/alone/*/summary_ranks_1_rank_0.json || fail "alone: check"
expect_exit 2 "bytes not a whole number of elements" "$HARNESS" run "$SCRATCH/sr.yaml" \
    --output-dir "$SCRATCH/bad" --set component.config.bytes=4098
expect_err "bytes 4098 is not a whole number of 4-byte elements" "names the size"

grep -q '^#define HAVE_MPI 1' "$top_builddir/build_config.h" || { echo "skip: built without MPI"; finish; }
command -v mpirun >/dev/null || { echo "skip: MPI build but no mpirun"; exit 77; }
MPIRUN="env ASAN_OPTIONS=detect_leaks=0 mpirun --allow-run-as-root --oversubscribe --mca btl self,vader"

# check DIR NP PAIRS: every rank validated; its send_recv rows name each peer
# it should meet, with equal calls; the job summary's matrix and files.
check() {
    python3 - "$@" <<'PY'
import glob, json, math, sys
d, n, pairs = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "true"
steps = 24                                   # measurement_steps x repeat
rounds = (n if n % 2 else n - 1) if pairs else 1
folder = glob.glob(f"{d}/*/")[0]
for r in range(n):
    s = json.load(open(f"{folder}summary_ranks_{n}_rank_{r}.json"))
    assert s["validation"]["passed"] is True, s["validation"]
    rows = [c for c in s["communication"] or [] if c["op"] == "send_recv"]
    want = sorted(p for p in range(n) if p != r) if pairs else ([r ^ 1] if (r ^ 1) < n else [])
    assert sorted(c["peer"] for c in rows) == want, (r, rows)
    calls = {c["calls"] for c in rows}
    assert not rows or len(calls) == 1, (r, calls)           # the circle method: each peer as often
    if pairs:                                                # one round per step; a bye when n is odd
        assert sum(c["calls"] for c in rows) == steps * (n - 1) // rounds, (r, rows)
    assert all(c["bytes"] == 4096 and c["busbw_gbps"] == c["algbw_gbps"] for c in rows), rows
job = json.load(open(folder + "summary.json"))
p = job["pairs"]
m = p["median_ns"]
assert len(m) == n and all(len(row) == n for row in m), m
for a in range(n):
    for b in range(n):
        met = a != b and (pairs or a ^ 1 == b)
        assert (m[a][b] is not None) == met, (a, b, m)
a, b = p["slowest"]["ranks"]
slow = max(max(x for x in (m[a][b], m[b][a]) if x is not None) for a in range(n) for b in range(n)
           if m[a][b] is not None)
assert p["slowest"]["median_ns"] == slow and p["bytes"] == 4096, p
html = open(folder + "pairs.html").read()
assert f"ranks {a} and {b}" in html and html.count("<td") == n * n, "pairs.html"
assert f"slowest pair: ranks {a} and {b}" in open(folder + "summary.txt").read(), "summary.txt"
PY
}
for np in 3 4; do
    out="$SCRATCH/pairs$np"
    expect_exit 0 "every pair in turn on $np ranks" $MPIRUN -np $np "$HARNESS" run "$SCRATCH/sr.yaml" \
        --output-dir "$out" --quiet
    check "$out" $np true && pass "$np ranks: every pair met equally, the matrix, the slowest pair" \
        || fail "$np ranks: pairs"
done
out="$SCRATCH/fixed4"
expect_exit 0 "fixed partners on 4 ranks" $MPIRUN -np 4 "$HARNESS" run "$SCRATCH/sr.yaml" --output-dir "$out" \
    --quiet --set component.config.pairs=false
check "$out" 4 false && pass "fixed partners: 0-1 and 2-3 only" || fail "fixed partners"
# A job without send_recv: no "pairs" member, no pairs.html.
cat >"$SCRATCH/ar.yaml" <<'YAML'
schedule: {warmup_steps: 1, wait_steps: 0, measurement_steps: 4, repeat: 1}
profiling: {memory: false, trace: false}
component: {variant_key: allreduce, config: {bytes: 4096}}
YAML
out="$SCRATCH/ar"
expect_exit 0 "allreduce on 2 ranks" $MPIRUN -np 2 "$HARNESS" run "$SCRATCH/ar.yaml" --output-dir "$out" --quiet
! grep -q '"pairs"' "$out"/*/summary.json && [ ! -e "$out"/*/pairs.html ] && pass "no pairs without send_recv" \
    || fail "a job without send_recv has pairs"
finish
