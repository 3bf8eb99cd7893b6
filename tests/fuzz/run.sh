#!/bin/sh
# tests/fuzz/run.sh SECONDS: after `make fuzz`, run each libFuzzer target for
# SECONDS (default 60) from the seed corpus and the regression inputs. Exit
# 1 on any crash, leak, timeout or round-trip mismatch; the input that
# caused it is saved under tests/fuzz/found/ (add it to
# tests/fuzz/regressions/<target>/ once fixed, and make check replays it).
set -u
cd "$(dirname "$0")/../.."
seconds=${1:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p tests/fuzz/found "$work/config" "$work/summary" "$work/folder"
cp configs/*.yaml tests/configs/*.yaml tests/configs/bad/*.yaml tests/fuzz/regressions/config/* "$work/config/"
cp tests/fuzz/regressions/summary/* "$work/summary/"
cp tests/fuzz/regressions/folder/* "$work/folder/"
if harness/harness run tests/configs/spin_tiny.yaml --output-dir "$work/exp" --quiet >/dev/null 2>&1; then
    cp "$work"/exp/*/summary_ranks_1_rank_0.json "$work/summary/seed.json"
fi
status=0
for target in config summary folder; do
    echo "fuzz: $target for ${seconds}s"
    if ! tests/fuzz/fuzz_$target -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix=tests/fuzz/found/$target- "$work/$target" >"$work/$target.log" 2>&1; then
        echo "fuzz: $target FAILED"
        tail -60 "$work/$target.log"
        status=1
    else
        grep -E '^stat::number_of_executed_units|^Done' "$work/$target.log"
    fi
done
exit $status
