#!/bin/sh
# Multi-rank runs under mpirun: one experiment folder per job with a file set
# per rank, each rank's summary naming its rank and the world size; and a
# build without MPI refusing a launcher's ranks instead of running them alone.
. "$top_builddir/tests/setup"
TINY="$CONFIGS/rms_norm_tiny.yaml"

# Collectives (ABI 2.2) and allreduce/cpu, checked on every run; here a job
# of one rank, below 2 and 3 ranks under mpirun.
mkdir -p "$SCRATCH/plugins"
cp "$top_builddir/tests/fixtures/.libs/rank_fail.so" "$top_builddir/tests/fixtures/.libs/collectives.so" \
    "$SCRATCH/plugins/"
cat >"$SCRATCH/coll.yaml" <<'YAML'
schedule: {warmup_steps: 1, wait_steps: 0, measurement_steps: 5, repeat: 1}
component: {variant_key: collectives}
validate: true
YAML
cat >"$SCRATCH/ar.yaml" <<'YAML'
schedule: {warmup_steps: 2, wait_steps: 0, measurement_steps: 5, repeat: 2}
profiling: {memory: false}
component: {variant_key: allreduce, config: {bytes: 4104}}
validate: true
YAML
# check_comm DIR NP: every rank validated (#wrong 0) and logged its all-reduces
# with busbw = algbw x 2(n-1)/n.
check_comm() {
    python3 - "$1" "$2" <<'PY'
import glob, json, sys
d, n = sys.argv[1], int(sys.argv[2])
for r in range(n):
    s = json.load(open(glob.glob(f"{d}/*/summary_ranks_{n}_rank_{r}.json")[0]))
    assert s["validation"]["passed"] is True and s["validation"]["mismatches"] == 0, s["validation"]
    rows = [c for c in s["communication"] if c["op"] == "all_reduce"]
    assert len(rows) == 1 and rows[0]["calls"] == 10, rows   # the measured steps only, not warmup or check
    row = rows[0]
    assert row["bytes"] == 4104 and abs(row["algbw_gbps"] - row["bytes"] / row["mean_ns"]) < 1e-9 * row["algbw_gbps"]
    assert abs(row["busbw_gbps"] - row["algbw_gbps"] * 2 * (n - 1) / n) <= 1e-9 * row["algbw_gbps"], row
# Rank 0's trace: every measured call as a span on the "communication" thread,
# each inside a measured step.
ev = json.load(open(glob.glob(f"{d}/*/profiler_trace_ranks_{n}_rank_0.json")[0]))["traceEvents"]
comm = [e for e in ev if e.get("cat") == "communication"]
assert len(comm) == 10 and all(e["name"] == "all_reduce" and e["args"]["bytes"] == 4104 for e in comm), comm[:2]
steps = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "step"]
assert all(any(s["ts"] <= c["ts"] and c["ts"] + c["dur"] <= s["ts"] + s["dur"] + 1 for s in steps) for c in comm), \
    "a communication span outside every measured step"

assert any(e.get("ph") == "M" and e["args"].get("name") == "communication" for e in ev)
PY
}
for dt in fp32 bf16 fp64 int32; do
    expect_exit 0 "allreduce/cpu $dt alone" "$HARNESS" run "$SCRATCH/ar.yaml" --output-dir "$SCRATCH/ar1_$dt" \
        --quiet --set component.config.dtype=$dt
    check_comm "$SCRATCH/ar1_$dt" 1 || fail "allreduce/cpu $dt alone: validation or communication table"
done
expect_exit 2 "allreduce/cpu: bytes not a whole number of elements" "$HARNESS" run "$SCRATCH/ar.yaml" \
    --output-dir "$SCRATCH/ar_bad" --set component.config.bytes=4102
expect_err "bytes 4102 is not a whole number of 4-byte fp32 elements" "names the size and the dtype"
expect_exit 0 "every collective alone" "$HARNESS" run "$SCRATCH/coll.yaml" --plugin-path "$SCRATCH/plugins" \
    --output-dir "$SCRATCH/coll1" --quiet
