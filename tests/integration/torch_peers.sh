#!/bin/sh
# The PyTorch peers (components/python/torch): their parameter tables equal
# the C variants' (harness list --json), each validates against its float64
# reference on small shapes outside the harness and fails when made wrong
# (torch_peers.py), and, where the python component is built, each runs under
# the harness with a passed validation and the C variant's cost, and
# `harness ab` judges a C variant against its peer. Needs torch: the venv of
# scripts/setup --with-torch, or HARNESS_TORCH_PYTHON; skips (77) without it.
. "$top_builddir/tests/setup"

py=${HARNESS_TORCH_PYTHON:-$top_srcdir/.venv-torch/bin/python}
peers="$top_srcdir/components/python/torch"
if ! "$py" -c 'import torch, numpy' >/dev/null 2>&1; then
    echo "SKIP: no torch and numpy in $py (scripts/setup --with-torch, or set HARNESS_TORCH_PYTHON)"
    exit 77
fi

# The tables: every C parameter's name, type, default, bounds and choices.
"$HARNESS" list --json --filter '^(rms_norm|attention|transformer_block)/cpu$' >list.json
"$py" - "$peers" list.json <<'PY' && pass "peers.py's tables are the C variants'" || fail "peers.py's tables drifted"
import json, sys
sys.path.insert(0, sys.argv[1])
import peers
c = {v["key"]: v["params"] for v in json.load(open(sys.argv[2]))["variants"]}
bad = 0
for peer in peers.PEERS.values():
    mine = {p.name: p for p in peer.params}
    theirs = c[peer.family + "/cpu"]
    if [p["name"] for p in theirs] != list(mine):
        print(f"{peer.key}: names {list(mine)} vs {[p['name'] for p in theirs]}"); bad += 1; continue
    def same(a, b):  # harness list prints a bound with 15 digits: DBL_MAX reads back as inf
        return a == b or (a is not None and b is not None and abs(a - b) <= 1e-14 * abs(a)) \
            or (a == sys.float_info.max and b == float("inf"))
    for q in theirs:
        p = mine[q["name"]]
        if p.kind != q["type"] or p.default != q["default"] or not same(p.lo, q.get("min")) \
                or not same(p.hi, q.get("max")) or (p.choices and list(p.choices) != q.get("choices")):
            print(f"{peer.key}: {q['name']}: {p} vs {q}"); bad += 1
sys.exit(1 if bad else 0)
PY

# Outside the harness: every shape validates, every wrong output fails.
if "$py" "$top_srcdir/tests/integration/torch_peers.py" "$peers" >peers.out 2>&1; then
    pass "$(tail -1 peers.out) outside the harness"
else
    fail "torch_peers.py"; sed 's/^/  /' peers.out | grep -v '^  ok' | head -20
fi

# bench/vs_pytorch's configs: the shipped configs' parameters as params.
for name in rms_norm attention transformer_block; do
    "$py" - "$top_srcdir/configs/$name.yaml" "$top_srcdir/bench/vs_pytorch/$name.yaml" <<'PY' ||
import json, re, sys
def config(path):
    text = open(path).read()
    block = re.search(r"^  config:\n((?:    .*\n)+)", text, re.M).group(1)
    return {k: v for k, v in re.findall(r"^    (\w+): *([^#\n]*?) *(?:#.*)?$", block, re.M)}
c, t = config(sys.argv[1]), config(sys.argv[2])
given = json.loads(t["params"].strip("'"))
norm = lambda v: {"true": True, "false": False}.get(str(v).lower(), float(v) if re.fullmatch(r"[-+.\deE]+", str(v)) else v)
sys.exit(0 if {k: norm(v) for k, v in c.items()} == {k: norm(v) for k, v in given.items()} else 1)
PY
    fail "bench/vs_pytorch/$name.yaml's params are not configs/$name.yaml's component.config"
done

if ! "$HARNESS" list --json --filter '^python/cpu$' >/dev/null 2>&1; then
    echo "SKIP (the rest): the python component is not built (harness list shows no python/cpu)"
    finish
fi

# Under the harness (python/cpu), tiny shapes: validation passes, and the
# cost is the C variant's.
write() {  # write FILE VARIANT_LINES...: a tiny config
    file=$1; shift
    { printf 'experiment:\n  name: %s\n  output_dir: %s\ndevice: cpu\n' "${file%.yaml}" "$SCRATCH/exp"
      printf 'schedule:\n  warmup_steps: 1\n  wait_steps: 0\n  measurement_steps: 3\n  repeat: 1\n'
      printf 'profiling:\n  trace: false\n  memory: false\ncomponent:\n'
      for line in "$@"; do printf '%s\n' "$line"; done
      printf 'data:\n  generator: random_normal\n  seed: 7\nvalidate: true\n'; } >"$file"
}
peer() {  # peer FAMILY CLASS JSON: the peer's component lines
    printf '  variant_key: python/cpu\n  config:\n    callable: %s/%s_torch.py:%s\n    params: '"'"'%s'"'"'\n    python: %s' \
        "$peers" "$1" "$2" "$3" "$py"
}
cfg() {  # cfg FAMILY JSON: the C variant's component lines
    printf '  variant_key: %s/cpu\n  config:\n' "$1"
    "$py" -c 'import json, sys
for k, v in json.loads(sys.argv[1]).items(): print(f"    {k}: {str(v).lower() if isinstance(v, bool) else v}")' "$2"
}
set -- rms_norm RmsNormTorch '{"batch_size": 2, "seq_len": 3, "hidden_size": 40, "dtype": "bf16"}' \
       attention AttentionTorch '{"batch_size": 1, "num_heads": 4, "num_kv_heads": 2, "seq_len": 5, "kv_seq_len": 9, "head_dim": 16}' \
       transformer_block TransformerBlockTorch '{"seq_len": 6, "hidden_size": 32, "num_heads": 4, "num_kv_heads": 2, "intermediate_size": 48}'
