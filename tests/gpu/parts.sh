# tests/gpu/parts.sh - sourced by tests/gpu/run.sh: each part of the work
# (slices.sh says which run in which command or slice, and by when), and
# the device's facts. Each part runs in a process of its own (run.sh
# --part), stopped at its deadline. Uses run.sh's repo, top, out, H, jobs,
# scope, deadline, note, bad, verdict, out_of_time.

# facts.txt: what results.py puts at the head of the results file.
device_facts() {
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1 >"$out/gpu.txt"
    {
        echo "gpu=$(cut -d, -f1 "$out/gpu.txt" | sed 's/ *$//')"
        echo "driver=$(cut -d, -f2 "$out/gpu.txt" | sed 's/^ *//')"
        echo "memory=$(cut -d, -f3 "$out/gpu.txt" | sed 's/^ *//')"
        echo "nvcc=$({ nvcc --version || /usr/local/cuda/bin/nvcc --version; } 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
        echo "compute_sanitizer=$(compute-sanitizer --version 2>/dev/null | sed -n 's/.*Version \([0-9.]*\).*/\1/p' | head -1)"
        echo "commit=$(cut -d' ' -f2 "$(carry_dir)/SOURCE" 2>/dev/null)"
        echo "source=$(cat "$(carry_dir)/SOURCE" 2>/dev/null)"
        echo "host_cpus=$(nproc)"
    } >"$out/facts.txt"
    note "device: $(cat "$out/gpu.txt")"
}

# ---- slice 1: every CUDA variant per dtype, validated; options; the trace -----
part_validate() {
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
        config=$(family_config "$family") || { verdict validate "$key" FAIL "no configs/$family.yaml"; continue; }
        for dt in $dtypes; do
            out_of_time "validate $key $dt" && return
            tag=$(echo "$key" | tr / _)_$dt
            set -- --set component.variant_key="$key" --set validate=true
            [ "$dt" = - ] || set -- "$@" --set component.config.dtype="$dt"
            if "$H" run "$config" "$@" --output-dir "$out/exp/$tag" >"$out/$tag.log" 2>&1 </dev/null; then
                verdict validate "$key $dt" ok
            else
                verdict validate "$key $dt" FAIL "exit $? ($tag.log)"
            fi
        done
    done <"$out/variants.txt"
    # The block at head_dim 128 with grouped-query attention, ratios 4 and 8,
    # on shapes the CPU reference affords (the configs' default shape has
    # head_dim 64, ratio 4).
    for kvh in 2 1; do
        what="transformer_block/cuda bf16 head_dim 128, 512 tokens, GQA 8/$kvh"
        tag=transformer_block_cuda_bf16_d128_gqa$((8 / kvh))
        out_of_time "validate $what" && return
        if "$H" run configs/transformer_block_cuda.yaml --set component.config.seq_len=512 \
                --set component.config.hidden_size=1024 --set component.config.num_heads=8 \
                --set component.config.num_kv_heads="$kvh" --set validate=true \
                --set schedule.measurement_steps=10 --set schedule.repeat=1 \
                --output-dir "$out/exp/$tag" >"$out/$tag.log" 2>&1 </dev/null; then
            verdict validate "$what" ok
        else
            verdict validate "$what" FAIL "exit $? ($tag.log)"
        fi
    done
    block_attention_kernel
    part_hopper_validate
    out_of_time "schedule options, device selection, the trace" && return
    part_options
    part_trace
    python3 tests/gpu/table.py "$out/exp" >"$out/table.md" 2>"$out/table.err" || bad "table (table.err)"
    cat "$out/table.md"
}

# The block's attention is the Hopper kernel on a GPU of compute capability
# 9.0 (its default there, never run anywhere before 2026-11-29): each bf16
# block run above says which kernel it ran in its validation detail.
block_attention_kernel() {
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1)
    for dir in "$out"/exp/transformer_block_cuda_bf16*; do
        [ -d "$dir" ] || continue
        what="$(basename "$dir"): its attention kernel"
        kernel=$(python3 -c 'import glob, json, sys
(f,) = glob.glob(sys.argv[1] + "/*/summary_ranks_1_rank_0.json")
print(json.load(open(f))["validation"]["detail"].rpartition("attention: ")[2])' "$dir" 2>/dev/null)
        case $cc:$kernel in
        9.0:Hopper*) verdict validate "$what" ok "$kernel" ;;
        9.0:*) verdict validate "$what" FAIL "'${kernel:-none said}', not the Hopper kernel, on compute capability 9.0" ;;
        *) verdict validate "$what" "not the Hopper kernel" "compute capability $cc: ${kernel:-none said}" ;;
        esac
    done
}

