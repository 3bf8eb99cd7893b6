#!/bin/sh
# How `harness compare` scales with the number of runs on a side: for each N
# (default 1000 2000 5000), two folders of N experiment folders each, made
# from one real noop summary with component.config.regions = 0..N-1, so that
# every run has its own key. The candidate side lacks every 50th run of the
# base and has N/50 runs of its own, and 1 key in 100 has two runs on each
# side (duplicates: the newest is shown, the medians are replicates). Prints
# the wall and CPU (user + system) seconds compare took at each N and the
# CPU time's ratio to the first N's: near N/N0 is linear, near (N/N0)^2
# quadratic. The machine is shared: read the CPU column, wall time includes
# waiting for a core.
#   usage: bench/compare_scale.sh [N...]      (from the top of the built tree)
set -eu
harness=${HARNESS:-./harness/harness}
[ -x "$harness" ] || { echo "bench/compare_scale.sh: no $harness; run make first" >&2; exit 2; }
[ $# -gt 0 ] || set -- 1000 2000 5000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One real summary, so that every key compare reads is as `harness run` writes it.
"$harness" run configs/noop.yaml --quiet --output-dir "$tmp/template" --set profiling.trace=false \
    --set profiling.memory=false --set schedule.measurement_steps=50 --set schedule.repeat=5 >/dev/null 2>&1
template=$(ls "$tmp"/template/*/summary_ranks_1_rank_0.json)

printf '%8s %8s %8s %8s %12s\n' runs wall_s cpu_s ratio "cpu s/1000"
first_n= first_cpu=
for n in "$@"; do
    python3 - "$template" "$tmp/$n" "$n" <<'PY'
import copy, json, os, sys
template, root, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
base = json.load(open(template))
def write(side, name, regions, median):
    s = copy.deepcopy(base)
    s["component"]["config"]["regions"] = regions
    s["warnings"] = []
    t = s["timing"]
    t["samples"] = [median * (1 + 0.001 * (i % 7)) for i in range(len(t["samples"]))]
    for w in t["windows"]:
        w["median"] = median
    d = os.path.join(root, side, name)
    os.makedirs(d)
    with open(os.path.join(d, "summary_ranks_1_rank_0.json"), "w") as f:
        json.dump(s, f)
for i in range(n):
    write("base", f"2026-01-01__00-00-00_{i:08x}", i, 100.0)
    if i % 50 != 7:
        write("cand", f"2026-01-01__00-00-00_{i:08x}", i, 101.0)
    if i % 100 == 3:
        write("base", f"2026-01-01__00-00-01_{i:08x}", i, 100.5)
        write("cand", f"2026-01-01__00-00-01_{i:08x}", i, 101.5)
for i in range(n // 50):
    write("cand", f"2026-01-02__00-00-00_{i:08x}", n + i, 101.0)
PY
    rc=0
    /usr/bin/time -f '%e %U %S' -o "$tmp/time" "$harness" compare "$tmp/$n/base" "$tmp/$n/cand" --format json \
        >"$tmp/out.json" || rc=$?
    [ "$rc" -le 1 ] || { echo "bench/compare_scale.sh: compare exited $rc at N=$n" >&2; exit 3; }
    read -r wall user sys <<EOF
$(tail -n 1 "$tmp/time")
EOF
    cpu=$(echo "$user + $sys" | bc -l)
    [ -n "$first_n" ] || { first_n=$n; first_cpu=$cpu; }
    printf '%8d %8.2f %8.2f %8.2f %12.3f   (N/N0 = %.2f, (N/N0)^2 = %.2f)\n' "$n" "$wall" "$cpu" \
        "$(echo "$cpu / $first_cpu" | bc -l)" "$(echo "$cpu * 1000 / $n" | bc -l)" \
        "$(echo "$n / $first_n" | bc -l)" "$(echo "($n / $first_n)^2" | bc -l)"
    rm -rf "${tmp:?}/$n"
done
