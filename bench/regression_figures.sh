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
#   runs     the guide's recipe (docs/guide/gating.md): `harness run CFG --runs RUNS` a side, then
#            `harness compare` (the runs are the replicates)
#   windows  one plain run a side (RUNS windows each), then compare: windows
#            share their run's offset, so this never says more than SAME or
#            AMBIGUOUS; the p <= alpha column shows why
#   ab       `harness ab` with ROUNDS interleaved rounds
# and, with SUITE=1, a suite of 20 configs (durations 100..119 us) of which
# the one at 107 us is 10% slower in the candidate: a trial is right when
# that one is REGRESSION and no other is REGRESSION or IMPROVEMENT.
#
# CASES (default "modes": the above) selects the cases of issue 36's goals
# instead, or as well; each gets PAIRS trials, interleaved as the modes are,
# and one summary line (a few for `identical`):
#   modes     the modes table above (and SUITE=1's suite)
#   suite10, suite26
#             a suite of 10 (26) spins, 100..109 (125) us, the one at 107 us
#             10% slower in the candidate, gated by `scripts/ci-bench pr` on
#             two trees (each a folder with the configs and plugins/.libs
#             holding its build): once at AB_ROUNDS SUITE_ROUNDS (default 8
#             for 10, ci-bench's default for 26; the exit code: never 0 is
#             the goal), once with AB_BUDGET=SUITE_BUDGET (default 600) and
#             AB_ROUNDS=SUITE_BUDGET_ROUNDS (default: ci-bench's) with the
#             report in JSON (AB_ARGS gets --format json): whether the slow
#             one alone is REGRESSION, and the rounds ab ran
#   identical identical code, base and candidate separate builds of one
#             source, in four gates a trial: ab-spin (the spin, ROUNDS
#             rounds), ab-work-midload (a work-bound step of WORK_NS, 2 ms,
#             with two more busy loops starting as round ROUNDS/2 + 1 does),
#             ab-bimodal (each process BIMODAL_PCT, 8, % slower with
#             probability 1/2), runs-bimodal (RUNS runs a side + compare):
#             verdicts and AMBIGUOUS causes per gate, and the false calls
#             (REGRESSION or IMPROVEMENT) over all of them
#   tail      the candidate's every TAIL_EVERY-th (5th) step TAIL_PCT (30)%
#             longer, the median unchanged: `ab --metric p90` REGRESSION,
#             and the default (median) report's pairs[0].tail.moved_alone
#   history   bench/history_figures.sh (HISTORY_ARGS its arguments), once,
#             after the trials; skipped with a note where there is none
# A field a report lacks is tallied as "?" (an older harness, a run that
# broke); KEEP=DIR keeps the JSON of every false call or miss there.
#
# LOAD=1 runs two busy loops (one per core on the 2-core CI machine) for the
# whole measurement, as other jobs on a shared runner do.
#
#   usage (from a build tree): [LOAD=1] [SUITE=1] [THRESHOLD=5] [MODES="runs windows ab"]
#          [CASES="modes suite10 suite26 identical tail history"]
#          bench/regression_figures.sh [PAIRS] [SLOWDOWNS] [RUNS] [ROUNDS]
#   e.g.   bench/regression_figures.sh 100 "0 1 3 8" 5 10
#          LOAD=1 CASES="suite10 suite26 identical tail history" bench/regression_figures.sh 25
set -u
pairs=${1:-20}
slowdowns=${2:-"0 3 8"}
runs=${3:-5}
rounds=${4:-10}
modes=${MODES:-"runs windows ab"}
cases=${CASES:-modes}
threshold=${THRESHOLD:-5}
H=${HARNESS:-./harness/harness}
case $H in */*) H=$(cd "$(dirname "$H")" && pwd)/$(basename "$H") ;; esac
src=$(cd "$(dirname "$0")" && pwd)
ci_bench=${CI_BENCH:-$src/../scripts/ci-bench}
work_ns=${WORK_NS:-2000000}
bimodal_pct=${BIMODAL_PCT:-8}
tail_every=${TAIL_EVERY:-5}
tail_pct=${TAIL_PCT:-30}
suite_budget=${SUITE_BUDGET:-600}
midload_round=${MIDLOAD_ROUND:-$((rounds / 2 + 1))}
tmp=$(mktemp -d)
loaders=

# busy_loop: start one, its pid in $!
busy_loop() { sh -c 'while :; do :; done' & }

# midload_start DIR ROUND: two busy loops that start when ab's DIR/round-ROUND-*
# appears (their pids in $tmp/midload.pids); midload_stop ends them
midload_start() {
    (
        r=$(printf %02d "$2")
        while [ ! -e "$1/round-$r-base" ] && [ ! -e "$1/round-$r-cand" ]; do sleep 0.1; done
        for _ in 1 2; do busy_loop; echo $! >>"$tmp/midload.pids"; done
    ) &
    midload_watcher=$!
}
midload_watcher=
midload_stop() {
    [ -n "$midload_watcher" ] && kill "$midload_watcher" 2>/dev/null
    midload_watcher=
    # shellcheck disable=SC2046
    [ -s "$tmp/midload.pids" ] && kill $(cat "$tmp/midload.pids") 2>/dev/null
    rm -f "$tmp/midload.pids"
}

# shellcheck disable=SC2086,SC2317  # the loaders' pids split; called by the trap
cleanup() {
    [ -n "$loaders" ] && kill $loaders 2>/dev/null
    midload_stop
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# has_case NAME: NAME is among CASES
has_case() {
    case " $cases " in *" $1 "*) return 0 ;; esac
    return 1
}
for c in $cases; do
    case $c in modes | suite10 | suite26 | identical | tail | history) ;;
    *) echo "regression_figures: unknown case '$c' (modes suite10 suite26 identical tail history)" >&2; exit 2 ;;
    esac
done

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
if has_case identical; then
    build twin ""
    build work_a "-DWORK_BOUND" && build work_b "-DWORK_BOUND"
    build bimodal_a "-DBIMODAL_PCT=$bimodal_pct" && build bimodal_b "-DBIMODAL_PCT=$bimodal_pct"
fi
has_case tail && build tail "-DTAIL_EVERY=$tail_every -DTAIL_PCT=$tail_pct"

# config DURATION_NS FILE [SCHEDULE]
config() {
    cat >"$2" <<YAML
experiment: {name: spin_$1}
schedule: {${3:-warmup_steps: 10, wait_steps: 2, measurement_steps: 30, repeat: 5}}
profiling: {trace: false, memory: false}
component: {variant_key: spin_build/cpu, config: {duration_ns: $1}}
validate: false
YAML
}
config 100000 "$tmp/spin.yaml"
config "$work_ns" "$tmp/work.yaml" "warmup_steps: 5, wait_steps: 1, measurement_steps: 30, repeat: 3"
mkdir "$tmp/suite"
i=0
while [ $i -lt 20 ]; do config $((100000 + i * 1000)) "$tmp/suite/spin_$i.yaml"; i=$((i + 1)); done
# the trees of ci-bench: TREE/suiteM/ (M configs) and TREE/plugins/.libs/
for side in base cand; do
    mkdir -p "$tmp/tree_$side/plugins/.libs" "$tmp/tree_$side/suite10" "$tmp/tree_$side/suite26"
    i=0
    while [ $i -lt 26 ]; do
        config $((100000 + i * 1000)) "$tmp/tree_$side/suite26/spin_$i.yaml"
        [ $i -lt 10 ] && cp "$tmp/tree_$side/suite26/spin_$i.yaml" "$tmp/tree_$side/suite10/"
        i=$((i + 1))
    done
done
cp "$tmp/base/spin_build.so" "$tmp/tree_base/plugins/.libs/"
cp "$tmp/suite_slow/spin_build.so" "$tmp/tree_cand/plugins/.libs/"

if [ "${LOAD:-0}" = 1 ]; then
    for _ in 1 2; do busy_loop; loaders="$loaders $!"; done
fi

# field JSON KEY: the report's top-level KEY
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2" 2>/dev/null; }
# first_p JSON: the first pair's p
first_p() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pairs"][0]["p"])' "$1" 2>/dev/null; }

# jget JSON PATH...: each PATH's value (keys and list indices between dots)
# on one line, "?" where the report or the field is missing, "-" for null,
# booleans as true/false, blanks in strings as _
jget() {
    python3 - "$@" <<'PY' 2>/dev/null || echo "?"
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception:
    r = {}
out = []
for path in sys.argv[2:]:
    v, found = r, True
    for k in path.split("."):
        try:
            v = v[int(k)] if isinstance(v, list) else v[k]
        except Exception:
            found = False
            break
    if not found or isinstance(v, (dict, list)):
        out.append("?")
    elif v is None:
        out.append("-")
    elif isinstance(v, bool):
        out.append("true" if v else "false")
    else:
        out.append("_".join(str(v).split()) or "?")
print(" ".join(out))
PY
}

# keep NAME [FILE]: with KEEP=DIR, FILE (default the last JSON report) as
# DIR/NAME-TRIAL.EXT
keep() {
    [ -n "${KEEP:-}" ] || return 0
    set -- "$1" "${2:-$tmp/r.json}"
    mkdir -p "$KEEP" && cp "$2" "$KEEP/$1-$trial.${2##*.}" 2>/dev/null
}

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

# ---- the cases of issue 36 ------------------------------------------------

# suite_alone JSON M: "ALONE VERDICT CAUSE ROUNDS": ALONE 1 when the 107 us
# benchmark alone is called, REGRESSION, among M pairs (0 otherwise, ? for
# an unreadable report); its verdict and AMBIGUOUS cause; the rounds run
suite_alone() {
    python3 - "$1" "$2" <<'PY' 2>/dev/null || echo "? ? ? ?"
import json, sys
try:
    pairs = json.load(open(sys.argv[1]))["pairs"]
except Exception:
    print("? ? ? ?")
    sys.exit()
def get(p, *keys):
    for k in keys:
        p = p.get(k) if isinstance(p, dict) else None
    return p
called, slow = {}, {}
for p in pairs:
    d = get(p, "config", "duration_ns")
    if d == 107000:
        slow = p
    if get(p, "verdict") in ("regression", "improvement"):
        called[d] = get(p, "verdict")
alone = 1 if called == {107000: "regression"} and len(pairs) == int(sys.argv[2]) else 0
cause = get(slow, "ambiguous_cause") if "ambiguous_cause" in slow else "?"
print(alone, get(slow, "verdict") or "?", "-" if cause is None else cause,
      get(pairs[0] if pairs else {}, "replicates", "base") or "?")
PY
}

# suite_case M: a trial of suiteM; appends "EXIT HEADLINE BUDGET_EXIT ALONE
# VERDICT CAUSE ROUNDS" to the tally (HEADLINE: the markdown report's verdict)
# shellcheck disable=SC2030,SC2031  # each gate's environment is its own subshell's
suite_case() {
    rm -rf "$tmp/ci"
    (
        export HARNESS="$H" OUT="$tmp/ci/plain" AB_THRESHOLD="$threshold"
        unset AB_BUDGET AB_ROUNDS
        r=${SUITE_ROUNDS:-}
        [ -z "$r" ] && [ "$1" = 10 ] && r=8
        [ -n "$r" ] && export AB_ROUNDS="$r"
        sh "$ci_bench" pr "$tmp/tree_base" "$tmp/tree_cand" "$tmp/report.md" "suite$1" >/dev/null 2>"$tmp/plain.err"
    )
    rc=$?
    headline=$(sed -n 's/^\*\*harness ab: \([A-Z]*\).*/\1/p' "$tmp/report.md" 2>/dev/null | head -n 1)
    [ -s "$tmp/report.md" ] || headline=none
    [ "$rc" = 0 ] && keep "suite$1-plain" "$tmp/report.md" && keep "suite$1-plain" "$tmp/plain.err"
    (
        export HARNESS="$H" OUT="$tmp/ci/budget" AB_THRESHOLD="$threshold" AB_BUDGET="$suite_budget"
        export AB_ARGS="${AB_ARGS:-} --format json"
        unset AB_ROUNDS
        [ -n "${SUITE_BUDGET_ROUNDS:-}" ] && export AB_ROUNDS="$SUITE_BUDGET_ROUNDS"
        sh "$ci_bench" pr "$tmp/tree_base" "$tmp/tree_cand" "$tmp/r.json" "suite$1" >/dev/null 2>"$tmp/budget.err"
    )
    rc_budget=$?
    alone=$(suite_alone "$tmp/r.json" "$1")
    [ "${alone%% *}" = 1 ] || { keep "suite$1-budget" && keep "suite$1-budget" "$tmp/budget.err"; }
    echo "$rc ${headline:-?} $rc_budget $alone" >>"$tmp/tally/suite$1"
}

