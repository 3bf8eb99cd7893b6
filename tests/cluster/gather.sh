#!/bin/sh
# Runs without a shared file system (experiment.gather; docs/guide/mpi.md,
# "Without a shared file system"). Rank 1 runs in a mount namespace of its
# own with an empty /tmp (tests/cluster/private-tmp), the output folder is
# under /tmp: rank 1 cannot see rank 0's folder, as on a second node.
#   a. auto, private /tmp: rank 1's files reach rank 0's folder, byte for
#      byte (the sha256 the sender read, in summary.json), the same files as
#      a shared run with gather: always; the job summary says gathered
#   b. auto, shared /tmp: nothing gathered, no staging folder left
#   c. never, private /tmp: exit 3 naming rank 1 and the folder, no hang
#   d. SIGTERM to mpirun mid-measure: rank 1's windows so far reach rank
#      0's folder, marked interrupted
#   e. a trace over experiment.gather_max_bytes stays behind, with a warning
#      and a note in the job summary
#   f. where the multi-node bed is (tests/cluster/bed, README.md there): 2
#      "nodes" over TCP, each with its own /tmp, gather on their own
. "$top_builddir/tests/setup"
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
grep -q '^#define HAVE_MPI 1' "$top_builddir/build_config.h" || { echo "skip: built without MPI"; exit 77; }
PRIVATE="$top_srcdir/tests/cluster/private-tmp"
for tree in "$top_builddir" "$top_srcdir"; do
    case "$(cd "$tree" && pwd -P)/" in
    /tmp/*) echo "skip: $tree is under /tmp, which rank 1 will not see"; exit 77 ;;
    esac
done
"$PRIVATE" --check 2>/dev/null || { echo "skip: no mount namespaces here (unshare -m, mount -t tmpfs)"; exit 77; }
# Open MPI's session folder (its PMIx rendezvous) outside /tmp, so the rank
# with a /tmp of its own still joins the job; the ranks' staging folders in
# a TMPDIR this test can look into (rank 1's /tmp is gone with it).
SESSION=$(mktemp -d /dev/shm/harness-gather-session.XXXXXX) || { echo "skip: no /dev/shm"; exit 77; }
OUT=$(mktemp -d /tmp/harness-gather.XXXXXX)
trap 'rm -rf "$SCRATCH" "$OUT" "$SESSION"' EXIT
MPIRUN="env ASAN_OPTIONS=detect_leaks=0 OMPI_MCA_orte_tmpdir_base=$SESSION TMPDIR=$SESSION/staging \
mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np 2"
mkdir -p "$SESSION/staging"
# A config every rank reads (rank 1 sees no /tmp): the source tree's.
CONFIG="$top_srcdir/tests/configs/spin_tiny.yaml"
SETS="--set profiling.profiled_ranks=all --set component.config.duration_ns=20000"

# check_folder DIR GATHERED: the folder of a finished job of 2 ranks, every
# rank's status ok, summary.json's "gathered" as given, and each file sent
# (but the status file, sent again once final) as its sha256 says.
check_folder() {
    python3 - "$1" "$2" <<'PY'
import glob, hashlib, json, os, sys
d = glob.glob(sys.argv[1] + "/*/")
assert len(d) == 1, d
d = d[0]
for st in ("status.json", "status_ranks_2_rank_1.json"):
    s = json.load(open(d + st))
    assert s["status"] == "ok" and s["complete"], (st, s["status"], s["error"])
for r in (0, 1):
    for f in ("summary_ranks_2_rank_%d.json", "profiler_summary_ranks_2_rank_%d.txt",
              "profiler_trace_ranks_2_rank_%d.json", "profiler_memory_ranks_2_rank_%d.html"):
        assert os.path.isfile(d + f % r), f % r
j = json.load(open(d + "summary.json"))
assert j["gathered"] is (sys.argv[2] == "true"), j["gathered"]
if j["gathered"]:
    names = {f["name"] for f in j["gather"]["files"]}
    assert "summary_ranks_2_rank_1.json" in names and all(f["rank"] == 1 for f in j["gather"]["files"]), names
    for f in j["gather"]["files"]:
        assert f["sent"], f
        if not f["name"].startswith("status"):
            got = hashlib.sha256(open(d + f["name"], "rb").read()).hexdigest()
            assert got == f["sha256"], (f["name"], got, f["sha256"])
    assert "gathered: the ranks' files came to rank 0" in open(d + "summary.txt").read()
else:
    assert j["gather"] is None
print(" ".join(sorted(os.listdir(d))))
PY
}

# a. gather: auto with a private /tmp, against gather: always on a shared one.
expect_exit 0 "a. auto, rank 1 with its own /tmp: the job runs" \
    timeout 60 $MPIRUN "$PRIVATE" "$HARNESS" run "$CONFIG" $SETS --output-dir "$OUT/a" --quiet
if check_folder "$OUT/a" true >"$SCRATCH/files_a"; then pass "a. rank 0's folder holds rank 1's files, byte for byte"
else fail "a. rank 0's folder after gathering"; ls -R "$OUT/a"; fi
expect_exit 0 "a. gather: always on a shared /tmp" \
    timeout 60 $MPIRUN "$HARNESS" run "$CONFIG" $SETS --set experiment.gather=always --output-dir "$OUT/always" --quiet
check_folder "$OUT/always" true >"$SCRATCH/files_always" && cmp -s "$SCRATCH/files_a" "$SCRATCH/files_always" \
    && pass "a. the same files as gather: always on a shared /tmp" \
    || { fail "a. files differ from a shared run's"; cat "$SCRATCH/files_a" "$SCRATCH/files_always"; }
[ -z "$(ls -A "$SESSION/staging")" ] && pass "a. no staging folder left behind" \
    || fail "a. staging folders left: $(ls "$SESSION/staging")"

