#!/bin/sh
# tests/gpu/attention_perf.sh's A/B of the Hopper attention kernel, on a
# machine without a GPU: a stand-in harness whose rate says which switches
# its environment set (the Hopper kernel 600 TFLOP/s, 480 with a block per
# item, 400 with O stored without TMA, 500 with two consumers, 480 without
# clusters, 660 with 176-key tiles at 2 stages; mma.sync 300, its 32-key
# build 250, cuBLAS 200). The hopper_* variants run only at AB_SEQS (default
# 512 and 16384), hopper_direct at head_dim 128 only with 2 stages,
# hopper_pair at 64 only, hopper_solo and hopper_wide at 128 without the
# causal mask only, each with its settings of tests/gpu/hopper_switches; the
# table's "hopper / serial", "hopper / direct", "hopper / pair" and "hopper /
# solo" columns are the default's
# rate over each, "wide / hopper" the wide tiles' over the default's ("-"
# where not run), and the columns before them unchanged;
# past HARNESS_GPU_DEADLINE no run starts and the first left is named; the
# results file labels each run with what ran (tests/gpu/results.py).
. "$top_builddir/tests/setup"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }

# attention_perf.sh runs ./harness/harness and tests/gpu/attention_perf.py from the tree's top.
tree=$SCRATCH/tree
mkdir -p "$tree/harness"
ln -s "$top_srcdir/tests" "$tree/tests"
cat >"$tree/harness/harness" <<'H'
#!/bin/sh
# run CONFIG --set k=v ... --output-dir DIR: a summary as a CUDA run writes it.
out= key= cfg=
while [ $# -gt 0 ]; do
    case $1 in
    --output-dir) out=$2; shift ;;
    --set) case $2 in
        component.variant_key=*) key=${2#*=} ;;
        component.config.dtype=*) v=${2#*=} k=${2%%=*}; cfg="$cfg, \"${k##*.}\": \"$v\"" ;;
        component.config.*) v=${2#*=} k=${2%%=*}; cfg="$cfg, \"${k##*.}\": $v" ;;
        esac; shift ;;
    esac
    shift
done
tag=$(basename "$out")
echo "$tag kernel=$HARNESS_ATTENTION_KERNEL bk=$HARNESS_ATTENTION_TC_BK" \
    "persistent=$HARNESS_ATTENTION_HOPPER_PERSISTENT tma_store=$HARNESS_ATTENTION_HOPPER_TMA_STORE" \
    "consumers=$HARNESS_ATTENTION_HOPPER_CONSUMERS bk=$HARNESS_ATTENTION_HOPPER_BK" \
    "stages=$HARNESS_ATTENTION_HOPPER_STAGES cluster=$HARNESS_ATTENTION_HOPPER_CLUSTER" >>"$RUNS"
# The run that takes until the deadline: the next one must not start.
if [ "$tag" = "${STALL:-}" ]; then
    while [ "$(date +%s)" -lt "$HARNESS_GPU_DEADLINE" ]; do sleep 0.2; done
fi
case $key:$HARNESS_ATTENTION_KERNEL:$HARNESS_ATTENTION_TC_BK:$HARNESS_ATTENTION_HOPPER_PERSISTENT:$HARNESS_ATTENTION_HOPPER_TMA_STORE:$HARNESS_ATTENTION_HOPPER_CONSUMERS:$HARNESS_ATTENTION_HOPPER_BK:$HARNESS_ATTENTION_HOPPER_CLUSTER in
attention/cublas:*) rate=200000 ;;
attention/cuda:mma_sync:64:*) rate=300000 ;;
attention/cuda:mma_sync:32:*) rate=250000 ;;
attention/cuda:hopper:64:1:1:3:128:2) rate=600000 ;;
attention/cuda:hopper:64:0:1:3:128:2) rate=480000 ;;
attention/cuda:hopper:64:1:0:3:128:2) rate=400000 ;;
attention/cuda:hopper:64:1:1:2:128:2) rate=500000 ;;
attention/cuda:hopper:64:1:1:3:128:1) rate=480000 ;;
attention/cuda:hopper:64:1:1:3:176:2) [ "$HARNESS_ATTENTION_HOPPER_STAGES" = 2 ] && rate=660000 ;;
*) echo "stand-in harness: unexpected run $key $*" >&2; exit 3 ;;
esac
# The plugin's "kernel" note, as attention_cuda_describe words it, from the
# switches (IGNORE names one this stand-in leaves at its default).
stages=${HARNESS_ATTENTION_HOPPER_STAGES:-3} bk=$HARNESS_ATTENTION_HOPPER_BK c=$HARNESS_ATTENTION_HOPPER_CONSUMERS
sched="persistent" o="through TMA stores"
[ "$HARNESS_ATTENTION_HOPPER_PERSISTENT" = 0 ] && [ "${IGNORE:-}" != persistent ] && sched="a block per item"
[ "$HARNESS_ATTENTION_HOPPER_TMA_STORE" = 0 ] && o="stored from registers"
cl="K/V multicast over clusters of 2"
[ "$HARNESS_ATTENTION_HOPPER_CLUSTER" = 1 ] && cl="no cluster"
note="Hopper (wgmma, TMA, warp-specialized): $stages stages of $bk keys, $c consumer warpgroups, $cl, $sched, O $o"
[ "$HARNESS_ATTENTION_KERNEL" = hopper ] || note="tensor-core (mma.sync)"
mkdir -p "$out/run"
printf '{"component": {"variant_key": "%s", "config": {%s}}, "throughput": {"gflop_per_s": %s, "flops_per_step": 1e12},
 "timing": {"median": 2e6}, "component_notes": {"kernel": "%s"}}\n' "$key" "${cfg#, }" "$rate" "$note" \
    >"$out/run/summary_ranks_1_rank_0.json"