# identical_gate GATE: one gate of identical code; appends "VERDICT CAUSE
# RATIO" to the tally identical_GATE
identical_gate() {
    out="$tmp/out"
    rm -rf "$out" "$tmp/r.json"
    case $1 in
    ab-spin)
        "$H" ab "$tmp/spin.yaml" "$tmp/spin.yaml" --rounds "$rounds" --output-dir "$out/ab" \
            --base-plugin-path "$tmp/base" --cand-plugin-path "$tmp/twin" --threshold "$threshold" \
            --format json >"$tmp/r.json" 2>/dev/null ;;
    ab-work-midload)
        midload_start "$out/ab" "$midload_round"
        "$H" ab "$tmp/work.yaml" "$tmp/work.yaml" --rounds "$rounds" --output-dir "$out/ab" \
            --base-plugin-path "$tmp/work_a" --cand-plugin-path "$tmp/work_b" --threshold "$threshold" \
            --format json >"$tmp/r.json" 2>/dev/null
        midload_stop ;;
    ab-bimodal)
        "$H" ab "$tmp/spin.yaml" "$tmp/spin.yaml" --rounds "$rounds" --output-dir "$out/ab" \
            --base-plugin-path "$tmp/bimodal_a" --cand-plugin-path "$tmp/bimodal_b" --threshold "$threshold" \
            --format json >"$tmp/r.json" 2>/dev/null ;;
    runs-bimodal)
        b=$("$H" run "$tmp/spin.yaml" --runs "$runs" --quiet --plugin-path "$tmp/bimodal_a" --output-dir "$out/b" \
            2>/dev/null)
        c=$("$H" run "$tmp/spin.yaml" --runs "$runs" --quiet --plugin-path "$tmp/bimodal_b" --output-dir "$out/c" \
            2>/dev/null)
        "$H" compare "$b" "$c" --threshold "$threshold" --format json >"$tmp/r.json" 2>/dev/null ;;
    esac
    v=$(jget "$tmp/r.json" pairs.0.verdict pairs.0.ambiguous_cause pairs.0.ratio)
    case $v in regression* | improvement*) keep "identical-$1" ;; esac
    echo "$v" >>"$tmp/tally/identical_$1"
}
identical_gates="ab-spin ab-work-midload ab-bimodal runs-bimodal"
identical_case() {
    for g in $identical_gates; do identical_gate "$g"; done
}

