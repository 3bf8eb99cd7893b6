#!/bin/sh
# Figures for `harness history` under real load: per trial, a fresh results
# database of 30 runs of a work-bound step of ~2 ms (bench/spin_build.c
# with -DWORK_BOUND, compiled here: a fixed chain of multiply-adds, so a
# preempted step is a longer step), recorded one by one with `harness record` as CI records
# commits; the build from run 15 on does 5% more work; two busy loops
# (`sh -c 'while :; do :; done'`) run during runs 5 and 23 only (LOADED:
# others, e.g. "5 22 23 24" for load that lasts three runs). Runs are
# counted from 0, as the JSON's indices are. A trial is right when
# `harness history --format json` finds the step (a change point at 15 +-1)
# and no change point at the loaded runs (the index of a loaded run, or of
# the run after one: where a loaded stretch would begin or end). The same
# database with its noise bounds removed (as a schema-1 database holds
# them) is judged too: what the bounds add on real runs.
#
#   usage (from a build tree): [HARNESS=harness/harness] [STEP_MS=2] [LOADED="5 23"] [KEEP=DIR]
#          bench/history_figures.sh [TRIALS]        (default 20; ~25 s a trial)
#   KEEP: copy each trial's database into DIR (N.sqlite) to look at later
#   prints per trial a line, then
#   "history: step found, no change point at the loaded runs, in X of N trials"
set -u
trials=${1:-20}
H=${HARNESS:-./harness/harness}
step_ms=${STEP_MS:-2}
loaded=${LOADED:-"5 23"}
src=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
loaders=
stop_load() {
    [ -n "$loaders" ] && kill $loaders 2>/dev/null && wait $loaders 2>/dev/null
    loaders=
}
cleanup() {
    stop_load
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ -x "$H" ] || { echo "history_figures: no harness binary at $H (set HARNESS)" >&2; exit 2; }
# build NAME CFLAGS: the plugin into $tmp/NAME/
build() {
    mkdir -p "$tmp/$1"
    # shellcheck disable=SC2086
    ${CC:-cc} -shared -fPIC -O2 -I"$src/../harness/include" -DWORK_BOUND $2 "$src/spin_build.c" \
        -o "$tmp/$1/spin_build.so" ||
        { echo "history_figures: cannot build the plugin" >&2; exit 2; }
}
build base ""
build slow "-DSLOWDOWN_PCT=5"

# config AMOUNT: the run's config into $tmp/work.yaml (duration_ns is an
# amount of work for a WORK_BOUND build, calibrated below to STEP_MS here)
config() {
    cat >"$tmp/work.yaml" <<YAML
experiment: {name: work}
schedule: {warmup_steps: 10, wait_steps: 2, measurement_steps: 30, repeat: 5}
profiling: {trace: false, memory: false}
component: {variant_key: spin_build/cpu, config: {duration_ns: $1}}
validate: false
YAML
}
# field DIR EXPR: a Python expression over the run's summary s
field() {
    python3 -c 'import json, sys; s = json.load(open(sys.argv[1] + "/summary_ranks_1_rank_0.json")); print(eval(sys.argv[2]))' \
        "$1" "$2"
}
# The amount of a step of STEP_MS on this machine: one run at a million, scaled.
config 1000000
d=$("$H" run "$tmp/work.yaml" --quiet --plugin-path "$tmp/base" --output-dir "$tmp/calibrate" 2>/dev/null) ||
    { echo "history_figures: the calibration run failed" >&2; exit 3; }
iterations=$(python3 -c 'import sys; print(round(1e6 * float(sys.argv[1]) * 1e6 / float(sys.argv[2])))' "$step_ms" \
    "$(field "$d" 's["timing"]["median"]')")
config "$iterations"

