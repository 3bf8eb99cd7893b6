#!/bin/sh
# harness run end to end on a tiny RMSNorm: the folder, its files and the summary keys.
. "$top_builddir/tests/setup"

for dtype in fp32 bf16; do
    out="$SCRATCH/exp-$dtype"
    expect_exit 0 "run rms_norm $dtype" "$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" --output-dir "$out" \
        --set component.config.dtype=$dtype
    grep -q '^experiment: ' "$SCRATCH/out" || fail "run prints the experiment path"
    grep -q 'validation: passed' "$SCRATCH/out" || fail "run prints the validation verdict"
    dir=$(sed -n 's/^experiment: //p' "$SCRATCH/out")
    case "$(basename "$dir")" in
        [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]__[0-9][0-9]-[0-9][0-9]-[0-9][0-9]_[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f])
            pass "folder name $(basename "$dir")";;
        *) fail "folder name $(basename "$dir") is not <YYYY-MM-DD__HH-MM-SS>_<hash8>";;
    esac
    for f in rms_norm_tiny.yaml resolved_config.yaml profiler_summary_ranks_1_rank_0.txt summary_ranks_1_rank_0.json; do
        [ -s "$dir/$f" ] || fail "$dtype: $f written"
    done
    cmp -s "$CONFIGS/rms_norm_tiny.yaml" "$dir/rms_norm_tiny.yaml" || fail "config copied byte for byte"
    ls "$dir" | grep -q '\.tmp\.' && fail "no temporary files left"
    grep -q 'dtype: bf16' "$dir/resolved_config.yaml" && [ $dtype = fp32 ] && fail "resolved config has the dtype"
    python3 - "$dir/summary_ranks_1_rank_0.json" $dtype <<'PY' || fail "$dtype: summary JSON keys"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["schema"] == "harness.summary/1" and s["status"] == "ok"
assert s["rank"] == 0 and s["world_size"] == 1
assert s["experiment"]["name"] == "rms_norm_tiny", s["experiment"]   # the file's stem by default
assert s["component"]["variant_key"] == "rms_norm/cpu"
assert s["component"]["config"] == {"batch_size": 2, "seq_len": 3, "hidden_size": 7, "eps": 1e-6, "dtype": sys.argv[2]}, s["component"]["config"]
assert s["device"]["name"]
assert s["validation"]["passed"] is True
t = s["timing"]
assert t["unit"] == "ns"
assert len(t["samples"]) == 10 and t["n"] == 10
for k in ("median", "mean", "stddev", "min", "max", "p90", "p99"):
    assert isinstance(t[k], (int, float)), k
assert t["min"] <= t["median"] <= t["max"]
assert sorted(t["samples"])[0] == t["min"] and sorted(t["samples"])[-1] == t["max"]
lo, hi = t["ci95_median"]
assert lo <= t["median"] <= hi
assert len(t["windows"]) == 2 and all(w["n"] == 5 for w in t["windows"])
elem = 2 if sys.argv[2] == "bf16" else 4
th = s["throughput"]
assert th["bytes_per_step"] == elem * (2 * 2 * 3 * 7 + 7), th
assert th["flops_per_step"] > 0 and th["gb_per_s"] > 0 and th["gflop_per_s"] > 0
assert s["schedule"]["warmup_steps_run"] == 2 and s["schedule"]["wait_steps_run"] == 2
assert s["memory"]["peak_allocated_bytes"] >= elem * (2 * 2 * 3 * 7 + 7)
for k in ("host", "cpu", "gpu", "driver", "cuda", "compiler", "git_commit", "harness_version"):
    assert k in s["env"], k
PY
    # The job's summary, as for any number of ranks (DESIGN: rank 0 writes it).
    python3 - "$dir" <<'PY' || fail "$dtype: job summary.json of one rank"
import json, sys
d = sys.argv[1]
job, mine = json.load(open(d + "/summary.json")), json.load(open(d + "/summary_ranks_1_rank_0.json"))
assert job["schema"] == "harness.job_summary/1" and job["world_size"] == 1 and job["status"] == "ok"
assert [r["rank"] for r in job["ranks"]] == [0]
assert job["ranks"][0]["median_ns"] == mine["timing"]["median"]
assert job["across_ranks"]["skew"] == 1 and job["across_ranks"]["slowest_rank"] == 0
PY
    grep -q '^rms_norm/cpu on 1 rank$' "$dir/summary.txt" || fail "$dtype: summary.txt names one rank"
done

# The resolved config is itself a valid config, and hashes the same.
dir=$(ls -d "$SCRATCH"/exp-fp32/*/ | head -1)
expect_exit 0 "resolved_config.yaml validates" "$HARNESS" validate "$dir/resolved_config.yaml" --quiet
hash=$(basename "$dir" | sed 's/.*_//')
grep -q "config hash $hash" "$SCRATCH/err" || fail "resolved config hashes to the folder's hash $hash"

# A plugin_path relative to the config file: the resolved config holds it
# absolute, so it validates and hashes the same from any working directory.
mkdir -p "$SCRATCH/cfgs/plugins"
cp "$CONFIGS/rms_norm_tiny.yaml" "$SCRATCH/cfgs/tiny.yaml"
printf 'plugin_path: [plugins]\n' >>"$SCRATCH/cfgs/tiny.yaml"
expect_exit 0 "relative plugin_path" "$HARNESS" run cfgs/tiny.yaml --output-dir "$SCRATCH/exp-rel" --quiet
dir=$(cat "$SCRATCH/out")
grep -q "^plugin_path: \[$SCRATCH/cfgs/plugins\]" "$dir/resolved_config.yaml" ||
    fail "resolved plugin_path is absolute: $(grep plugin_path "$dir/resolved_config.yaml")"
hash=$(basename "$dir" | sed 's/.*_//')
for where in "$SCRATCH/cfgs" /; do
    (cd "$where" && "$HARNESS" validate "$dir/resolved_config.yaml") >/dev/null 2>"$SCRATCH/err" ||
        fail "resolved config validates from $where"
    grep -q "config hash $hash" "$SCRATCH/err" || fail "resolved config hashes to $hash from $where"
done
(cd "$SCRATCH/cfgs" && "$HARNESS" validate tiny.yaml --output-dir "$SCRATCH/exp-rel") >/dev/null 2>"$SCRATCH/err"
grep -q "config hash $hash" "$SCRATCH/err" || fail "the config hashes to $hash from its own folder too"

# A second run of the same config gets its own folder.
expect_exit 0 "second run" "$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" --output-dir "$SCRATCH/exp-fp32" --quiet
[ "$(ls "$SCRATCH/exp-fp32" | wc -l)" -eq 2 ] || fail "two runs, two folders"
[ -d "$(cat "$SCRATCH/out")" ] || fail "--quiet prints the folder path"

# experiment.output_dir from the config is relative to the working directory.
expect_exit 0 "default output dir" "$HARNESS" run "$CONFIGS/rms_norm_tiny.yaml" --quiet
case "$(cat "$SCRATCH/out")" in experiments/*) pass "default root experiments/";; *) fail "default root";; esac
finish