# tail_case: the tail-only candidate gated at p90 and at the default metric;
# appends "P90_VERDICT VERDICT MOVED_ALONE TAIL_RATIO TAIL_VERDICT" to the tally
tail_case() {
    out="$tmp/out"
    rm -rf "$out" "$tmp/r.json"
    "$H" ab "$tmp/spin.yaml" "$tmp/spin.yaml" --rounds "$rounds" --output-dir "$out/p90" \
        --base-plugin-path "$tmp/base" --cand-plugin-path "$tmp/tail" --threshold "$threshold" \
        --metric p90 --format json >"$tmp/r.json" 2>/dev/null
    p90=$(jget "$tmp/r.json" pairs.0.verdict)
    [ "$p90" = regression ] || keep tail-p90
    rm -f "$tmp/r.json"
    "$H" ab "$tmp/spin.yaml" "$tmp/spin.yaml" --rounds "$rounds" --output-dir "$out/median" \
        --base-plugin-path "$tmp/base" --cand-plugin-path "$tmp/tail" --threshold "$threshold" \
        --format json >"$tmp/r.json" 2>/dev/null
    v=$(jget "$tmp/r.json" pairs.0.verdict pairs.0.tail.moved_alone pairs.0.tail.ratio pairs.0.tail.verdict)
    case $v in *" true "*) ;; *) keep tail-default ;; esac
    echo "$p90 $v" >>"$tmp/tally/tail"
}

