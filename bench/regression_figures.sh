#!/bin/sh
# Figures for the regression gate: how often each way of comparing base and
# candidate calls a change, on a spin of ~100 us whose candidate build
# (bench/spin_build.c, compiled here) busy-waits SLOWDOWN% longer, at
# compare's defaults (threshold 5%, alpha 0.05) unless THRESHOLD is set.
# Base and candidate run the same config with their own plugin build, as a
# pull request's code would.
#
# Modes, one comparison each per pair, interleaved (pair 1 of every mode,
# then pair 2, ...) so that load that comes and goes meets them all alike:
#   runs     the README's recipe: `harness run CFG --runs RUNS` a side, then
#            `harness compare` (the runs are the replicates)
#   windows  one plain run a side (RUNS windows each), then compare: windows
#            share their run's offset, so this never says more than SAME or
#            AMBIGUOUS; the p <= alpha column shows why
#   ab       `harness ab` with ROUNDS interleaved rounds
# and, with SUITE=1, a suite of 20 configs (durations 100..119 us) of which
# the one at 107 us is 10% slower in the candidate: a trial is right when
# that one is REGRESSION and no other is REGRESSION or IMPROVEMENT.
#
# LOAD=1 runs two busy loops (one per core on the 2-core CI machine) for the
# whole measurement, as other jobs on a shared runner do.
#
#   usage (from a build tree): [LOAD=1] [SUITE=1] [THRESHOLD=5] [MODES="runs windows ab"]
#          bench/regression_figures.sh [PAIRS] [SLOWDOWNS] [RUNS] [ROUNDS]
#   e.g.   bench/regression_figures.sh 100 "0 1 3 8" 5 10
set -u
pairs=${1:-20}
slowdowns=${2:-"0 3 8"}
runs=${3:-5}
rounds=${4:-10}
modes=${MODES:-"runs windows ab"}
threshold=${THRESHOLD:-5}
H=${HARNESS:-./harness/harness}
src=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
loaders=
cleanup() {
    [ -n "$loaders" ] && kill $loaders 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# build NAME CFLAGS: the plugin into $tmp/NAME/
build() {
    mkdir -p "$tmp/$1"
    # shellcheck disable=SC2086
    ${CC:-cc} -shared -fPIC -O2 -I"$src/../harness/include" $2 "$src/spin_build.c" -o "$tmp/$1/spin_build.so" ||
        { echo "regression_figures: cannot build the plugin" >&2; exit 2; }
}
build base ""
for s in $slowdowns; do build "slow$s" "-DSLOWDOWN_PCT=$s"; done
build suite_slow "-DSLOWDOWN_PCT=10 -DSLOW_DURATION_NS=107000"

# config DURATION_NS FILE
config() {
    cat >"$2" <<YAML
experiment: {name: spin_$1}
schedule: {warmup_steps: 10, wait_steps: 2, measurement_steps: 30, repeat: 5}
profiling: {trace: false, memory: false}
component: {variant_key: spin_build/cpu, config: {duration_ns: $1}}
validate: false
YAML
}
config 100000 "$tmp/spin.yaml"
mkdir "$tmp/suite"
i=0
while [ $i -lt 20 ]; do config $((100000 + i * 1000)) "$tmp/suite/spin_$i.yaml"; i=$((i + 1)); done

if [ "${LOAD:-0}" = 1 ]; then
    for _ in 1 2; do sh -c 'while :; do :; done' & loaders="$loaders $!"; done
fi

# field JSON KEY: the report's top-level KEY
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2" 2>/dev/null; }
# first_p JSON: the first pair's p
first_p() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pairs"][0]["p"])' "$1" 2>/dev/null; }

# one MODE SLOWDOWN: prints "VERDICT P" of one comparison
one() {
    out="$tmp/out"
    rm -rf "$out"
    case $1 in
    runs)
        b=$("$H" run "$tmp/spin.yaml" --runs "$runs" --quiet --plugin-path "$tmp/base" --output-dir "$out/b" 2>/dev/null)
        c=$("$H" run "$tmp/spin.yaml" --runs "$runs" --quiet --plugin-path "$tmp/slow$2" --output-dir "$out/c" \
            2>/dev/null)
        "$H" compare "$b" "$c" --threshold "$threshold" --format json >"$tmp/r.json" 2>/dev/null ;;
    windows)
        b=$("$H" run "$tmp/spin.yaml" --quiet --plugin-path "$tmp/base" --output-dir "$out/b" 2>/dev/null)
        c=$("$H" run "$tmp/spin.yaml" --quiet --plugin-path "$tmp/slow$2" --output-dir "$out/c" 2>/dev/null)
        "$H" compare "$b" "$c" --threshold "$threshold" --format json >"$tmp/r.json" 2>/dev/null ;;
    ab)
        "$H" ab "$tmp/spin.yaml" "$tmp/spin.yaml" --rounds "$rounds" --output-dir "$out/ab" \
            --base-plugin-path "$tmp/base" --cand-plugin-path "$tmp/slow$2" --threshold "$threshold" \
            --format json >"$tmp/r.json" 2>/dev/null ;;
    esac
    echo "$(field "$tmp/r.json" verdict) $(first_p "$tmp/r.json")"
}

