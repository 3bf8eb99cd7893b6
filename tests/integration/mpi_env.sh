#!/bin/sh
# The environment of a distributed run in each rank's summary
# (env.distributed, report/dist_env.h): the MPI library, NCCL ("not
# loaded" on the CPU), every NCCL_*, UCX_*, OMPI_MCA_*, FI_*, PMIX_MCA_*
# variable as a string (a name that says secret keeps its value out), the
# interfaces that are up, and no Slurm job outside Slurm (tests/cluster/slurm.sh
# checks it under Slurm).
. "$top_builddir/tests/setup"
TINY="$CONFIGS/rms_norm_tiny.yaml"

# check DIR RANKS LIBRARY: every rank's env.distributed as set below.
check() {
    python3 - "$(ls -d "$1"/*)" "$2" "$3" <<'PY'
import glob, json, sys
d, n, library = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for r in range(n):
    text = open(f"{d}/summary_ranks_{n}_rank_{r}.json", encoding="utf-8").read()
    assert "hunter2" not in text, "a secret's value was written"
    e = json.loads(text)["env"]["distributed"]
    assert e["mpi_library"].startswith(library), e["mpi_library"]
    assert e["nccl"] == "not loaded" and e["slurm"] is None, (e["nccl"], e["slurm"])
    v = e["variables"]
    assert v["NCCL_DEBUG"] == "INFO" and v["OMPI_MCA_btl_tcp_if_include"] == "lo", v
    assert v["UCX_TLS"] == "tcp" and v["FI_PROVIDER"] == "tcp" and v["NCCL_NTHREADS"] == "64", v
    assert v["NCCL_TEST_TOKEN"].startswith("(not recorded"), v["NCCL_TEST_TOKEN"]
    assert "HARNESS_NOT_A_TRANSPORT" not in v and list(v) == sorted(v), list(v)
    assert all(isinstance(x, str) for x in v.values()), v
    assert e["tcp_if_include"] == "lo", e["tcp_if_include"]
    assert {"name": "lo", "family": "ipv4", "address": "127.0.0.1", "pci_path": None} in e["interfaces"], e["interfaces"]
    assert e["gpu_nic_topology"].startswith("unknown"), e["gpu_nic_topology"]
PY
}
set -- env -u SLURM_JOB_ID NCCL_DEBUG=INFO NCCL_NTHREADS=64 OMPI_MCA_btl_tcp_if_include=lo UCX_TLS=tcp \
    FI_PROVIDER=tcp NCCL_TEST_TOKEN=hunter2 HARNESS_NOT_A_TRANSPORT=1
expect_exit 0 "one process" "$@" "$HARNESS" run "$TINY" --output-dir "$SCRATCH/one" --quiet
check "$SCRATCH/one" 1 "none" && pass "one process: env.distributed" || fail "one process: env.distributed"

grep -q '^#define HAVE_MPI 1' "$top_builddir/build_config.h" || { echo "skip: a build without MPI"; exit 77; }
command -v mpirun >/dev/null || { echo "skip: MPI build but no mpirun"; exit 77; }
MPIRUN="env ASAN_OPTIONS=detect_leaks=0 mpirun --allow-run-as-root --oversubscribe --mca btl self,vader"
expect_exit 0 "mpirun -np 2" "$@" $MPIRUN -np 2 "$HARNESS" run "$TINY" --output-dir "$SCRATCH/two" --quiet
check "$SCRATCH/two" 2 "Open MPI" && pass "mpirun -np 2: env.distributed of each rank" \
    || fail "mpirun -np 2: env.distributed"
finish