grep -q '"passed":[[:space:]]*true' "$SCRATCH"/coll1/*/summary_ranks_1_rank_0.json || fail "collectives alone: check"

if ! grep -q '^#define HAVE_MPI 1' "$top_builddir/build_config.h"; then
    # What Open MPI's mpirun sets in each rank's environment.
    out="$SCRATCH/nompi"
    OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 expect_exit 2 "a build without MPI under mpirun" \
        "$HARNESS" run "$TINY" --output-dir "$out"
    expect_err "built without MPI" "says why"
    expect_err "OMPI_COMM_WORLD_SIZE=2" "names what it saw"
    [ ! -e "$out" ] || fail "left a folder"
    finish
fi
command -v mpirun >/dev/null || { echo "skip: MPI build but no mpirun"; exit 77; }

# Sanitizer builds: LeakSanitizer is off for the ranks. Its stop-the-world
# tracer crashes now and then among Open MPI's threads ("Tracer caught signal
# 11"), and Open MPI keeps allocations until exit by design; AddressSanitizer
# and UBSan still check every rank, and LeakSanitizer the rest of the suite
# (the job summary's and the collectives' code have unit tests of their own).
MPIRUN="env ASAN_OPTIONS=detect_leaks=0 mpirun --allow-run-as-root --oversubscribe --mca btl self,vader"
for np in 2 3; do
    out="$SCRATCH/np$np"
    expect_exit 0 "mpirun -np $np" $MPIRUN -np $np "$HARNESS" run "$TINY" --output-dir "$out" --quiet
    [ "$(ls "$out" | wc -l)" -eq 1 ] || fail "np $np: $(ls "$out" | wc -l) folders, one expected"
    dir=$(ls -d "$out"/*)
    python3 - "$dir" $np <<'PY' || fail "np $np: per-rank files"
import json, os, sys
d, n = sys.argv[1], int(sys.argv[2])
files = set(os.listdir(d))
for r in range(n):
    s = json.load(open(f"{d}/summary_ranks_{n}_rank_{r}.json"))
    assert s["rank"] == r and s["world_size"] == n and s["status"] == "ok", (r, s["rank"], s["status"])
    assert f"profiler_summary_ranks_{n}_rank_{r}.txt" in files
# profiled_ranks defaults to [0]: only rank 0 writes a trace.
assert f"profiler_trace_ranks_{n}_rank_0.json" in files
assert not any(f.startswith("profiler_trace") and not f.endswith(("rank_0.json", f"ranks_{n}.json")) for f in files), files
assert f"profiler_trace_ranks_{n}.json" in files   # the job's merged trace, here of rank 0 alone
assert "resolved_config.yaml" in files
# The cross-rank summary agrees with the ranks' own.
job = json.load(open(f"{d}/summary.json"))
assert job["world_size"] == n and job["status"] == "ok" and "summary.txt" in files
medians = [json.load(open(f"{d}/summary_ranks_{n}_rank_{r}.json"))["timing"]["median"] for r in range(n)]
assert [x["median_ns"] for x in job["ranks"]] == medians, (job["ranks"], medians)
a = job["across_ranks"]
assert a["max_median"] == max(medians) and a["min_median"] == min(medians)
assert a["slowest_rank"] == medians.index(max(medians))
assert abs(a["skew"] - max(medians) / min(medians)) < 1e-12
PY
done

# sync_steps: a barrier before each measured step; the job summary counts,
# per rank, the steps it was the slowest of (every step has one).
out="$SCRATCH/sync"
expect_exit 0 "sync_steps on 3 ranks" $MPIRUN -np 3 "$HARNESS" run "$TINY" --output-dir "$out" --quiet \
    --set schedule.sync_steps=true
python3 - "$(ls -d "$out"/*)" <<'PY' || fail "sync_steps: straggler counts"
import json, sys
job = json.load(open(sys.argv[1] + "/summary.json"))
counts = [r["straggler_steps"] for r in job["ranks"]]
assert all(isinstance(c, int) for c in counts) and sum(counts) == job["ranks"][0]["n"], counts
PY
grep -q 'slowest rank of each step' "$(ls -d "$out"/*)/summary.txt" || fail "summary.txt has the straggler counts"

# Ranks meet at a barrier before each window: rank 1's first (warmup) step
# sleeps 1 s, so without the barrier rank 0 would start measuring that much
# earlier. On the merged trace's one time base, each window's first step
# starts on both ranks within a fraction of that.
out="$SCRATCH/late"
cat >"$SCRATCH/late.yaml" <<'YAML'
schedule: {warmup_steps: 1, wait_steps: 0, measurement_steps: 5, repeat: 2}
profiling: {memory: false, profiled_ranks: all}
component: {variant_key: rank_late, config: {late_ms: 1000}}
validate: false
YAML
expect_exit 0 "a late rank" $MPIRUN -np 2 "$HARNESS" run "$SCRATCH/late.yaml" --plugin-path "$SCRATCH/plugins" \
    --output-dir "$out" --quiet
python3 - "$(ls -d "$out"/*)" <<'PY' || fail "the window barrier: both ranks start each window together"
import json, sys
ev = json.load(open(sys.argv[1] + "/profiler_trace_ranks_2.json"))["traceEvents"]
first = {}
for e in ev:
    if e.get("cat") == "step":
        k = (e["pid"], e["args"]["window"])
        first[k] = min(first.get(k, e["ts"]), e["ts"])
for w in (0, 1):
    gap_ms = abs(first[(0, w)] - first[(1, w)]) / 1e3
    assert gap_ms < 500, (w, gap_ms, first)   # half the sleep: a descheduled rank is no failure
PY

# profiled_ranks: all: the merged trace, a process per rank on one time base;
# on one node the ranks share a clock, so each offset is within its round trip.
out="$SCRATCH/merged"
expect_exit 0 "profiled_ranks all on 3 ranks" $MPIRUN -np 3 "$HARNESS" run "$TINY" --output-dir "$out" --quiet \
    --set profiling.profiled_ranks=all
dir=$(ls -d "$out"/*)
"$top_builddir/tests/tools/check_trace" "$dir/profiler_trace_ranks_3.json" || fail "the merged trace is not valid"
python3 - "$dir" <<'PY' || fail "merged trace: processes, steps, header, clock offsets"
import json, sys
d = sys.argv[1]
text = open(f"{d}/profiler_trace_ranks_3.json").read()
t = json.loads(text)
assert t["distributedInfo"] == {"rank": 0, "world_size": 3} and '"baseTimeNanoseconds":' in text
ev = t["traceEvents"]
procs = {e["pid"] for e in ev if e.get("ph") == "M" and e["name"] == "process_name"}
assert procs == {0, 1, 2}, procs
for r in range(3):
    own = json.load(open(f"{d}/profiler_trace_ranks_3_rank_{r}.json"))["traceEvents"]
    mine = [e for e in ev if e.get("pid") == r and e.get("cat") == "step"]
    assert len(mine) == len([e for e in own if e.get("cat") == "step"]) == 10, r
job = json.load(open(f"{d}/summary.json"))
for x in job["ranks"][1:]:
    assert abs(x["clock_offset_ns"]) <= x["clock_rtt_ns"], x
PY

# Only the profiled ranks write a trace and a memory report.
out="$SCRATCH/profiled"
expect_exit 0 "profiled_ranks [1] of 2" $MPIRUN -np 2 "$HARNESS" run "$TINY" --output-dir "$out" --quiet \
    --set 'profiling.profiled_ranks=[1]'
dir=$(ls -d "$out"/*)
[ -e "$dir/profiler_trace_ranks_2_rank_1.json" ] && [ -e "$dir/profiler_memory_ranks_2_rank_1.html" ] \
    || fail "the profiled rank 1 wrote no trace or memory report"
[ ! -e "$dir/profiler_trace_ranks_2_rank_0.json" ] && [ ! -e "$dir/profiler_memory_ranks_2_rank_0.html" ] \
    || fail "the unprofiled rank 0 wrote a trace or memory report"
expect_exit 2 "profiled_ranks [2] of 2" $MPIRUN -np 2 "$HARNESS" run "$TINY" --output-dir "$out" \
    --set 'profiling.profiled_ranks=[2]'
expect_err "rank 2 is outside this job of 2 ranks (0..1)" "names the rank and the job's size"

# Collectives and allreduce/cpu between ranks.
for np in 2 3; do
    expect_exit 0 "every collective on $np ranks" $MPIRUN -np $np "$HARNESS" run "$SCRATCH/coll.yaml" \
        --plugin-path "$SCRATCH/plugins" --output-dir "$SCRATCH/coll$np" --quiet
    ! grep -q "device auto" "$SCRATCH/err" || fail "--quiet still printed information: $(cat "$SCRATCH/err")"
    [ "$(grep -l '"passed":[[:space:]]*true' "$SCRATCH"/coll$np/*/summary_ranks_${np}_rank_*.json | wc -l)" -eq $np ] \
        || fail "collectives on $np ranks: a rank's check failed"
    for dt in fp32 bf16 fp64 int32; do
        for inplace in false true; do
            out="$SCRATCH/ar${np}_${dt}_$inplace"
            expect_exit 0 "allreduce/cpu $dt in_place=$inplace on $np ranks" $MPIRUN -np $np "$HARNESS" run \
                "$SCRATCH/ar.yaml" --output-dir "$out" --quiet --set component.config.dtype=$dt \
                --set component.config.in_place=$inplace
            check_comm "$out" $np || fail "allreduce/cpu $dt in_place=$inplace on $np ranks"
        done
    done
