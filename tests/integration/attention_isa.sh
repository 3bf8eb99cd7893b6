#!/bin/sh
# attention/cpu's instruction set: every path this CPU has, forced by the
# `isa` parameter or by HARNESS_CPU_ISA, validates and is named in the
# summary's component_notes (bf16's path, or the fp32 kernels the dot paths
# run fp32 on); a path the CPU lacks is a config error (exit 2) naming where
# it was asked for. Paths this CPU lacks are listed, not run.
. "$top_builddir/tests/setup"
SMALL="--set schedule.warmup_steps=1 --set schedule.wait_steps=0 --set schedule.measurement_steps=2 --set schedule.repeat=1"
SHAPE="--set component.config.seq_len=33 --set component.config.kv_seq_len=70 --set component.config.num_heads=4
       --set component.config.num_kv_heads=2 --set component.config.head_dim=64"

# The path noted by the last run: component_notes.isa of its summary.
noted() {
    dir=$(sed -n 's/^experiment: //p' "$SCRATCH/out")
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["component_notes"].get("isa", ""))' \
        "$dir/summary_ranks_1_rank_0.json"
}

# Which paths this CPU has: a forced one it lacks fails validation.
have=
for isa in amx avx512_bf16 avx512 avx2 portable; do
    if "$HARNESS" validate "$top_srcdir/configs/attention.yaml" --set component.variant_key=attention/cpu \
        --set component.config.isa=$isa >/dev/null 2>&1; then have="$have $isa"
    else echo "# this CPU lacks $isa: its runs are skipped, its refusal is tested"; lacks=$isa; fi
done
pass "paths this CPU has:$have"

for isa in $have; do
    for dtype in fp32 bf16; do
        expect_exit 0 "isa $isa, $dtype" "$HARNESS" run "$top_srcdir/configs/attention.yaml" \
            --output-dir "$SCRATCH/att" $SMALL $SHAPE --set component.variant_key=attention/cpu \
            --set component.config.dtype=$dtype --set component.config.isa=$isa
        grep -q 'validation: passed' "$SCRATCH/out" || fail "isa $isa $dtype validated"
        want=$isa
        case "$isa:$dtype" in amx:fp32 | avx512_bf16:fp32) want=avx512;; esac
        got=$(noted)
        [ "$got" = "$want" ] && pass "isa $isa $dtype noted as $got" || fail "isa $isa $dtype noted as '$got', not $want"
    done
done

# block_fp32 ISA: a small fp32 block under HARNESS_CPU_ISA=ISA.
block_fp32() {
    env HARNESS_CPU_ISA="$1" "$HARNESS" run "$top_srcdir/configs/transformer_block.yaml" --output-dir "$SCRATCH/tb" \
        $SMALL --set component.config.dtype=fp32 --set component.config.seq_len=16 \
        --set component.config.hidden_size=128 --set component.config.num_heads=2 \
        --set component.config.num_kv_heads=2 --set component.config.intermediate_size=256
}

# The block's note names the attention path its dtype runs: fp32 attention
# runs the avx512 kernels even where avx512_bf16 or amx is the choice.
for isa in $have; do
    case $isa in amx | avx512_bf16) ;; *) continue ;; esac
    expect_exit 0 "block fp32 under HARNESS_CPU_ISA=$isa" block_fp32 "$isa"
    got=$(noted)
    case $got in *"attention=avx512 "*) pass "block fp32 under $isa notes attention=avx512" ;;
        *) fail "block fp32 under $isa noted '$got', not attention=avx512" ;; esac
done

# HARNESS_CPU_ISA forces the block's attention and RMSNorm too (fp32 paths;
# validated against the double reference), and a path the CPU lacks is
# refused, not run as another.
for isa in $have; do
    case $isa in avx2 | portable) ;; *) continue ;; esac
    expect_exit 0 "block fp32 under HARNESS_CPU_ISA=$isa" block_fp32 "$isa"
    grep -q 'validation: passed' "$SCRATCH/out" || fail "block under $isa validated"
    got=$(noted)
    [ "$got" = "gemm=fp32 attention=$isa rms_norm=$isa" ] && pass "block fp32 under $isa noted '$got'" ||
        fail "block fp32 under $isa noted '$got', not attention=$isa rms_norm=$isa"
done
for lacks in amx avx512_bf16 avx512 avx2; do
    case " $have " in *" $lacks "*) continue ;; esac
    expect_exit 2 "block under HARNESS_CPU_ISA=$lacks on a CPU without it" block_fp32 "$lacks"
    expect_err "HARNESS_CPU_ISA=$lacks is not an instruction set this CPU offers the block's kernels" \
        "the block names the variable and the path"
    break
done

# The environment variable decides when the parameter is auto.
expect_exit 0 "HARNESS_CPU_ISA=portable" env HARNESS_CPU_ISA=portable "$HARNESS" run \
    "$top_srcdir/configs/attention.yaml" --output-dir "$SCRATCH/att" $SMALL $SHAPE \
    --set component.variant_key=attention/cpu --set component.config.dtype=bf16
got=$(noted)
[ "$got" = portable ] && pass "HARNESS_CPU_ISA chose portable" || fail "HARNESS_CPU_ISA=portable ran '$got'"

if [ -n "${lacks:-}" ]; then
    expect_exit 2 "isa $lacks on a CPU without it" "$HARNESS" run "$top_srcdir/configs/attention.yaml" \
        --output-dir "$SCRATCH/bad" --set component.variant_key=attention/cpu --set component.config.isa=$lacks
    expect_err "component.config.isa: isa: $lacks is not an instruction set this CPU" "names the isa key"
    expect_exit 2 "HARNESS_CPU_ISA=$lacks on a CPU without it" env HARNESS_CPU_ISA=$lacks "$HARNESS" run \
        "$top_srcdir/configs/attention.yaml" --output-dir "$SCRATCH/bad" --set component.variant_key=attention/cpu
    expect_err "HARNESS_CPU_ISA (environment): $lacks is not" "names the environment variable"
fi
expect_exit 2 "HARNESS_CPU_ISA=sse9" env HARNESS_CPU_ISA=sse9 "$HARNESS" run "$top_srcdir/configs/attention.yaml" \
    --output-dir "$SCRATCH/bad" --set component.variant_key=attention/cpu
expect_err "HARNESS_CPU_ISA (environment): sse9 is not" "an unknown name in the environment is refused"
[ ! -e "$SCRATCH/bad" ] || fail "a refused isa leaves no experiment folder"
finish
