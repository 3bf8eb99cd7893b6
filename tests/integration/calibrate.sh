#!/bin/sh
# harness calibrate and the machine file: measured peaks reach the summaries'
# roofline; an absent, corrupt or foreign file leaves them unknown with a
# reason, and the run still succeeds; a rate above a peak is flagged. Figures
# are checked for plausibility only (positive, finite): the machine may be
# busy, so calibrate's busy-machine warning may or may not fire here (its
# rule is unit-tested in test_warnings.c).
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
load = m["load_at_calibration"]
assert len(load) == 3 and all(x >= 0 for x in load), load
PY
grep -q "^load average: " "$SCRATCH/out" && pass "calibrate prints the load average" ||
    fail "calibrate output lacks the load average: $(cat "$SCRATCH/out")"
if grep -q "busy machine" "$SCRATCH/err"; then
    expect_err "re-run harness calibrate when the machine is idle" "busy calibrate: says to re-run when idle"
fi

# HARNESS_CPU_ISA=avx2 (the components' AVX2 kernels forced) measures the
# AVX2 FMA peak, also on a CPU with AVX-512; any other value the widest.
if grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo; then
    expect_exit 0 "calibrate under HARNESS_CPU_ISA=avx2" env HARNESS_CPU_ISA=avx2 "$HARNESS" calibrate --quick \
        --output "$SCRATCH/avx2.json"
    grep -q '"flops_isa":[[:space:]]*"avx2"' "$SCRATCH/avx2.json" && grep -q "GFLOP/s  (avx2," "$SCRATCH/out" &&
        pass "HARNESS_CPU_ISA=avx2: the AVX2 FMA peak" || fail "HARNESS_CPU_ISA=avx2: $(cat "$SCRATCH/out")"
    widest=$(grep -qw avx512f /proc/cpuinfo && echo avx512 || echo avx2)
    for isa in unset avx512_bf16 portable; do
        if [ $isa = unset ]; then set -- env -u HARNESS_CPU_ISA; else set -- env HARNESS_CPU_ISA=$isa; fi
        expect_exit 0 "calibrate, HARNESS_CPU_ISA $isa" "$@" "$HARNESS" calibrate --quick --output "$SCRATCH/w.json"
        grep -q "\"flops_isa\":[[:space:]]*\"$widest\"" "$SCRATCH/w.json" &&
            pass "HARNESS_CPU_ISA $isa: the widest FMA ($widest)" ||
            fail "HARNESS_CPU_ISA $isa: flops_isa is not $widest: $(grep flops_isa "$SCRATCH/w.json")"
    done
else
    echo "skipped: HARNESS_CPU_ISA=avx2 (this CPU lacks AVX2 + FMA)"
fi

# --require-idle: written on an idle machine, refused (exit 3, nothing
# written) on a busy one; which one this machine is now is not ours to pick.
"$HARNESS" calibrate --quick --require-idle --output "$SCRATCH/idle.json" >"$SCRATCH/out" 2>"$SCRATCH/err"
case $? in
    0) [ -s "$SCRATCH/idle.json" ] && pass "--require-idle on an idle machine writes" || fail "--require-idle: exit 0, no file" ;;
    3) grep -q "busy machine.*--require-idle: .*idle.json not written" "$SCRATCH/err" && [ ! -e "$SCRATCH/idle.json" ] &&
           pass "--require-idle on a busy machine refuses" || fail "--require-idle refusal: $(cat "$SCRATCH/err")" ;;
    *) fail "--require-idle: exit $?" ;;
esac
# More threads than CPUs is busy on any machine: refused before measuring,
# so nothing on stdout (no peaks printed, then refused).
over=$(( $(getconf _NPROCESSORS_ONLN) * 4 ))
expect_exit 3 "--require-idle --threads $over" "$HARNESS" calibrate --quick --require-idle --threads $over \
    --output "$SCRATCH/over.json"
expect_err "--require-idle: nothing measured" "--require-idle refuses before measuring"
[ ! -s "$SCRATCH/out" ] && [ ! -e "$SCRATCH/over.json" ] && pass "--require-idle refused: no peaks printed, no file" ||
    fail "--require-idle refused after measuring: $(cat "$SCRATCH/out")"
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
# stdout's short table says it too, beside the rates it qualifies.
expect_exit 0 "run's table with a machine file" env HARNESS_MACHINE_FILE="$M" "$HARNESS" run \
    "$CONFIGS/rms_norm_tiny.yaml" --output-dir "$SCRATCH/table"
