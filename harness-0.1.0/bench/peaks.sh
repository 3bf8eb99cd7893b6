# bench/peaks.sh - sourced by the bench scripts (from the top of a built
# tree): measures this machine's peaks now, with `harness calibrate --quick`
# into a temporary file, prints the machine's identity and the peaks, and
# sets PEAK_GFLOPS (fp32 FMA, all threads) and PEAK_GBPS (copy, bytes read +
# written). Measured in the same run as the figures quoted against them, so
# a fraction never compares this machine with another one, or a quiet
# moment with a busy one.
peaks_file=$(mktemp)
if ! harness/harness calibrate --quick --output "$peaks_file" >/dev/null; then
    rm -f "$peaks_file"
    echo "$0: harness calibrate failed (build first: make -j2)" >&2
    exit 3
fi
eval "$(python3 - "$peaks_file" <<'PY'
import json, shlex, sys
m = json.load(open(sys.argv[1]))
i, p = m["identity"], m["peaks"]
print(f"PEAK_GFLOPS={p['flops_per_s'] / 1e9:.1f} PEAK_GBPS={p['bytes_per_s'] / 1e9:.1f}")
print("PEAK_MACHINE=" + shlex.quote(f"{i['cpu_model']}, {i['logical_cpus']} logical CPUs, {i['threads']} threads"))
print("PEAK_ISA=" + shlex.quote(p.get("flops_isa", "?")))
PY
)"
rm -f "$peaks_file"
echo "machine: $PEAK_MACHINE"
echo "peaks (harness calibrate --quick, this run): fp32 FMA $PEAK_GFLOPS GFLOP/s ($PEAK_ISA), copy $PEAK_GBPS GB/s (read + written)"
export PEAK_GFLOPS PEAK_GBPS
