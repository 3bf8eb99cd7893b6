#!/bin/sh
# bench/vs_pytorch.py holds each case to the peak of the unit the harness
# ran it on, as the harness's roofline does (harness/report/roofline_cpu.c):
# a bf16 case on AMX or the AVX-512 BF16 dot against that unit's peak; a
# bf16 case computed in fp32 FMAs (the AVX2 and AVX-512 F paths) against the
# FMA peak, not a bf16 unit it never used (on an AVX2 run of a Zen 4 that
# read 36% of a peak four times too high).
. "$top_builddir/tests/setup"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }

python3 - "$top_srcdir/bench" <<'PY' && pass "bench/vs_pytorch.py's peak per isa" || fail "bench/vs_pytorch.py's peak_kind"
import sys
sys.path.insert(0, sys.argv[1])
import vs_pytorch as v
bf16, fp32, copy = {"peak": "bf16"}, {"peak": "fp32"}, {"peak": "bytes"}
cases = [(bf16, "avx2", "fp32"), (bf16, "avx512", "fp32"), (bf16, None, "fp32"),
         (bf16, "gemm=fp32 attention=avx2 rms_norm=avx2", "fp32"),
         (bf16, "avx512_bf16", "bf16"), (bf16, "amx", "bf16"),
         (bf16, "gemm=avx512_bf16 attention=avx512_bf16 rms_norm=avx512", "bf16"),
         (fp32, "avx2", "fp32"), (fp32, "avx512_bf16", "fp32"), (copy, "avx2", "bytes")]
bad = [(c, isa, v.peak_kind(c, isa), want) for c, isa, want in cases if v.peak_kind(c, isa) != want]
for b in bad:
    print("case %s isa %s: %s, want %s" % b)
sys.exit(1 if bad else 0)
PY
finish