H
chmod +x "$tree/harness/harness"
RUNS=$SCRATCH/runs
export RUNS

# perf OUTDIR [VAR=VALUE...]: attention_perf.sh from the tree's top into OUTDIR.
perf() {
    o=$SCRATCH/$1
    shift
    : >"$RUNS"
    mkdir -p "$o"
    expect_exit 0 "attention_perf.sh $*" env -C "$tree" "$@" sh tests/gpu/attention_perf.sh "$o"
}
# row D SEQ CAUSAL: the table's row of that shape, its cells separated by ';'.
row() { grep "^| bf16 | $1 | $2 | $3 |" "$SCRATCH/out" | sed 's/^| //; s/ |$//; s/ | /;/g'; }
# cell D SEQ CAUSAL N: the row's Nth cell.
cell() { row "$1" "$2" "$3" | cut -d';' -f"$4"; }
ran() { grep -c "_$1 " "$RUNS"; }

perf default SEQS="512 1024 16384"
head=$(grep '^| dtype' "$SCRATCH/out")
case $head in
*"| causal / non-causal (hopper) | hopper / serial | hopper / direct | hopper / pair | hopper / solo | wide / hopper |")
    pass "the five A/B columns, last" ;;
*) fail "the table's head: $head" ;;
esac
[ "$(grep -c '^| bf16 ' "$SCRATCH/out")" = 12 ] && pass "a row per shape" || fail "rows: $(grep -c '^| bf16 ' "$SCRATCH/out")"
[ "$(ran hopper_serial)" = 8 ] && [ "$(grep hopper_serial "$RUNS" | grep -vc '_s512_\|_s16384_')" = 0 ] &&
    pass "hopper_serial at 512 and 16384, both head dims, causal and not" ||
    fail "hopper_serial runs: $(grep hopper_serial "$RUNS" | cut -d' ' -f1 | tr '\n' ' ')"
[ "$(ran hopper_direct)" = 4 ] && [ "$(grep hopper_direct "$RUNS" | grep -vc '_d64_s512_\|_d64_s16384_')" = 0 ] &&
    pass "hopper_direct at head_dim 64 only (at 128 with 3 stages it is hopper's path)" ||
    fail "hopper_direct runs: $(grep hopper_direct "$RUNS" | cut -d' ' -f1 | tr '\n' ' ')"
[ "$(ran hopper_pair)" = 4 ] && [ "$(grep hopper_pair "$RUNS" | grep -vc '_d64_s512_\|_d64_s16384_')" = 0 ] &&
    pass "hopper_pair at head_dim 64 only (at 128 there are always two consumers)" ||
    fail "hopper_pair runs: $(grep hopper_pair "$RUNS" | cut -d' ' -f1 | tr '\n' ' ')"