grep -q "^throughput at the median: .* GB/s (.*/step) [0-9.]*% of peak, .* GFLOP/s (.*) [0-9.]*% of peak fp32 FLOP/s$" \
    "$SCRATCH/out" && pass "stdout: the roofline percents beside the rates" ||
    fail "stdout lacks the roofline percents: $(grep throughput "$SCRATCH/out")"

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

# A file with tiny peaks (as from a calibration on a very busy machine, and
# one written before load_at_calibration existed): the run's rates are far
# above them, which the summaries and stderr must say, never a bare >100%.
# Every FLOP/s peak is tiny, so the FLOP rate is beyond any margin: an
# impossible figure, the run's error (tests/integration/impossible_figure.sh
# tests that path); kept here with --allow-above-peak to see what the
# summaries say of a figure above its peak. The step's bytes fit in cache,
# so its bandwidth stays a warning.
python3 - "$M" "$SCRATCH/tiny.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["peaks"]["flops_per_s"] = m["peaks"]["bytes_per_s"] = 1000.0
for k in ("bf16_dot_flops_per_s", "amx_bf16_flops_per_s"):
    m["peaks"][k] = min(m["peaks"][k], 1000.0)
del m["load_at_calibration"]
json.dump(m, open(sys.argv[2], "w"))
PY
expect_exit 3 "run with tiny machine file: an impossible figure" env HARNESS_MACHINE_FILE="$SCRATCH/tiny.json" \
    "$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" --output-dir "$SCRATCH/tiny-refused" --quiet
expect_err "harness: impossible figure: FLOP rate" "tiny peaks: the FLOP rate is an impossible figure"
expect_exit 0 "run with tiny machine file, kept" env HARNESS_MACHINE_FILE="$SCRATCH/tiny.json" "$HARNESS" run \
    "$CONFIGS/rms_norm_tiny.yaml" --output-dir "$SCRATCH/tiny" --quiet --allow-above-peak
expect_err ": above peak: " "above peak: warned on stderr"
expect_err "above the machine file's peak: the file is stale or was calibrated on a busy machine; re-run harness calibrate" \
    "above peak: the warning says why and what to do"
expect_err "where the caches may serve the step" "above peak: the bandwidth warning says the cache may serve the step"
roofline tiny 'r["percent_of_peak_flops"] > 100 and r["above_peak"] == ["percent_of_peak_bandwidth", "percent_of_peak_flops"]'
python3 - "$SCRATCH"/tiny/*/summary_ranks_1_rank_0.json <<'PY' || fail "tiny: the JSON's warnings list both figures"
import json, sys
ws = json.load(open(sys.argv[1]))["warnings"]
w = [x for x in ws if x.startswith("above peak: ")]
i = [x for x in ws if x.startswith("impossible figure: ")]
assert len(w) == 1 and "peak bandwidth" in w[0], ws
assert len(i) == 1 and "fp32 FLOP/s" in i[0] and i[0].endswith("kept by --allow-above-peak"), ws
PY
grep -q "of peak fp32 FLOP/s (0.0 GFLOP/s) ABOVE PEAK" "$SCRATCH"/tiny/*/profiler_summary_ranks_1_rank_0.txt &&
    grep -q "^  - above peak: " "$SCRATCH"/tiny/*/profiler_summary_ranks_1_rank_0.txt &&
    pass "text summary marks the figure and lists the warning" || fail "text summary: no ABOVE PEAK mark or warning"

expect_exit 2 "bad option" "$HARNESS" calibrate --bogus
expect_err "harness calibrate --help" "bad option: says where to look"
expect_exit 2 "bad --threads" "$HARNESS" calibrate --threads 0
expect_exit 2 "stray argument" "$HARNESS" calibrate extra
expect_exit 0 "calibrate --help" "$HARNESS" calibrate --help
expect_exit 3 "unwritable output" "$HARNESS" calibrate --quick --output /proc/nope/m.json
finish
