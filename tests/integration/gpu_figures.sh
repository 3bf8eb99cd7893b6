#!/bin/sh
# scripts/gpu-figures, the docs' GPU figures written from the results files
# (issue 44): --check passes on the tree; --since lists a later commit to the
# code a cited file measured; a digit changed in a copy of a doc is caught,
# named by file, line and region, and a rewrite restores it; a newer results
# file takes over the figures it has and leaves the others to the older one;
# a results file missing a figure (one shape of a range, a null rate, one
# shape's PyTorch time) and malformed regions are refused (exit 2) naming the
# file and what is wrong; a run without PyTorch says n/a.
. "$top_builddir/tests/setup"
gf=$top_srcdir/scripts/gpu-figures
res=$top_srcdir/tests/gpu/results
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
# Two H100 files share a day; which is newer is their commits' order in git
# (and --since reads the history since each).
git -C "$top_srcdir" rev-parse --git-dir >/dev/null 2>&1 ||
    { echo "not a git checkout: the results files' order needs git: skipped"; exit 77; }
for f in "$res"/*.json; do
    c=${f##*-}
    git -C "$top_srcdir" cat-file -e "${c%.json}^{commit}" 2>/dev/null ||
        { echo "commit ${c%.json} of $(basename "$f") not in this clone (shallow?): skipped"; exit 77; }
done

expect_exit 0 "--check on the tree" "$gf" --check
[ ! -s "$SCRATCH/out" ] && pass "--check prints nothing when no doc differs" ||
    fail "--check printed: $(head -3 "$SCRATCH/out")"

# What changed since: the H100 run's file lists commits made after its own
# (the first ten shown), each one a descendant of it.
expect_exit 0 "--since" "$gf" --since
listed=$(awk '/^h100-80gb-hbm3-2026-11-26-57ffa6c65c85 \(commit 57ffa6c\): [0-9]+ commit\(s\) since/ { f = 1; next }
     /^[^ ]/ { f = 0 } f && $1 ~ /^[0-9a-f]+$/ { print $1 }' "$SCRATCH/out")
after=0
for c in $listed; do
    git -C "$top_srcdir" merge-base --is-ancestor 57ffa6c "$c" && [ "$c" != 57ffa6c ] && after=$((after + 1))
done
[ -n "$listed" ] && [ "$after" -eq "$(echo "$listed" | wc -w)" ] &&
    pass "lists $after later commits to the code a cited file measured" || fail "--since: $(head -20 "$SCRATCH/out")"

# A copy of the tree's docs with regions (rms_norm's README, the results
# README) and the results files.
t=$SCRATCH/tree
mkdir -p "$t/components/rms_norm" "$t/tests/gpu"
cp "$top_srcdir/components/rms_norm/README.md" "$t/components/rms_norm/"
cp -R "$res" "$t/tests/gpu/results"
chmod -R u+w "$t"
expect_exit 0 "--check on the copy" "$gf" --check --root "$t"

# One digit changed in an inline region and one in the table.
plant() { # plant DOC REGION: the first digit in DOC's REGION region one more (mod 10)
    python3 -c 'import re, sys
path, name = sys.argv[1], sys.argv[2]
text = open(path).read()
opening = re.search(r"<!-- gpu-figures: %s\b[^>]*-->" % name, text)
digit = re.compile(r"\d").search(text, opening.end())
open(path, "w").write(text[:digit.start()] + str((int(digit.group()) + 1) % 10) + text[digit.end():])' "$1" "$2"
}
doc=$t/components/rms_norm/README.md
rdoc=$t/tests/gpu/results/README.md
cp "$doc" "$SCRATCH/doc.orig"
cp "$rdoc" "$SCRATCH/rdoc.orig"
plant "$doc" rms_norm
plant "$rdoc" table
if cmp -s "$doc" "$SCRATCH/doc.orig" || cmp -s "$rdoc" "$SCRATCH/rdoc.orig"; then fail "nothing planted"; fi
line=$(grep -n 'gpu-figures: rms_norm' "$doc" | cut -d: -f1)
expect_exit 1 "--check on a changed digit" "$gf" --check --root "$t"
grep -qF "components/rms_norm/README.md:$line: region 'rms_norm' differs" "$SCRATCH/out" &&
    pass "names the doc, line and region" || fail "no 'README.md:$line: region 'rms_norm'': $(cat "$SCRATCH/out")"
grep -qF "results/README.md:" "$SCRATCH/out" && grep -qF "region 'table' differs" "$SCRATCH/out" &&
    pass "the table's digit too" || fail "the table's changed digit not named: $(cat "$SCRATCH/out")"
grep -q '^    +.*GB/s' "$SCRATCH/out" && pass "shows what it would write" || fail "no diff shown: $(cat "$SCRATCH/out")"
expect_err "2 region(s) differ" "says how many differ"
expect_exit 0 "a rewrite" "$gf" --root "$t"
expect_exit 0 "--check after the rewrite" "$gf" --check --root "$t"
cmp -s "$doc" "$SCRATCH/doc.orig" && cmp -s "$rdoc" "$SCRATCH/rdoc.orig" && pass "the rewrite restores both" ||
    fail "not restored: $(diff "$SCRATCH/doc.orig" "$doc"; diff "$SCRATCH/rdoc.orig" "$rdoc")"

# A newer H200 file with only the RMSNorm figures: rms_norm's region takes it,
# the attention rows stay with the older file that has them.
h200=$(ls "$res"/h200-*.json | sort | tail -1)
stem=$(basename "$h200" .json)
newer=$t/tests/gpu/results/h200-2099-01-01-0123456789ab.json
bf16_rate=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["date"], d["commit"] = "2099-01-01", "0123456789ab"
d["figures"] = [r for r in d["figures"] if r["tag"].startswith("rms_norm")]
for r in d["figures"]:
    r["rate"] *= 1.5
json.dump(d, open(sys.argv[2], "w"))
print("%.0f" % next(r["rate"] for r in d["figures"] if r["tag"] == "rms_norm_8x1024x4096_bf16"))' "$h200" "$newer")
expect_exit 1 "--check with a newer results file" "$gf" --check --root "$t"
expect_exit 0 "a rewrite with the newer file" "$gf" --root "$t"
grep -q "$bf16_rate GB/s bf16 at 8 x 1024 x 4096.*2099-01-01, commit 0123456" "$doc" &&
    pass "rms_norm's region cites the newer file" ||
    fail "rms_norm's region ($bf16_rate GB/s): $(grep 'gpu-figures' "$doc")"
grep -q "| rms_norm/cuda bf16 | 8 x 1024 x 4096 | $bf16_rate GB/s .*h200-2099-01-01-0123456789ab.json" "$rdoc" &&
    pass "the table's rms_norm row too (linking the .json: no .md)" ||
    fail "the table's rms_norm row: $(grep -n 'rms_norm/cuda bf16 | 8' "$rdoc")"
grep -q "Hopper kernel bf16 | FlashAttention-2.*$stem.md" "$rdoc" && pass "attention stays with the older file" ||
    fail "attention rows: $(grep -n 'Hopper' "$rdoc")"
rm "$newer"

# Results files missing a figure: one shape of a range, one member; not a results file.
edit() { # edit PYTHON: the newest H200 file, as PYTHON changes d, into the copy
    python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
$1
json.dump(d, open(sys.argv[2], 'w'))" "$h200" "$t/tests/gpu/results/$stem.json"
}
edit 'd["figures"] = [r for r in d["figures"] if r["tag"] != "bf16_d64_s512_true_hopper"]'
expect_exit 2 "a results file without one shape of a range" "$gf" --check --root "$t"
expect_err "$stem.json: no figure bf16_d64_s512_true_hopper" "names the file and the figure"
expect_err "11 of 12 shapes present" "says how much of the range is there"
edit 'next(r for r in d["figures"] if r["tag"] == "llama7b_block")["rate"] = None'
expect_exit 2 "a results file with a null figure" "$gf" --check --root "$t"
expect_err "$stem.json: figure llama7b_block: no 'rate' (null)" "names the file, the figure and the member"
edit 'next(r for r in d["figures"] if r["tag"] == "bf16_d128_s512_true_hopper")["torch_over_ours"] = None'
expect_exit 2 "a range with one shape's PyTorch time missing" "$gf" --check --root "$t"
expect_err "$stem.json: figure bf16_d128_s512_true_hopper: no 'torch_over_ours' (null)" "names that shape"
# A run without PyTorch (results.py writes null for every comparison): n/a, not an error.
edit '[r.update(torch_over_ours=None) for r in d["figures"]]'
expect_exit 0 "a run without PyTorch" "$gf" --root "$t"
grep -q "| 8 x 1024 x 4096 | [0-9]* GB/s | [0-9]* | n/a | .*$stem.md" "$rdoc" &&
    pass "says n/a for PyTorch" || fail "no n/a: $(grep -n '8 x 1024' "$rdoc")"
edit 'd = {"schema": "something else"}'
expect_exit 2 "a file that is not a results file" "$gf" --check --root "$t"
expect_err "$stem.json: not a results file" "names it"
cp "$h200" "$t/tests/gpu/results/$stem.json"
expect_exit 0 "the file back" "$gf" --root "$t"
cmp -s "$rdoc" "$SCRATCH/rdoc.orig" && pass "the table as before" ||
    fail "the table: $(diff "$SCRATCH/rdoc.orig" "$rdoc")"

# Regions: pinned to a file, to a GPU; malformed ones.
d=$t/doc.md
printf 'a <!-- gpu-figures: block file=h100-80gb-hbm3-2026-11-26-e291669e86af --><!-- /gpu-figures -->\n' >"$d"
printf 'b <!-- gpu-figures: rms_norm gpu=h100-80gb-hbm3 --><!-- /gpu-figures -->\n' >>"$d"
expect_exit 0 "regions pinned to a file and a GPU" "$gf" --root "$t" "$d"
grep -q '^a .*606 TFLOP/s.*commit e291669' "$d" && pass "file= takes that file" || fail "file=: $(cat "$d")"
grep -q "^b .*H100 SXM: [0-9]* GB/s" "$d" && ! grep -q '^b .*H200' "$d" && pass "gpu= keeps that GPU" ||
    fail "gpu=: $(cat "$d")"
bad() { # bad DESC TEXT EXPECTED: a doc with TEXT refused naming EXPECTED
    printf 'line one\n%b' "$2" >"$d"
    expect_exit 2 "$1" "$gf" --check --root "$t" "$d"
    expect_err "$3" "$1: named"
}
bad "an unknown region" 'x <!-- gpu-figures: nonsense --><!-- /gpu-figures -->\n' "doc.md:2: unknown region 'nonsense'"
bad "an unclosed region" '<!-- gpu-figures: table -->\ntext\n' "doc.md:2: region 'table' has no closing comment"
bad "a stray closing comment" 'x <!-- /gpu-figures -->\n' "doc.md:2: a closing comment with no region open"
bad "an unknown key" 'x <!-- gpu-figures: block gpu=h200 colour=red --><!-- /gpu-figures -->\n' \
    "doc.md:2: region 'block': unknown key colour"
bad "a GPU with no file" 'x <!-- gpu-figures: block gpu=a100 --><!-- /gpu-figures -->\n' \
    "no results file of GPU 'a100'"
bad "a file the GPU lacks" 'x <!-- gpu-figures: stages gpu=h200 --><!-- /gpu-figures -->\n' \
    "region 'stages': no results file has the Hopper kernel's tuning sweep"
bad "a block written inline" 'x <!-- gpu-figures: table --><!-- /gpu-figures -->\n' \
    "region 'table' writes a block"
finish
