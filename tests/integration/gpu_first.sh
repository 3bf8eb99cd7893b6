#!/bin/sh
# tests/gpu/run.sh --first's deadlines and its results written as it goes,
# on a machine without a GPU. First the writer alone (write_results.sh) on
# a work folder that holds only the first part's verdicts: a whole .md and
# .json, the bundle and run.log in the export folder; a later part's
# verdicts replace them. Then --first on a stand-in machine (an nvidia-smi
# that names an H100, a built tree whose harness hangs in every run) with
# 25 s for the whole command: validation and the attention figures are each
# stopped at their own deadline and said so, the export folder holds the
# results of validation while the figures still run, their hung runs are
# killed with them, the part left with no time is named as not run, and the
# command ends within its budget.
. "$top_builddir/tests/setup"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
command -v timeout >/dev/null || { echo "no timeout(1): skipped"; exit 77; }
write=$top_srcdir/tests/gpu/write_results.sh

# ---- the writer on the first part's verdicts ----------------------------------
w=$SCRATCH/work
mkdir -p "$w"
printf 'gpu=NVIDIA H100 80GB HBM3\ndriver=580.159.04\ncommit=0123456789abcdef\n' >"$w/facts.txt"
printf 'validate\tattention/cuda bf16\tok\t\nvalidate\trms_norm/cuda fp32\tFAIL\texit 1 (x.log)\n' >"$w/verdicts.tsv"
expect_exit 0 "write_results.sh on the first part's verdicts" sh "$write" "$w" "$SCRATCH/export"
md=$SCRATCH/export/h100-80gb-hbm3-$(date -u +%Y-%m-%d)-0123456789ab.md
json=${md%.md}.json
[ -s "$md" ] && [ -s "$json" ] && pass "the .md and .json exported" || { fail "exported: $(ls -A "$SCRATCH/export")"; finish; }
python3 - "$json" <<'PY' && pass "the .json: the two verdicts, one failed, the parts not run" || fail "the .json"
import json, sys
d = json.load(open(sys.argv[1]))
assert [c["subject"] for c in d["checks"]] == ["attention/cuda bf16", "rms_norm/cuda fp32"], d["checks"]
assert d["failed"] == 1 and d["not_run"] == ["figures", "sanitizers", "tuning"], (d["failed"], d["not_run"])
PY
grep -qF '| validate | rms_norm/cuda fp32 | FAIL | exit 1 (x.log) |' "$md" && pass "the .md: the failed verdict" ||
    fail "the .md lacks the failed verdict"
[ -f "$SCRATCH/export/bundle.tgz" ] && tar tzf "$SCRATCH/export/bundle.tgz" | grep -qx verdicts.tsv &&
    pass "bundle.tgz with the verdicts" || fail "no bundle.tgz, or no verdicts in it"
[ "$(ls "$SCRATCH/export" | wc -l)" -eq 4 ] && [ ! -e "$SCRATCH/export/.partial" ] &&
    pass "four files, no partial copy" || fail "exported: $(ls -A "$SCRATCH/export" | tr '\n' ' ')"
printf 'figures\tllama7b_block\tok\t\n' >>"$w/verdicts.tsv"
expect_exit 0 "write_results.sh after the next part" sh "$write" "$w" "$SCRATCH/export"
grep -qF '| figures | llama7b_block | ok |' "$md" && pass "the next part's verdict replaces the file" ||
    fail "the exported .md lacks the next part's verdict"
expect_exit 2 "a work folder that does not exist" sh "$write" "$SCRATCH/nothing" "$SCRATCH/export"

# ---- --first on a stand-in machine ---------------------------------------------
mkdir -p "$SCRATCH/bin" "$SCRATCH/tree/harness" "$SCRATCH/tree/configs" "$SCRATCH/carry"
cat >"$SCRATCH/bin/nvidia-smi" <<'SMI'
#!/bin/sh
case $* in
-L) echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)" ;;
*compute_cap*) echo 9.0 ;;
*) echo "NVIDIA H100 80GB HBM3, 580.159.04, 81559 MiB" ;;
esac
SMI
# A harness with one CUDA variant whose every run hangs: only the deadlines end the parts.
cat >"$SCRATCH/tree/harness/harness" <<H
#!/bin/sh
case \$1 in
list) echo '{"variants": [{"key": "rms_norm/cuda", "family": "rms_norm", "device": "cuda",
    "params": [{"name": "dtype", "choices": ["fp32"]}]}]}' ;;
