# tests/gpu/slices.sh - sourced by tests/gpu/run.sh: the two prepared
# commands (--first, --second) and the six slices, as lists of parts; each
# part's deadline and time estimate; running a part within its deadline;
# and --dry-run. Uses run.sh's repo, top, out, slice, plan, budget, scope,
# status, note, verdict.

# The parts, their budgets in the prepared commands and their estimates, in
# seconds of command wall time. A loan is 15 minutes of device time (the
# machine's start, every call and the idle time between calls count) and a
# command at most 600 s, so --first (validation and the figures) fits in one
# 510-s command with 90 s left to write the results, and --second
# (sanitizers, make check, tuning) in the next machine's.
# Estimates measured on an H200, 2026-11-29, commit bc6466a
# (tests/gpu/results/h200-2026-11-29-bc6466a92a59.md): slice 1 on a fresh
# machine held 199 s of device time for 150 s of command wall time (so the
# start and the carry's transfer: 49 s); slice 2 200 s and slice 6 22 s on
# the warm machine; the split into parts from the times of the files in
# that run's bundle.tgz (validate: 124 s then, and ~10 s for the runs added
# since: GQA ratio 8, the block's Hopper check; ~20 s for the four small
# runs of the Hopper kernel's switches since, ~10 s for the two of its
# clusters). perf: 163 s then for its
# 84 runs, 1.94 s a run, and 20 runs added since (the Hopper kernel's A/B at
# AB_SEQS: 8 with a block per item, 4 with O stored without TMA, 4 with two
# consumers at head_dim 64, 2 with 176-key tiles, 2 without clusters), ~39 s;
# the budgets of
# the other parts trimmed (1.02 to 2.5 times their estimates: a part that
# runs over stops at its deadline and names what it left) so that --first
# stays within its 510 s. "-": not measured
# on a loan yet; the budget bounds it.
#   part       estimate  --first  --second
plan_table() {
    cat <<'TABLE'
start          49        -        -
build          26       56       60
validate      165      172        -
perf          202      204        -
llama          10       18        -
figures        12       17        -
torch          12       17        -
integrity      22       26        -
sanitize        -        -      200
check           -        -      160
tune            -        -       90
TABLE
}

# What each part does (its subject when it is not run).
part_subject() {
    case $1 in
    build) echo "build from the carried tarball (configure with CUDA, make)" ;;
    validate) echo "validate every CUDA variant and dtype, the Hopper attention's shapes (GQA ratio 8), the block on" \
        "its default attention, schedule options, device selection, the trace" ;;
    perf) echo "attention at FlashAttention-2's shapes" ;;
    llama) echo "Llama-7B block against cuBLASLt" ;;
    figures) echo "RMSNorm and allreduce figures" ;;
    torch) echo "PyTorch's times" ;;
    sanitize) echo "compute-sanitizer" ;;
    check) echo "make check" ;;
    tune) echo "attention tuning" ;;
    integrity) echo "timing integrity" ;;
    esac
}

# plan_budgets first|second: "part:seconds" for each part, in order.
plan_budgets() {
    col=3; [ "$1" = second ] && col=4
    plan_table | awk -v c=$col '$c != "-" { print $1 ":" $c }'
}

# plan_estimate PART: its estimate in seconds, or "-".
plan_estimate() { plan_table | awk -v p="$1" '$1 == p { print $2 }'; }

# The parts of slice N (all: every part).
slice_parts() {
    case $1 in
    1) echo validate ;;
    2) echo perf llama figures torch ;;
    3) echo sanitize ;;
    4) echo tune ;;
    5) echo check ;;
    6) echo integrity ;;
    *) echo validate perf llama figures torch sanitize tune check integrity ;;
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

# plan_deadlines first|second BUDGET: "part:seconds", each part's deadline
# in seconds from the command's start: the budgets added up, scaled down to
# BUDGET when they exceed it. A part that ends early leaves its time to the
# next; one that runs long is stopped at its deadline, and the next keeps
# its own budget.
plan_deadlines() {
    plan_budgets "$1" | awk -F: -v b="$2" '{ p[NR] = $1; s[NR] = $2; t += $2 }
        END { f = t > b ? b / t : 1; for (i = 1; i <= NR; i++) { c += s[i]; printf "%s:%d\n", p[i], c * f } }'
}

# run_part PART: the part's work, in this process (run.sh --part).
run_part() {
    case $1 in
    validate) part_validate ;;
    perf) part_attention_perf ;;
    llama) part_llama ;;
    figures) part_figures ;;
    torch) part_torch ;;
    sanitize) part_sanitize ;;
    tune) part_tune ;;
    check) part_check ;;
    integrity) part_integrity ;;
    *) note "--part $1: not a part"; return 1 ;;
    esac
}