# suite_trial: 1 when the 107 us benchmark alone is called (REGRESSION)
suite_trial() {
    out="$tmp/out"
    rm -rf "$out"
    b=$("$H" run "$tmp/suite" --runs "${SUITE_RUNS:-7}" --quiet --plugin-path "$tmp/base" --output-dir "$out/b" \
        2>/dev/null)
    c=$("$H" run "$tmp/suite" --runs "${SUITE_RUNS:-7}" --quiet --plugin-path "$tmp/suite_slow" \
        --output-dir "$out/c" 2>/dev/null)
    "$H" compare "$b" "$c" --threshold "$threshold" --format json >"$tmp/r.json" 2>/dev/null
    python3 - "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
called = {p["config"]["duration_ns"]: p["verdict"] for p in r["pairs"] if p["verdict"] in ("regression", "improvement")}
print(1 if called == {107000: "regression"} and len(r["pairs"]) == 20 else 0)
PY
}

# tallies: $tmp/tally/MODE_SLOW holds one "VERDICT P" line per pair
mkdir "$tmp/tally"
i=0
while [ "$i" -lt "$pairs" ]; do
    for s in $slowdowns; do
        for m in $modes; do one "$m" "$s" >>"$tmp/tally/${m}_$s"; done
    done
    [ "${SUITE:-0}" = 1 ] && suite_trial >>"$tmp/tally/suite"
    i=$((i + 1))
done

echo "load generator: $([ "${LOAD:-0}" = 1 ] && echo "2 busy loops" || echo none); load average now:" \
    "$(cut -d' ' -f1-3 /proc/loadavg); threshold ${threshold}%, alpha 0.05; $runs runs or windows a side," \
    "$rounds A/B rounds"
printf '%-8s %9s %6s %11s %11s %10s %6s %9s\n' mode slowdown pairs regression improvement ambiguous same 'p<=0.05'
for m in $modes; do
    for s in $slowdowns; do
        f="$tmp/tally/${m}_$s"
        reg=$(grep -c '^regression' "$f") imp=$(grep -c '^improvement' "$f") amb=$(grep -c '^ambiguous' "$f")
        same=$(grep -c '^same' "$f") sig=$(awk '$2 ~ /^[0-9.e+-]+$/ && $2 + 0 <= 0.05' "$f" | wc -l)
        printf '%-8s %8s%% %6d %11d %11d %10d %6d %9d\n' "$m" "$s" "$pairs" "$reg" "$imp" "$amb" "$same" "$sig"
    done
done
if [ "${SUITE:-0}" = 1 ]; then
    echo "suite of 20, one 10% slower, ${SUITE_RUNS:-7} runs a side: the slow one alone called REGRESSION in" \
        "$(grep -c 1 "$tmp/tally/suite") of $pairs trials"
fi