*) echo \$\$ >>"$SCRATCH/hung"; exec sleep 60 ;;
esac
H
chmod +x "$SCRATCH/bin/nvidia-smi" "$SCRATCH/tree/harness/harness"
: >"$SCRATCH/tree/configs/rms_norm.yaml"
# The scripts the parts run from the top of the built tree.
ln -s "$top_srcdir/tests" "$SCRATCH/tree/tests"
echo "commit 0123456789abcdef0123 edits e3b0c44298fc" >"$SCRATCH/carry/SOURCE"
# 25 s: build by 2 s, validate by 11, perf by 21, llama by 22 (the budgets
# of slices.sh scaled down); the parts after llama are left out.
t0=$(date +%s)
PATH="$SCRATCH/bin:$PATH" HARNESS_GPU_TREE=$SCRATCH/tree HARNESS_GPU_BUDGET_S=25 HARNESS_GPU_CARRY=$SCRATCH/carry \
    SKIP="figures torch integrity" sh "$top_srcdir/tests/gpu/run.sh" --first --export "$SCRATCH/out_first" \
    "$SCRATCH/work_first" >"$SCRATCH/first.log" 2>&1 &
pid=$!
md=$SCRATCH/out_first/$(basename "$md")
# The results of validation, exported while the command still runs.
n=0
until grep -q '| skip | validate every CUDA .* | stopped |' "$md" 2>/dev/null || [ $n -ge 40 ]; do sleep 0.5; n=$((n + 1)); done
if grep -q '| skip | validate every CUDA .* | stopped | at its deadline, after [0-9]* s, in --first |' "$md" 2>/dev/null &&
        kill -0 $pid 2>/dev/null; then
    pass "validation's results exported while the figures run"
else
    fail "no validation results in the export before the end: $(ls -A "$SCRATCH/out_first" 2>&1)"
fi
wait $pid
rc=$?
took=$(($(date +%s) - t0))
[ $rc = 0 ] && pass "--first exits 0 (no check failed)" || fail "--first exited $rc: $(tail -5 "$SCRATCH/first.log")"
[ $took -le 30 ] && pass "--first ended in $took s, within its 25 s and the kill's grace" || fail "--first took $took s"
grep -q "gpu/run.sh: --first (build by 2 s validate by 11 s perf by 21 s llama by 22 s figures by 22 s" "$SCRATCH/first.log" &&
    pass "the deadlines, scaled to the budget" || fail "no deadlines line: $(head -2 "$SCRATCH/first.log")"
grep -q "attention at FlashAttention-2's shapes: stopped (at its deadline, after [0-9]* s, in --first)" "$SCRATCH/first.log" &&
    pass "the figures stopped at their own deadline" || fail "no stopped line for the figures"
grep -q "Llama-7B block against cuBLASLt: not run (out of time in --first)" "$SCRATCH/first.log" &&
    pass "the part left without time named as not run" || fail "no not-run line for llama"
[ "$(grep -c '^gpu/run.sh: results after ' "$SCRATCH/first.log")" -eq 4 ] && pass "results written after each of the 4 parts" ||
    fail "results after: $(grep -c '^gpu/run.sh: results after ' "$SCRATCH/first.log") parts"
grep -q '| skip | Llama-7B block against cuBLASLt | not run |' "$md" && pass "the last part in the exported results" ||
    fail "the exported results lack the last part"
alive=
# (a zombie not yet reaped is dead: its parent was killed with it)
for p in $(cat "$SCRATCH/hung"); do
    case $(ps -o stat= -p "$p" 2>/dev/null) in ''|Z*) ;; *) alive="$alive $p" ;; esac
done
[ -s "$SCRATCH/hung" ] && [ -z "$alive" ] && pass "the stopped parts' runs were killed too" ||
    { fail "runs still alive:${alive:- (none started)}"; for p in $alive; do kill "$p"; done; }
finish
