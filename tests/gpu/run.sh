#!/bin/sh
# Everything a CPU-only machine cannot prove, on a machine with an NVIDIA GPU:
# build with CUDA, every CUDA variant run per dtype (validated), the figures
# at realistic shapes beside PyTorch, compute-sanitizer's four tools on each,
# tuning sweeps, make check with the GPU tests on; and the results file
# tests/gpu/results/<gpu>-<date>-<commit>.md and .json (tests/gpu/results.py).
#
#   usage: tests/gpu/run.sh [--dry-run] [--slice N] [--export DIR] [WORK]
#
# The order of work on a lent GPU, so that a short loan proves the most:
#   slice 1  build; validation of every CUDA variant and dtype, the schedule
#            options, device selection, the trace, table.md
#   slice 2  the figures at realistic shapes: attention at FlashAttention-2's
#            shapes (bf16, head_dim 64 and 128, seq 512 to 16k at 16k tokens,
#            causal and not) beside cuBLAS and PyTorch, the Llama-7B block
#            against cuBLASLt's GEMM rate, RMSNorm 8 x 1024 x 4096 and
#            Llama-7B rows, allreduce's busbw; PyTorch's time for each
#   slice 3  compute-sanitizer's four tools on every variant (a machine that
#            refuses it gets one line saying so)
#   slice 4  tuning: attention's two key-tile builds over a sweep: of shapes
#   slice 5  make check with the GPU tests on
#   slice 6  timing integrity (issue 37): an empty kernel's median against
#            its CUPTI duration in per_step, batch and cold timing, with and
#            without the blocking kernel; RMSNorm 8 x 1024 x 4096 cold with
#            and without it; a synchronizing step's fallback; each cheating
#            CUDA fixture (tests/fixtures/cuda_timing) caught
# Each slice fits one 10-minute command: it starts no run after
# HARNESS_GPU_BUDGET_S seconds (default 510) and names what it left. Every
# slice builds first: on a warm machine an incremental make (seconds), on a
# fresh one the whole build. All six run without --slice, without a budget.
#
# Where it runs: a GPU machine with the driver, nvcc (CUDA 12.8 or later),
# gcc/g++, make, python3 (PyTorch for the ratios, optional) and no network.
# The source is the `make dist` tarball and the .debs that
# tests/gpu/prepare.sh puts in tests/gpu/carry/ on a machine with autotools
# and a package registry (or, without them, a tree with ./configure and the
# -dev packages). NCCL: the toolkit's, the system's or python3's wheel
# nvidia-nccl-cu13 (configure finds it; scripts/find_nccl).
#
# WORK (default tests/gpu/work, git-ignored, so it stays on a warm machine
# between calls): the build, the experiments, logs, verdicts.tsv, facts.txt,
# and results/. --export DIR (the device tool's $OUT): at the end of the
# slice, whatever happened, the results .md and .json, run.log and
# bundle.tgz (the summaries, verdicts and facts, for results.py to merge
# several slices' bundles) are copied there: 4 files.
#
# --dry-run, on any machine (no GPU needed): prints the slices and the device
# tool's call for each, checks that every file they use is present and that
# tests/gpu/carry is whole, of this tree's state and within 64 MiB; exit 1
# names what is missing.
#
#   env:   JOBS=N                 build parallelism (default: nproc)
#          SKIP="check sanitize perf llama figures tune validate integrity"  parts to leave out
#          HARNESS_GPU_BUDGET_S   a slice's seconds before it starts no more runs
#          HARNESS_DEPS_DEBS=DIR  .deb files other than tests/gpu/carry/debs
#          HARNESS_CONFIGURE_ARGS more ./configure arguments
#          HARNESS_GPU_TREE=DIR   a tree built with CUDA already: no build
set -u
dry=0 slice= export_to=
while [ $# -gt 0 ]; do
    case $1 in
    --dry-run) dry=1; shift ;;
    --slice) slice=${2:?--slice needs 1 to 6}; shift 2 ;;
    --export) export_to=${2:?--export needs a folder}; shift 2 ;;
    *) break ;;
    esac
done
# WORK and --export's folder as given, from where the script was called.
out=
if [ $# -gt 0 ]; then mkdir -p "$1" && out=$(cd "$1" && pwd) || exit 2; fi
if [ -n "$export_to" ]; then mkdir -p "$export_to" && export_to=$(cd "$export_to" && pwd) || exit 2; fi
cd "$(dirname "$0")/../.." || exit 2
repo=$(pwd)
[ -n "$out" ] || { mkdir -p tests/gpu/work && out=$repo/tests/gpu/work; }
top=$repo
jobs=${JOBS:-$(nproc)}
status=0
start=$(date +%s)
note() { printf 'gpu/run.sh: %s\n' "$*" | tee -a "$out/run.log"; }
bad() { note "FAIL: $*"; status=1; }
# verdict PART SUBJECT VERDICT [DETAIL]: one line of verdicts.tsv (results.py's
# checks table); FAIL also fails the run.
verdict() {
    printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-}" >>"$out/verdicts.tsv"
    if [ "$3" = FAIL ]; then bad "$2: ${4:-}"; else note "$2: $3${4:+ ($4)}"; fi
}
. "$repo/tests/gpu/source_state.sh"
. "$repo/tests/gpu/slices.sh"
. "$repo/tests/gpu/build.sh"
. "$repo/tests/gpu/parts.sh"
case ${slice:-all} in all|1|2|3|4|5|6) ;; *) note "--slice $slice: expected 1 to 6"; exit 2 ;; esac
if [ $dry = 1 ]; then
    dry_run
    exit $?
fi

deadline=
[ -n "$slice" ] && deadline=$((start + ${HARNESS_GPU_BUDGET_S:-510}))
export HARNESS_GPU_DEADLINE=$deadline
# out_of_time WHAT: past the slice's budget: WHAT is not started (one line).
out_of_time() {
    [ -n "$deadline" ] && [ "$(date +%s)" -ge "$deadline" ] || return 1
    verdict skip "$1" "not run" "out of time in slice ${slice:-all}"
    return 0
}
trap 'finish_slice' EXIT
note "slice ${slice:-all} ($(slice_parts "${slice:-all}")), $(date -u +%FT%TZ)"

command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { note "no GPU visible"; exit 77; }
device_facts
deps_from_debs && build || exit 1
cd "$top" || exit 1

skip validate || part_validate
skip perf || part_attention_perf
skip llama || part_llama
skip figures || part_figures
# PyTorch's time for each figure run (results.py's ratio column).
if ! skip perf || ! skip llama || ! skip figures; then
    left=$(( ${deadline:-$(($(date +%s) + 600))} - $(date +%s) ))
    if [ "$left" -gt 10 ] && timeout "$left" python3 "$repo/tests/gpu/torch_times.py" "$out" >>"$out/run.log" \
            2>"$out/torch_times.err"; then
        note "$(tail -1 "$out/run.log")"
    else
        verdict skip "PyTorch's times" "not run" "out of time, or torch_times.err"
    fi
fi
skip sanitize || part_sanitize
skip tune || part_tune
skip check || part_check
skip integrity || part_integrity
note "$([ $status = 0 ] && echo 'all passed' || echo 'some checks FAILED'); everything is in $out"
exit $status
