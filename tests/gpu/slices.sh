# tests/gpu/slices.sh - sourced by tests/gpu/run.sh: the parts each slice
# runs (the order of work at the top of run.sh), SKIP, and --dry-run.
# Uses run.sh's top, slice, note.

# The parts of slice N (all: every part).
slice_parts() {
    case $1 in
    1) echo validate ;;
    2) echo perf llama ;;
    3) echo sanitize ;;
    4) echo check ;;
    *) echo validate perf llama sanitize check ;;
    esac
}

slice_what() {
    case $1 in
    1) echo "build; every CUDA variant and dtype validated; schedule options; device selection; the trace; table.md" ;;
    2) echo "figures: attention at FlashAttention-2's shapes vs cuBLAS and PyTorch; Llama-7B block vs cuBLASLt" ;;
    3) echo "compute-sanitizer memcheck, racecheck, initcheck, synccheck on every variant" ;;
    4) echo "make check with the GPU tests on" ;;
    esac
}

# skip PART: true when PART is not in this slice, or SKIP names it.
skip() {
    case " ${SKIP:-} " in *" $1 "*) return 0 ;; esac
    case " $(slice_parts "${slice:-all}") " in *" $1 "*) return 1 ;; esac
    return 0
}

# The files the slices read, by slice. The CUDA families' configs: from the
# built harness when there is one, else the families the tree has.
slice_files() {
    case $1 in
    1) echo configs/rms_norm_cuda.yaml configs/rms_norm.yaml tests/gpu/check_summaries.py tests/gpu/table.py \
        bench/cupti_overhead.sh tests/gpu/configs/allreduce.yaml ;;
    2) echo tests/gpu/attention_perf.sh tests/gpu/attention_perf.py configs/attention_cuda.yaml \
        tests/gpu/gemm_rate.c configs/transformer_block_cuda.yaml ;;
    esac
}

cuda_families() {
    if [ -x "$top/harness/harness" ] && "$top/harness/harness" list --json >"$out/list.json" 2>/dev/null; then
        python3 -c 'import json, sys
print(" ".join(sorted({v["family"] for v in json.load(open(sys.argv[1]))["variants"] if v["device"] == "cuda"})))' \
            "$out/list.json"
    else
        echo rms_norm attention transformer_block allreduce
    fi
}

# Prints the slices and checks that what they use is here; 0, or 1 after
# naming each missing file.
dry_run() {
    missing=0
    need() { [ -e "$top/$1" ] || { note "missing: $1"; missing=$((missing + 1)); }; }
    for s in 1 2 3 4; do
        [ -n "$slice" ] && [ "$slice" != $s ] && continue
        note "slice $s: $(slice_what $s)"
        for f in $(slice_files $s); do need "$f"; done
        if [ $s = 1 ]; then
            [ -x "$top/configure" ] || command -v autoreconf >/dev/null ||
                { note "missing: configure, and no autoreconf to make it"; missing=$((missing + 1)); }
            for fam in $(cuda_families); do
                [ -e "$top/configs/$fam.yaml" ] || need "tests/gpu/configs/$fam.yaml"
            done
        fi
    done
    if [ -n "${HARNESS_DEPS_DEBS:-}" ] && ! ls "$HARNESS_DEPS_DEBS"/*.deb >/dev/null 2>&1; then
        note "missing: .deb files in HARNESS_DEPS_DEBS=$HARNESS_DEPS_DEBS"
        missing=$((missing + 1))
    fi
    [ $missing = 0 ] && note "dry run: everything the slices use is present" && return 0
    note "dry run: $missing missing"
    return 1
}
