#!/bin/sh
# Multi-rank runs under Slurm, on a cluster of one node made here
# (tests/cluster/slurm_up.sh; scripts/setup --with-slurm installs it):
# (a) srun --mpi=pmix -n 4 writes the folder mpirun -np 4 writes, file for
#     file and status for status, with the Slurm job in every summary;
# (b) an sbatch job does the same;
# (c) scancel while measuring: every rank interrupted with the windows it
#     measured, rank 0's job summary written, no "stopped" warning for the
#     SIGCONT that comes with the SIGTERM;
# (d) a time limit (srun -t 1: Slurm counts minutes, so up to 90 s; run
#     beside (b) and (c)): the same as (c).
# Not in make check (it needs root and Slurm; about 2 min): .ci/run runs it
# with make check TESTS=tests/cluster/slurm.sh. Exits 77 without Slurm.
. "${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/setup"
. "$top_srcdir/tests/cluster/slurm_up.sh"
slurm_up
rc=$?
[ $rc -eq 0 ] || exit $rc
TINY="$CONFIGS/rms_norm_tiny.yaml"
MPIRUN="env ASAN_OPTIONS=detect_leaks=0 mpirun --allow-run-as-root --oversubscribe --mca btl self,vader"
SRUN="env ASAN_OPTIONS=detect_leaks=0 srun --mpi=pmix"

# Long enough to be stopped by hand: windows of about 50 ms that never end.
cat >"$SCRATCH/long.yaml" <<'YAML'
schedule: {warmup_steps: 1, wait_steps: 0, measurement_steps: 50, repeat: 1000000}
profiling: {memory: false, trace: false}
component: {variant_key: spin, config: {duration_ns: 1000000}}
validate: false
YAML

# check_stopped NAME DIR: every rank interrupted with a measured window,
# no stop warning, and rank 0's job summary marked interrupted.
check_stopped() {
    python3 - "$(ls -d "$2"/* 2>/dev/null | head -1)" <<'PY' && pass "$1: every rank interrupted, windows kept, job summary" \
        || fail "$1: the folder does not say interrupted"
import glob, json, sys
d = sys.argv[1]
ranks = sorted(glob.glob(f"{d}/summary_ranks_2_rank_*.json"))
assert len(ranks) == 2, ranks
for p in ranks:
    s = json.load(open(p))
    assert s["status"] == "interrupted", (p, s["status"], s["error"])
    assert len(s["timing"]["windows"]) > 0 and s["timing"]["n"] > 0, (p, s["timing"]["n"])
    assert not [w for w in s["warnings"] if w.startswith("stopped:")], (p, s["warnings"])
    assert s["env"]["distributed"]["slurm"]["job_id"], p
job = json.load(open(f"{d}/summary.json"))
assert job["status"] == "interrupted" and [r["status"] for r in job["ranks"]] == ["interrupted"] * 2, job["ranks"]
assert job["slurm"]["job_id"], job["slurm"]
st = json.load(open(f"{d}/status.json"))
assert st["status"] == "interrupted" and st["summaries_written"], st
PY
}

# wait_measuring DIR: until both ranks have measured for a second.
wait_measuring() {
    i=0
    while [ "$(ls "$1"/*/status*.json 2>/dev/null | wc -l)" -lt 2 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 1.5
}

# (d) first: its minute runs while the others do.
$SRUN -n 2 -t 1 -J harness-limit "$HARNESS" run "$SCRATCH/long.yaml" --output-dir "$SCRATCH/limit" --quiet \
    >"$SCRATCH/limit.out" 2>&1 &
limit_job=$!

# (a) srun and mpirun, the same files.
expect_exit 0 "srun -n 4" $SRUN -n 4 "$HARNESS" run "$TINY" --output-dir "$SCRATCH/srun" --quiet
expect_exit 0 "mpirun -np 4" $MPIRUN -np 4 "$HARNESS" run "$TINY" --output-dir "$SCRATCH/mpirun" --quiet
# same_files NAME DIR: DIR's folder has mpirun's files, and every rank's status is ok in both.
same_files() {
    python3 - "$(ls -d "$2"/* | head -1)" "$(ls -d "$SCRATCH"/mpirun/* | head -1)" <<'PY' \
        && pass "$1: the files and statuses of mpirun -np 4, and the Slurm job" || fail "$1: not what mpirun wrote"
import glob, json, os, sys
slurm, mpi = sys.argv[1], sys.argv[2]
assert sorted(os.listdir(slurm)) == sorted(os.listdir(mpi)), (sorted(os.listdir(slurm)), sorted(os.listdir(mpi)))
for d in (slurm, mpi):
    for p in glob.glob(f"{d}/status*.json"):
        assert json.load(open(p))["status"] == "ok", p
job = json.load(open(f"{slurm}/summary.json"))
assert job["status"] == "ok" and job["world_size"] == 4, job["status"]
assert job["slurm"]["job_id"].isdigit() and job["slurm"]["cluster_name"] == "harnesstest", job["slurm"]
assert "procid" not in job["slurm"], job["slurm"]
for r in range(4):
    s = json.load(open(f"{slurm}/summary_ranks_4_rank_{r}.json"))["env"]["distributed"]
    assert s["slurm"]["procid"] == str(r) and s["slurm"]["job_id"] == job["slurm"]["job_id"], s["slurm"]
    assert s["slurm"]["nodeid"] == "0" and s["slurm"]["job_nodelist"] == job["slurm"]["job_nodelist"], s["slurm"]
    assert s["mpi_library"].startswith("Open MPI"), s["mpi_library"]
assert json.load(open(f"{mpi}/summary.json"))["slurm"] is None
PY
}
same_files "srun -n 4" "$SCRATCH/srun"

# (b) a batch job whose step is the same srun.
cat >"$SCRATCH/job.sh" <<EOF
#!/bin/sh
$SRUN -n 4 "$HARNESS" run "$TINY" --output-dir "$SCRATCH/sbatch" --quiet
EOF
expect_exit 0 "sbatch --wait -n 4" sbatch --wait -n 4 -J harness-batch -o "$SCRATCH/sbatch.out" "$SCRATCH/job.sh"
same_files "sbatch" "$SCRATCH/sbatch" || cat "$SCRATCH/sbatch.out"

# (c) scancel while measuring.
$SRUN -n 2 -J harness-cancel "$HARNESS" run "$SCRATCH/long.yaml" --output-dir "$SCRATCH/cancel" --quiet \
    >"$SCRATCH/cancel.out" 2>&1 &
cancel_job=$!
wait_measuring "$SCRATCH/cancel"
scancel -n harness-cancel
wait $cancel_job
check_stopped "scancel" "$SCRATCH/cancel" || cat "$SCRATCH/cancel.out"

# (d) the time limit's end (slurmctld looks every 30 s, so 60 to 90 s after the start).
wait $limit_job
grep -q "DUE TO TIME LIMIT" "$SCRATCH/limit.out" && pass "srun -t 1: Slurm ended it for its time limit" \
    || { fail "srun -t 1: not ended by its time limit"; cat "$SCRATCH/limit.out"; }
check_stopped "time limit" "$SCRATCH/limit"
finish