# history_case: bench/history_figures.sh, its output as it comes
history_case() {
    if [ -f "$src/history_figures.sh" ]; then
        echo "history: bench/history_figures.sh ${HISTORY_ARGS:-}"
        # our LOAD=1 loops are still running: it is not to start its own
        # shellcheck disable=SC2086
        HARNESS="$H" LOAD=0 sh "$src/history_figures.sh" ${HISTORY_ARGS:-}
        echo "history: bench/history_figures.sh exit $?"
    else
        echo "history: skipped: there is no bench/history_figures.sh in this tree"
    fi
}

# ---- the trials, interleaved ------------------------------------------------

# tallies: $tmp/tally/MODE_SLOW holds one "VERDICT P" line per pair, the
# cases' files one line per trial as their functions say
mkdir "$tmp/tally"
for f in suite10 suite26 tail $(for g in $identical_gates; do echo "identical_$g"; done); do : >"$tmp/tally/$f"; done
trial=0
while [ "$trial" -lt "$pairs" ]; do
    trial=$((trial + 1))
    [ -t 2 ] && printf 'regression_figures: trial %d of %d\r' "$trial" "$pairs" >&2
    if has_case modes; then
        for s in $slowdowns; do
            for m in $modes; do one "$m" "$s" >>"$tmp/tally/${m}_$s"; done
        done
        [ "${SUITE:-0}" = 1 ] && suite_trial >>"$tmp/tally/suite"
    fi
    has_case suite10 && suite_case 10
    has_case suite26 && suite_case 26
    has_case identical && identical_case
    has_case tail && tail_case
