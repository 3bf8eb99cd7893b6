#!/bin/sh
# tests/printers/capture.sh - the reports of `harness compare` and
# `harness history` in every format, on inputs made once, to prove a change
# to the printers leaves their bytes alone (issue 39):
#   capture.sh inputs HARNESS DIR      make experiment folders and a database in DIR
#   capture.sh outputs HARNESS INPUTS OUT   every report of INPUTS into OUT
# then `diff -r OUT_BEFORE OUT_AFTER`. (`harness ab` runs its own processes:
# its printers are proved on fixed records by tests/unit/test_printers.c.)
set -u
what=$1 HARNESS=$2 dir=$3
configs=$(cd "$(dirname "$0")/../configs" && pwd)

spin() {   # spin NAME DURATION_NS [RUNS] [REPEAT]
    d=$("$HARNESS" run "$configs/spin_tiny.yaml" --output-dir "$dir/$1" --quiet --runs "${3:-1}" \
        --set component.config.duration_ns="$2" --set schedule.measurement_steps=30 \
        --set schedule.repeat="${4:-5}" --set profiling.trace=false --set profiling.memory=false) || exit 1
    python3 - "$d" <<'PY' || exit 1
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/summary_ranks_1_rank_0.json") + glob.glob(sys.argv[1] + "/*/summary_ranks_1_rank_0.json"):
    s = json.load(open(f))
    s["component"]["config"]["duration_ns"] = 50000
    if "hist10/" in f:             # a run history sets aside for interference
        s["noise"]["median_shift_bound"] = 0.05
        s["noise"]["evidence"] = "made by capture.sh <&> \"quoted\""
    json.dump(s, open(f, "w"))
    c = f.rsplit("/", 1)[0] + "/resolved_config.yaml"
    open(c, "w").write("\n".join("    duration_ns: 50000" if l.strip().startswith("duration_ns:") else l
                                 for l in open(c).read().split("\n")))
PY
    echo "$d"
}

if [ "$what" = inputs ]; then
    mkdir -p "$dir"
    spin base 50000 >"$dir/base.path"; spin same 50000 >"$dir/same.path"; spin slow 80000 >"$dir/slow.path"
    spin one 50000 1 1 >"$dir/one.path"
    spin runs_base 50000 5 >"$dir/runs_base.path"; spin runs_slow 80000 5 >"$dir/runs_slow.path"
    i=1
    while [ $i -le 12 ]; do
        if [ $i -le 7 ]; then ns=50000; else ns=60000; fi
        d=$(spin "hist$i" $ns) || exit 1
        "$HARNESS" record "$d" --db "$dir/results.sqlite" --commit "c$i" --branch main >/dev/null || exit 1
        i=$((i + 1))
    done
    exit 0
fi

out=$4
mkdir -p "$out"
p() { cat "$dir/$1.path"; }
n=0
report() {   # report NAME ARGS...: stdout and the exit code of harness ARGS
    name=$1; shift
    "$HARNESS" "$@" >"$out/$name" 2>"$out/$name.err"
    echo "exit $?" >>"$out/$name.err"
}
for f in text markdown md json html bogus; do
    report "compare_same.$f" compare "$(p base)" "$(p same)" --threshold 20% --format $f
    report "compare_slow.$f" compare "$(p base)" "$(p slow)" --format $f
    report "compare_one.$f" compare "$(p base)" "$(p one)" --format $f
    report "compare_runs.$f" compare "$(p runs_base)" "$(p runs_slow)" --format $f
    report "compare_runs_p90.$f" compare "$(p runs_base)" "$(p runs_slow)" --format $f --metric p90
    report "compare_parent.$f" compare "$dir/runs_base" "$dir/runs_slow" --format $f
    report "compare_mixed.$f" compare "$dir/runs_base" "$(p base)" --format $f --on-ambiguous pass
    report "history.$f" history --db "$dir/results.sqlite" --format $f
    report "history_p90.$f" history --db "$dir/results.sqlite" --format $f --metric p90
    report "history_mean.$f" history --db "$dir/results.sqlite" --format $f --metric mean
done
for w in 60 100 0; do
    COLUMNS=$w report "compare_runs.cols$w" compare "$(p runs_base)" "$(p runs_slow)" --color always
done
report "compare_wide" compare "$(p runs_base)" "$(p runs_slow)" --wide --color always
