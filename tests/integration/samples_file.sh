#!/bin/sh
# Big runs keep every sample in a binary side file (samples_ranks_N_rank_r.bin)
# that the summary names with its count and SHA-256; small runs keep them
# inline. compare, record and history read either; a side file that is
# missing, truncated, corrupt or named outside the folder is exit 2 naming it.
. "$top_builddir/tests/setup"
TOOLS="$top_srcdir/tests/tools"

# noop DIR STEPS: a noop run of 5 windows of STEPS steps; prints the folder.
noop() {
    "$HARNESS" run "$top_srcdir/configs/noop.yaml" --output-dir "$SCRATCH/$1" --quiet \
        --set schedule.warmup_steps=0 --set schedule.wait_steps=0 --set schedule.measurement_steps="$2" \
        --set schedule.repeat=5 --set profiling.trace=false --set profiling.memory=false 2>/dev/null
}
big=$(noop big 4000) || fail "a run of 20,000 samples"
big2=$(noop big2 4000) || fail "a second run of 20,000 samples"
small=$(noop small 100) || fail "a run of 500 samples"

python3 - "$big" "$small" "$TOOLS" <<'PY' && pass "side file above 10,000 samples, inline below" || fail "the summaries"
import hashlib, json, os, sys
big, small, tools = sys.argv[1:4]
sys.path.insert(0, tools)
from summary_samples import samples
s = json.load(open(os.path.join(big, "summary_ranks_1_rank_0.json")))
t = s["timing"]
ref = t["samples_file"]
assert "samples" not in t
assert ref["name"] == "samples_ranks_1_rank_0.bin" and ref["format"] == "harness.samples/1", ref
assert ref["count"] == t["n"] == 20000 and ref["unit"] == "ns", ref
data = open(os.path.join(big, ref["name"]), "rb").read()
assert hashlib.sha256(data).hexdigest() == ref["sha256"]
v = samples(os.path.join(big, "summary_ranks_1_rank_0.json"))
# The JSON's statistics are printed to 15 digits when that reads back within
# an ulp-sized step (cJSON's rule); the file keeps every bit.
near = lambda a, b: abs(a - b) <= 1e-12 * max(abs(a), abs(b))
assert len(v) == 20000 and near(min(v), t["min"]) and near(max(v), t["max"]), (min(v), t["min"])
assert os.path.getsize(os.path.join(big, "summary_ranks_1_rank_0.json")) < 64 * 1024
assert not [f for f in os.listdir(big) if ".tmp" in f]
s = json.load(open(os.path.join(small, "summary_ranks_1_rank_0.json")))
assert len(s["timing"]["samples"]) == 500 and "samples_file" not in s["timing"]
assert not [f for f in os.listdir(small) if f.endswith(".bin")], os.listdir(small)
PY

# compare on side-file runs, and a side-file run against an inline one.
expect_exit 0 "compare: two side-file runs" "$HARNESS" compare "$big" "$big2" --threshold 1000% --format json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); (p,)=r["pairs"]; assert p["verdict"] != "failed", p' \
    "$SCRATCH/out" && pass "compare: one pair" || fail "compare: the pair"
expect_exit 0 "compare: a side-file run against an inline one" "$HARNESS" compare "$small" "$big" \
    --threshold 1000%

# record and history read the side file: every sample stored.
expect_exit 0 "record a side-file run" "$HARNESS" record "$big" --db "$SCRATCH/r.sqlite" --commit c1 --branch main
if command -v sqlite3 >/dev/null 2>&1; then
    [ "$(sqlite3 "$SCRATCH/r.sqlite" 'SELECT count(*) FROM samples')" = 20000 ] &&
        pass "record: 20,000 samples stored" || fail "record: samples stored"
fi
expect_exit 0 "history on it" "$HARNESS" history --db "$SCRATCH/r.sqlite"

# Broken side files: exit 2, the file named, the reason said.
broken() {
    rm -rf "$SCRATCH/broken"
    cp -R "$big" "$SCRATCH/broken"
    echo "$SCRATCH/broken"
}
bin=samples_ranks_1_rank_0.bin
b=$(broken)
python3 -c 'import sys; p=sys.argv[1]; d=open(p,"rb").read(); open(p,"wb").write(d[:len(d)//2])' "$b/$bin"
expect_exit 2 "a truncated side file" "$HARNESS" compare "$big" "$b"
expect_err "$b/$bin: truncated: the header says 20000 samples" "truncated: the file and the counts named"

b=$(broken)
python3 -c 'import sys; p=sys.argv[1]; d=bytearray(open(p,"rb").read()); d[1000]^=1; open(p,"wb").write(d)' "$b/$bin"
expect_exit 2 "a corrupt side file" "$HARNESS" compare "$big" "$b"
expect_err "$b/$bin: SHA-256" "corrupt: the file and its checksum named"

b=$(broken)
rm "$b/$bin"
expect_exit 2 "a missing side file" "$HARNESS" compare "$big" "$b"
expect_err "$b/$bin: cannot read the samples file the summary names: No such file or directory" "missing: named"
expect_exit 2 "record refuses it too" "$HARNESS" record "$b" --db "$SCRATCH/r2.sqlite"
expect_err "$b/$bin" "record: the file named"

b=$(broken)
python3 - "$b/summary_ranks_1_rank_0.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["timing"]["samples_file"]["name"] = "../big/samples_ranks_1_rank_0.bin"
json.dump(s, open(sys.argv[1], "w"))
PY
expect_exit 2 "a side file outside the folder" "$HARNESS" compare "$big" "$b"
expect_err "is not a file name in the summary's folder" "outside the folder: refused"

b=$(broken)
python3 - "$b/summary_ranks_1_rank_0.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["timing"]["samples"] = [1, 2, 3]
json.dump(s, open(sys.argv[1], "w"))
PY
expect_exit 2 "both samples and samples_file" "$HARNESS" compare "$big" "$b"
expect_err "both samples and samples_file" "both: refused"
finish
