#!/bin/sh
# compare reads summaries strictly: trailing bytes, NULs in strings,
# duplicate keys and invalid UTF-8 are bad input (exit 2) naming the file.
. "$top_builddir/tests/setup"

expect_exit 0 "a run to corrupt" "$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/base" --quiet
base=$(ls -d "$SCRATCH"/base/*)

# corrupt NAME PYTHON-EXPR WHAT: the summary's bytes `b` rewritten by EXPR.
corrupt() {
    name=$1; expr=$2; what=$3
    cand="$SCRATCH/$name"
    cp -r "$base" "$cand"
    python3 -c "import sys; p=sys.argv[1]; b=open(p,'rb').read(); open(p,'wb').write($expr)" \
        "$cand/summary_ranks_1_rank_0.json"
    expect_exit 2 "$name" "$HARNESS" compare "$base" "$cand"
    expect_err "$cand/summary_ranks_1_rank_0.json:" "$name: names the file"
    expect_err "$what" "$name: says what is wrong"
}
corrupt trailing "b + b'{\"x\": 1}'" "trailing bytes after the JSON value"
corrupt nul_escape "b.replace(b'\"spin/cpu\"', b'\"spin\\\\u0000/cpu\"', 1)" "\\u0000 (a NUL) inside a string"
corrupt nul_byte "b.replace(b'\"spin/cpu\"', b'\"spin\\x00/cpu\"', 1)" "a NUL byte inside a string"
corrupt duplicate "b.replace(b'\"rank\":', b'\"rank\": 0, \"rank\":', 1)" "duplicate key \"rank\""
corrupt utf8 "b.replace(b'\"spin/cpu\"', b'\"spin\\xc3\\x28/cpu\"', 1)" "invalid UTF-8 inside a string"

# Valid but awkward strings (quotes, backslashes, control characters, line
# separators, non-ASCII) in the variant key, a config key and value, and the
# folder name: every report format is written, and the JSON one parses back
# to the same strings.
odd="$SCRATCH/odd \"q\" \\ é"
mkdir -p "$odd"
cp -r "$base" "$odd/run"
python3 - "$odd/run/summary_ranks_1_rank_0.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["component"]["variant_key"] = "spin\"/\\cpu\u0001\u2028é\t"
s["component"]["config"] = {"k\"\n": "v\\\u001f\u2029", "duration_ns": 50000}
json.dump(s, open(sys.argv[1], "w"), ensure_ascii=False)
PY
for fmt in text markdown json; do
    "$HARNESS" compare "$odd" "$odd" --format $fmt >"$SCRATCH/odd.$fmt" 2>"$SCRATCH/err"
    [ $? -le 1 ] && pass "awkward strings: $fmt report" || fail "awkward strings: $fmt: $(cat "$SCRATCH/err")"
done
python3 - "$SCRATCH/odd.json" <<'PY' && pass "awkward strings: the JSON report parses, strings intact" ||
import json, sys
r = json.loads(open(sys.argv[1], "rb").read().decode("utf-8", errors="strict"))
(p,) = r["pairs"]
assert p["variant_key"] == "spin\"/\\cpu\u0001\u2028é\t", p["variant_key"]
assert p["config"] == {"k\"\n": "v\\\u001f\u2029", "duration_ns": 50000}, p["config"]
PY
    fail "awkward strings: the JSON report"
finish
