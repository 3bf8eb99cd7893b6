#!/bin/sh
# Everything a CPU-only machine cannot prove, on a machine with an NVIDIA GPU:
# build with CUDA, make check with the GPU tests on, every CUDA variant run
# per dtype (validated), compute-sanitizer's four tools on each, the trace's
# kernel events, and a table of the figures beside PyTorch's own op.
#
#   usage: tests/gpu/run.sh OUTDIR
#   env:   HARNESS_DEPS_DEBS=DIR  .deb files from tests/gpu/fetch_deps.sh, for a
#                                 machine without the -dev packages or a registry
#          JOBS=N                 build parallelism (default: nproc)
#          SKIP="check sanitize"  parts to leave out (a second call, when a first one's
#                                 time ran out: make check and compute-sanitizer are the long ones)
#
# Run from a source tree with ./configure (a `make dist` tarball, unpacked;
# or a checkout after autoreconf -fi). Everything goes to OUTDIR: build.log,
# check.log, the experiments, sanitizer logs and table.md.
set -u
out=${1:?usage: tests/gpu/run.sh OUTDIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/../.." || exit 2
top=$(pwd)
jobs=${JOBS:-$(nproc)}
status=0
note() { printf 'gpu/run.sh: %s\n' "$*" | tee -a "$out/run.log"; }
bad() { note "FAIL: $*"; status=1; }

command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { note "no GPU visible"; exit 77; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"

# ---- dependencies from .deb files, unpacked into a private prefix ----------
if [ -n "${HARNESS_DEPS_DEBS:-}" ]; then
    deps=$out/deps
    for f in "$HARNESS_DEPS_DEBS"/*.deb; do dpkg -x "$f" "$deps"; done
    lib=$deps/usr/lib/x86_64-linux-gnu
    # The .pc files name /usr; preset flags spare configure the pkg-config lookups.
    export CPPFLAGS="-I$deps/usr/include ${CPPFLAGS:-}" LDFLAGS="-L$lib -Wl,-rpath,$lib ${LDFLAGS:-}"
    export YAML_CFLAGS="-I$deps/usr/include" YAML_LIBS="-L$lib -lyaml"
    export CJSON_CFLAGS="-I$deps/usr/include/cjson" CJSON_LIBS="-L$lib -lcjson"
    export CMOCKA_CFLAGS="-I$deps/usr/include" CMOCKA_LIBS="-L$lib -lcmocka"
    export SQLITE3_CFLAGS="-I$deps/usr/include" SQLITE3_LIBS="-L$lib -lsqlite3"
    export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

# ---- build and make check ---------------------------------------------------
[ -x configure ] || autoreconf -fi >"$out/autoreconf.log" 2>&1 || { note "no ./configure and no autoreconf"; exit 2; }
{ ./configure --with-cuda && make -j"$jobs"; } >"$out/build.log" 2>&1 || { note "build failed (build.log)"; tail -30 "$out/build.log"; exit 1; }
note "built: $(grep -E 'CUDA:' "$out/build.log" | tail -1)"
skip() { case " ${SKIP:-} " in *" $1 "*) return 0;; esac; return 1; }
if skip check; then
    note "make check skipped (SKIP)"
elif ! HARNESS_GPU_TESTS=1 make -j"$jobs" check >"$out/check.log" 2>&1; then
    bad "make check (check.log; the failed tests' logs in testlogs/)"
    mkdir -p "$out/testlogs"
    for t in $(sed -n 's/^\(FAIL\|ERROR\): //p' "$out/check.log"); do cp "${t%.*}.log" "$out/testlogs/" 2>/dev/null; done
fi
skip check || grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR)' "$out/check.log" | tee -a "$out/run.log"

# ---- every CUDA variant, per dtype ------------------------------------------
H=$top/harness/harness
"$H" list --json >"$out/list.json" || bad "harness list"
python3 - "$out/list.json" >"$out/variants.txt" <<'PY'
import json, sys
# One line per CUDA variant: key, family, its dtype choices (or "-").
for v in json.load(open(sys.argv[1]))["variants"]:
    if v["device"] != "cuda":
        continue
    dtypes = next((p.get("choices") for p in v["params"] if p["name"] == "dtype"), None) or ["-"]
    print(v["key"], v["family"], " ".join(dtypes))
PY
[ -s "$out/variants.txt" ] || bad "no CUDA variant listed"
while read -r key family dtypes; do
    config=$top/configs/$family.yaml
    [ -f "$config" ] || { bad "$key: no configs/$family.yaml"; continue; }
    for dt in $dtypes; do
        tag=$(echo "$key" | tr / _)_$dt
        set -- --set component.variant_key="$key" --set validate=true
        [ "$dt" = - ] || set -- "$@" --set component.config.dtype="$dt"
        if "$H" run "$config" "$@" --output-dir "$out/exp/$tag" >"$out/$tag.log" 2>&1; then
            note "$key $dt: ok"
        else
            bad "$key $dt: exit $? ($tag.log)"
        fi
    done
    # compute-sanitizer, each tool, a short schedule of each dtype (each may
    # run another kernel: attention/cuda's fp32 and bf16 do).
    skip sanitize && continue
    for dt in $dtypes; do
    for tool in memcheck racecheck initcheck synccheck; do
        set -- --set component.variant_key="$key" --set schedule.warmup_steps=1 --set schedule.wait_steps=0 \
            --set schedule.measurement_steps=2 --set schedule.repeat=1 --set profiling.trace=false
        [ "$dt" = - ] || set -- "$@" --set component.config.dtype="$dt"
        log=$out/sanitizer_$(echo "$key" | tr / _)_${dt}_$tool.log
        if compute-sanitizer --tool "$tool" --error-exitcode 99 "$H" run "$config" "$@" \
                --output-dir "$out/sanitizer" >"$log" 2>&1; then
            note "$key $dt compute-sanitizer $tool: clean"
        elif [ "$tool" = racecheck ] && ! grep 'Race reported' "$log" | grep -qE 'rms_norm|attention|softmax'; then
            # cuBLAS's Hopper kernels (nvjet_*) draw racecheck reports of their own.
            note "$key $dt compute-sanitizer racecheck: hazards only in library kernels, none in ours:" \
                "$(grep -o 'Race reported between [A-Za-z]* access at [A-Za-z0-9_]*' "$log" | sort -u | head -2)"
        else
            bad "$key $dt compute-sanitizer $tool: exit $? ($(basename "$log"))"
        fi
    done
    done
done <"$out/variants.txt"

# ---- the CUDA schedule options, device selection, the summary's GPU fields -----
cfg=$top/configs/rms_norm_cuda.yaml
for opt in timing=per_step timing=batch flush_l2=true cuda_graph=true; do
    tag=opts_$(echo "$opt" | tr = _)
    if "$H" run "$cfg" --set schedule.$opt --output-dir "$out/exp_opts/$tag" >"$out/$tag.log" 2>&1; then
        note "rms_norm/cuda schedule.$opt: ok"
    else
        bad "rms_norm/cuda schedule.$opt: exit $? ($tag.log)"
    fi
done
python3 "$top/tests/gpu/check_summaries.py" "$out/exp_opts" | tee "$out/options.md" || bad "GPU summary fields (options.md)"
"$H" run "$cfg" --set device_index=99 --output-dir "$out/exp_bad" >"$out/device_index.log" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q device_index "$out/device_index.log" && [ ! -d "$out/exp_bad" ]; then
    note "device_index 99: exit $rc, $(head -1 "$out/device_index.log")"
else
    bad "device_index 99: exit $rc, or no message naming it, or a folder left (device_index.log)"
fi
"$H" run "$top/configs/rms_norm.yaml" --output-dir "$out/exp_auto" >"$out/auto.log" 2>&1 \
    && grep -q 'rms_norm/cuda' "$out"/exp_auto/*/summary_ranks_1_rank_0.json \
    && note "device auto: rms_norm/cuda" || bad "device auto did not pick rms_norm/cuda (auto.log)"
(cd "$top" && bench/cupti_overhead.sh 5 "$cfg") >"$out/cupti_overhead.txt" 2>&1 || bad "bench/cupti_overhead.sh"
cat "$out/cupti_overhead.txt"

# ---- the trace holds the GPU's kernels ----------------------------------------
trace=$(ls "$out"/exp/*/*/profiler_trace_*.json 2>/dev/null | head -1)
if [ -n "$trace" ] && python3 - "$trace" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
kernels = [e for e in events if e.get("cat") == "kernel"]
flows = [e for e in events if e.get("ph") in ("s", "f")]
print(f"trace {sys.argv[1].split('/')[-3]}: {len(kernels)} kernel events, {len(flows)} flow events")
sys.exit(0 if kernels else 1)
PY
then note "trace has kernel events"; else bad "no kernel events in a trace"; fi

# ---- the table ---------------------------------------------------------------
python3 "$top/tests/gpu/table.py" "$out/exp" >"$out/table.md" || bad "table"
cat "$out/table.md"
note "$([ $status = 0 ] && echo 'all passed' || echo 'some checks FAILED'); everything is in $out"
exit $status