[ "$(ran hopper_wide)" = 2 ] && [ "$(grep hopper_wide "$RUNS" | grep -vc '_d128_s512_false_\|_d128_s16384_false_')" = 0 ] &&
    [ "$(grep -c 'hopper_wide .*bk=176 stages=2' "$RUNS")" = 2 ] && [ "$(grep -c 'bk=176' "$RUNS")" = 2 ] &&
    pass "hopper_wide at head_dim 128 without the causal mask only, 176 keys and 2 stages, no other run so" ||
    fail "hopper_wide runs: $(grep 'hopper_wide\|bk=176' "$RUNS" | tr '\n' ' ')"
[ "$(ran hopper_solo)" = 2 ] && [ "$(grep hopper_solo "$RUNS" | grep -vc '_d128_s512_false_\|_d128_s16384_false_')" = 0 ] &&
    [ "$(grep -c 'cluster=1' "$RUNS")" = 2 ] &&
    pass "hopper_solo at head_dim 128 without the causal mask only, no other run without clusters" ||
    fail "hopper_solo runs: $(grep 'hopper_solo\|cluster=1' "$RUNS" | tr '\n' ' ')"
[ "$(ran hopper)" = 12 ] && [ "$(ran cuda)" = 12 ] && [ "$(ran cuda32)" = 6 ] && [ "$(ran cublas)" = 12 ] &&
    pass "the other variants as before" || fail "runs: $(cut -d' ' -f1 "$RUNS" | tr '\n' ' ')"
[ "$(grep -n _d64_s512_false_ "$RUNS" | cut -d' ' -f1 | sed 's/.*_false_//' | tr '\n' ' ')" = \
    "cuda hopper hopper_serial hopper_direct hopper_pair cublas " ] && pass "interleaved with the others, shape by shape" ||
    fail "order at d64 s512: $(grep _d64_s512_false_ "$RUNS" | cut -d' ' -f1 | tr '\n' ' ')"
[ "$(cell 64 512 false 17);$(cell 64 512 false 18);$(cell 64 512 false 19)" = "1.25;1.50;1.20" ] &&
    [ "$(cell 64 16384 true 17);$(cell 64 16384 true 18);$(cell 64 16384 true 19)" = "1.25;1.50;1.20" ] &&
    pass "head_dim 64: hopper / serial 1.25, hopper / direct 1.50, hopper / pair 1.20" ||
    fail "d64 rows: $(row 64 512 false) / $(row 64 16384 true)"
[ "$(cell 128 512 true 17);$(cell 128 512 true 18);$(cell 128 512 true 19);$(cell 128 512 true 20);$(cell 128 512 true 21)" = \
    "1.25;-;-;-;-" ] &&
    [ "$(cell 128 16384 false 20);$(cell 128 16384 false 21);$(cell 64 512 false 20);$(cell 64 512 false 21)" = \
    "1.25;1.10;-;-" ] &&
    pass "head_dim 128: serial's ratio, direct and pair '-'; hopper / solo 1.25 and wide / hopper 1.10 where they ran" ||
    fail "d128 s512 row: $(row 128 512 true)"
[ "$(cell 128 1024 false 17);$(cell 128 1024 false 18);$(cell 64 1024 true 18)" = "-;-;-" ] &&
    pass "'-' at a sequence outside AB_SEQS" || fail "s1024 rows: $(row 128 1024 false) / $(row 64 1024 true)"
[ "$(cell 128 512 false 5);$(cell 128 512 false 13);$(cell 128 512 false 14);$(cell 128 512 false 12)" = \
    "300.0;600.0;2.00;1.20" ] && pass "the columns before: cuda, hopper, hopper / cuda, 64 / 32 keys" ||
    fail "d128 s512 row: $(row 128 512 false)"

# The results file's rows name what ran.
w=$SCRATCH/work
mkdir -p "$w/fig"
cp -r "$SCRATCH/default" "$w/fig/attention"
printf 'gpu=NVIDIA H200\ncommit=0123456789abcdef\n' >"$w/facts.txt"
expect_exit 0 "results.py on the A/B's runs" python3 "$top_srcdir/tests/gpu/results.py" --date 2026-01-02 \
    --outdir "$SCRATCH/res" "$w"