done

# The tensor-parallel block: each rank a share of the heads and MLP columns,
# two all-reduces per step; the gathered output holds to the single-rank
# reference (the check), in fp32 and bf16.
# device: cpu, so that it runs the CPU block on a GPU machine too (auto would
# pick transformer_block/cuda, whose split needs a GPU per rank).
cat >"$SCRATCH/tp.yaml" <<'YAML'
device: cpu
schedule: {warmup_steps: 1, wait_steps: 0, measurement_steps: 3, repeat: 1}
profiling: {memory: false}
component:
  variant_key: transformer_block
  config: {batch_size: 2, seq_len: 7, hidden_size: 48, num_heads: 6, num_kv_heads: 2, intermediate_size: 20,
           tensor_parallel: true}
validate: true
YAML
for dt in fp32 bf16; do
    out="$SCRATCH/tp_$dt"
    expect_exit 0 "tensor-parallel block $dt on 2 ranks" $MPIRUN -np 2 "$HARNESS" run "$SCRATCH/tp.yaml" \
        --output-dir "$out" --quiet --set component.config.dtype=$dt
    python3 - "$(ls -d "$out"/*)" <<'PY' || fail "tensor-parallel $dt: check or all-reduces"
import json, sys
for r in range(2):
    s = json.load(open(f"{sys.argv[1]}/summary_ranks_2_rank_{r}.json"))
    assert s["validation"]["passed"] is True, s["validation"]
    (row,) = s["communication"]
    assert row["op"] == "all_reduce" and row["calls"] == 2 * 3, row   # two per measured step
    assert row["bytes"] == 2 * 7 * 48 * 4, row                                  # tokens x hidden fp32
