#!/bin/sh
# MPMD launches whose ranks differ (issue 25, item 6): ranks that load a
# plugin of the same file name but other bytes are refused before any
# folder is made (exit 2, naming both content hashes); a job where one rank
# runs `validate` and another `run` ends on its own, within seconds.
. "$top_builddir/tests/setup"
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
grep -q '^#define HAVE_MPI 1' "$top_builddir/build_config.h" || { echo "skip: built without MPI"; exit 77; }
MPIRUN="env ASAN_OPTIONS=detect_leaks=0 mpirun --allow-run-as-root --oversubscribe --mca btl self,vader"
cat >"$SCRATCH/rf.yaml" <<'YAML'
schedule: {warmup_steps: 1, wait_steps: 0, measurement_steps: 5, repeat: 1}
component: {variant_key: rank_fail, config: {fail_rank: 99}}
YAML
mkdir -p "$SCRATCH/a" "$SCRATCH/b" "$SCRATCH/c"
cp "$top_builddir/tests/fixtures/.libs/rank_fail.so" "$SCRATCH/a/"
cp "$top_builddir/tests/fixtures/.libs/rank_fail.so" "$SCRATCH/c/"
cp "$top_builddir/tests/fixtures/.libs/rank_fail.so" "$SCRATCH/b/"
printf 'other bytes' >>"$SCRATCH/b/rank_fail.so"   # still loads: the loader reads what the headers name

out="$SCRATCH/same"
expect_exit 0 "the same plugin bytes from two folders" $MPIRUN -np 1 timeout 60 "$HARNESS" run "$SCRATCH/rf.yaml" \
    --plugin-path "$SCRATCH/a" --output-dir "$out" --quiet : -np 1 timeout 60 "$HARNESS" run "$SCRATCH/rf.yaml" \
    --plugin-path "$SCRATCH/c" --output-dir "$out" --quiet

out="$SCRATCH/other"
expect_exit 2 "a plugin of the same name with other bytes" $MPIRUN -np 1 timeout 60 "$HARNESS" run "$SCRATCH/rf.yaml" \
    --plugin-path "$SCRATCH/a" --output-dir "$out" --quiet : -np 1 timeout 60 "$HARNESS" run "$SCRATCH/rf.yaml" \
    --plugin-path "$SCRATCH/b" --output-dir "$out" --quiet
expect_err "ranks disagree: rank 1 has config" "names the rank that differs"
sha_a=$(sha256sum "$SCRATCH/a/rank_fail.so" | cut -c1-16)
sha_b=$(sha256sum "$SCRATCH/b/rank_fail.so" | cut -c1-16)
expect_err "rank_fail.so (sha256 $sha_b)" "names rank 1's plugin hash"
expect_err "rank_fail.so (sha256 $sha_a)" "names rank 0's plugin hash"
[ ! -e "$out" ] || fail "a plugin mismatch left a folder"

# One rank validates, the other runs: validate never joins the job, and
# Open MPI's startup waits for every process, so the running rank would wait
# in MPI_Init for ever; past $HARNESS_MPI_JOIN_TIMEOUT_S (5 s here, 120 by
# default) it stops, saying why. Under `timeout 60`, 30 s is generous.
start=$(date +%s)
$MPIRUN -np 1 timeout 60 "$HARNESS" validate "$SCRATCH/rf.yaml" --plugin-path "$SCRATCH/a" : \
    -np 1 env HARNESS_MPI_JOIN_TIMEOUT_S=5 timeout 60 "$HARNESS" run "$SCRATCH/rf.yaml" --plugin-path "$SCRATCH/a" \
    --output-dir "$SCRATCH/mixed" --set schedule.measurement_steps=100000000 >"$SCRATCH/out" 2>"$SCRATCH/err"
rc=$?
took=$(( $(date +%s) - start ))
[ $rc -ne 0 ] && pass "validate beside run: the job fails (exit $rc)" || fail "validate beside run: exit 0"
[ $took -le 30 ] && pass "validate beside run: ended in ${took}s" || fail "validate beside run: took ${took}s"
# Which one says why depends on when the validating rank leaves: mpirun
# (it left before the other's MPI_Init ended) or the waiting rank.
grep -q 'harness: rank 1 of 2: the other ranks did not join the job within 5 s\|did not call "init" before exiting' \
    "$SCRATCH/err" && pass "validate beside run: the job says why it stopped" \
    || { fail "validate beside run: no reason given"; sed 's/^/  stderr: /' "$SCRATCH/err" | head; }
finish
