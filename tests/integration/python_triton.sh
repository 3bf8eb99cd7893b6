#!/bin/sh
# The Triton example (examples/triton_rms_norm) under the harness on the CPU:
# its config in Triton's interpreter (TRITON_INTERPRET=1) at tiny sizes, each
# dtype and a row longer than one block validated, on rms_norm/cpu's data (the
# same largest |reference|, so the same tolerance); a kernel broken the way a
# padded mean breaks it fails its check (exit 1); no TRITON_INTERPRET on
# python/cpu, and an unknown parameter, fail creation (exit 3) saying why.
# Needs the python component and a Python with torch and triton:
# $HARNESS_TORCH_PYTHON, else .venv-torch (scripts/setup --with-torch).
. "$top_builddir/tests/setup"
export ASAN_OPTIONS="${ASAN_OPTIONS}:detect_leaks=0"   # CPython's own, as python_component.sh says

if ! "$HARNESS" list 2>/dev/null | grep -q '^python/cpu '; then
    echo "skip: the python component is not built (configure: python components: no)"
    exit 77
fi
py=${HARNESS_TORCH_PYTHON:-$top_srcdir/.venv-torch/bin/python}
if [ ! -x "$py" ]; then
    echo "skip: no $py (scripts/setup --with-torch makes it; or set HARNESS_TORCH_PYTHON)"
    exit 77
fi
if ! why=$("$py" -c 'import numpy, torch, triton' 2>&1); then
    echo "skip: $py cannot import numpy, torch and triton: $(printf '%s\n' "$why" | tail -n 1)"
    exit 77
fi
example="$top_srcdir/examples/triton_rms_norm"
export TRITON_INTERPRET=1

# The example's config, on the CPU with this Python, few steps, at tiny sizes:
# hidden 100 (a block of 128, its tail masked) in each dtype, and 8200 (two
# chunks of 8192). The sizes are given as one sweep: one process, one import.
tiny='"batch_size": 2, "seq_len": 3, "hidden_size": 100'
{
    cat "$example/triton_rms_norm.yaml"
    printf 'sweep:\n  component.config.params:\n'
    for dtype in fp32 bf16 fp16; do printf "    - '{%s, \"dtype\": \"%s\"}'\n" "$tiny" "$dtype"; done
    printf "    - '{\"batch_size\": 1, \"seq_len\": 1, \"hidden_size\": 8200}'\n"
} >"$SCRATCH/sweep.yaml"
set -- --output-dir "$SCRATCH/exp" --set device=cpu --set "component.config.python=$py" \
    --set schedule.warmup_steps=1 --set schedule.wait_steps=0 --set schedule.measurement_steps=3 \
    --set schedule.repeat=1
expect_exit 0 "the example in Triton's interpreter, 4 points" "$HARNESS" run "$SCRATCH/sweep.yaml" "$@" \
    --set "component.config.callable=$example/triton_rms_norm.py:TritonRmsNorm"
# rms_norm/cpu at the fp32 point's sizes: the same data give the same largest
# |reference|, so the same tolerance, 1e-5 + 1e-5 max |ref| (to rounding).
expect_exit 0 "rms_norm/cpu on the same sizes" "$HARNESS" run "$top_srcdir/configs/rms_norm.yaml" \
    --output-dir "$SCRATCH/c" --set component.config.batch_size=2 --set component.config.seq_len=3 \
    --set component.config.hidden_size=100 --set schedule.warmup_steps=1 --set schedule.measurement_steps=3 \
    --set schedule.repeat=1 --set profiling.trace=false
"$py" - "$SCRATCH"/c/*/summary_ranks_1_rank_0.json "$SCRATCH"/exp/*/summary_ranks_1_rank_0.json <<'PY' \
    && pass "4 points checked against float64, on rms_norm/cpu's data" || fail "summaries"
import json, sys
c, *summaries = [json.load(open(f)) for f in sys.argv[1:]]
fp32 = [s for s in summaries if s["validation"]["checked"] == 600 and s["validation"]["detail"].startswith("fp32")]
assert len(fp32) == 1, "one fp32 point of 2 x 3 x 100"
t, want = fp32[0]["validation"]["tolerance"], c["validation"]["tolerance"]
assert abs(t - want) <= 1e-12 * want, f"tolerance {t!r}, rms_norm/cpu's {want!r}: not the same data"
assert len(summaries) == 4, f"{len(summaries)} summaries"
for s in summaries:
    assert s["validation"]["status"] == "passed", s["validation"]
    assert s["component_notes"]["mode"].startswith("interpreter"), s["component_notes"]
dtypes = sorted(s["validation"]["detail"].split()[0] for s in summaries)
assert dtypes == ["bf16", "fp16", "fp32", "fp32"], dtypes
PY

# The kernel alone against the reference: chunks of a forced small block too.
expect_exit 0 "selfcheck.py in Triton's interpreter" "$py" "$example/selfcheck.py"
[ "$(grep -c '^ok ' "$SCRATCH/out")" -eq 9 ] || fail "selfcheck.py: 9 cases ok"

# A realistic bug: the mean over the padded block (128) instead of the row (100).
mkdir "$SCRATCH/broken"
cp "$example"/*.py "$SCRATCH/broken/"
sed -i 's|/ n_cols + eps|/ BLOCK + eps|' "$SCRATCH/broken/rms_norm_kernel.py"
cmp -s "$example/rms_norm_kernel.py" "$SCRATCH/broken/rms_norm_kernel.py" && fail "the kernel was not broken"
expect_exit 1 "a broken kernel fails its check" "$HARNESS" run "$example/triton_rms_norm.yaml" "$@" \
    --set "component.config.params='{$tiny}'" \
    --set "component.config.callable=$SCRATCH/broken/triton_rms_norm.py:TritonRmsNorm"
expect_err "first mismatch at row 0" "the failed check names the first bad element"

expect_exit 3 "an unknown parameter" "$HARNESS" run "$example/triton_rms_norm.yaml" "$@" \
    --set "component.config.params='{\"hidden\": 64}'" \
    --set "component.config.callable=$example/triton_rms_norm.py:TritonRmsNorm"
expect_err "unknown parameter 'hidden'; rms_norm's are batch_size, seq_len, hidden_size, eps, dtype" \
    "it names the parameter and the known ones"

unset TRITON_INTERPRET
expect_exit 3 "python/cpu without TRITON_INTERPRET" "$HARNESS" run "$example/triton_rms_norm.yaml" "$@" \
    --set "component.config.params='{$tiny}'" \
    --set "component.config.callable=$example/triton_rms_norm.py:TritonRmsNorm"
expect_err "set TRITON_INTERPRET=1" "it says what to set"

finish