done
[ -t 2 ] && printf '\n' >&2

# ---- the figures -------------------------------------------------------------

echo "load generator: $([ "${LOAD:-0}" = 1 ] && echo "2 busy loops" || echo none); load average now:" \
    "$(cut -d' ' -f1-3 /proc/loadavg); threshold ${threshold}%, alpha 0.05; $runs runs or windows a side," \
    "$rounds A/B rounds"
if has_case modes; then
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
fi

# verdicts FILE [COLUMN]: the verdicts in COLUMN (default 1) of FILE's lines
# counted, AMBIGUOUS by its cause (the next column)
verdicts() {
    awk -v col="${2:-1}" '
        { v = $col; n[v]++; if (v == "ambiguous") { c[$(col + 1)]++ } }
        END {
            printf "regression %d, improvement %d, ambiguous %d", n["regression"], n["improvement"], n["ambiguous"]
            s = ""
            for (k in c) s = s (s == "" ? "" : ", ") k " " c[k]
            if (s != "") printf " (%s)", s
            printf ", same %d, failed %d", n["same"], n["failed"]
            other = NR - n["regression"] - n["improvement"] - n["ambiguous"] - n["same"] - n["failed"]
            if (other) printf ", unread %d", other
        }' "$1"
}

# exits FILE COLUMN: "exit 0 in A (1: B, 2: C, other: D)"
exits() {
    awk -v col="$2" '
        { if ($col == 0) z++; else if ($col == 1) one++; else if ($col == 2) two++; else other++ }
        END { printf "exit 0 in %d of %d (exit 1: %d, 2: %d, other: %d)", z, NR, one, two, other }' "$1"
}

# range FILE COLUMN: the least and the most number in COLUMN, "?" for none
range() {
    awk -v col="$2" '$col ~ /^[0-9.e+-]+$/ { v = $col + 0; if (n++ == 0 || v < lo) lo = v; if (n == 1 || v > hi) hi = v }
        END { print (n == 0 ? "?" : lo == hi ? lo : lo "-" hi) }' "$1"
}

for m in 10 26; do
    has_case "suite$m" || continue
    f="$tmp/tally/suite$m"
    r=${SUITE_ROUNDS:-}
    [ -z "$r" ] && [ "$m" = 10 ] && r=8
    alone=$(awk '$4 == 1' "$f" | wc -l)
    headlines=$(awk '{ n[$2]++ } END { for (k in n) printf "%s%s %d", (s++ ? ", " : ""), k, n[k] }' "$f")
    echo "suite$m (1 of $m spins 10% slower), scripts/ci-bench pr: at AB_ROUNDS=${r:-its default}:" \
        "$(exits "$f" 1), reports ${headlines:-none};" \
        "with AB_BUDGET=$suite_budget${SUITE_BUDGET_ROUNDS:+ AB_ROUNDS=$SUITE_BUDGET_ROUNDS}:" \
        "$(exits "$f" 3), the slow one alone REGRESSION in $alone of $pairs (its verdicts: $(verdicts "$f" 5);" \
        "rounds run $(range "$f" 7)) [goals: exit 0 in 0, alone >= 90%]"
done

if has_case identical; then
    for g in $identical_gates; do
        echo "identical $g: $pairs gates: $(verdicts "$tmp/tally/identical_$g")"
    done
    n=$(cat "$tmp/tally/identical_"* | wc -l)
    false=$(cat "$tmp/tally/identical_"* | grep -c '^regression\|^improvement')
    echo "identical code ($rounds rounds or $runs runs a side; work-bound steps of $work_ns ns, two busy loops" \
        "more from round $midload_round; bimodal $bimodal_pct%): REGRESSION or IMPROVEMENT in $false of $n gates" \
        "[goal: at most 1 of 100]"
fi

if has_case tail; then
    f="$tmp/tally/tail"
    p90=$(awk '$1 == "regression"' "$f" | wc -l)
    moved=$(awk '$3 == "true"' "$f" | wc -l)
    echo "tail (1 step in $tail_every ${tail_pct}% longer, median unchanged; $rounds rounds): --metric p90" \
        "REGRESSION in $p90 of $pairs (its verdicts: $(verdicts "$f" 1 | sed 's/ (.*)//'));" \
        "default metric: tail.moved_alone in $moved of $pairs (the median's verdicts: $(verdicts "$f" 2 |
            sed 's/ (.*)//'); tail ratios $(range "$f" 4))" \
        "[goals: >= 90%, all]"
fi

has_case history && history_case
exit 0
