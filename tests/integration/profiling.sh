#!/bin/sh
# Trace and memory artifacts of a run: present where asked for, absent where
# switched off, and well-formed (checked with cJSON by tests/tools/check_trace).
. "$top_builddir/tests/setup"
CHECK="$top_builddir/tests/tools/check_trace"

expect_exit 0 "rms_norm with profiling" "$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" --output-dir "$SCRATCH/a" \
    --set profiling.memory_log_steps=3
dir=$(ls -d "$SCRATCH"/a/*/)
trace="$dir/profiler_trace_ranks_1_rank_0.json"
[ -s "$trace" ] || fail "trace written"
"$CHECK" "$trace" 10 && pass "trace is valid, one span per measured step" || fail "trace checks"
grep -q '"name":"rms_norm_inference"' "$trace" || fail "the component's region is in the trace"
[ "$(grep -c '"name":"rms_norm_inference"' "$trace")" -eq 10 ] || fail "one region per measured step"
python3 - "$dir/summary_ranks_1_rank_0.json" <<'PY' || fail "memory samples in the summary"
import json, sys
s = json.load(open(sys.argv[1]))
m = s["memory"]
samples = m["samples"]
# 2 warmup + 2 x (1 wait + 5 measured) = 14 steps: every 3rd step (4), plus
# 5 phase edges (warmup, wait, measure, wait, measure) and the end.
assert len(samples) == 4 + 5 + 1, len(samples)
assert [x["step"] for x in samples] == sorted(x["step"] for x in samples)
assert m["peak_reserved_bytes"] == max(x["reserved_bytes"] for x in samples) > 0
assert m["peak_allocated_bytes"] >= max(x["allocated_bytes"] for x in samples) > 0
assert {x["phase"] for x in samples} == {"warmup", "wait", "measure"}
assert s["trace"]["written"] and not s["trace"]["truncated"] and s["trace"]["events"] == 20
PY

# The memory report: one self-contained file whose peaks are the summary's.
html="$dir/profiler_memory_ranks_1_rank_0.html"
[ -s "$html" ] || fail "memory report written"
python3 - "$html" "$dir/summary_ranks_1_rank_0.json" <<'PY' || fail "memory report content"
import json, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
s = json.load(open(sys.argv[2]))["memory"]
assert html.count("<svg") == 1
for bad in ("http://", "https://", "src=", "<script", "<link", "url("):
    assert bad not in html, bad
def data_bytes(id):
    return int(re.search(r'id="%s"[^>]*data-bytes="(\d+)"' % id, html).group(1))
assert data_bytes("peak-allocated") == s["peak_allocated_bytes"], (data_bytes("peak-allocated"), s["peak_allocated_bytes"])
assert data_bytes("peak-reserved") == s["peak_reserved_bytes"]
assert int(re.search(r'id="samples"[^>]*data-count="(\d+)"', html).group(1)) == len(s["samples"])
tags = re.findall(r'<tr class="alloc"', html)
assert len(tags) == len(s["live_at_peak"]) == 3
PY
ls "$dir" | grep -q 'profiler_memory.*\.html' || fail "the report is named profiler_memory_ranks_1_rank_0.html"

# Switched off: no trace, no samples, and the run is otherwise the same.
expect_exit 0 "profiling off" "$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" --output-dir "$SCRATCH/b" \
    --set profiling.trace=false --set profiling.memory=false
dir=$(ls -d "$SCRATCH"/b/*/)
[ ! -e "$dir/profiler_trace_ranks_1_rank_0.json" ] || fail "trace: false writes no trace"
[ ! -e "$dir/profiler_memory_ranks_1_rank_0.html" ] || fail "memory: false writes no memory report"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["memory"]["samples"] == [] and not s["trace"]["written"]' \
    "$dir/summary_ranks_1_rank_0.json" || fail "memory: false logs no samples"

# profiled_ranks must name ranks of the job (tests/integration/mpi.sh runs
# a rank that is not profiled).
expect_exit 2 "a profiled rank outside the job" "$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" \
    --output-dir "$SCRATCH/c" --set 'profiling.profiled_ranks=[0, 1]'
expect_err "profiling.profiled_ranks: rank 1 is outside this job of 1 rank" "names the rank and the job's size"
[ ! -e "$SCRATCH/c" ] || fail "left a folder"

# The cap: whole steps only, and the summary says it was hit.
expect_exit 0 "trace cap" "$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" --output-dir "$SCRATCH/d" \
    --set profiling.max_trace_events=7
dir=$(ls -d "$SCRATCH"/d/*/)
"$CHECK" "$dir/profiler_trace_ranks_1_rank_0.json" 3 && pass "capped trace holds 3 whole steps" || fail "capped trace"
grep -q 'TRUNCATED at profiling.max_trace_events = 7' "$dir/profiler_summary_ranks_1_rank_0.txt" ||
    fail "the text summary notes the cap"
python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["trace"]; assert t["truncated"] and t["steps_not_traced"] == 7, t' \
    "$dir/summary_ranks_1_rank_0.json" || fail "the JSON summary notes the cap"

# The cap holds for the memory line too: it stops with the last traced step
# (a memory sample every step would otherwise add 3 counters per step).
expect_exit 0 "trace cap with memory samples" "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/d2" \
    --set profiling.max_trace_events=10 --set profiling.memory_log_steps=1 --set schedule.measurement_steps=2000
python3 - "$SCRATCH"/d2/*/profiler_trace_ranks_1_rank_0.json <<'PY' && pass "no memory counter past the cap" ||
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
steps = [e for e in ev if e.get("cat") == "step"]
counters = [e for e in ev if e.get("ph") == "C"]
end = max(e["ts"] + e["dur"] for e in steps)
assert len(steps) == 10 and counters and all(c["ts"] <= end for c in counters), (len(steps), len(counters))
assert len(counters) < 100, len(counters)
PY
    fail "memory counters past the trace cap"

# Regions from a component that opens many: noop with regions.
expect_exit 0 "noop with regions" "$HARNESS" run "$top_srcdir/configs/noop.yaml" --output-dir "$SCRATCH/e" \
    --set schedule.measurement_steps=50 --set schedule.repeat=2 --set component.config.regions=3
"$CHECK" "$(ls "$SCRATCH"/e/*/profiler_trace_ranks_1_rank_0.json)" 100 && pass "noop regions trace" ||
    fail "noop regions trace"
# The progress line: on a terminal only, and never with --quiet.
expect_exit 0 "progress piped" "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/f" \
    --set schedule.measurement_steps=2000
grep -q 'ETA' "$SCRATCH/err" && fail "no progress line when stderr is not a terminal"
if command -v script >/dev/null; then
    script -qec "'$HARNESS' run '$CONFIGS/spin_tiny.yaml' --output-dir '$SCRATCH/g' --set schedule.measurement_steps=3000" \
        /dev/null >"$SCRATCH/tty" 2>&1
    grep -q 'measure 1/1  step [0-9]*/3003' "$SCRATCH/tty" && pass "progress line on a terminal" ||
        fail "progress line on a terminal"
    script -qec "'$HARNESS' run '$CONFIGS/spin_tiny.yaml' --quiet --output-dir '$SCRATCH/h' --set schedule.measurement_steps=3000" \
        /dev/null >"$SCRATCH/tty" 2>&1
    grep -q 'ETA' "$SCRATCH/tty" && fail "--quiet hides the progress line"
fi
finish
