#!/bin/sh
# Issue 38, items 13 and 15: memory samples bounded whatever the step count
# (a 2,000,000-step noop once took 288 MB of RSS and wrote a 37.8 MB
# summary), and config integers narrowed to int checked before they are
# (profiled_ranks: 4294967296 once read as rank 0).
. "$top_builddir/tests/setup"
W="$SCRATCH/w"
mkdir -p "$W"
cat >"$W/noop.yaml" <<'YAML'
schedule:
  warmup_steps: 0
  wait_steps: 0
  measurement_steps: 20000
  repeat: 1
profiling:
  trace: false
component:
  variant_key: noop
YAML

# noop STEPS: a run into $W/n<STEPS>; its peak RSS in kB in $W/rss<STEPS>.
noop() {
    /usr/bin/time -f %M -o "$W/rss$1" "$HARNESS" run "$W/noop.yaml" --output-dir "$W/n$1" --quiet \
        --set schedule.measurement_steps=$1 >/dev/null 2>"$SCRATCH/err"
}
noop 20000 || fail "noop, 20,000 steps: exit $?"
noop 2000000 || fail "noop, 2,000,000 steps: exit $?"
python3 - "$W" <<'PY' && pass "2,000,000 steps: memory.samples within its bound, the peak kept, the summary small" \
    || fail "memory samples are not bounded"
import glob, json, os, sys
w = sys.argv[1]
f = glob.glob(w + "/n2000000/*/summary_ranks_1_rank_0.json")[0]
size = os.path.getsize(f)
m = json.load(open(f))["memory"]
s = m["samples"]
assert size < 1_000_000, f"summary of {size} bytes"
assert 0 < len(s) <= m["samples_bound"] == 1024, (len(s), m["samples_bound"])
assert m["samples_taken"] > len(s), m["samples_taken"]
assert m["samples_every_steps"] > m["log_every_steps"], m["samples_every_steps"]
# The peak survives the merges: the largest point is the peak, and every
# point's min is at most its max.
assert max(p["reserved_bytes"] for p in s) == m["peak_reserved_bytes"]
assert all(p["reserved_min_bytes"] <= p["reserved_bytes"] for p in s)
assert all(p["allocated_min_bytes"] <= p["allocated_bytes"] for p in s)
steps = [p["step"] for p in s]
assert steps == sorted(steps) and steps[-1] >= 1_900_000, steps[-3:]
small = glob.glob(w + "/n20000/*/summary_ranks_1_rank_0.json")[0]
assert size < 2 * os.path.getsize(small) + 100_000, (size, os.path.getsize(small))
PY
# RSS: 100 times the steps may cost their timing samples (8 bytes a step,
# kept for the samples file and sorted once), not memory samples on top.
# The sanitizers' allocator keeps freed memory, so their builds skip this.
if grep -Eq '"sanitizers":[[:space:]]*"none"' "$W"/n20000/*/summary_ranks_1_rank_0.json; then
    small=$(cat "$W/rss20000"); big=$(cat "$W/rss2000000")
    [ $((big - small)) -lt 65536 ] && pass "RSS: $small kB for 20,000 steps, $big kB for 2,000,000" \
        || fail "RSS grew by $((big - small)) kB for 1,980,000 more steps ($small -> $big)"
fi

# ---- config integers narrowed to int --------------------------------------------
TINY="$CONFIGS/rms_norm_tiny.yaml"
for v in 4294967296 2147483648 -1; do
    { cat "$TINY"; printf 'profiling:\n  profiled_ranks: [0, %s]\n' "$v"; } >"$W/ranks.yaml"
    line=$(grep -n profiled_ranks "$W/ranks.yaml" | cut -d: -f1)
    expect_exit 2 "profiled_ranks [0, $v]" "$HARNESS" run "$W/ranks.yaml" --output-dir "$W/o" --quiet
    expect_err "ranks.yaml:$line:" "profiled_ranks $v: the file and line"
    expect_err "profiling.profiled_ranks[1]: expected an integer from 0 to 2147483647, got $v" \
        "profiled_ranks $v: the key and the range"
done
{ cat "$TINY"; printf 'profiling:\n  profiled_ranks: [3]\n'; } >"$W/rank3.yaml"
expect_exit 2 "profiled_ranks [3] in a job of one rank" "$HARNESS" run "$W/rank3.yaml" --output-dir "$W/o" --quiet
expect_err "rank3.yaml:" "a rank outside the job: the file named"
expect_err "profiling.profiled_ranks: rank 3 is outside this job of 1 rank" "a rank outside the job: said so"
{ cat "$TINY"; printf 'device_index: 4294967296\n'; } >"$W/dev.yaml"
expect_exit 2 "device_index 4294967296" "$HARNESS" validate "$W/dev.yaml"
expect_err "device_index: expected an integer from 0 to 2147483647, got 4294967296" "device_index: the range"
expect_err "dev.yaml:" "device_index: the file named"
expect_exit 2 "--set device_index=2147483648" "$HARNESS" validate "$TINY" --set device_index=2147483648
expect_err "device_index: expected an integer from 0 to 2147483647" "--set device_index: the range"
expect_exit 0 "device_index 0 still validates" "$HARNESS" validate "$TINY" --set device_index=0

finish