# run_within PART DEADLINE: the part in a process of its own, killed (and
# all it started) at DEADLINE (epoch seconds; empty: none). It is told to
# start no run in its last seconds, so it names what it left; when there
# is no time for it at all, it is named as not run.
run_within() {
    if [ -z "$2" ]; then
        HARNESS_GPU_TREE=$top HARNESS_GPU_DEADLINE='' HARNESS_GPU_SCOPE=$scope sh "$repo/tests/gpu/run.sh" --part "$1" "$out" ||
            status=1
        return
    fi
    left=$(($2 - $(date +%s)))
    if [ $left -lt 3 ]; then
        verdict skip "$(part_subject "$1")" "not run" "out of time in $scope"
        return
    fi
    grace=$((left / 5)); [ $grace -le 15 ] || grace=15
    HARNESS_GPU_TREE=$top HARNESS_GPU_DEADLINE=$(($2 - grace)) HARNESS_GPU_SCOPE=$scope \
        timeout -k 5 "$left" sh "$repo/tests/gpu/run.sh" --part "$1" "$out"
    case $? in
    0) ;;
    124|137) verdict skip "$(part_subject "$1")" "stopped" "at its deadline, after $left s, in $scope" ;;
    *) status=1 ;;
    esac
}

# The files each part reads. The CUDA families' configs: from the built
# harness when there is one, else the families the tree has.
part_files() {
    case $1 in
    build) echo tests/gpu/build.sh tests/gpu/results.py tests/gpu/switches.py tests/gpu/hopper_switches \
        tests/gpu/write_results.sh ;;
    validate) echo configs/rms_norm_cuda.yaml configs/rms_norm.yaml configs/attention_cuda.yaml \
        configs/transformer_block_cuda.yaml tests/gpu/check_summaries.py tests/gpu/table.py \
        bench/cupti_overhead.sh tests/gpu/configs/allreduce.yaml
        for fam in $(cuda_families); do
            [ -e "$repo/configs/$fam.yaml" ] || echo "tests/gpu/configs/$fam.yaml"
        done ;;
    perf) echo tests/gpu/attention_perf.sh tests/gpu/attention_perf.py tests/gpu/switch.sh tests/gpu/switches.py \
        tests/gpu/hopper_switches configs/attention_cuda.yaml ;;
    llama) echo tests/gpu/gemm_rate.c configs/transformer_block_cuda.yaml ;;
    figures) echo configs/rms_norm_cuda.yaml tests/gpu/configs/allreduce.yaml ;;
    torch) echo tests/gpu/torch_times.py tests/gpu/table.py ;;
    tune) echo tests/gpu/configs/attention_tune.yaml ;;
    integrity) echo tests/gpu/integrity.py configs/rms_norm_cuda.yaml tests/fixtures/cuda_timing/cuda_timing.c \
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

# plan_dry_run first|second: each part's budget, deadline, estimate and
# what it does; the estimate of the whole; the device tool's call.
plan_dry_run() {
    note "--$1: $([ "$1" = first ] && echo 'run first, on a fresh machine' || echo 'run second, on the next machine')"
    note "  $(printf '%-10s %7s %9s %9s  %s' part budget deadline estimate what)"
    est=0 unmeasured=
    prev=0
    for entry in $(plan_deadlines "$1" "$budget"); do
        p=${entry%%:*} at=${entry#*:}
        e=$(plan_estimate "$p")
        if [ "$e" = - ]; then unmeasured="$unmeasured $p"; else est=$((est + e)) e="$e s"; fi
        note "  $(printf '%-10s %5s s %5s s %9s  %s' "$p" $((at - prev)) "$at" "$e" "$(part_subject "$p")")"
        for f in $(part_files "$p"); do need "$f"; done
        prev=$at
    done
    start_s=$(plan_estimate start)
    if [ -z "$unmeasured" ]; then
        note "  estimate: $est s of command time, $((est + start_s)) s of device time with a fresh machine's $start_s s start"
    else
        note "  estimate: not measured yet for:$unmeasured ($est s for the rest)"
    fi
    [ "$est" -le "$prev" ] || note "  the estimate is over the budget: parts will stop at their deadlines"
    note "  at most: $prev s of command time (the last deadline, within HARNESS_GPU_BUDGET_S $budget)," \
        "$((prev + start_s)) s of device time with the start"
    note "  run: command='sh tests/gpu/run.sh --$1 --export \$OUT' carry=[\"tests/gpu/carry\"] timeout_s=600"
}

# Prints the plan (--first, --second, a slice, or all of them: the two
# commands, then the slices for partial reruns) and checks that what it
# uses is here; 0, or 1 after naming each missing file.
dry_run() {
    missing=0 seen=
    need() {
        case " $seen " in *" $1 "*) return ;; esac
        seen="$seen $1"
        [ -e "$repo/$1" ] || { note "missing: $1"; missing=$((missing + 1)); }
    }
    if [ -z "$slice" ]; then
        for c in ${plan:-first second}; do plan_dry_run "$c"; done
        [ -n "$plan" ] || note "the six slices, for a partial rerun (each builds first; parts share its $budget s):"
    fi
    if [ -z "$plan" ]; then
        for s in 1 2 3 4 5 6; do
            [ -n "$slice" ] && [ "$slice" != $s ] && continue
            note "slice $s: $(slice_what $s)"
            note "  run: command='sh tests/gpu/run.sh --slice $s --export \$OUT' carry=[\"tests/gpu/carry\"] timeout_s=600"
            for p in build $(slice_parts $s); do
                for f in $(part_files "$p"); do need "$f"; done
            done
        done
    fi
    check_carry || missing=$((missing + 1))
    [ $missing = 0 ] && note "dry run: everything the plan uses is present" && return 0
    note "dry run: $missing missing"
    return 1
}
