#!/bin/sh
# Experiment folders as CI downloads them from other jobs: read as
# untrusted. A summary, status or samples file that is a FIFO, a link to
# /dev/zero or a 3 GB sparse file, a folder holding 40 links to itself, a
# rank number past int in a file name, a results database that is not a
# file: compare, export, record and history end (never 124 under
# `timeout 20`) with exit 2 and a `harness:` line naming the file.
. "$top_builddir/tests/setup"

"$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/good" --quiet >/dev/null 2>&1 || fail "a good run"
GOOD=$(echo "$SCRATCH"/good/*)
cases=0

# no_hang DESC WANT NAME CMD...: CMD ends under timeout 20 with exit WANT
# (2 or "2|3"), saying `harness:` and NAME on stderr.
no_hang() {
    desc=$1; want=$2; name=$3; shift 3
    cases=$((cases + 1))
    timeout 20 "$@" >"$SCRATCH/out" 2>"$SCRATCH/err"
    got=$?
    if [ $got -eq 124 ]; then fail "$desc: hung (killed after 20 s)"; return; fi
    case "|$want|" in *"|$got|"*) ;; *) fail "$desc: exit $got, want $want"; sed 's/^/  stderr: /' "$SCRATCH/err" | head -5; return ;; esac
    if [ "$name" = "" ] || grep -q "^harness: .*$name" "$SCRATCH/err"; then pass "$desc: exit $got"
    else fail "$desc: no 'harness: ...$name' line"; sed 's/^/  stderr: /' "$SCRATCH/err" | head -5; fi
}

# every_reader DESC DIR NAME: compare, export and record of DIR.
every_reader() {
    no_hang "$1: compare" 2 "$3" "$HARNESS" compare "$GOOD" "$2"
    no_hang "$1: export" 2 "$3" "$HARNESS" export "$2"
    no_hang "$1: record" 2 "$3" "$HARNESS" record "$2" --db "$SCRATCH/r.sqlite" --commit c1 --branch main
}

# hostile NAME FILE HOW: a copy of the good folder whose FILE is made HOW.
hostile() {
    d="$SCRATCH/$1"
    rm -rf "$d"; cp -r "$GOOD" "$d"; rm -f "$d/$2"
    case $3 in
    fifo) mkfifo "$d/$2" ;;
    zero) ln -s /dev/zero "$d/$2" ;;
    sparse) truncate -s 3G "$d/$2" ;;
    esac
    echo "$d"
}

for file in summary_ranks_1_rank_0.json status.json; do
    for how in fifo zero sparse; do
        d=$(hostile "$file-$how" $file $how)
        every_reader "$file as $how" "$d" "$file"
    done
done

# A samples side file the summary names, made hostile.
for how in fifo zero sparse; do
    d=$(hostile "samples-$how" samples_ranks_1_rank_0.bin $how)
    python3 - "$d/summary_ranks_1_rank_0.json" <<'PY'
import json, sys
p = sys.argv[1]; s = json.load(open(p))
t = s["timing"]
t["samples_file"] = {"name": "samples_ranks_1_rank_0.bin", "format": "harness.samples/1",
                     "count": len(t.pop("samples")), "unit": "ns", "sha256": "0" * 64}
json.dump(s, open(p, "w"))
PY
    # export gives the summary's statistics and never opens the samples.
    no_hang "samples file as $how: compare" 2 samples_ranks_1_rank_0.bin "$HARNESS" compare "$GOOD" "$d"
    no_hang "samples file as $how: export" 0 "" "$HARNESS" export "$d"
    no_hang "samples file as $how: record" 2 samples_ranks_1_rank_0.bin "$HARNESS" record "$d" \
        --db "$SCRATCH/r.sqlite" --commit c1 --branch main
done

# Rank and job-size numbers past int (or the reader's limit) in a name.
for name in summary_ranks_2147483648_rank_0.json summary_ranks_1_rank_99999999999999999999.json \
    status_ranks_4294967297_rank_1.json; do
    d="$SCRATCH/name-$name"; cp -r "$GOOD" "$d"; cp "$GOOD/summary_ranks_1_rank_0.json" "$d/$name"
    every_reader "$name" "$d" "$name"
done

# A folder of folders holding 40 links to itself (and one to its parent):
# each folder is walked once, the good run found.
loop="$SCRATCH/loop"; mkdir -p "$loop/sub"; cp -r "$GOOD" "$loop/sub/run"
for i in $(seq 1 40); do ln -s . "$loop/sub/self$i"; ln -s .. "$loop/sub/up$i" 2>/dev/null; done
no_hang "40 links to itself: compare" "0|1" "" "$HARNESS" compare "$GOOD" "$loop"
no_hang "40 links to itself: export" 0 "" "$HARNESS" export "$loop"
no_hang "40 links to itself: record" 0 "" "$HARNESS" record "$loop" --db "$SCRATCH/loop.sqlite" --commit c1 --branch main
[ "$(grep -c spin "$SCRATCH/out")" -le 2 ] || fail "40 links to itself: the run recorded more than once"

# The results database: history and compare --baseline-db.
for how in fifo zero sparse; do
    db="$SCRATCH/db-$how.sqlite"
    case $how in fifo) mkfifo "$db" ;; zero) ln -s /dev/zero "$db" ;; sparse) truncate -s 3G "$db" ;; esac
    no_hang "database as $how: history" "2|3" "db-$how.sqlite" "$HARNESS" history --db "$db"
    no_hang "database as $how: compare --baseline-db" "2|3" "db-$how.sqlite" \
        "$HARNESS" compare --baseline-db "$db" "$GOOD"
    no_hang "database as $how: record" "2|3" "db-$how.sqlite" "$HARNESS" record "$GOOD" --db "$db" --commit c1
done
echo "hostile cases: $cases"
finish