# attention/cuda's two tensor-core kernels on shapes that reach every path of
# the Hopper one (attention_hopper.cu): head_dim 64 and 128, causal with fewer
# and more queries than keys, tails, grouped-query heads, fp16, its 2- and
# 3-stage rings, clusters of two taking two items each (head_dim 128 without
# the causal mask), grouped-query heads at ratio 8 (a head mapping wrong only
# there passed every other shape); each A/B switch of the Hopper kernel
# (attention_cuda.h) once, small, since the figures time them with
# validation off: two consumers at head_dim 64, O stored from registers
# there, a block per item, the 176-key tiles, no cluster (the last column
# names its line of tests/gpu/hopper_switches); and the mma.sync
# kernel forced, which a GPU of compute capability 9.0 no longer picks by
# default. Off 9.0 the Hopper runs are named as not run.
part_hopper_validate() {
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1)
    # kernel stages dtype head_dim seq kv_seq heads kv_heads causal [switch]
    while read -r kernel stages dt d seq kv heads kvh causal switch; do
        what="attention/cuda $kernel kernel ($stages stages${switch:+, $switch}) $dt d$d q$seq k$kv h$heads/$kvh causal=$causal"
        tag=attn_${kernel}${stages}_${dt}_d${d}_q${seq}_k${kv}_h${heads}x${kvh}_$causal${switch:+_$switch}
        settings= want=
        if [ -n "$switch" ]; then
            settings=$(sh "$repo/tests/gpu/switch.sh" env "$switch") && want=$(sh "$repo/tests/gpu/switch.sh" words "$switch") ||
                { verdict validate "$what" FAIL "no such switch in tests/gpu/hopper_switches"; continue; }
        fi
        out_of_time "validate $what" && return
        if [ "$kernel" = hopper ] && [ "$cc" != 9.0 ]; then
            verdict skip "$what" "not run" "compute capability $cc, not 9.0"; continue
        fi
        env $settings HARNESS_ATTENTION_KERNEL=$kernel HARNESS_ATTENTION_HOPPER_STAGES=$stages timeout "$(time_left 120)" "$H" run \
            configs/attention_cuda.yaml --set component.config.batch_size=2 \
            --set component.config.num_heads="$heads" --set component.config.num_kv_heads="$kvh" \
            --set component.config.seq_len="$seq" --set component.config.kv_seq_len="$kv" \
            --set component.config.head_dim="$d" --set component.config.causal="$causal" \
            --set component.config.dtype="$dt" --set validate=true --set schedule.warmup_steps=1 \
            --set schedule.wait_steps=0 --set schedule.measurement_steps=3 --set schedule.repeat=1 \
            --set profiling.trace=false --output-dir "$out/exp_attn/$tag" >"$out/$tag.log" 2>&1 </dev/null
        rc=$?
        # A switch's run must also say (its summary's kernel note) that the switch took.
        noted=$(cat "$out/exp_attn/$tag"/*/summary_ranks_1_rank_0.json 2>/dev/null |
            python3 -c 'import json, sys; print(json.load(sys.stdin)["component_notes"].get("kernel", ""))' 2>/dev/null)
        if [ $rc = 0 ] && [ -n "$want" ] && case $noted in *"$want"*) false ;; *) true ;; esac; then
            verdict validate "$what" FAIL "the switch did not take: its note says '${noted:-nothing}'"
        elif [ $rc = 0 ]; then
            verdict validate "$what" ok
        elif [ $rc = 124 ] && [ -n "$deadline" ] && [ "$(date +%s)" -ge "$deadline" ]; then
            verdict skip "validate $what" "not finished" "out of time in $scope"
            return
        else
            verdict validate "$what" FAIL "exit $rc ($tag.log: $(grep -m1 -i 'mismatch\|error\|fail' "$out/$tag.log" | cut -c1-240))"
        fi
    done <<'SHAPES'
hopper 2 bf16 128 1024 1024 8 8 false
hopper 2 bf16 128 1024 1024 8 8 true
hopper 2 bf16 64 1024 1024 8 8 false
hopper 2 bf16 64 1024 1024 8 8 true
hopper 3 bf16 128 2048 2048 8 8 true
hopper 3 bf16 128 2048 1024 8 8 false
hopper 3 bf16 64 1000 1000 8 8 false
hopper 2 bf16 128 1000 1500 8 8 true
hopper 2 bf16 128 777 300 8 8 true
hopper 2 fp16 128 2048 2048 8 2 true
hopper 3 fp16 64 640 640 8 2 false
hopper 2 bf16 64 100 100 4 4 true
hopper 3 bf16 128 1024 1024 16 2 true
hopper 3 bf16 64 2048 2048 16 2 false
hopper 3 fp16 128 1000 1000 8 1 false
hopper 3 bf16 64 300 300 4 2 true hopper_pair
hopper 3 bf16 64 300 300 4 4 false hopper_direct
hopper 3 bf16 128 300 300 4 4 true hopper_serial
hopper 2 bf16 128 300 400 4 2 false hopper_wide
hopper 3 bf16 128 512 512 4 4 false hopper_solo
mma_sync 2 bf16 128 1024 1024 8 8 true
mma_sync 2 bf16 64 1000 1500 8 2 true
mma_sync 2 bf16 128 1024 1024 16 2 true
SHAPES
}

# The family's example config; tests/gpu/configs/ has one where that example is a sweep.
family_config() {
    if [ -f "tests/gpu/configs/$1.yaml" ]; then echo "tests/gpu/configs/$1.yaml"
    elif [ -f "configs/$1.yaml" ]; then echo "configs/$1.yaml"
    else return 1; fi
}

# The CUDA schedule options, device selection, the summary's GPU fields.
part_options() {
    cfg=configs/rms_norm_cuda.yaml
    for opt in timing=per_step timing=batch flush_l2=true cuda_graph=true; do
        tag=opts_$(echo "$opt" | tr = _)
        if "$H" run "$cfg" --set schedule.$opt --output-dir "$out/exp_opts/$tag" >"$out/$tag.log" 2>&1; then
            verdict options "rms_norm/cuda schedule.$opt" ok
        else
            verdict options "rms_norm/cuda schedule.$opt" FAIL "exit $? ($tag.log)"
        fi
    done
    python3 tests/gpu/check_summaries.py "$out/exp_opts" >"$out/options.md" &&
        verdict options "the summaries' GPU fields" ok || verdict options "the summaries' GPU fields" FAIL "options.md"
    rm -rf "$out/exp_bad"
    "$H" run "$cfg" --set device_index=99 --output-dir "$out/exp_bad" >"$out/device_index.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && grep -q device_index "$out/device_index.log" && [ ! -d "$out/exp_bad" ]; then
        verdict options "device_index 99 refused" ok "exit $rc"
    else
        verdict options "device_index 99 refused" FAIL "exit $rc, or no message naming it, or a folder left"
    fi
    "$H" run configs/rms_norm.yaml --output-dir "$out/exp_auto" >"$out/auto.log" 2>&1 &&
        grep -q 'rms_norm/cuda' "$out"/exp_auto/*/summary_ranks_1_rank_0.json &&
        verdict options "device auto picks rms_norm/cuda" ok || verdict options "device auto picks rms_norm/cuda" FAIL auto.log
    bench/cupti_overhead.sh 5 "$cfg" >"$out/cupti_overhead.txt" 2>&1 &&
        verdict options "bench/cupti_overhead.sh" ok "$(tail -1 "$out/cupti_overhead.txt")" ||
        verdict options "bench/cupti_overhead.sh" FAIL cupti_overhead.txt
}

