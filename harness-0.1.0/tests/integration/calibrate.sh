#!/bin/sh
# harness calibrate and the machine file: measured peaks reach the summaries'
# roofline; an absent, corrupt or foreign file leaves them unknown with a
# reason, and the run still succeeds. Figures are checked for plausibility
# only (positive, finite): the machine may be busy.
. "$top_builddir/tests/setup"

M="$SCRATCH/m.json"
expect_exit 0 "calibrate --quick" "$HARNESS" calibrate --quick --output "$M"
grep -q "GFLOP/s" "$SCRATCH/out" && grep -q "GB/s" "$SCRATCH/out" && pass "calibrate prints its figures" ||
    fail "calibrate output lacks figures: $(cat "$SCRATCH/out")"
python3 - "$M" <<'PY' || fail "machine file keys and figures"
import json, math, sys
m = json.load(open(sys.argv[1]))
assert m["schema"] == "harness.machine/1"
for k in ("cpu_model", "logical_cpus", "threads"):
    assert k in m["identity"], k
assert m["identity"]["logical_cpus"] >= 1 and m["identity"]["threads"] >= 1
p = m["peaks"]
assert math.isfinite(p["flops_per_s"]) and 1e8 < p["flops_per_s"] < 1e15, p["flops_per_s"]
assert math.isfinite(p["bytes_per_s"]) and 1e8 < p["bytes_per_s"] < 1e14, p["bytes_per_s"]
assert m["measured_at"] and m["harness_version"]
PY
ls "$SCRATCH" | grep -q '\.tmp' && fail "calibrate left a temporary file" || pass "no temporary file left"

# Default location: $HARNESS_MACHINE_FILE, directories created.
expect_exit 0 "calibrate to \$HARNESS_MACHINE_FILE" env HARNESS_MACHINE_FILE="$SCRATCH/cfg/deep/m.json" \
    "$HARNESS" calibrate --quick --threads 1
[ -s "$SCRATCH/cfg/deep/m.json" ] && pass "machine file at \$HARNESS_MACHINE_FILE" || fail "no file at \$HARNESS_MACHINE_FILE"
grep -q '"threads":[[:space:]]*1' "$SCRATCH/cfg/deep/m.json" && pass "--threads recorded" || fail "--threads not recorded"

# run NAME [ENV...]: a tiny run with the given environment; prints the summary's path.
run() {
    name=$1; shift
    expect_exit 0 "run with $name machine file" env "$@" "$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" \
        --output-dir "$SCRATCH/$name" --quiet
}
roofline() {  # roofline NAME PYTHON-CONDITION (r is the roofline object)
    python3 - "$SCRATCH/$1"/*/summary_ranks_1_rank_0.json "$2" <<'PY' || fail "roofline of the $1 run: $2"
import json, sys
r = json.load(open(sys.argv[1]))["roofline"]
assert eval(sys.argv[2]), r
PY
}

run good HARNESS_MACHINE_FILE="$M"
roofline good 'r["percent_of_peak_bandwidth"] > 0 and r["percent_of_peak_flops"] > 0 and r["missing"] is None'
roofline good 'r["peak_bytes_per_s"] > 0 and sys.argv[1] and r["peak_source"]'
grep -q "of peak bandwidth" "$SCRATCH"/good/*/profiler_summary_ranks_1_rank_0.txt &&
    pass "text summary has the roofline" || fail "text summary lacks the roofline"

run absent HARNESS_MACHINE_FILE="$SCRATCH/none.json"
roofline absent 'r["percent_of_peak_bandwidth"] is None and "harness calibrate" in r["missing"] and "none.json" in r["missing"]'
grep -q "peaks unknown" "$SCRATCH"/absent/*/profiler_summary_ranks_1_rank_0.txt &&
    pass "text summary says peaks are unknown" || fail "text summary lacks the missing reason"

printf '{"schema": "harness.machine/1", "identity": {"cpu_mo' >"$SCRATCH/corrupt.json"
run corrupt HARNESS_MACHINE_FILE="$SCRATCH/corrupt.json"
expect_err "warning: machine file $SCRATCH/corrupt.json" "corrupt file: warning names the file"
roofline corrupt 'r["peak_flops_per_s"] is None and "corrupt" in r["missing"]'

python3 - "$M" "$SCRATCH/other.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["identity"]["cpu_model"] = "Imaginary CPU 9000"
json.dump(m, open(sys.argv[2], "w"))
PY
run other HARNESS_MACHINE_FILE="$SCRATCH/other.json"
roofline other 'r["percent_of_peak_flops"] is None and "another machine" in r["missing"] and "Imaginary CPU 9000" in r["missing"]'

# A file measured with 1 thread does not fit a 2-thread run (and vice versa).
run threads HARNESS_MACHINE_FILE="$SCRATCH/cfg/deep/m.json" OMP_NUM_THREADS=2
roofline threads 'r["missing"] and "threads" in r["missing"]'

expect_exit 2 "bad option" "$HARNESS" calibrate --bogus
expect_err "harness calibrate --help" "bad option: says where to look"
expect_exit 2 "bad --threads" "$HARNESS" calibrate --threads 0
expect_exit 2 "stray argument" "$HARNESS" calibrate extra
expect_exit 0 "calibrate --help" "$HARNESS" calibrate --help
expect_exit 3 "unwritable output" "$HARNESS" calibrate --quick --output /proc/nope/m.json
finish