# b. auto on a shared /tmp: every rank writes into the folder itself.
expect_exit 0 "b. auto, shared /tmp" \
    timeout 60 $MPIRUN "$HARNESS" run "$CONFIG" $SETS --output-dir "$OUT/b" --quiet
check_folder "$OUT/b" false >/dev/null && pass "b. not gathered, every rank's files there" \
    || fail "b. the shared run's folder"
[ -z "$(ls -A "$SESSION/staging")" ] && pass "b. no staging folder made" || fail "b. a staging folder was made"

# c. never with a private /tmp: a clear error, exit 3, no folder, no hang.
start=$(date +%s)
expect_exit 3 "c. gather: never, rank 1 with its own /tmp" \
    timeout 60 $MPIRUN "$PRIVATE" "$HARNESS" run "$CONFIG" $SETS --set experiment.gather=never --output-dir "$OUT/c"
expect_err "rank 1 of 2 does not see the experiment folder $OUT/c/" "c. the error names rank 1 and the folder"
expect_err "experiment.gather: auto" "c. and says what to do"
[ $(( $(date +%s) - start )) -lt 30 ] && pass "c. no hang" || fail "c. took $(( $(date +%s) - start )) s"
[ -z "$(ls -A "$OUT/c" 2>/dev/null)" ] && pass "c. no folder left" || fail "c. a folder left: $(ls "$OUT/c")"

# d. SIGTERM to mpirun mid-measure: what rank 1 measured so far reaches rank 0.
$MPIRUN "$PRIVATE" "$HARNESS" run "$CONFIG" $SETS --set schedule.measurement_steps=200 \
    --set schedule.repeat=100000 --output-dir "$OUT/d" --quiet >"$SCRATCH/out" 2>"$SCRATCH/err" &
job=$!
i=0
while ! ls "$OUT"/d/*/status.json >/dev/null 2>&1 && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
sleep 2                            # windows measured on both ranks
kill -TERM $job
i=0
while kill -0 $job 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 $job 2>/dev/null && { fail "d. mpirun still running 60 s after SIGTERM"; kill -KILL $job; }
wait $job
python3 - "$OUT/d" <<'PY' && pass "d. rank 1's windows so far are in rank 0's folder, marked interrupted" \
    || { fail "d. rank 0's folder after SIGTERM"; sed 's/^/  stderr: /' "$SCRATCH/err" | head; }
import glob, json, sys
d = glob.glob(sys.argv[1] + "/*/")[0]
for name in ("status.json", "status_ranks_2_rank_1.json"):
    st = json.load(open(d + name))
    assert st["status"] == "interrupted" and st["summaries_written"], (name, st)
s = json.load(open(d + "summary_ranks_2_rank_1.json"))
assert s["status"] == "interrupted" and s["timing"]["n"] >= 200, (s["status"], s["timing"]["n"])
PY

# e. A trace over the bound stays on rank 1's side, named.
expect_exit 0 "e. gather_max_bytes below rank 1's files" \
    timeout 60 $MPIRUN "$PRIVATE" "$HARNESS" run "$CONFIG" $SETS --set schedule.measurement_steps=1000 \
    --set experiment.gather_max_bytes=60000 --output-dir "$OUT/e" --quiet
expect_err "profiler_trace_ranks_2_rank_1.json" "e. a warning names the trace left behind"
expect_err "experiment.gather_max_bytes" "e. and the bound"
python3 - "$OUT/e" <<'PY' && pass "e. the job summary names the trace not gathered; the rest came" \
    || fail "e. the folder with a trace over the bound"
import glob, json, os, sys
d = glob.glob(sys.argv[1] + "/*/")[0]
assert not os.path.exists(d + "profiler_trace_ranks_2_rank_1.json")
assert os.path.isfile(d + "summary_ranks_2_rank_1.json")
j = json.load(open(d + "summary.json"))
left = [f for f in j["gather"]["files"] if not f["sent"]]
assert any(f["name"] == "profiler_trace_ranks_2_rank_1.json" and f["sha256"] is None for f in left), left
assert "not gathered: profiler_trace_ranks_2_rank_1.json of rank 1" in open(d + "summary.txt").read()
assert json.load(open(d + "status_ranks_2_rank_1.json"))["status"] == "ok"
PY

# f. Two nodes of the bed: rank 1 on node1 over TCP; the folder is in node0's /tmp.
BED="$top_srcdir/tests/cluster/bed"
# Sanitizer builds: LeakSanitizer off in the ranks, as in tests/integration/mpi.sh.
ASAN_OPTIONS=detect_leaks=0
export ASAN_OPTIONS
if [ -x "$BED" ] && "$BED" check >/dev/null 2>&1; then
    timeout 120 "$BED" with 2 -- sh -c '"$1" mpirun -np 2 --map-by node "$2" run "$3" --set profiling.profiled_ranks=all \
        --output-dir "$4" --quiet && "$1" exec node0 python3 -c "
import glob, json, os, sys
d = glob.glob(sys.argv[1] + \"/*/\")[0]
assert json.load(open(d + \"summary.json\"))[\"gathered\"] is True
for f in (\"summary\", \"status\", \"profiler_trace\"):
    assert os.path.isfile(d + f + \"_ranks_2_rank_1.json\"), f
" "$4"' bed-gather "$BED" "$HARNESS" "$CONFIG" "$OUT/f" >"$SCRATCH/out" 2>"$SCRATCH/err" \
        && pass "f. two nodes of the bed: rank 1's files gathered into node0's folder" \
        || { fail "f. two nodes of the bed"; sed 's/^/  stderr: /' "$SCRATCH/err" | tail -15; }
else
    echo "skip f: no multi-node bed here (tests/cluster/bed)"
fi
finish