# The trace holds the GPU's kernels; the block's regions hold theirs. Read
# from rms_norm/cuda's run: allreduce's on one GPU (first by name) launches
# no kernel, NCCL copies.
part_trace() {
    trace=$(ls "$out"/exp/rms_norm_cuda_fp32/*/profiler_trace_*.json 2>/dev/null | head -1)
    if [ -n "$trace" ] && python3 - "$trace" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
kernels = [e for e in events if e.get("cat") == "kernel"]
flows = [e for e in events if e.get("ph") in ("s", "f")]
print(f"trace {sys.argv[1].split('/')[-3]}: {len(kernels)} kernel events, {len(flows)} flow events")
sys.exit(0 if kernels else 1)
PY
    then verdict trace "kernel events in the trace" ok; else verdict trace "kernel events in the trace" FAIL; fi
    # The block's regions are NVTX ranges and trace regions; each launch inside
    # one is linked to its kernel by a flow event, so the trace shows which
    # kernels each sub-operation ran.
    tb_trace=$(ls "$out"/exp/transformer_block_cuda_bf16/*/profiler_trace_*.json 2>/dev/null | head -1)
    if [ -z "$tb_trace" ]; then
        verdict trace "transformer_block/cuda regions" FAIL "no trace"
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
    then verdict trace "transformer_block/cuda regions" ok "every region has its kernels"
    elif [ $? -eq 2 ]; then verdict trace "transformer_block/cuda regions" "GEMM kernels not linked" "driver API launches?"
    else verdict trace "transformer_block/cuda regions" FAIL "a region of our kernels without them (transformer_block_regions.txt)"
    fi
}

