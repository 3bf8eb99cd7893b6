#!/bin/sh
# What a region costs per step: noop with 0 and 10 region pairs, with the
# trace off and on, alternated in one session.
# usage: bench/region_overhead.sh [ROUNDS]   (from the top of a built tree)
set -eu
rounds=${1:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
. bench/peaks.sh    # the machine these overheads were measured on
median() {  # median REGIONS TRACE
    dir=$(harness/harness run configs/noop.yaml --quiet --output-dir "$out" --set schedule.repeat=1 \
        --set component.config.regions="$1" --set profiling.trace="$2")
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["timing"]["median"])' \
        "$dir/summary_ranks_1_rank_0.json"
}
i=0
while [ $i -lt "$rounds" ]; do
    for case in "0 false" "10 false" "0 true" "10 true"; do
        set -- $case
        echo "$1 $2 $(median "$1" "$2")" >>"$out/medians"
    done
    i=$((i + 1))
done
python3 - "$out/medians" <<'PY'
import statistics, sys
m = {}
for line in open(sys.argv[1]):
    regions, trace, ns = line.split()
    m.setdefault((int(regions), trace), []).append(float(ns))
med = {k: statistics.median(v) for k, v in m.items()}
for trace in ("false", "true"):
    base, ten = med[(0, trace)], med[(10, trace)]
    print(f"trace {trace:5}: noop {base:6.1f} ns/step, +10 regions {ten:6.1f} ns/step -> {(ten - base) / 10:5.1f} ns per region")
PY