while [ $# -ge 3 ]; do
    write "c_$1.yaml" "$(cfg "$1" "$3")"
    write "torch_$1.yaml" "$(peer "$1" "$2" "$3")"
    for side in c torch; do
        expect_exit 0 "$side $1 runs and validates" "$HARNESS" run "${side}_$1.yaml" --quiet
        tail -1 "$SCRATCH/out" >"$side.dir"
    done
    "$py" - "$(cat c.dir)" "$(cat torch.dir)" <<'PY' && pass "$1/torch: validated, the C variant's cost" ||
import json, sys
c, t = (json.load(open(d + "/summary_ranks_1_rank_0.json")) for d in sys.argv[1:])
assert t["validation"]["passed"] and t["validation"]["checked"] > 0, t["validation"]
for k in ("flops_per_step", "bytes_per_step"):
    assert c["throughput"][k] == t["throughput"][k], (k, c["throughput"][k], t["throughput"][k])
PY
        fail "$1/torch: summary"
    shift 3
done

# harness ab: rms_norm/cpu against its peer, to a verdict (functional, not a timing).
expect_exit_any() {  # the verdict's codes: 0 same or faster, 1 slower
    "$@" >"$SCRATCH/out" 2>"$SCRATCH/err"; code=$?
    if [ $code -le 1 ] && grep -Eq 'SAME|IMPROVEMENT|REGRESSION|AMBIGUOUS' "$SCRATCH/out"; then pass "$desc (exit $code)"
    else fail "$desc: exit $code"; sed 's/^/  /' "$SCRATCH/err" | head; fi
}
desc="ab rms_norm/cpu vs its peer (python/cpu) gives a verdict"
expect_exit_any "$HARNESS" ab c_rms_norm.yaml torch_rms_norm.yaml --rounds 6 --quiet --output-dir "$SCRATCH/ab1"
# The peers as variants of their own (python_peers.c): a C variant's config
# runs its peer with one --set, validated; the family name still means C.
HARNESS_TORCH_PYTHON=$py
export HARNESS_TORCH_PYTHON
tiny_rms="--set component.config.seq_len=4 --set component.config.hidden_size=64"
tiny_att="--set component.config.seq_len=16 --set component.config.num_heads=4 --set component.config.head_dim=16"
tiny_tb="--set component.config.seq_len=8 --set component.config.hidden_size=64 --set component.config.num_heads=4 \
    --set component.config.intermediate_size=96"
for family in rms_norm attention transformer_block; do
    case $family in rms_norm) tiny=$tiny_rms ;; attention) tiny=$tiny_att ;; *) tiny=$tiny_tb ;; esac
    expect_exit 0 "$family/torch from configs/$family.yaml" "$HARNESS" run "$top_srcdir/configs/$family.yaml" \
        --set component.variant_key=$family/torch $tiny --set schedule.measurement_steps=3 --set schedule.repeat=1 \
        --output-dir "$SCRATCH/peer_$family" --quiet
    grep -q '"passed":[[:space:]]*true' "$SCRATCH"/peer_$family/*/summary_ranks_1_rank_0.json &&
        grep -q "\"variant_key\":[[:space:]]*\"$family/torch\"" "$SCRATCH"/peer_$family/*/summary_ranks_1_rank_0.json &&
        pass "$family/torch validated" || fail "$family/torch: validation or key"
done
"$HARNESS" validate "$top_srcdir/configs/rms_norm.yaml" >"$SCRATCH/val" 2>&1
grep -q 'rms_norm/cpu' "$SCRATCH/val" && pass "the family name still resolves to rms_norm/cpu" ||
    fail "variant_key rms_norm no longer means rms_norm/cpu: $(head -3 "$SCRATCH/val")"
desc="ab configs/rms_norm.yaml --cand-set component.variant_key=rms_norm/torch gives a verdict"
expect_exit_any "$HARNESS" ab "$top_srcdir/configs/rms_norm.yaml" "$top_srcdir/configs/rms_norm.yaml" \
    --cand-set component.variant_key=rms_norm/torch $tiny_rms --set schedule.measurement_steps=5 \
    --set schedule.repeat=1 --set profiling.trace=false --set profiling.memory=false --rounds 6 --quiet \
    --output-dir "$SCRATCH/ab2"
finish