# ---- slice 2: the figures --------------------------------------------------------
# Attention at FlashAttention-2's shapes, beside cuBLAS (attention_perf.sh
# stops at the deadline and names the runs it left).
part_attention_perf() {
    out_of_time "attention at FlashAttention-2's shapes" && return
    mkdir -p "$out/fig/attention"
    tests/gpu/attention_perf.sh "$out/fig/attention" >"$out/attention_perf.md" 2>"$out/attention_perf.err" &&
        verdict figures "attention at FlashAttention-2's shapes" ok ||
        verdict figures "attention at FlashAttention-2's shapes" FAIL attention_perf.err
    grep 'out of time' "$out/attention_perf.err" | while read -r line; do verdict skip "attention_perf" "not run" "$line"; done
    cat "$out/attention_perf.md"
}

# transformer_block/cuda at the Llama-7B shape against cuBLASLt's GEMM rate:
# batch 1, seq 4096, hidden 4096, 32 heads of 128, intermediate 11008, bf16;
# the block's FLOP rate (its declared cost over its median step) against the
# rate cuBLASLt reaches on the block's own four GEMMs, as the block runs them
# (tokens x out x in: Q, K and V fused 4096 x 12288 x 4096, O 4096 x 4096 x
# 4096, gate and up fused 4096 x 22016 x 4096, down 4096 x 4096 x 11008), each
# timed alone by tests/gpu/gemm_rate.c (median of 50), in the same slice. The
# goal (the Hopper attention issue) is 80%; the first H100 run measured 71%
# against the seven unfused GEMMs the block ran then.
part_llama() {
    out_of_time "Llama-7B block against cuBLASLt" && return
    nvcc=$(sed -n 's/^NVCC = //p' Makefile)
    if ! ${nvcc:-nvcc} -O2 -o "$out/gemm_rate" tests/gpu/gemm_rate.c -lcublasLt >"$out/gemm_rate_build.log" 2>&1; then
        verdict figures "tests/gpu/gemm_rate.c" FAIL "did not build (gemm_rate_build.log)"
    elif ! "$out/gemm_rate" 4096 12288 4096 4096 4096 4096 4096 22016 4096 4096 4096 11008 \
            >"$out/gemm_rate.txt" 2>&1; then
        verdict figures "cuBLASLt's GEMM rate" FAIL gemm_rate.txt
    else
        verdict figures "cuBLASLt's GEMM rate" ok "$(grep '^mix' "$out/gemm_rate.txt")"
    fi
    fig_run llama7b_block configs/transformer_block_cuda.yaml --set component.config.seq_len=4096 \
        --set component.config.hidden_size=4096 --set component.config.num_heads=32 \
        --set component.config.num_kv_heads=32 --set component.config.intermediate_size=11008 \
        --set component.config.dtype=bf16 --set validate=false \
        --set schedule.measurement_steps=20 --set schedule.repeat=3 --set profiling.trace=false
    # Its energy per step (NVML; docs/timing-integrity.md, "Energy"): a window
    # needs 1 s (10 of NVML's 100 ms updates), about 250 steps of ~4 ms here.
    fig_run llama7b_block_energy configs/transformer_block_cuda.yaml --set component.config.seq_len=4096 \
        --set component.config.hidden_size=4096 --set component.config.num_heads=32 \
        --set component.config.num_kv_heads=32 --set component.config.intermediate_size=11008 \
        --set component.config.dtype=bf16 --set validate=false \
        --set schedule.measurement_steps=400 --set schedule.repeat=3 --set profiling.trace=false
}