json=$SCRATCH/res/h200-2026-01-02-0123456789ab.json
python3 - "$json" <<'PY' && pass "results: each run's row says which kernel ran, the A/B's switch off" || fail "results' labels"
import json, sys
rows = {r["tag"]: r["variant"] for r in json.load(open(sys.argv[1]))["figures"]}
want = {"bf16_d64_s512_false_hopper_serial": "attention/cuda (Hopper, a block per item)",
        "bf16_d64_s16384_true_hopper_direct": "attention/cuda (Hopper, O stored without TMA)",
        "bf16_d64_s512_true_hopper_pair": "attention/cuda (Hopper, 2 consumer warpgroups)",
        "bf16_d128_s512_false_hopper_wide": "attention/cuda (Hopper, 176-key tiles, 2 stages)",
        "bf16_d128_s16384_false_hopper_solo": "attention/cuda (Hopper, no cluster)",
        "bf16_d128_s512_true_hopper": "attention/cuda (Hopper: wgmma + TMA)",
        "bf16_d128_s512_true_cuda32": "attention/cuda (mma.sync, 32-key tiles)",
        "bf16_d128_s512_true_cublas": "attention/cublas"}
bad = {t: rows.get(t) for t in want if rows.get(t) != want[t]}
assert not bad, bad
PY
grep -qF '| attention/cuda (Hopper, a block per item) | bf16 |' "${json%.json}.md" && pass "results: the .md's row too" ||
    fail "results: no A/B row in the .md"

# 2 stages: hopper_direct at head_dim 128 too; AB_SEQS chooses the sequences.
perf stages SEQS="512 1024" AB_SEQS=1024 HARNESS_ATTENTION_HOPPER_STAGES=2
[ "$(grep hopper_ "$RUNS" | cut -d' ' -f1 | sed 's/_\(true\|false\)_/ /' | sort -u | tr '\n' ' ')" = \
    "bf16_d128_s1024 hopper_direct bf16_d128_s1024 hopper_serial bf16_d128_s1024 hopper_solo bf16_d128_s1024 hopper_wide bf16_d64_s1024 hopper_direct bf16_d64_s1024 hopper_pair bf16_d64_s1024 hopper_serial " ] &&
    pass "AB_SEQS=1024: the A/B runs there alone, hopper_direct at 128 with 2 stages" ||
    fail "A/B runs: $(grep hopper_ "$RUNS" | cut -d' ' -f1 | tr '\n' ' ')"
[ "$(cell 128 1024 true 18);$(cell 128 512 true 17)" = "1.50;-" ] && pass "2 stages: d128's direct ratio" ||
    fail "2 stages: $(row 128 1024 true) / $(row 128 512 true)"

# A switch that did not take (the stand-in runs persistent whatever it is
# told): the table still comes, the run is named, the exit status is 1.
o=$SCRATCH/ignored
: >"$RUNS"
mkdir -p "$o"
expect_exit 1 "attention_perf.sh when a switch did not take" env -C "$tree" IGNORE=persistent SEQS=512 \
    sh tests/gpu/attention_perf.sh "$o"
expect_err 'attention_perf.py: bf16_d64_s512_true_hopper_serial ran "Hopper (wgmma, TMA, warp-specialized): 3 stages of 128 keys, 3 consumer warpgroups, K/V multicast over clusters of 2, persistent, O through TMA stores", not what its switch asks (Hopper, a block per item)' \
    "names a run whose switch did not take, with its note"
[ "$(grep -c 'not what its switch asks' "$SCRATCH/err")" = 4 ] && pass "every hopper_serial run named, no other" ||
    fail "named: $(grep 'not what its switch asks' "$SCRATCH/err" | cut -c1-80)"
grep -q '^| bf16 | 64 | 512 | true |' "$SCRATCH/out" && pass "the table printed all the same" || fail "no table"

# The deadline: the run before takes until it, so the A/B run after is named and not started.
perf late SEQS=512 STALL=bf16_d128_s512_false_hopper HARNESS_GPU_DEADLINE=$(($(date +%s) + 6))
[ "$(tail -1 "$RUNS" | cut -d' ' -f1)" = bf16_d128_s512_false_hopper ] && pass "no run started past the deadline" ||
    fail "runs: $(cut -d' ' -f1 "$RUNS" | tr '\n' ' ')"
expect_err "attention_perf: out of time: bf16_d128_s512_false_hopper_serial and the runs after it not run" \
    "names the first run left"
[ "$(cell 128 512 false 13);$(cell 128 512 false 17)" = "600.0;-" ] && pass "the table of what ran" ||
    fail "late row: $(row 128 512 false)"
finish
