#!/bin/sh
# What a run of many samples costs the harness: the noop component with one
# window of N measured steps (default 1,000,000 and 3,000,000), profiling
# off, under /usr/bin/time -v: wall time of the whole run (measuring
# included: N noop steps take ~0.1 s), peak resident memory, and the sizes of
# the summary JSON and of the samples side file. Then `harness compare` of the
# run against itself (reading every sample back): its wall time and peak RSS.
#   usage: bench/big_samples.sh [N...]       (from the top of the built tree)
set -eu
harness=${HARNESS:-./harness/harness}
[ -x "$harness" ] || { echo "bench/big_samples.sh: no $harness; run make first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/big_samples.sh: needs GNU time (apt-get install time)" >&2; exit 2; }
[ $# -gt 0 ] || set -- 1000000 3000000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# field NAME FILE: a line of /usr/bin/time -v's report.
field() { sed -n "s/^[[:space:]]*$1: //p" "$2"; }

printf '%10s %8s %9s %12s %12s %10s %10s\n' samples run_s run_MB summary_B side_file_B compare_s compare_MB
for n in "$@"; do
    /usr/bin/time -v -o "$tmp/run.time" "$harness" run configs/noop.yaml --quiet --output-dir "$tmp/$n" \
        --set schedule.warmup_steps=0 --set schedule.wait_steps=0 --set schedule.repeat=1 \
        --set schedule.measurement_steps="$n" --set profiling.trace=false --set profiling.memory=false \
        >/dev/null 2>&1
    dir=$(ls -d "$tmp/$n"/*)
    side=0
    [ -f "$dir/samples_ranks_1_rank_0.bin" ] && side=$(wc -c <"$dir/samples_ranks_1_rank_0.bin")
    rc=0
    /usr/bin/time -v -o "$tmp/compare.time" "$harness" compare "$dir" "$dir" >/dev/null 2>&1 || rc=$?
    [ "$rc" -le 1 ] || { echo "bench/big_samples.sh: compare exited $rc" >&2; exit 3; }
    wall() { field "Elapsed (wall clock) time (h:mm:ss or m:ss)" "$1" | awk -F: '{ print $(NF-1) * 60 + $NF }'; }
    rss() { echo "$(field "Maximum resident set size (kbytes)" "$1") / 1024" | bc; }
    printf '%10d %8.2f %9d %12d %12d %10.2f %10d\n' "$n" "$(wall "$tmp/run.time")" "$(rss "$tmp/run.time")" \
        "$(wc -c <"$dir/summary_ranks_1_rank_0.json")" "$side" "$(wall "$tmp/compare.time")" \
        "$(rss "$tmp/compare.time")"
    rm -rf "${tmp:?}/$n"
done