# fig_run TAG CONFIG ARGS...: one figure run into WORK/fig/TAG.
fig_run() {
    tag=$1 config=$2
    shift 2
    out_of_time "figure $tag" && return
    rm -rf "$out/fig/$tag"
    if "$H" run "$config" "$@" --output-dir "$out/fig/$tag" >"$out/fig_$tag.log" 2>&1; then
        verdict figures "$tag" ok
    else
        verdict figures "$tag" FAIL "exit $? (fig_$tag.log)"
    fi
}

# RMSNorm at the issue's shapes (8 x 1024 x 4096, and the rows of a
# 4096-token Llama-7B prompt: hidden 4096) and allreduce/cuda in a world of
# one (NCCL; busbw by nccl-tests' formula is 0 there, algbw is said beside),
# in place: PyTorch's all_reduce has only that form, and out of place NCCL
# copies the buffer where in place it has nothing to do (the first H100 run
# compared the two: "0.14x PyTorch" was a copy against no work).
part_figures() {
    for dt in bf16 fp32; do
        fig_run rms_norm_8x1024x4096_$dt configs/rms_norm_cuda.yaml --set component.config.dtype=$dt \
            --set profiling.trace=false
    done
    fig_run rms_norm_llama7b_4096x4096_bf16 configs/rms_norm_cuda.yaml --set component.config.batch_size=1 \
        --set component.config.seq_len=4096 --set profiling.trace=false
    for bytes in 16777216 268435456; do
        fig_run allreduce_${bytes}_fp32 tests/gpu/configs/allreduce.yaml --set component.variant_key=allreduce/cuda \
            --set component.config.bytes=$bytes --set component.config.in_place=true --set profiling.trace=false
    done
}

# PyTorch's time for each figure run so far (results.py's ratio column).
part_torch() {
    out_of_time "PyTorch's times" && return
    if timeout "$(time_left 600)" python3 "$repo/tests/gpu/torch_times.py" "$out" >>"$out/run.log" 2>"$out/torch_times.err"; then
        note "$(tail -1 "$out/run.log")"
    else
        verdict skip "PyTorch's times" "not run" "out of time, or torch_times.err"
    fi
}

