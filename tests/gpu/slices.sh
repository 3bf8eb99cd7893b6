# tests/gpu/slices.sh - sourced by tests/gpu/run.sh: the parts each slice
# runs (the order of work at the top of run.sh), SKIP, and --dry-run.
# Uses run.sh's repo, slice, out, note.

# The parts of slice N (all: every part).
slice_parts() {
    case $1 in
    1) echo validate ;;
    2) echo perf llama figures ;;
    3) echo sanitize ;;
    4) echo tune ;;
    5) echo check ;;
    6) echo integrity ;;
    *) echo validate perf llama figures sanitize tune check integrity ;;
    esac
}

slice_what() {
    case $1 in
    1) echo "build; every CUDA variant and dtype validated; schedule options; device selection; the trace; table.md" ;;
    2) echo "figures: attention at FlashAttention-2's shapes vs cuBLAS and PyTorch; Llama-7B block vs cuBLASLt and its energy per step;" \
        "RMSNorm 8 x 1024 x 4096 and Llama-7B rows; allreduce busbw; PyTorch's times" ;;
    3) echo "compute-sanitizer memcheck, racecheck, initcheck, synccheck on every variant" ;;
    4) echo "tuning: attention's key tiles (64, 32) and its Hopper kernel's stages (2, 3) over a sweep: of shapes" ;;
    5) echo "make check with the GPU tests on" ;;
    6) echo "timing integrity: an empty kernel's median against CUPTI (per_step, batch, cold; blocking kernel on" \
        "and off); RMSNorm 8 x 1024 x 4096 cold, blocking kernel on and off; a synchronizing step's fallback;" \
        "each cheating CUDA fixture caught" ;;
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
        bench/cupti_overhead.sh tests/gpu/configs/allreduce.yaml tests/gpu/build.sh tests/gpu/results.py ;;
    2) echo tests/gpu/attention_perf.sh tests/gpu/attention_perf.py configs/attention_cuda.yaml \
        tests/gpu/gemm_rate.c configs/transformer_block_cuda.yaml configs/rms_norm_cuda.yaml \
        tests/gpu/configs/allreduce.yaml tests/gpu/torch_times.py ;;
    4) echo tests/gpu/configs/attention_tune.yaml ;;
    6) echo tests/gpu/integrity.py configs/rms_norm_cuda.yaml tests/fixtures/cuda_timing/cuda_timing.c \
        tests/fixtures/cuda_timing/empty_kernel.cu ;;
    esac
}

cuda_families() {
    if [ -x "$repo/harness/harness" ] && "$repo/harness/harness" list --json >"$out/list.json" 2>/dev/null; then
        python3 -c 'import json, sys
print(" ".join(sorted({v["family"] for v in json.load(open(sys.argv[1]))["variants"] if v["device"] == "cuda"})))' \
            "$out/list.json"
    else
        echo rms_norm attention transformer_block allreduce
    fi
}

# What travels to the GPU machine besides the working tree, made by
# tests/gpu/prepare.sh: the tarball, the .debs, and the state of the tree
# they were made from (HARNESS_GPU_CARRY: another folder, for the tests).
carry_dir() { echo "${HARNESS_GPU_CARRY:-$repo/tests/gpu/carry}"; }

# The carry folder is whole, of this tree's state, and fits the device
# tool's 64 MiB with the working tree; else names what is wrong (return 1).
check_carry() {
    c=$(carry_dir)
    bad_carry=0
    ls "$c"/harness-*.tar.gz >/dev/null 2>&1 || { note "missing: $c/harness-*.tar.gz (run tests/gpu/prepare.sh)"; bad_carry=1; }
    ls "$c"/debs/*.deb >/dev/null 2>&1 || { note "missing: $c/debs/*.deb (run tests/gpu/prepare.sh)"; bad_carry=1; }
    if [ ! -f "$c/SOURCE" ]; then
        note "missing: $c/SOURCE (run tests/gpu/prepare.sh)"; bad_carry=1
    elif [ "$(cat "$c/SOURCE")" != "$(source_state)" ]; then
        note "stale: $c was made from '$(cat "$c/SOURCE")', the tree is '$(source_state)': run tests/gpu/prepare.sh again"
        bad_carry=1
    fi
    [ $bad_carry = 0 ] || return 1
    carry_kib=$(du -sk "$c" | cut -f1)
    # The device tool sends a git checkout's tracked and unignored files; a
    # tree that is not the top of its own checkout (an unpacked tarball, as
    # make distcheck's) has no such list, so only the carry is counted.
    tree_kib=0
    if [ "$(cd "$repo" && git rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$repo" && pwd -P)" ]; then
        tree_kib=$( (cd "$repo" && git ls-files -z -co --exclude-standard | xargs -0 du -ck 2>/dev/null) |
            tail -1 | cut -f1)
    fi
    total=$(((carry_kib + ${tree_kib:-0}) / 1024))
    note "carry: $(basename "$(ls "$c"/harness-*.tar.gz)"), $(ls "$c"/debs/*.deb | wc -l) .debs:" \
        "$((carry_kib / 1024)) MiB; with the working tree $total MiB of the 64 MiB the device tool sends"
    [ "$total" -lt 64 ] || { note "too big: $total MiB"; return 1; }
}

# Prints the slices and the device tool's call for each, and checks that
# what they use is here; 0, or 1 after naming each missing file.
dry_run() {
    missing=0
    need() { [ -e "$repo/$1" ] || { note "missing: $1"; missing=$((missing + 1)); }; }
    for s in 1 2 3 4 5 6; do
        [ -n "$slice" ] && [ "$slice" != $s ] && continue
        note "slice $s: $(slice_what $s)"
        note "  run: command='sh tests/gpu/run.sh --slice $s --export \$OUT' carry=[\"tests/gpu/carry\"] timeout_s=600"
        for f in $(slice_files $s); do need "$f"; done
        if [ $s = 1 ]; then
            for fam in $(cuda_families); do
                [ -e "$repo/configs/$fam.yaml" ] || need "tests/gpu/configs/$fam.yaml"
            done
        fi
    done
    check_carry || missing=$((missing + 1))
    [ $missing = 0 ] && note "dry run: everything the slices use is present" && return 0
    note "dry run: $missing missing"
    return 1
}
