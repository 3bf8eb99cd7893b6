#!/bin/sh
# tests/gpu/results.py, the writer of tests/gpu/results/<gpu>-<date>-<commit>.md
# and .json, proven here on experiment folders the CPU variants make (the
# summaries have the CUDA runs' schema) laid out as tests/gpu/run.sh lays out
# its work folder, with a device's facts, verdicts and cuBLASLt's rate beside
# them: the file's name, the device, every validated variant, the verdicts,
# one figure row per run with its rate and unit, allreduce's busbw by
# nccl-tests' formula, the block against cuBLASLt, PyTorch "n/a" with its
# reason, and two slices' folders merged.
. "$top_builddir/tests/setup"
results=$top_srcdir/tests/gpu/results.py
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }

w=$SCRATCH/work
S="--set schedule.warmup_steps=1 --set schedule.wait_steps=0 --set schedule.measurement_steps=3
   --set schedule.repeat=1 --set profiling.trace=false -q"
run() { # run KIND TAG CONFIG --set...: one run into WORK/KIND/TAG
    kind=$1 tag=$2 config=$3
    shift 3
    # shellcheck disable=SC2086
    "$HARNESS" run "$config" $S "$@" --output-dir "$w/$kind/$tag" >/dev/null 2>"$SCRATCH/run.err" ||
        fail "run $tag: $(grep -v oversubscribed "$SCRATCH/run.err" | head -3)"
}
run exp rms_norm_cpu_fp32 "$top_srcdir/configs/rms_norm.yaml" --set component.config.batch_size=2 \
    --set component.config.seq_len=8 --set component.config.hidden_size=64
run fig rms_norm_fp32 "$top_srcdir/configs/rms_norm.yaml" --set component.config.batch_size=2 \
    --set component.config.seq_len=8 --set component.config.hidden_size=64
run fig bf16_d64_s32_true_cuda32 "$top_srcdir/configs/attention.yaml" --set component.config.batch_size=1 \
    --set component.config.seq_len=32 --set component.config.num_heads=2 --set component.config.head_dim=64 \
    --set component.config.dtype=bf16
run fig allreduce_4096 "$top_srcdir/tests/gpu/configs/allreduce.yaml" --set component.variant_key=allreduce/cpu \
    --set component.config.bytes=4096
run fig llama7b "$top_srcdir/configs/transformer_block.yaml" --set component.config.seq_len=8 \
    --set component.config.hidden_size=64 --set component.config.num_heads=2 --set component.config.num_kv_heads=2 \
    --set component.config.intermediate_size=128 --set component.config.dtype=bf16
