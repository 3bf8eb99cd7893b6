#!/bin/sh
# sweep: one run per point of a cartesian product, every point checked before any runs.
. "$top_builddir/tests/setup"

# The tiny RMSNorm config plus a 2 x 2 sweep (hidden_size slowest).
{ cat "$CONFIGS/rms_norm_tiny.yaml"; printf 'sweep:\n  component.config.hidden_size: [7, 16]\n  component.config.dtype: [fp32, bf16]\n'; } >"$SCRATCH/sweep.yaml"

expect_exit 0 "validate a 2 x 2 sweep" "$HARNESS" validate "$SCRATCH/sweep.yaml"
expect_err "valid, 4 points" "validate counts the points"
expect_err "point 4/4: component.config.hidden_size=16 component.config.dtype=bf16" "validate names each point"
[ "$(grep -c 'config hash [0-9a-f]\{8\}' "$SCRATCH/err")" -eq 4 ] || fail "validate prints 4 hashes"
[ "$(grep -c '^---$' "$SCRATCH/out")" -eq 3 ] || fail "validate prints 4 resolved configs separated by ---"
grep -q sweep "$SCRATCH/out" && fail "resolved configs have no sweep"

expect_exit 0 "run a 2 x 2 sweep" "$HARNESS" run "$SCRATCH/sweep.yaml" --output-dir "$SCRATCH/exp"
grep -q '^point 2/4: component.config.hidden_size=7 component.config.dtype=bf16$' "$SCRATCH/out" ||
    fail "run prints a header per point"
[ "$(grep -c '^experiment: ' "$SCRATCH/out")" -eq 4 ] || fail "run prints each point's table"
grep -q '^sweep of 4 points:$' "$SCRATCH/out" || fail "run prints the final table"
[ "$(grep -c '^[1-4]/4  .* ok .* GB/s ' "$SCRATCH/out")" -eq 4 ] || fail "the final table has 4 rows"
[ "$(ls "$SCRATCH/exp" | wc -l)" -eq 4 ] || fail "4 experiment folders"
cp "$SCRATCH/out" "$SCRATCH/run.out"
i=0
for point in "7 fp32" "7 bf16" "16 fp32" "16 bf16"; do
    i=$((i + 1))
    dir=$(sed -n "s/^$i\/4 .* \([^ ]*\)\$/\1/p" "$SCRATCH/run.out")
    [ -d "$dir" ] || { fail "point $i: folder '$dir' from the final table"; continue; }
    python3 - "$dir/summary_ranks_1_rank_0.json" $point <<'PY' || fail "point $i ($point): summary"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["status"] == "ok"
c = s["component"]["config"]
assert c["hidden_size"] == int(sys.argv[2]) and c["dtype"] == sys.argv[3], c
assert c["batch_size"] == 2 and c["seq_len"] == 3, c
assert s["validation"]["passed"] is True
PY
    grep -q sweep "$dir/resolved_config.yaml" && fail "point $i: resolved config has no sweep"
    cp "$dir/resolved_config.yaml" "$SCRATCH/point.yaml"
    expect_exit 0 "point $i: resolved config validates alone" "$HARNESS" validate "$SCRATCH/point.yaml" --quiet
    expect_err "config hash $(basename "$dir" | sed 's/.*_//')" "point $i: same hash alone"
done

expect_exit 0 "run --quiet" "$HARNESS" run "$SCRATCH/sweep.yaml" --output-dir "$SCRATCH/quiet" --quiet
[ "$(wc -l <"$SCRATCH/out")" -eq 4 ] && [ "$(grep -c "^$SCRATCH/quiet/" "$SCRATCH/out")" -eq 4 ] ||
    fail "--quiet prints the 4 folders only"

# A point that fails shows no figures: its partial median is not a result.
{ cat "$CONFIGS/faulty.yaml"; printf 'sweep:\n  component.variant_key: [faulty_step, faulty_check]\n'; } >"$SCRATCH/faulty.yaml"
expect_exit 3 "a sweep with failing points" "$HARNESS" run "$SCRATCH/faulty.yaml" --output-dir "$SCRATCH/faulty" \
    --plugin-path "$top_builddir/tests/fixtures/faulty"
grep -Eq '^1/2 +faulty_step +failed +- +- ' "$SCRATCH/out" || fail "a failed point's row has '-' for its figures"
grep -Eq '^2/2 +faulty_check +validation_failed +- +- ' "$SCRATCH/out" || fail "a failed check's row has '-'"

# One bad value: refused before anything runs, no folder at all.
{ cat "$CONFIGS/rms_norm_tiny.yaml"; printf 'sweep:\n  component.config.hidden_size: [7, -3]\n  component.config.dtype: [fp32, bf16]\n'; } >"$SCRATCH/bad.yaml"
expect_exit 2 "a sweep with a bad value" "$HARNESS" run "$SCRATCH/bad.yaml" --output-dir "$SCRATCH/bad"
expect_err "bad.yaml:19:37: sweep.component.config.hidden_size[1]: expected an integer >= 1, got -3" \
    "the bad value is named with its place"
[ -e "$SCRATCH/bad" ] && fail "no folder for a refused sweep"

expect_exit 2 "--set of a swept key" "$HARNESS" run "$SCRATCH/sweep.yaml" --output-dir "$SCRATCH/bad" \
    --set component.config.dtype=fp16
expect_err "sweep.component.config.dtype: both swept and --set" "--set of a swept key is refused"
[ -e "$SCRATCH/bad" ] && fail "no folder after a refused --set"

finish
