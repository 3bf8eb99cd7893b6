#!/bin/sh
# On a GPU only (HARNESS_GPU_TESTS=1, which tests/gpu/run.sh sets; a skip
# elsewhere): rms_norm/cuda validated per dtype on odd shapes, the summary's
# device fields (the blocking kernel used, the full-synchronize check
# agreeing), the kernel timeline in the trace (a kernel per step of the
# trace window, which follows the measured ones: none during them;
# launch-to-kernel flows that pair up), the CUDA schedule options,
# profiling.cupti: false, and device_index out of range.
HARNESS_TEST_GPU=1
. "$top_builddir/tests/setup"
[ "${HARNESS_GPU_TESTS:-0}" = 1 ] || { echo "skip: HARNESS_GPU_TESTS is not 1"; exit 77; }
grep -q '^#define HAVE_CUDA 1' "$top_builddir/build_config.h" || { echo "skip: not a CUDA build"; exit 77; }
TINY="$CONFIGS/rms_norm_tiny.yaml"

# check_run DIR EXPECT_KERNELS: the summary and trace of one CUDA run.
check_run() {
    python3 - "$1" "$2" <<'PY'
import glob, json, sys
folder, expect_kernels = sys.argv[1], sys.argv[2] == "yes"
s = json.load(open(glob.glob(folder + "/*/summary_ranks_1_rank_0.json")[0]))
assert s["status"] == "ok", s["status"]
assert s["component"]["variant_key"] == "rms_norm/cuda", s["component"]["variant_key"]
assert s["validation"]["passed"] is True, s["validation"]
t = s["timing"]
assert t["device_timer"]["clock"].startswith("cuda events"), t["device_timer"]
# rms_norm/cuda never waits in step(): the blocking kernel stays on, and one
# step by a full device synchronize agrees with the events
# (docs/timing-integrity.md).
assert t["blocking_kernel"] == "used", t["blocking_kernel"]
f = t["full_sync_check"]
assert f["ran"] and f["agrees"] and f["sync_ns"] > 0, f
assert all(x > 0 for x in t["samples"]), "a step without a device time"
assert len(t["host_launch"]["samples"]) == t["n"]
g = s["env"]["gpu_device"]
assert g["name"] and g["sm_count"] > 0 and g["memory_bytes"] > 0, g
d = s["memory"]["device"]
assert d["peak_tracked_bytes"] > 0 and 0 < d["used_bytes"] <= d["total_bytes"], d
# The memory report follows device memory on a GPU run.
html = open(glob.glob(folder + "/*/profiler_memory_ranks_1_rank_0.html")[0]).read()
assert f'id="peak-allocated" class="num" data-bytes="{d["peak_tracked_bytes"]}"' in html, "report's peak"
assert f'id="device-total" class="num" data-bytes="{d["total_bytes"]}"' in html, "report's device size"
if not expect_kernels:
    assert s["gpu_kernels"] is None, s["gpu_kernels"]
    sys.exit(0)
kernels = s["gpu_kernels"]
traced = s["schedule"]["trace_steps_run"]
# The trace window repeats the first measured window's steps, 50 at most.
first = t["windows"][0]["n"]
assert traced == min(first, 50), (traced, first)
assert kernels and sum(k["calls"] for k in kernels) == traced, (kernels, traced)
assert abs(sum(k["share"] for k in kernels) - 1) < 1e-6
assert s["gpu_activity_dropped"] == 0
trace = json.load(open(glob.glob(folder + "/*/profiler_trace_ranks_1_rank_0.json")[0]))
assert trace["deviceProperties"] and trace["deviceProperties"][0]["name"] == g["name"]
ev = trace["traceEvents"]
k = [e for e in ev if e.get("cat") == "kernel"]
assert len(k) == traced, (len(k), traced)
for e in k:
    assert e["pid"] == g["index"] and {"grid", "block", "registers per thread", "correlation"} <= e["args"].keys(), e
starts = {e["id"] for e in ev if e.get("ph") == "s"}
ends = [e for e in ev if e.get("ph") == "f"]
assert ends and all(e["id"] in starts and e.get("bp") == "e" for e in ends)
steps = [e for e in ev if e.get("cat") == "step"]
# The timeline's kernels ran in the trace window, after every measured
# step: none was recorded while a step was timed (docs/guide/profiling.md, GPU timeline).
hi = max(e["ts"] + e["dur"] for e in steps)
assert all(e["ts"] >= hi for e in k), "a kernel recorded during the measurement windows"
PY
}

for dtype in fp32 bf16 fp16; do
    for hidden in 7 4097; do
        out="$SCRATCH/e_${dtype}_$hidden"
        expect_exit 0 "rms_norm/cuda $dtype hidden $hidden" "$HARNESS" run "$TINY" --device cuda --quiet \
            --set component.config.dtype=$dtype --set component.config.hidden_size=$hidden --set validate=true \
            --output-dir "$out"
        check_run "$out" yes || fail "$dtype hidden $hidden: summary or trace"
    done
done

for opt in schedule.timing=batch schedule.flush_l2=true schedule.cuda_graph=true; do
    out="$SCRATCH/e_$opt"
    expect_exit 0 "rms_norm/cuda $opt" "$HARNESS" run "$TINY" --device cuda --quiet --set "$opt" \
        --set validate=true --output-dir "$out"
    check_run "$out" yes || fail "$opt: summary or trace"
done

out="$SCRATCH/e_nocupti"
expect_exit 0 "profiling.cupti: false" "$HARNESS" run "$TINY" --device cuda --quiet --set profiling.cupti=false \
    --set validate=true --output-dir "$out"
check_run "$out" no || fail "profiling.cupti: false still has a kernel table"

out="$SCRATCH/e_bad_index"
expect_exit 3 "device_index 99" "$HARNESS" run "$TINY" --device cuda --set device_index=99 --output-dir "$out"
expect_err "device_index 99" "names the key and the index"
[ ! -e "$out" ] || fail "device_index 99 left a folder"
finish
