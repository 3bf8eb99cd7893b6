#!/bin/sh
# RMSNorm's bandwidth against the machine's copy bandwidth, both through the
# harness, alternated in one session so drifting machine load hits both; and
# all three as fractions of the copy peak `harness calibrate` measures now.
# usage: bench/rms_norm_vs_copy.sh [ROUNDS]   (from the top of a built tree)
set -eu
rounds=${1:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
. bench/peaks.sh
h=harness/harness
run() {  # run NAME CONFIG ARGS...
    name=$1; config=$2; shift 2
    dir=$($h run "$config" --quiet --output-dir "$out/$name" --set schedule.repeat=1 "$@")
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["throughput"]["gb_per_s"])' \
        "$dir/summary_ranks_1_rank_0.json" >>"$out/$name.gbps"
}
i=0
while [ $i -lt "$rounds" ]; do
    run copy configs/copy.yaml
    run fp32 configs/rms_norm.yaml --set component.config.dtype=fp32 --set validate=false
    run bf16 configs/rms_norm.yaml --set component.config.dtype=bf16 --set validate=false
    i=$((i + 1))
done
python3 - "$out" "$PEAK_GBPS" <<'PY'
import statistics, sys
d, peak = sys.argv[1], float(sys.argv[2])
g = {n: [float(x) for x in open(f"{d}/{n}.gbps")] for n in ("copy", "fp32", "bf16")}
copy = statistics.median(g["copy"])
print(f"copy (128 MiB, 2 x bytes per step)   {copy:7.2f} GB/s  = {copy / peak:5.1%} of the copy peak  (runs: {', '.join(f'{x:.1f}' for x in g['copy'])})")
for n in ("fp32", "bf16"):
    m = statistics.median(g[n])
    print(f"rms_norm {n} 8x1024x4096            {m:7.2f} GB/s  = {m / copy:5.1%} of copy, {m / peak:5.1%} of the copy peak  (runs: {', '.join(f'{x:.1f}' for x in g[n])})")
PY
