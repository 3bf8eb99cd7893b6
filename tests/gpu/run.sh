#!/bin/sh
# Everything a CPU-only machine cannot prove, on a machine with an NVIDIA GPU:
# build with CUDA, make check with the GPU tests on, every CUDA variant run
# per dtype (validated), compute-sanitizer's four tools on each, the trace's
# kernel events, and a table of the figures beside PyTorch's own op.
#
#   usage: tests/gpu/run.sh [--dry-run] [--slice N] OUTDIR
#
# The order of work on a lent GPU, so that a short loan proves the most:
#   slice 1  build; validation of every CUDA variant and dtype, the schedule
#            options, device selection, the trace, table.md (the figures of
#            the validated runs)
#   slice 2  the figures at realistic shapes: attention at FlashAttention-2's
#            shapes beside cuBLAS and PyTorch, the Llama-7B block against
#            cuBLASLt's GEMM rate
#   slice 3  compute-sanitizer's four tools on every variant
#   slice 4  make check with the GPU tests on
# Each slice is sized to fit one 10-minute command; all four run without
# --slice. A slice reuses a build configured with CUDA that it finds (an
# incremental make, seconds when nothing changed), so slices on one warm
# machine build once; a fresh machine builds again. --dry-run, on any machine (no GPU needed):
# prints the slices and checks that every file they use is present; exit 1
# names the missing ones.
#
#   env:   HARNESS_DEPS_DEBS=DIR  .deb files from tests/gpu/fetch_deps.sh, for a
#                                 machine without the -dev packages or a registry
#          JOBS=N                 build parallelism (default: nproc)
#          SKIP="check sanitize perf llama"  parts to leave out (a second call, when a first one's
#                                 time ran out: make check and compute-sanitizer are the long ones;
#                                 perf: attention at FlashAttention-2's shapes (attention_perf.sh);
#                                 llama: transformer_block/cuda at the Llama-7B shape vs cuBLASLt)
#
# Run from a source tree with ./configure (a `make dist` tarball, unpacked;
# or a checkout after autoreconf -fi). Everything goes to OUTDIR: build.log,
# check.log, the experiments, sanitizer logs and table.md.
set -u
dry=0 slice=
while [ $# -gt 0 ]; do
    case $1 in
    --dry-run) dry=1; shift ;;
    --slice) slice=${2:?--slice needs 1, 2, 3 or 4}; shift 2 ;;
    *) break ;;
    esac
done
out=${1:?usage: tests/gpu/run.sh [--dry-run] [--slice N] OUTDIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/../.." || exit 2
top=$(pwd)
jobs=${JOBS:-$(nproc)}
status=0
note() { printf 'gpu/run.sh: %s\n' "$*" | tee -a "$out/run.log"; }
bad() { note "FAIL: $*"; status=1; }
. "$top/tests/gpu/slices.sh"
case ${slice:-all} in all|1|2|3|4) ;; *) note "--slice $slice: expected 1, 2, 3 or 4"; exit 2 ;; esac
if [ $dry = 1 ]; then
    dry_run
    exit $?
fi

