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
finish
