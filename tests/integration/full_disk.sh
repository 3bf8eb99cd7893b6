#!/bin/sh
# A full disk never leaves a folder that looks complete: each failed write
# is reported, status.json says failed with the reason (written from a
# reserve freed for it), and a disk full from the start leaves no folder.
# Needs a tiny tmpfs: skipped (77) where this user cannot mount one.
. "$top_builddir/tests/setup"

disk="$SCRATCH/disk"
mkdir -p "$disk"
if ! mount -t tmpfs -o size=512k tmpfs "$disk" 2>/dev/null; then
    echo "SKIP: cannot mount a tmpfs here"
    exit 77
fi
trap 'umount "$disk" 2>/dev/null; umount "$SCRATCH/inodes" 2>/dev/null; rm -rf "$SCRATCH"' EXIT

# status_says DIR: status.json parses, says failed, names a full disk.
status_says() {
    python3 - "$1" <<'PY'
import json, os, sys
d = sys.argv[1]
st = json.load(open(os.path.join(d, "status.json")))
assert st["status"] == "failed" and st["complete"] is False and st["exit_code"] == 3, st
assert "No space left on device" in st["error"], st
assert not [f for f in os.listdir(d) if ".tmp" in f or f.startswith(".status")], os.listdir(d)
for f in os.listdir(d):
    if f.endswith(".json"):
        json.load(open(os.path.join(d, f)))
PY
}

# Artifacts too big for the disk: every failed write is said.
expect_exit 3 "artifacts larger than the disk" "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$disk/big" \
    --quiet --set schedule.measurement_steps=20000 --set component.config.duration_ns=100
expect_err "profiler_trace_ranks_1_rank_0.json: No space left on device" "the trace's failure is said"
expect_err "summary_ranks_1_rank_0.json: No space left on device" "so is the summary's"
status_says "$disk"/big/* && pass "status.json: failed, disk full" || fail "status.json after a full disk"
rm -rf "$disk/big"

# A samples side file larger than the disk (100,000 samples: 800 KB): said,
# the run failed, no part of the file left.
expect_exit 3 "a samples file larger than the disk" "$HARNESS" run "$top_srcdir/configs/noop.yaml" \
    --output-dir "$disk/samples" --quiet --set schedule.measurement_steps=100000 --set schedule.repeat=1 \
    --set profiling.trace=false --set profiling.memory=false
expect_err "samples_ranks_1_rank_0.bin: No space left on device" "the side file's failure is said"
status_says "$disk"/samples/* && [ ! -e "$disk"/samples/*/samples_ranks_1_rank_0.bin ] &&
    pass "status.json: failed; no samples file" || fail "after a samples file larger than the disk"
rm -rf "$disk/samples"

# The disk fills while the run measures: even the small files fail, and
# status.json is still rewritten from its reserve.
"$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$disk/fill" --quiet --set schedule.warmup_steps=0 \
    --set schedule.wait_steps=0 --set schedule.measurement_steps=8 --set component.config.duration_ns=100000000 \
    >"$SCRATCH/out" 2>"$SCRATCH/err" &
pid=$!
i=0
while ! ls "$disk"/fill/*/status.json >/dev/null 2>&1 && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
dd if=/dev/zero of="$disk/filler" bs=4k 2>/dev/null
wait $pid
code=$?
[ $code -eq 3 ] && pass "disk filled during the run: exit 3" || fail "disk filled during the run: exit $code"
grep -q "profiler_summary_ranks_1_rank_0.txt: No space left on device" "$SCRATCH/err" &&
    pass "the text summary's failure is said" || fail "$(cat "$SCRATCH/err")"
status_says "$disk"/fill/* && pass "status.json written from the reserve" || fail "status.json on a full disk"

# Full before the run: the folder cannot say anything, so it is not left.
rm -rf "$disk/fill"
dd if=/dev/zero of="$disk/filler2" bs=1k 2>/dev/null
expect_exit 3 "a disk full from the start" "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$disk/none"
expect_err "status.json: No space left on device" "says why"
[ -z "$(ls -A "$disk/none" 2>/dev/null)" ] && pass "no folder left" || fail "a folder left: $(ls "$disk/none")"

# A tmpfs out of inodes (issue 25): each limit stops the run at another file
# of the folder. Whatever the limit, a folder whose status.json does not say
# ok has no summary that says ok (once the job summary failed, the rank's
# summaries said ok and could not be rewritten: a new file needs an inode).
umount "$disk"
inodes="$SCRATCH/inodes"
mkdir -p "$inodes"
for n in 8 9 10 11 12 13 14 16; do
    mount -t tmpfs -o size=4m,nr_inodes=$n tmpfs "$inodes" || { fail "mount a tmpfs of $n inodes"; continue; }
    timeout 60 "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$inodes/x" --quiet >/dev/null 2>"$SCRATCH/err"
    code=$?
    python3 - "$inodes/x" "$code" <<'PY' && pass "$n inodes: exit $code, no file says ok unless status.json does" \
        || fail "$n inodes: a file says ok in a folder that does not"
import glob, json, os, sys
dirs, code = glob.glob(sys.argv[1] + "/*"), int(sys.argv[2])
assert code in (0, 3), code
for d in dirs:
    st = json.load(open(os.path.join(d, "status.json")))
    assert (st["status"] == "ok") == (code == 0), (st["status"], code)
    if st["status"] != "ok":
        for f in ("summary_ranks_1_rank_0.json", "summary.json"):
            p = os.path.join(d, f)
            if os.path.exists(p):
                assert json.load(open(p))["status"] != "ok", (f, os.listdir(d))
PY
    umount "$inodes"
done
finish
