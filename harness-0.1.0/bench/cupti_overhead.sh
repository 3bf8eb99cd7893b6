#!/bin/sh
# What the CUPTI kernel timeline costs a CUDA step: one config run with
# profiling.trace and profiling.cupti on, and with both off, interleaved
# ROUNDS times in one session; prints min / median / max over the rounds of
# each run's median step time, and the on/off ratio of the medians.
# Needs a GPU and a CUDA build: exits 77 (skip) without either.
#   usage: bench/cupti_overhead.sh [ROUNDS [CONFIG]]   (from the top of a built tree)
#   e.g.   bench/cupti_overhead.sh 7 configs/rms_norm.yaml
set -eu
rounds=${1:-5}
config=${2:-configs/rms_norm.yaml}
harness=${HARNESS:-harness/harness}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    echo "cupti_overhead: no GPU visible (nvidia-smi -L lists none): nothing to measure" >&2
    exit 77
fi
[ -x "$harness" ] || { echo "cupti_overhead: $harness not built; run make first" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # run on|off -> prints the run's median step time in ns
    flag=false
    [ "$1" = on ] && flag=true
    # device=cuda: a CPU fallback would measure nothing of CUPTI.
    if ! dir=$("$harness" run "$config" --quiet --output-dir "$out" --set device=cuda \
            --set profiling.trace="$flag" --set profiling.cupti="$flag" 2>"$out/err"); then
        echo "cupti_overhead: the cuda run failed:" >&2
        cat "$out/err" >&2
        exit 77
    fi
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["timing"]["median"])' \
        "$dir/summary_ranks_1_rank_0.json"
}
nvidia-smi -L | head -n 1
echo "config $config, $rounds rounds, cupti+trace on and off alternated (the order swaps every round)"
i=0
while [ $i -lt "$rounds" ]; do
    if [ $((i % 2)) -eq 0 ]; then order="off on"; else order="on off"; fi
    for mode in $order; do
        echo "$mode $(run "$mode")" >>"$out/medians"
    done
    i=$((i + 1))
done
python3 - "$out/medians" <<'PY'
import statistics, sys
m = {"off": [], "on": []}
for line in open(sys.argv[1]):
    mode, ns = line.split()
    m[mode].append(float(ns))
for mode in ("off", "on"):
    v = m[mode]
    print(f"cupti {mode:3}: median step min {min(v):10.1f}  median {statistics.median(v):10.1f}  "
          f"max {max(v):10.1f} ns  ({len(v)} runs)")
off, on = statistics.median(m["off"]), statistics.median(m["on"])
print(f"on/off ratio of the medians: {on / off:.4f} ({(on - off):+.1f} ns per step)")
PY