# ---- slice 3: compute-sanitizer, each tool, a short schedule of each dtype ----
part_sanitize() {
    out_of_time "compute-sanitizer" && return
    [ -s "$out/variants.txt" ] || { "$H" list --json >"$out/list.json" && python3 -c 'import json, sys
for v in json.load(open(sys.argv[1]))["variants"]:
    if v["device"] == "cuda":
        d = next((p.get("choices") for p in v["params"] if p["name"] == "dtype"), None) or ["-"]
        print(v["key"], v["family"], " ".join(d))' "$out/list.json" >"$out/variants.txt"; }
    # Does compute-sanitizer run here at all? Some sandboxes refuse the device.
    if ! command -v compute-sanitizer >/dev/null; then
        verdict skip "compute-sanitizer" "not run" "not installed"; return
    fi
    compute-sanitizer --tool memcheck --error-exitcode 99 "$H" run configs/rms_norm_cuda.yaml --set validate=false \
        --set schedule.warmup_steps=0 --set schedule.measurement_steps=1 --set schedule.repeat=1 \
        --set profiling.trace=false --output-dir "$out/sanitizer" >"$out/sanitizer_probe.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && grep -qi 'not supported\|error 999\|unable to\|failed to initialize' "$out/sanitizer_probe.log"; then
        verdict skip "compute-sanitizer" "refused here" "$(grep -i -m1 'not supported\|error\|unable' "$out/sanitizer_probe.log")"
        return
    fi
    # Our kernels first, the library's (attention/cublas) last: a short loan
    # checks what this project wrote; first of all attention/cuda and the
    # block, whose default on compute capability 9.0 (the Hopper kernel,
    # 3 stages) was never under compute-sanitizer before.
    { grep -E '^(attention|transformer_block)/cuda ' "$out/variants.txt"
      grep -v -E '^(attention|transformer_block)/cuda |/cublas ' "$out/variants.txt"
      grep '/cublas ' "$out/variants.txt"; } >"$out/sanitize_order.txt"
    while read -r key family dtypes; do
        case $key in allreduce/*|sendrecv/*) verdict sanitize "$key" "not run" "its kernels are NCCL's"; continue ;; esac
        config=$(family_config "$family") || continue
        for dt in $dtypes; do
        for tool in memcheck racecheck initcheck synccheck; do
            out_of_time "compute-sanitizer $tool $key $dt" && return
            set -- --set component.variant_key="$key" --set schedule.warmup_steps=1 --set schedule.wait_steps=0 \
                --set schedule.measurement_steps=2 --set schedule.repeat=1 --set profiling.trace=false
            [ "$dt" = - ] || set -- "$@" --set component.config.dtype="$dt"
            log=$out/sanitizer_$(echo "$key" | tr / _)_${dt}_$tool.log
            # One run may take minutes (racecheck on cuBLAS's kernels): it
            # stops at the part's deadline, so the command still writes its files.
            timeout "$(time_left 3600)" compute-sanitizer --tool "$tool" --error-exitcode 99 "$H" run "$config" "$@" \
                --output-dir "$out/sanitizer" >"$log" 2>&1 </dev/null
            rc=$?
            if [ $rc = 0 ]; then
                verdict sanitize "$key $dt $tool" clean
            elif [ $rc = 124 ]; then
                verdict skip "compute-sanitizer $tool $key $dt" "not finished" "out of time in $scope"
                return
            elif [ "$tool" = racecheck ] && ! grep 'Race reported' "$log" | grep -qE 'rms_norm|attention|softmax|rope|swiglu'; then
                # cuBLAS's Hopper kernels (nvjet_*) draw racecheck reports of their own.
                verdict sanitize "$key $dt $tool" "clean in ours" "hazards only in library kernels: $(grep -o \
                    'Race reported between [A-Za-z]* access at [A-Za-z0-9_]*' "$log" | sort -u | head -2 | tr '\n' ' ')"
            else
                verdict sanitize "$key $dt $tool" FAIL "exit $rc ($(basename "$log"))"
            fi
        done
        done
    done <"$out/sanitize_order.txt"
}

# ---- slice 4: tuning sweeps --------------------------------------------------------
# Attention's key tile is chosen at build time per head_dim; head_dim 128 also
# has a 32-key build, picked by HARNESS_ATTENTION_TC_BK (attention_cuda.h).
# The sweep: of tests/gpu/configs/attention_tune.yaml runs under each, on the
# mma.sync kernel (HARNESS_ATTENTION_KERNEL=mma_sync: on an H100 the plan
# would take the Hopper kernel), then on the Hopper kernel with rings of 2
# and 3 K/V stages (HARNESS_ATTENTION_HOPPER_STAGES; 128-key tiles), the
# same points beside them.
part_tune() {
    for bk in 64 32 hopper hopper3; do
        what="$bk-key tiles"; kernel=mma_sync stages=2
        [ $bk = hopper ] && what="the Hopper kernel, 2 stages" kernel=hopper
        [ $bk = hopper3 ] && what="the Hopper kernel, 3 stages" kernel=hopper stages=3
        out_of_time "attention tuning, $what" && return
        rm -rf "$out/tune/attention_bk$bk"
        if HARNESS_ATTENTION_KERNEL=$kernel HARNESS_ATTENTION_HOPPER_STAGES=$stages HARNESS_ATTENTION_TC_BK=$bk \
                "$H" run tests/gpu/configs/attention_tune.yaml \
                --output-dir "$out/tune/attention_bk$bk" >"$out/tune_bk$bk.log" 2>&1; then
            verdict tune "attention/cuda, $what, the sweep" ok
        else
            verdict tune "attention/cuda, $what, the sweep" FAIL "exit $? (tune_bk$bk.log)"
        fi
    done
}

# ---- slice 5: make check with the GPU tests ------------------------------------------
# One thread spinning, alone on the machine: the process's CPU per wall
# second (1 expected) and what each of its threads used, sampled until it
# exits. Under make check on an H200 (16 cores) this read 2.28 once, with
# 326063 involuntary switches in 20 steps: OpenBLAS's pool spinning at load,
# kept asleep since (harness/plugin/registry.c). spin_threads.txt shows each
# thread's ticks every 0.1 s: a second busy thread means it is back.
spin_threads() {
    "$H" run tests/configs/spin_tiny.yaml --set component.config.duration_ns=12000000 \
        --set schedule.measurement_steps=60 --set schedule.repeat=1 --output-dir "$out/spin_probe" \
        >"$out/spin_probe.log" 2>&1 </dev/null &
    pid=$!
    : >"$out/spin_threads.txt"
    while kill -0 $pid 2>/dev/null; do
        echo "--- $(date +%s.%N | cut -c1-14): thread, user and system ticks" >>"$out/spin_threads.txt"
        for t in /proc/$pid/task/*; do
            echo "$(cat "$t/comm" 2>/dev/null) $(cut -d' ' -f14,15 "$t/stat" 2>/dev/null)"
        done 2>/dev/null | grep -v '^ *$' >>"$out/spin_threads.txt"
        sleep 0.1
    done
    wait $pid
    python3 - "$out"/spin_probe/*/summary_ranks_1_rank_0.json >>"$out/spin_threads.txt" 2>&1 <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["timing"]["windows"][0]
print("cpu_per_wall", w["cpu_per_wall"], "involuntary switches", w["noise"]["involuntary_switches"])
PY
    note "one spinning thread: $(tail -1 "$out/spin_threads.txt")"
}

part_check() {
    out_of_time "make check" && return
    spin_threads
    HARNESS_GPU_TESTS=1 timeout "$(time_left 3600)" make -j"$jobs" check >"$out/check.log" 2>&1
    rc=$?
    if [ $rc = 0 ]; then
        verdict check "make check" ok "$(grep -E '^# (PASS|SKIP|FAIL)' "$out/check.log" | tr '\n' ' ')"
    elif [ $rc = 124 ]; then
        verdict skip "make check" "not finished" "out of time in $scope (check.log)"
    else
        verdict check "make check" FAIL "check.log; the failed tests' logs in testlogs/"
        mkdir -p "$out/testlogs"
        for t in $(sed -n 's/^\(FAIL\|ERROR\): //p' "$out/check.log"); do cp "${t%.*}.log" "$out/testlogs/" 2>/dev/null; done
    fi
}

# ---- slice 6: timing integrity (issue 37; docs/timing-integrity.md) --------------
# The empty kernel's timed median beside its CUPTI duration in per_step,
# batch and cold (flush_l2) timing, each with and without the blocking
# kernel (the goal: within 0.5 us or 3% with it); RMSNorm 8 x 1024 x 4096
# cold with and without it; a step that synchronizes falls back and says
# so; each cheating fixture fails its run (exit 1, "work outside the timed
# stream"). Fixtures: tests/fixtures/cuda_timing (make check builds them;
# here they are made alone). Runs go to WORK/integrity/TAG.
integrity_run() { # integrity_run TAG CONFIG ARGS...: exit status of one run, its log WORK/integrity_TAG.log
    tag=$1 config=$2
    shift 2
    rm -rf "$out/integrity/$tag"
    "$H" run "$config" "$@" --output-dir "$out/integrity/$tag" >"$out/integrity_$tag.log" 2>&1 </dev/null
}

integrity_timing() { # integrity_timing TAG SUBJECT GOAL CONFIG ARGS...: a run and its median against CUPTI
    tag=$1 subject=$2 goal=$3 config=$4
    shift 4
    out_of_time "integrity: $subject" && return
    integrity_run "$tag" "$config" "$@"
    rc=$?
    if [ $rc != 0 ]; then
        verdict integrity "$subject" FAIL "exit $rc (integrity_$tag.log)"
        return
    fi
    line=$(python3 tests/gpu/integrity.py "$out/integrity/$tag" $goal)
    case $? in
    0) verdict integrity "$subject" ok "$line" ;;
    3) verdict integrity "$subject" "goal missed" "$line" ;;
    *) verdict integrity "$subject" FAIL "$line" ;;
    esac
}

