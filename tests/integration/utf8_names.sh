#!/bin/sh
# A config file whose name holds byte 0xFF: the experiment's name comes
# from it, and every JSON and YAML file of the folder must still be valid
# UTF-8 that the harness's own compare, export, record and validate read.
. "$top_builddir/tests/setup"

name=$(printf 'spin\377tiny')
cp "$CONFIGS/spin_tiny.yaml" "$SCRATCH/$name.yaml"
expect_exit 0 "a run from a config named with byte 0xFF" "$HARNESS" run "$SCRATCH/$name.yaml" \
    --output-dir "$SCRATCH/exp" --quiet
dir=$(echo "$SCRATCH"/exp/*)
python3 - "$dir" <<'PY' && pass "every JSON and YAML file is valid UTF-8, the name with '?'" || fail "UTF-8 in the folder"
import glob, json, os, sys
d = sys.argv[1]
for f in glob.glob(os.path.join(d, "*.json")) + glob.glob(os.path.join(d, "*.yaml")):
    text = open(f, "rb").read().decode("utf-8")          # strict: raises on invalid UTF-8
    if f.endswith(".json"):
        json.loads(text)
s = json.load(open(os.path.join(d, "summary_ranks_1_rank_0.json")))
assert s["experiment"]["name"] == "spin?tiny", s["experiment"]
PY
expect_exit 0 "validate the folder's resolved_config.yaml" "$HARNESS" validate "$dir/resolved_config.yaml"
expect_exit 0 "export reads it" "$HARNESS" export "$dir" --format json
python3 -c "import json,sys; json.loads(open(sys.argv[1],'rb').read().decode('utf-8'))" "$SCRATCH/out" \
    && pass "export's JSON is valid UTF-8" || fail "export's JSON"
expect_exit 0 "record reads it" "$HARNESS" record "$dir" --db "$SCRATCH/r.sqlite" --commit c1 --branch main
expect_exit 0 "history of it" "$HARNESS" history --db "$SCRATCH/r.sqlite" --format json
"$HARNESS" compare "$dir" "$dir" --format json >"$SCRATCH/out" 2>"$SCRATCH/err"
[ $? -le 1 ] && python3 -c "import json,sys; json.loads(open(sys.argv[1],'rb').read().decode('utf-8'))" \
    "$SCRATCH/out" && pass "compare reads it, its JSON valid UTF-8" || fail "compare of the folder"
finish
