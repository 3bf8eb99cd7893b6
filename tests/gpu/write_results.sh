#!/bin/sh
# The results of what a GPU work folder holds so far, written after every
# part of tests/gpu/run.sh (so a command killed at any moment has left the
# results of the parts before): tests/gpu/results.py's .md and .json under
# WORK/results, bundle.tgz (the summaries, verdicts and facts, for
# results.py to merge several machines' bundles), and with EXPORT (the device
# tool's $OUT) those three and run.log copied there, each replaced whole.
#
#   usage: tests/gpu/write_results.sh WORK [EXPORT]
#   exit:  0 written; 2 WORK is not a folder; 3 results.py or the copy failed
work=${1:?usage: tests/gpu/write_results.sh WORK [EXPORT]}
export_to=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
[ -d "$work" ] || { echo "tests/gpu/write_results.sh: $work: not a folder" >&2; exit 2; }
commit=$(sed -n 's/^commit=//p' "$work/facts.txt" 2>/dev/null)
# results.py exits 1 when a check failed: the files are written all the same.
python3 "$here/results.py" ${commit:+--commit "$commit"} --outdir "$work/results" "$work" \
    >"$work/results.txt" 2>>"$work/run.log"
[ $? -le 1 ] && [ -s "$work/results.txt" ] || { echo "tests/gpu/write_results.sh: results.py failed ($work/run.log)" >&2; exit 3; }
(cd "$work" && find facts.txt gpu.txt verdicts.tsv torch.json gemm_rate.txt spin_threads.txt ./*.md exp fig tune integrity \
    -name '*.txt' -o -name '*.tsv' -o -name '*.json' -o -name '*.md' 2>/dev/null |
    grep -v -e profiler_trace -e '/results/' | tar czf bundle.tmp -T - 2>/dev/null && mv bundle.tmp bundle.tgz)
[ -n "$export_to" ] || exit 0
mkdir -p "$export_to" || exit 3
# A copy under another name first, then renamed: a kill mid-copy leaves the
# previous part's file, never half of one.
for f in $(cat "$work/results.txt") "$work/run.log" "$work/bundle.tgz"; do
    [ -f "$f" ] || continue
    cp "$f" "$export_to/.partial" && mv "$export_to/.partial" "$export_to/$(basename "$f")" || exit 3
done