PY
done
expect_exit 3 "tensor-parallel block on 3 ranks, 2 kv heads" $MPIRUN -np 3 "$HARNESS" run "$SCRATCH/tp.yaml" \
    --output-dir "$SCRATCH/tp3"
expect_err "num_kv_heads (2) is not a multiple of the job's 3 ranks" "names the parameter and the job's size"

# Ranks that resolved different configs (an MPMD launch): exit 2, naming the rank.
out="$SCRATCH/mismatch"
expect_exit 2 "ranks with different configs" $MPIRUN -np 1 "$HARNESS" run "$TINY" --output-dir "$out" : \
    -np 1 "$HARNESS" run "$TINY" --set component.config.hidden_size=9 --output-dir "$out"
expect_err "ranks disagree: rank 1 has config" "names the rank that differs"
[ ! -e "$out" ] || fail "a config mismatch left a folder"

# SIGTERM to one rank of two (docs/ARCHITECTURE.md section 9: nothing may hang a job):
# it tells the other, both stop within a step and write their summaries
# marked interrupted, and the job exits 143. The windows never end on their
# own, so only that can end the job; with sync_steps the other rank waits at
# a per-step meeting instead, and so it does for a component whose steps call
# collectives (allreduce: else it would wait inside the next all-reduce).
# 30 s is a generous bound (it takes about 1 s).
cat >"$SCRATCH/long.yaml" <<'YAML'
schedule: {warmup_steps: 2, wait_steps: 0, measurement_steps: 100000000, repeat: 2}
profiling: {memory: false}
component: {variant_key: spin, config: {duration_ns: 1000000}}
validate: false
YAML
for sync in false true allreduce; do
    out="$SCRATCH/one_signal_$sync"
    set -- --set schedule.sync_steps=$sync
    [ $sync = allreduce ] && set -- --set component.variant_key=allreduce --set component.config='{bytes: 4096}'
    $MPIRUN -np 2 timeout 90 "$HARNESS" run "$SCRATCH/long.yaml" --output-dir "$out" --quiet "$@" \
        >"$SCRATCH/out" 2>"$SCRATCH/err" &
    job=$!
    # Rank 1's status file, made as its run starts, gives its pid.
    i=0
    while ! ls "$out"/*/status_ranks_2_rank_1.json >/dev/null 2>&1 && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    pid1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$out"/*/status_ranks_2_rank_1.json)
    sleep 1
    start=$(date +%s)
    kill -TERM "$pid1" || fail "sync_steps $sync: no rank 1 to signal"
    wait $job
    rc=$?
    took=$(( $(date +%s) - start ))
    [ $rc -eq 143 ] && pass "sync_steps $sync: SIGTERM to rank 1: exit 143" || fail "sync_steps $sync: exit $rc"
    [ $took -le 30 ] && pass "sync_steps $sync: the job stopped in ${took}s" || fail "sync_steps $sync: took ${took}s"
    python3 - "$(ls -d "$out"/*)" <<'PY' || fail "sync_steps $sync: a rank's files do not say interrupted"