integrity_caught() { # integrity_caught KEY EXPECT: a cheat's run must exit 1 saying why (and EXPECT)
    key=$1 expect=$2 tag=$(echo "$1" | tr / _)
    out_of_time "integrity: $key caught" && return
    integrity_run "$tag" "$out/cuda_timing.yaml" --plugin-path "$fx" --set component.variant_key="$key"
    rc=$?
    if [ $rc = 1 ] && grep -q 'work outside the timed stream' "$out/integrity_$tag.log" &&
            grep -q "$expect" "$out/integrity_$tag.log"; then
        verdict integrity "$key caught" ok "exit 1: $(grep -o 'one step took [^;]*' "$out/integrity_$tag.log" | head -1)"
    else
        verdict integrity "$key caught" FAIL "exit $rc (integrity_$tag.log)"
    fi
}

part_integrity() {
    out_of_time "timing integrity" && return
    (cd "$top" && make -j"$jobs" tests/fixtures/cuda_timing/cuda_timing.la) >"$out/integrity_build.log" 2>&1 ||
        { verdict integrity "tests/fixtures/cuda_timing" FAIL "did not build (integrity_build.log)"; return; }
    fx=$top/tests/fixtures/cuda_timing/.libs
    cat >"$out/cuda_timing.yaml" <<'YAML'
experiment:
  name: cuda_timing
device: cuda
schedule:
  warmup_steps: 50
  wait_steps: 5
  measurement_steps: 500
  repeat: 2
component:
  variant_key: empty/cuda
  config:
    mib: 256
YAML
    for mode in per_step batch cold; do
        case $mode in
        cold) set -- --set schedule.flush_l2=true ;;
        *) set -- --set schedule.timing=$mode ;;
        esac
        for bk in true false; do
            goal=; [ $bk = true ] && goal=--goal
            integrity_timing "empty_${mode}_bk_$bk" "empty kernel, $mode, blocking_kernel $bk" "$goal" \
                "$out/cuda_timing.yaml" --plugin-path "$fx" "$@" --set schedule.blocking_kernel=$bk
        done
    done
    for bk in true false; do
        integrity_timing "rms_norm_cold_bk_$bk" "rms_norm 8x1024x4096 bf16, cold, blocking_kernel $bk" "" \
            configs/rms_norm_cuda.yaml --set schedule.flush_l2=true --set schedule.blocking_kernel=$bk
    done
    out_of_time "integrity: a step that synchronizes" && return
    integrity_run sync_cuda "$out/cuda_timing.yaml" --plugin-path "$fx" --set component.variant_key=sync/cuda
    rc=$?
    if [ $rc = 0 ] && grep -q 'step() synchronized the stream; launch latency is included' "$out/integrity_sync_cuda.log" &&
            grep -q '"blocking_kernel": *"fell back' "$out"/integrity/sync_cuda/*/summary_ranks_1_rank_0.json; then
        verdict integrity "a step that synchronizes: fallback" ok "said once, timing.blocking_kernel fell back"
    else
        verdict integrity "a step that synchronizes: fallback" FAIL "exit $rc (integrity_sync_cuda.log)"
    fi
    integrity_caught cheat/side_stream 'memset (stream'
    integrity_caught cheat/after_end 'one step took'
}