# trial N: 30 runs recorded into $tmp/N.sqlite
trial() {
    db="$tmp/$1.sqlite"
    r=0
    while [ $r -lt 30 ]; do
        build_dir=base
        [ $r -ge 15 ] && build_dir=slow
        case " $loaded " in
        *" $r "*) for _ in 1 2; do sh -c 'while :; do :; done' & loaders="$loaders $!"; done ;;
        esac
        d=$("$H" run "$tmp/work.yaml" --quiet --plugin-path "$tmp/$build_dir" --output-dir "$tmp/runs$1" \
            2>/dev/null) || { stop_load; echo "history_figures: run $r of trial $1 failed" >&2; return 1; }
        stop_load
        "$H" record "$d" --db "$db" --commit "c$r" --branch main >/dev/null 2>&1 ||
            { echo "history_figures: record $r of trial $1 failed" >&2; return 1; }
        r=$((r + 1))
    done
    rm -rf "$tmp/runs$1"
    [ -n "${KEEP:-}" ] && cp "$db" "$KEEP/$1.sqlite"
    return 0
}

# judge N: one line per database of trial N: with the bounds, then without
judge() {
    db="$tmp/$1.sqlite"
    cp "$db" "$tmp/$1.unknown.sqlite"
    python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE runs SET noise_bound = NULL, noise_evidence = NULL"); c.commit()' \
        "$tmp/$1.unknown.sqlite"
    "$H" history --db "$db" --format json >"$tmp/with.json" 2>/dev/null
    "$H" history --db "$tmp/$1.unknown.sqlite" --format json >"$tmp/without.json" 2>/dev/null
    python3 - "$1" "$tmp/with.json" "$tmp/without.json" "$loaded" <<'PY'
import json, statistics, sys
loaded = [int(v) for v in sys.argv[4].split()]
def verdict(path):
    (s,) = json.load(open(path))["series"]
    cps = [(c["index"], c["change_pct"]) for c in s["change_points"]]
    found = any(14 <= i <= 16 and pct > 0 for i, pct in cps)
    at_load = any(i in loaded or i - 1 in loaded for i, _ in cps)
    return s, cps, found and not at_load, found and len(cps) == 1
s, cps, right, alone = verdict(sys.argv[2])
_, cps0, right0, alone0 = verdict(sys.argv[3])
pts = s["points"]
quiet = statistics.median(p["median"] for i, p in enumerate(pts) if i < 15 and i not in loaded)
rise = ["%+.0f%%" % (100 * (pts[i]["median"] / (quiet if i < 15 else quiet * 1.05) - 1)) for i in loaded]
bounds = ["%.1f%%" % (100 * pts[i]["noise_bound"]) if pts[i]["noise_bound"] is not None else "-" for i in loaded]
aside = [pts[i]["set_aside"] or "-" for i in loaded]
others = sum(1 for i, p in enumerate(pts) if i not in loaded and p["set_aside"] == "interference")
fmt = lambda c: " ".join("%d(%+.1f%%)" % x for x in c) or "none"
print("trial %s: %s | without bounds: %s | loaded runs %s: median %s, bound %s, %s | other runs set aside for "
      "interference: %d" % (sys.argv[1], fmt(cps), fmt(cps0), ", ".join(map(str, loaded)), "/".join(rise),
                            "/".join(bounds), "/".join(aside), others))
print("TALLY %d %d %d %d" % (right, alone, right0, alone0))
PY
}

echo "history figures: $trials trials of 30 runs, work-bound step of $step_ms ms ($iterations iterations), 5% slower" \
    "from run 15, two busy loops during runs $loaded (runs counted from 0); load average now" \
    "$(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
i=1
: >"$tmp/tally"
while [ $i -le "$trials" ]; do
    trial $i || exit 3
    judge $i >"$tmp/judged"
    grep -v '^TALLY' "$tmp/judged"
    grep '^TALLY' "$tmp/judged" >>"$tmp/tally"
    i=$((i + 1))
done
awk -v n="$trials" '{ a += $2; b += $3; c += $4; d += $5 }
END {
    printf "history: step found, no change point at the loaded runs, in %d of %d trials\n", a, n
    printf "  the step alone (no other change point): %d of %d\n", b, n
    printf "  the same runs without their noise bounds (outlier rule only): %d of %d, the step alone in %d\n", c, n, d
}' "$tmp/tally"