import json, sys
d = sys.argv[1]
for r, name in ((0, "status.json"), (1, "status_ranks_2_rank_1.json")):
    st = json.load(open(f"{d}/{name}"))
    assert st["status"] == "interrupted" and st["exit_code"] == 143 and st["signal"] == 15, (r, st)
    assert st["summaries_written"] is True, (r, st)
    s = json.load(open(f"{d}/summary_ranks_2_rank_{r}.json"))
    assert s["status"] == "interrupted" and s["interrupted"] is True and s["timing"]["n"] > 0, (r, s["status"])
    # rank 1 got the signal; rank 0 stopped because rank 1 told it, and says so
    assert ("sent to another rank" in s["error"]) == (r == 0), (r, s["error"])
PY
done

# One rank's steps fail: the job ends at once (not in a barrier), non-zero,
# naming the rank; the failing rank's summary says failed.
cat >"$SCRATCH/rank_fail.yaml" <<'YAML'
schedule: {warmup_steps: 2, wait_steps: 1, measurement_steps: 50, repeat: 3}
component: {variant_key: rank_fail}
YAML
out="$SCRATCH/fail"
start=$(date +%s)
$MPIRUN -np 2 timeout 60 "$HARNESS" run "$SCRATCH/rank_fail.yaml" --plugin-path "$SCRATCH/plugins" \
    --output-dir "$out" --quiet >"$SCRATCH/out" 2>"$SCRATCH/err"
rc=$?
took=$(( $(date +%s) - start ))
[ $rc -ne 0 ] && pass "a failing rank fails the job (exit $rc)" || fail "a failing rank: mpirun exit 0"
[ $took -le 10 ] && pass "the job ended in ${took}s" || fail "the job took ${took}s to end"
expect_err "rank 1 of 2: this rank's run failed" "names the failing rank"
expect_err "rank_fail: rank 1 fails on purpose" "gives the plugin's message"
grep -q '"status":[[:space:]]*"failed"' "$out"/*/summary_ranks_2_rank_1.json 2>/dev/null \
    && pass "rank 1's summary says failed" || fail "rank 1's summary does not say failed"
[ ! -e "$(ls -d "$out"/*)/summary.json" ] || fail "a failed job has a job summary that looks complete"

# A rank that crashes: mpirun ends the whole job; no job summary.
out="$SCRATCH/crash"
start=$(date +%s)
$MPIRUN -np 2 timeout 60 "$HARNESS" run "$SCRATCH/rank_fail.yaml" --plugin-path "$SCRATCH/plugins" \
    --set component.config.crash=true --output-dir "$out" --quiet >"$SCRATCH/out" 2>"$SCRATCH/err"
rc=$?
took=$(( $(date +%s) - start ))
[ $rc -ne 0 ] && pass "a crashing rank fails the job (exit $rc)" || fail "a crashing rank: mpirun exit 0"
[ $took -le 10 ] && pass "the job ended in ${took}s" || fail "the crashed job took ${took}s to end"
[ ! -e "$(ls -d "$out"/* 2>/dev/null | head -1)/summary.json" ] || fail "a crashed job has a job summary"
# Rank 0, stopped by mpirun, may or may not have written its summary; its
# status file says it did not end ok. compare fails the job (rank 0 was
# once "unmatched" and rank 1 alone FAILED), export has a row for each rank.
crashed=$(ls -d "$out"/*)
expect_exit 1 "compare a crashed job" "$HARNESS" compare "$(ls -d "$SCRATCH"/np2/*)" "$crashed"
grep -q "^verdict: FAILED: .* 2 failed" "$SCRATCH/out" || fail "compare a crashed job: both ranks FAILED"
grep -q "unmatched" "$SCRATCH/out" && fail "compare a crashed job: a rank listed as unmatched"
expect_exit 0 "export a crashed job" "$HARNESS" export "$crashed" --format json
python3 - "$SCRATCH/out" <<'PY' || fail "export a crashed job: a row for each rank, neither ok"
import json, sys
rows = json.load(open(sys.argv[1]))
assert {r["rank"] for r in rows} == {0, 1} and all(r["status"] != "ok" for r in rows), rows
assert {r["status"] for r in rows if r["rank"] == 1} == {"crashed"}, rows
PY
finish