command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { note "no GPU visible"; exit 77; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"

# ---- dependencies from .deb files, unpacked into a private prefix ----------
if [ -n "${HARNESS_DEPS_DEBS:-}" ]; then
    deps=$out/deps
    for f in "$HARNESS_DEPS_DEBS"/*.deb; do dpkg -x "$f" "$deps"; done
    lib=$deps/usr/lib/x86_64-linux-gnu
    # The .pc files name /usr; preset flags spare configure the pkg-config lookups.
    export CPPFLAGS="-I$deps/usr/include ${CPPFLAGS:-}" LDFLAGS="-L$lib -Wl,-rpath,$lib ${LDFLAGS:-}"
    export YAML_CFLAGS="-I$deps/usr/include" YAML_LIBS="-L$lib -lyaml"
    export CJSON_CFLAGS="-I$deps/usr/include/cjson" CJSON_LIBS="-L$lib -lcjson"
    export CMOCKA_CFLAGS="-I$deps/usr/include" CMOCKA_LIBS="-L$lib -lcmocka"
    export SQLITE3_CFLAGS="-I$deps/usr/include" SQLITE3_LIBS="-L$lib -lsqlite3"
    export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

# ---- build and make check ---------------------------------------------------
if [ -f Makefile ] && grep -q '^#define HAVE_CUDA 1' build_config.h 2>/dev/null; then
    # An earlier slice configured and built here: make only what changed.
    make -j"$jobs" >"$out/build.log" 2>&1 || { note "build failed (build.log)"; tail -30 "$out/build.log"; exit 1; }
    note "build reused (configured with CUDA already; make found what changed)"
else
    [ -x configure ] || autoreconf -fi >"$out/autoreconf.log" 2>&1 || { note "no ./configure and no autoreconf"; exit 2; }
    { ./configure --with-cuda && make -j"$jobs"; } >"$out/build.log" 2>&1 || { note "build failed (build.log)"; tail -30 "$out/build.log"; exit 1; }
    note "built: $(grep -E 'CUDA:' "$out/build.log" | tail -1)"
fi

# ---- every CUDA variant, per dtype ------------------------------------------
H=$top/harness/harness
"$H" list --json >"$out/list.json" || bad "harness list"
python3 - "$out/list.json" >"$out/variants.txt" <<'PY'
import json, sys
# One line per CUDA variant: key, family, its dtype choices (or "-").
for v in json.load(open(sys.argv[1]))["variants"]:
    if v["device"] != "cuda":
        continue
    dtypes = next((p.get("choices") for p in v["params"] if p["name"] == "dtype"), None) or ["-"]
    print(v["key"], v["family"], " ".join(dtypes))
PY
[ -s "$out/variants.txt" ] || bad "no CUDA variant listed"
while read -r key family dtypes; do
    # The family's example config; tests/gpu/configs/ has one where that
    # example is a sweep.
    config=$top/configs/$family.yaml
    [ -f "$top/tests/gpu/configs/$family.yaml" ] && config=$top/tests/gpu/configs/$family.yaml
    [ -f "$config" ] || { bad "$key: no configs/$family.yaml"; continue; }
    skip validate || for dt in $dtypes; do
        tag=$(echo "$key" | tr / _)_$dt
        set -- --set component.variant_key="$key" --set validate=true
        [ "$dt" = - ] || set -- "$@" --set component.config.dtype="$dt"
        if "$H" run "$config" "$@" --output-dir "$out/exp/$tag" >"$out/$tag.log" 2>&1; then
            note "$key $dt: ok"
        else
            bad "$key $dt: exit $? ($tag.log)"
        fi
    done
    # compute-sanitizer, each tool, a short schedule of each dtype (each may
    # run another kernel: attention/cuda's fp32 and bf16 do).
    skip sanitize && continue
    case $key in allreduce/*) note "$key: no compute-sanitizer (its kernels are NCCL's)"; continue;; esac
    for dt in $dtypes; do
    for tool in memcheck racecheck initcheck synccheck; do
        set -- --set component.variant_key="$key" --set schedule.warmup_steps=1 --set schedule.wait_steps=0 \
            --set schedule.measurement_steps=2 --set schedule.repeat=1 --set profiling.trace=false
        [ "$dt" = - ] || set -- "$@" --set component.config.dtype="$dt"
        log=$out/sanitizer_$(echo "$key" | tr / _)_${dt}_$tool.log
        if compute-sanitizer --tool "$tool" --error-exitcode 99 "$H" run "$config" "$@" \
                --output-dir "$out/sanitizer" >"$log" 2>&1; then
            note "$key $dt compute-sanitizer $tool: clean"
        elif [ "$tool" = racecheck ] && ! grep 'Race reported' "$log" | grep -qE 'rms_norm|attention|softmax|rope|swiglu'; then
            # cuBLAS's Hopper kernels (nvjet_*) draw racecheck reports of their own.
            note "$key $dt compute-sanitizer racecheck: hazards only in library kernels, none in ours:" \
                "$(grep -o 'Race reported between [A-Za-z]* access at [A-Za-z0-9_]*' "$log" | sort -u | head -2)"
        else
            bad "$key $dt compute-sanitizer $tool: exit $? ($(basename "$log"))"
        fi
    done
    done
done <"$out/variants.txt"

# ---- the CUDA schedule options, device selection, the summary's GPU fields -----
cfg=$top/configs/rms_norm_cuda.yaml
if ! skip validate; then
for opt in timing=per_step timing=batch flush_l2=true cuda_graph=true; do
    tag=opts_$(echo "$opt" | tr = _)
    if "$H" run "$cfg" --set schedule.$opt --output-dir "$out/exp_opts/$tag" >"$out/$tag.log" 2>&1; then
        note "rms_norm/cuda schedule.$opt: ok"
    else
        bad "rms_norm/cuda schedule.$opt: exit $? ($tag.log)"
    fi
done
python3 "$top/tests/gpu/check_summaries.py" "$out/exp_opts" | tee "$out/options.md" || bad "GPU summary fields (options.md)"
"$H" run "$cfg" --set device_index=99 --output-dir "$out/exp_bad" >"$out/device_index.log" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q device_index "$out/device_index.log" && [ ! -d "$out/exp_bad" ]; then
    note "device_index 99: exit $rc, $(head -1 "$out/device_index.log")"
else
    bad "device_index 99: exit $rc, or no message naming it, or a folder left (device_index.log)"
fi
"$H" run "$top/configs/rms_norm.yaml" --output-dir "$out/exp_auto" >"$out/auto.log" 2>&1 \
    && grep -q 'rms_norm/cuda' "$out"/exp_auto/*/summary_ranks_1_rank_0.json \
    && note "device auto: rms_norm/cuda" || bad "device auto did not pick rms_norm/cuda (auto.log)"
(cd "$top" && bench/cupti_overhead.sh 5 "$cfg") >"$out/cupti_overhead.txt" 2>&1 || bad "bench/cupti_overhead.sh"
cat "$out/cupti_overhead.txt"
fi

# ---- the trace holds the GPU's kernels ----------------------------------------
trace=$(ls "$out"/exp/*/*/profiler_trace_*.json 2>/dev/null | head -1)
if skip validate; then :
elif [ -n "$trace" ] && python3 - "$trace" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
kernels = [e for e in events if e.get("cat") == "kernel"]
flows = [e for e in events if e.get("ph") in ("s", "f")]
print(f"trace {sys.argv[1].split('/')[-3]}: {len(kernels)} kernel events, {len(flows)} flow events")
sys.exit(0 if kernels else 1)
PY
then note "trace has kernel events"; else bad "no kernel events in a trace"; fi

# ---- attention's goals: FlashAttention-2's shapes beside cuBLAS and PyTorch ----
if ! skip perf; then
    mkdir -p "$out/attention_perf"
    tests/gpu/attention_perf.sh "$out/attention_perf" >"$out/attention_perf.md" 2>"$out/attention_perf.err" \
        || bad "tests/gpu/attention_perf.sh (attention_perf.err)"
    cat "$out/attention_perf.md"
fi

# ---- transformer_block/cuda: each region's kernels on the GPU timeline -------------
# The block's regions are NVTX ranges and trace regions; each launch inside
# one is linked to its kernel by a flow event, so the trace shows which
# kernels each sub-operation ran (and the summary's kernel table, where the
# time went).
tb_trace=$(ls "$out"/exp/transformer_block_cuda_bf16/*/profiler_trace_*.json 2>/dev/null | head -1)
if skip validate; then :
elif [ -z "$tb_trace" ]; then
    bad "transformer_block/cuda bf16: no trace"
elif python3 - "$tb_trace" >"$out/transformer_block_regions.txt" <<'PY'
import json, sys
from collections import defaultdict
events = json.load(open(sys.argv[1]))["traceEvents"]
names = ["attn_norm", "qkv_proj", "rope", "attention", "out_proj", "mlp_norm", "gate_up_proj", "swiglu", "down_proj"]
regions = [e for e in events if e.get("ph") == "X" and e.get("cat") == "region" and e.get("name") in names]
kernels = {(e["pid"], e["tid"], e["ts"]): e["name"] for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"}
ends = {e["id"]: kernels.get((e["pid"], e["tid"], e["ts"])) for e in events if e.get("ph") == "f"}
starts = [(e["ts"], ends.get(e["id"])) for e in events if e.get("ph") == "s" and ends.get(e["id"])]
found = defaultdict(set)
for r in regions:
    for ts, k in starts:
        if r["ts"] <= ts <= r["ts"] + r["dur"]:
            found[r["name"]].add(k)
for n in names:
    ks = sorted(found[n])
    print(f"{n:13s} {len(ks)} kernel(s): " + ", ".join(k[:60] for k in ks[:4]))
# Our own kernels' regions must have them; cuBLASLt launches through the
# driver API, whose launches the collector records (cuda_driver) and links:
# a GEMM region without its kernels (exit 2) means that link is missing.
ours = ["attn_norm", "rope", "attention", "mlp_norm", "swiglu"]
sys.exit(1 if not all(found[n] for n in ours) else 0 if all(found[n] for n in names) else 2)
PY
then note "transformer_block/cuda: every region has its kernels in the trace"
elif [ $? -eq 2 ]; then note "transformer_block/cuda: the GEMM regions' kernels are not linked to launches (driver API?)"
else bad "transformer_block/cuda: a region of its own kernels without them in the trace (transformer_block_regions.txt)"
fi
[ -s "$out/transformer_block_regions.txt" ] && ! skip validate && cat "$out/transformer_block_regions.txt"

# ---- transformer_block/cuda at the Llama-7B shape against cuBLASLt's GEMM rate --------
# Batch 1, seq 4096, hidden 4096, 32 heads of 128, intermediate 11008, bf16:
# the block's FLOP rate (its declared cost over its median step) as a
# fraction of the rate cuBLASLt reaches on the block's own seven GEMMs
# (tokens x out x in: Q, K, V, O 4096 x 4096 x 4096, gate and up 4096 x
# 11008 x 4096, down 4096 x 4096 x 11008), each timed alone by
# tests/gpu/gemm_rate.c (median of 50), in the same run. The goal (issue 9)
# is 70%. First a validated run with head_dim 128 on a shape the CPU
# reference affords (the configs' default shape has head_dim 64).
llama="--set component.config.seq_len=4096 --set component.config.hidden_size=4096
    --set component.config.num_heads=32 --set component.config.num_kv_heads=32
    --set component.config.intermediate_size=11008 --set component.config.dtype=bf16"
nvcc=$(sed -n 's/^NVCC = //p' "$top/Makefile")
if skip llama; then
    note "Llama-7B block against cuBLASLt's GEMM rate skipped (SKIP)"
else
    if "$H" run "$top/configs/transformer_block_cuda.yaml" --set component.config.seq_len=512 \
            --set component.config.num_heads=8 --set component.config.num_kv_heads=2 \
            --set schedule.measurement_steps=10 --set schedule.repeat=1 \
            --output-dir "$out/exp_tb_d128" >"$out/tb_d128.log" 2>&1; then
        note "transformer_block/cuda bf16 head_dim 128, 512 tokens, GQA: validated"
    else
        bad "transformer_block/cuda bf16 head_dim 128: exit $? (tb_d128.log)"
    fi
    # shellcheck disable=SC2086
    if ! ${nvcc:-nvcc} -O2 -o "$out/gemm_rate" "$top/tests/gpu/gemm_rate.c" -lcublasLt >"$out/gemm_rate_build.log" 2>&1; then
        bad "tests/gpu/gemm_rate.c did not build (gemm_rate_build.log)"
    elif ! "$out/gemm_rate" 4096 4096 4096 4096 4096 4096 4096 4096 4096 4096 4096 4096 \
            4096 11008 4096 4096 11008 4096 4096 4096 11008 >"$out/gemm_rate.txt" 2>&1; then
        bad "gemm_rate failed (gemm_rate.txt)"
    elif ! "$H" run "$top/configs/transformer_block_cuda.yaml" $llama --set validate=false \
            --set schedule.measurement_steps=20 --set schedule.repeat=3 \
            --output-dir "$out/exp_llama7b" >"$out/llama7b.log" 2>&1; then
        bad "transformer_block/cuda at the Llama-7B shape: exit $? (llama7b.log)"
    else
        python3 - "$out/gemm_rate.txt" "$out"/exp_llama7b/*/summary_ranks_1_rank_0.json <<'PY' | tee "$out/llama7b.md"
import json, sys
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
mix = next(float(l[3]) for l in lines if l[0] == "mix")
best = max(float(l[4]) for l in lines if l[0] != "mix")
s = json.load(open(sys.argv[2]))
block = s["throughput"]["gflop_per_s"] / 1e3
print("| | TFLOP/s | block / it |")
print("| --- | ---: | ---: |")
print(f"| transformer_block/cuda, Llama-7B, bf16 (median step {s['timing']['median'] / 1e6:.3f} ms) | {block:.1f} | |")
print(f"| cuBLASLt, the block's seven GEMMs alone | {mix:.1f} | {block / mix:.1%} |")
print(f"| cuBLASLt, its best of those shapes | {best:.1f} | {block / best:.1%} |")
print(f"\ngoal (block >= 70% of the GEMMs' rate): {'met' if block >= 0.7 * mix else 'NOT met'}")
PY
        note "Llama-7B block against cuBLASLt: $(tail -1 "$out/llama7b.md")"
    fi
fi

# ---- the table ---------------------------------------------------------------
if ! skip validate; then
    python3 "$top/tests/gpu/table.py" "$out/exp" >"$out/table.md" || bad "table"
    cat "$out/table.md"
fi
# ---- make check with the GPU tests (slice 4) -----------------------------------
if skip check; then
    note "make check: not in this slice, or SKIP names it"
elif ! HARNESS_GPU_TESTS=1 make -j"$jobs" check >"$out/check.log" 2>&1; then
    bad "make check (check.log; the failed tests' logs in testlogs/)"
    mkdir -p "$out/testlogs"
    for t in $(sed -n 's/^\(FAIL\|ERROR\): //p' "$out/check.log"); do cp "${t%.*}.log" "$out/testlogs/" 2>/dev/null; done
fi
skip check || grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR)' "$out/check.log" | tee -a "$out/run.log"

note "$([ $status = 0 ] && echo 'all passed' || echo 'some checks FAILED'); everything is in $out"
exit $status
