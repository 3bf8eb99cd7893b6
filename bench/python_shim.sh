#!/bin/sh
# What the python component adds to a step: an empty Python step()
# (tests/python/fixtures.py's Empty, on python/cpu) against the C noop
# (configs/noop.yaml), the same schedule, alternated ROUNDS times in one
# session; the difference of the two medians per round, min/median/max.
# usage: bench/python_shim.sh [ROUNDS]   (from the top of a built tree)
# (The runs' warnings, oversubscribed cores and a step near the clock's tick,
# are expected for steps this short and are not printed.)
set -eu
rounds=${1:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
harness/harness list 2>/dev/null | grep -q '^python/cpu ' || { echo "python_shim: python/cpu is not built" >&2; exit 77; }
median() {  # median VARIANT [--set ...]
    variant=$1; shift
    dir=$(harness/harness run configs/noop.yaml --quiet --output-dir "$out" --set schedule.repeat=1 \
        --set component.variant_key="$variant" "$@" 2>>"$out/warnings")
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["timing"]["median"])' \
        "$dir/summary_ranks_1_rank_0.json"
}
i=0
while [ $i -lt "$rounds" ]; do
    c=$(median noop/cpu)
    py=$(median python/cpu --set component.config.callable="$PWD/tests/python/fixtures.py:Empty")
    echo "$c $py" >>"$out/medians"
    i=$((i + 1))
done
python3 - "$out/medians" <<'PY'
import statistics, sys
rows = [tuple(map(float, line.split())) for line in open(sys.argv[1])]
diff = sorted(py - c for c, py in rows)
print(f"noop/cpu median of medians {statistics.median(r[0] for r in rows):7.1f} ns/step, "
      f"python/cpu (empty step) {statistics.median(r[1] for r in rows):7.1f} ns/step")
print(f"shim per step over {len(rows)} rounds: min {diff[0]:.1f} ns, median {statistics.median(diff):.1f} ns, "
      f"max {diff[-1]:.1f} ns")
PY
