#!/bin/sh
# Everything a CPU-only machine cannot prove, on a machine with an NVIDIA GPU:
# build with CUDA, every CUDA variant run per dtype (validated), the figures
# at realistic shapes beside PyTorch, compute-sanitizer's four tools on each,
# tuning sweeps, make check with the GPU tests on; and the results file
# tests/gpu/results/<gpu>-<date>-<commit>.md and .json (tests/gpu/results.py).
#
#   usage: tests/gpu/run.sh [--dry-run] [--first | --second | --slice N] [--export DIR] [WORK]
#
# A loan is 15 minutes of device time (the machine's start, each call and
# the idle time between calls count), a command at most 600 s. Run first:
#   --first   build once from the carried tarball; validation of every
#             default path (every CUDA variant and dtype, the block on its
#             default attention, the Hopper kernel on sm_90, the attention
#             shapes with GQA ratio 8); the attention figures at
#             FlashAttention-2's shapes (default stages) and the Llama-7B
#             block's; RMSNorm and allreduce figures, PyTorch's times;
#             timing integrity. About 7 minutes of device time on an H200.
#   --second  on the next machine: compute-sanitizer on every variant (the
#             3-stage Hopper default first), make check with the GPU tests,
#             the tuning sweep.
# Each part of a command has its own deadline (slices.sh's table: the
# budgets added up, within HARNESS_GPU_BUDGET_S), so one that runs long is
# stopped there and the next still gets its time; after each part the
# results .md and .json are written (and copied to --export's folder), so a
# kill at any moment keeps what was measured. The six slices remain, for a
# partial rerun:
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
# Each slice fits one 10-minute command: its parts share its
# HARNESS_GPU_BUDGET_S seconds (default 510); what a part could not start is
# named. Every command and slice builds first: on a warm machine an
# incremental make (seconds), on a fresh one the whole build. Without
# --first, --second or --slice every part runs, without deadlines.
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
# and results/. --export DIR (the device tool's $OUT): after every part and
# at the end, whatever happened, the results .md and .json, run.log and
# bundle.tgz (the summaries, verdicts and facts, for results.py to merge
# several slices' bundles) are copied there: 4 files
# (tests/gpu/write_results.sh).
#
# --dry-run, on any machine (no GPU needed): prints the plan (of --first,
# --second, a slice, or all of them): each part's deadline and estimate,
# the total, and the device tool's call; checks that every file they use is
# present and that tests/gpu/carry is whole, of this tree's state and within
# 64 MiB; exit 1 names what is missing.
#
#   env:   JOBS=N                 build parallelism (default: nproc)
#          SKIP="check sanitize perf llama figures torch tune validate integrity"  parts to leave out
#          HARNESS_GPU_BUDGET_S   a command's or slice's seconds (default 510); a
#                                 command's parts' budgets are scaled down to fit
#          HARNESS_DEPS_DEBS=DIR  .deb files other than tests/gpu/carry/debs
#          HARNESS_CONFIGURE_ARGS more ./configure arguments
#          HARNESS_GPU_TREE=DIR   a tree built with CUDA already: no build
set -u
dry=0 slice= plan= part= export_to=
while [ $# -gt 0 ]; do
    case $1 in
    --dry-run) dry=1; shift ;;
    --first|--second) plan=${1#--}; shift ;;
    --slice) slice=${2:?--slice needs 1 to 6}; shift 2 ;;
    --export) export_to=${2:?--export needs a folder}; shift 2 ;;
    # One part, in a process of its own (run.sh's, for the part's deadline).
    --part) part=${2:?--part needs a part}; shift 2 ;;
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
budget=${HARNESS_GPU_BUDGET_S:-510}
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
[ -n "$plan" ] && [ -n "$slice" ] && { note "--$plan and --slice: one or the other"; exit 2; }
case $budget in ''|*[!0-9]*) note "HARNESS_GPU_BUDGET_S=$budget: expected whole seconds"; exit 2 ;; esac
# What the messages call this command: "slice 2", "--first", "all parts".
scope=${HARNESS_GPU_SCOPE:-$([ -n "$plan" ] && echo "--$plan" || { [ -n "$slice" ] && echo "slice $slice"; } || echo "all parts")}
if [ $dry = 1 ]; then
    dry_run
    exit $?
fi

# out_of_time WHAT: past the part's deadline: WHAT is not started (one line).
out_of_time() {
    [ -n "$deadline" ] && [ "$(date +%s)" -ge "$deadline" ] || return 1
    verdict skip "$1" "not run" "out of time in $scope"
    return 0
}

# time_left MAX: seconds to the part's deadline, at most MAX, at least 1, for
# a command's own timeout(1). That timeout runs its command in a process
# group of its own, out of reach of the part's kill at its deadline: ending
# by the deadline, it is never left running into the next part.
time_left() {
    [ -n "$deadline" ] || { echo "$1"; return; }
    t=$((deadline - $(date +%s)))
    [ $t -le "$1" ] || t=$1
    [ $t -ge 1 ] || t=1
    echo $t
}

# --part: one part in the tree run.sh built, until HARNESS_GPU_DEADLINE.
if [ -n "$part" ]; then
    top=${HARNESS_GPU_TREE:?--part runs in a built tree (HARNESS_GPU_TREE)} H=$HARNESS_GPU_TREE/harness/harness
    deadline=${HARNESS_GPU_DEADLINE:-}
    cd "$top" || exit 2
    run_part "$part" || exit 2
    exit $status
fi

# The parts and their deadlines, in seconds from the start ("-": none).
case ${plan:-${slice:-all}} in
first|second) schedule=$(plan_deadlines "$plan" "$budget") ;;
all) schedule=$(for p in build $(slice_parts all); do echo "$p:-"; done) ;;
*) schedule=$(for p in build $(slice_parts "$slice"); do echo "$p:$budget"; done) ;;
esac

trap '"$repo/tests/gpu/write_results.sh" "$out" ${export_to:+"$export_to"} >/dev/null' EXIT
note "$scope ($(echo $schedule | sed 's/:-//g; s/:\([0-9]*\)/ by \1 s/g')), $(date -u +%FT%TZ)"

command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { note "no GPU visible"; exit 77; }
device_facts
for entry in $schedule; do
    p=${entry%%:*} at=${entry#*:}
    case " ${SKIP:-} " in *" $p "*) continue ;; esac
    part_deadline=; [ "$at" = - ] || part_deadline=$((start + at))
    if [ "$p" = build ]; then
        deps_from_debs && build "$part_deadline" || exit 1
    else
        run_within "$p" "$part_deadline"
    fi
    "$repo/tests/gpu/write_results.sh" "$out" ${export_to:+"$export_to"} >/dev/null && note "results after $p: $(tr '\n' ' ' <"$out/results.txt")"
done
note "$([ $status = 0 ] && echo 'all passed' || echo 'some checks FAILED'); everything is in $out"
exit $status
