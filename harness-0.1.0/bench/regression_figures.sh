#!/bin/sh
# Figures for the verdicts of `harness compare` (two separate runs, each with
# WINDOWS windows) and `harness ab` (ROUNDS interleaved rounds), on a spin of
# ~100 us, at default settings (threshold 5%, alpha 0.05):
#   - false positives: PAIRS comparisons of identical code with itself; the
#     share judged REGRESSION (should be at most alpha);
#   - power: the share judged REGRESSION for 3%, 5% and 10% slowdowns.
# Load warnings are kept (on a busy machine two-run verdicts turn AMBIGUOUS,
# which is the point); the AMBIGUOUS share is printed beside.
#   usage: [SLOWDOWNS="0 3 5 10"] bench/regression_figures.sh [PAIRS] [ROUNDS] [WINDOWS]   (from a build tree)
set -u
pairs=${1:-40}
rounds=${2:-10}
windows=${3:-5}
H=${HARNESS:-./harness/harness}
cfg=tests/configs/spin_tiny.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common="--set schedule.measurement_steps=30 --set schedule.warmup_steps=10 --set profiling.trace=false
        --set profiling.memory=false"

# verdict_of JSON: the overall verdict token
verdict_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$1"; }

# one MODE SLOWDOWN_PCT I: prints the verdict of one comparison
one() {
    cand_ns=$(python3 -c "print(round(100000 * (1 + $2 / 100)))")
    if [ "$1" = two-run ]; then
        # shellcheck disable=SC2086
        b=$("$H" run "$cfg" --quiet --output-dir "$tmp/b$3" --set component.config.duration_ns=100000 \
            --set schedule.repeat="$windows" $common 2>/dev/null)
        # shellcheck disable=SC2086
        c=$("$H" run "$cfg" --quiet --output-dir "$tmp/c$3" --set component.config.duration_ns="$cand_ns" \
            --set schedule.repeat="$windows" $common 2>/dev/null)
        "$H" compare "$b" "$c" --format json >"$tmp/r.json" 2>/dev/null
    else
        # shellcheck disable=SC2086
        "$H" ab "$cfg" "$cfg" --rounds "$rounds" --output-dir "$tmp/ab$3" --set component.config.duration_ns=100000 \
            --cand-set component.config.duration_ns="$cand_ns" $common --format json >"$tmp/r.json" 2>/dev/null
    fi
    verdict_of "$tmp/r.json"
    rm -rf "$tmp/b$3" "$tmp/c$3" "$tmp/ab$3"
}

printf '%-8s %9s %6s %11s %10s %5s %10s\n' mode slowdown pairs regression ambiguous same improvement
for mode in two-run ab; do
    for slow in ${SLOWDOWNS:-0 3 5 10}; do
        reg=0 amb=0 same=0 imp=0
        i=0
        while [ $i -lt "$pairs" ]; do
            case $(one $mode $slow $i) in
            regression) reg=$((reg + 1)) ;;
            ambiguous) amb=$((amb + 1)) ;;
            same) same=$((same + 1)) ;;
            improvement) imp=$((imp + 1)) ;;
            esac
            i=$((i + 1))
        done
        printf '%-8s %8s%% %6d %11s %10s %5d %10d\n' $mode $slow "$pairs" \
            "$(python3 -c "print(f'{$reg/$pairs:.2f}')")" "$(python3 -c "print(f'{$amb/$pairs:.2f}')")" $same $imp
    done
done