# The block as NVML would have measured it: its energy per step in the row's notes.
python3 -c 'import glob, json, sys
(f,) = glob.glob(sys.argv[1] + "/*/summary_ranks_1_rank_0.json"); s = json.load(open(f))
s["energy"].update(status="measured", joules_per_step=0.0125, watts=300.0, flop_per_joule=2.5e11)
json.dump(s, open(f, "w"))' "$w/fig/llama7b"
# The same all-reduce as if on two ranks: busbw = algbw x 2(2-1)/2 = algbw.
src=$(ls "$w"/fig/allreduce_4096/*/summary_ranks_1_rank_0.json)
mkdir -p "$w/fig/allreduce_n2/f"
python3 -c 'import json, sys
s = json.load(open(sys.argv[1])); s["world_size"] = 2; s["throughput"]["gb_per_s"] = 100.0
json.dump(s, open(sys.argv[2], "w"))' "$src" "$w/fig/allreduce_n2/f/summary_ranks_2_rank_0.json"
printf 'gpu=NVIDIA H100 80GB HBM3\ndriver=580.159.04\nmemory=81559 MiB\nnvcc=13.0\ncommit=0123456789abcdef\n' \
    >"$w/facts.txt"
printf '4096 4096 4096 0.2000 687.2\nmix 1234.5 3.0863 400.0\n' >"$w/gemm_rate.txt"
printf 'validate\trms_norm/cuda fp32\tok\t\nsanitize\trms_norm/cuda fp32 memcheck\tclean\t\n' >"$w/verdicts.tsv"

expect_exit 0 "results.py on a work folder" python3 "$results" --date 2026-01-02 --outdir "$SCRATCH/res" "$w"
md=$SCRATCH/res/h100-80gb-hbm3-2026-01-02-0123456789ab.md
json=${md%.md}.json
[ -s "$md" ] && [ -s "$json" ] && pass "named <gpu>-<date>-<commit>" || { fail "not written: $(ls "$SCRATCH/res")"; finish; }
grep -q "^$md\$" "$SCRATCH/out" && pass "prints the path written" || fail "does not print $md"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$json" && pass "the .json parses" || fail "the .json does not parse"

has() { grep -qF -- "$1" "$md" && pass "$2" || { fail "$2: no '$1' in the .md"; sed 's/^/  md: /' "$md" | head -40; }; }
has "| driver | 580.159.04 |" "the driver"
has "| nvcc | 13.0 |" "the CUDA compiler"
has "| rms_norm/cpu | fp32 | passed |" "a validated variant and dtype"
has "| sanitize | rms_norm/cuda fp32 memcheck | clean |" "a sanitizer verdict"
has "| rms_norm/cpu | fp32 | 2 x 8 x 64 |" "the RMSNorm row and its shape"
has "| GB/s |" "RMSNorm in GB/s"
has "attention/cpu (mma.sync, 32-key tiles) | bf16 | batch 1 x seq 32, 2 heads of 64, causal |" "attention's row, its tile build"
has "| TFLOP/s |" "attention in TFLOP/s"
has "GB/s busbw" "allreduce in busbw"
has "busbw = algbw x 2(n-1)/n is 0 on one GPU" "nccl-tests' formula, said for one GPU"
grep -F "1 rank, algbw" "$md" | grep -qF "| 0.0 | GB/s busbw |" && pass "busbw 0 on one rank" ||
    fail "one rank's busbw: $(grep -F '1 rank, algbw' "$md")"
grep -F "2 ranks, algbw 100.0 GB/s" "$md" | grep -qF "| 100.0 | GB/s busbw |" && pass "busbw = algbw on two ranks" ||
    fail "two ranks' busbw: $(grep -F 'allreduce' "$md")"
has "cuBLASLt on its GEMMs: 400.0 TFLOP/s" "the block against cuBLASLt's rate"
has "energy 12.5 mJ/step at 300 W, 250 GFLOP/J" "the block's energy per step"
grep -F "rms_norm/cpu | fp32 | 2 x 8 x 64" "$md" | grep -qF "mJ/step" && fail "energy said where none was measured"
has "PyTorch n/a: tests/gpu/torch_times.py did not run" "PyTorch n/a, with why"
has "Not run: tuning." "what did not run"
has "No check failed." "no failure"
n=$(grep -c '^| [a-z_]*/cpu' "$md")
[ "$n" -eq 6 ] && pass "one row per run (1 validated, 5 figures)" || fail "$n rows of runs, expected 6"

# A second slice's folder: a failed sanitizer, PyTorch's times; the later folder wins.
w2=$SCRATCH/work2
mkdir -p "$w2"
printf 'sanitize\trms_norm/cuda fp32 memcheck\tFAIL\texit 99\n' >"$w2/verdicts.tsv"
tag=rms_norm_fp32
ours=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["timing"]["median"])' \
    "$w"/fig/$tag/*/summary_ranks_1_rank_0.json)
printf '{"available": true, "version": "2.11.0", "ns": {"%s": %s}}\n' "$tag" "$(python3 -c "print(2 * $ours)")" \
    >"$w2/torch.json"
expect_exit 1 "results.py exits 1 when a check failed" python3 "$results" --date 2026-01-02 --outdir "$SCRATCH/res" \
    "$w" "$w2"
has "| sanitize | rms_norm/cuda fp32 memcheck | FAIL | exit 99 |" "the later slice's verdict replaces the earlier"
has "1 check(s) failed." "the failure counted"
has "| torch | 2.11.0 |" "PyTorch's version"
grep -F "| rms_norm/cpu | fp32 | 2 x 8 x 64 |" "$md" | grep -qF "| 2.00 |" && pass "PyTorch / ours: 2.00" ||
    fail "no ratio 2.00 in $(grep -F 'rms_norm/cpu | fp32 | 2 x 8' "$md")"

expect_exit 2 "a work folder that does not exist" python3 "$results" --outdir "$SCRATCH/res" "$SCRATCH/nothing"
finish
