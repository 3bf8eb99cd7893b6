#!/bin/sh
# tests/gpu/run.sh's control flow on a machine without a GPU: a stand-in
# nvidia-smi, the tree built here (HARNESS_GPU_TREE) and a budget of 0 s, so
# each slice starts no run and must say so. Every slice still ends with the
# results file and, with --export, exactly the four files the device tool
# brings back (at most 8, names of letters, digits, '.', '_', '-'); slices
# run one after another add up in one work folder, and their bundles merge
# into the same file elsewhere; with no GPU it exits 77.
. "$top_builddir/tests/setup"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
# run.sh builds in its source tree (HARNESS_GPU_TREE is both); a build
# outside the sources (make distcheck's) has no configs/ beside the binary.
[ "$(cd "$top_srcdir" && pwd -P)" = "$(cd "$top_builddir" && pwd -P)" ] ||
    { echo "a build outside the source tree: skipped"; exit 77; }

mkdir -p "$SCRATCH/bin"
cat >"$SCRATCH/bin/nvidia-smi" <<'SMI'
#!/bin/sh
case $* in
-L) echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)" ;;
*) echo "NVIDIA H100 80GB HBM3, 580.159.04, 81559 MiB" ;;
esac
SMI
chmod +x "$SCRATCH/bin/nvidia-smi"
run() { # run SLICE: one slice of the stand-in machine into WORK, exported to OUT_SLICE
    rm -rf "$SCRATCH/out_$1"
    PATH="$SCRATCH/bin:$PATH" HARNESS_GPU_TREE=$top_builddir HARNESS_GPU_BUDGET_S=0 \
        HARNESS_GPU_CARRY=$SCRATCH/carry \
        sh "$top_srcdir/tests/gpu/run.sh" --slice "$1" --export "$SCRATCH/out_$1" "$SCRATCH/work"
}
mkdir -p "$SCRATCH/carry"
echo "commit 0123456789abcdef0123 edits e3b0c44298fc" >"$SCRATCH/carry/SOURCE"

expect_exit 0 "slice 1 with no time" run 1
grep -q 'validate .*: not run (out of time in slice 1)' "$SCRATCH/out" && pass "says validation was not run" ||
    fail "no out-of-time line: $(grep -v '^ok' "$SCRATCH/out" | head -5)"
ls "$SCRATCH/out_1" >"$SCRATCH/files"
[ "$(wc -l <"$SCRATCH/files")" -eq 4 ] && pass "four files exported" || fail "exported: $(tr '\n' ' ' <"$SCRATCH/files")"
grep -qvE '^[A-Za-z0-9._-]+$' "$SCRATCH/files" && fail "a name the device tool refuses: $(cat "$SCRATCH/files")"
md=$SCRATCH/out_1/h100-80gb-hbm3-$(date -u +%Y-%m-%d)-0123456789ab.md
[ -s "$md" ] && pass "the results file, named by the GPU, date and carried commit" ||
    { fail "no $md: $(tr '\n' ' ' <"$SCRATCH/files")"; finish; }
grep -q '| driver | 580.159.04 |' "$md" && pass "the driver from nvidia-smi" || fail "no driver in the results"
grep -q '^| skip | validate .* | not run | out of time in slice 1 |' "$md" && pass "the skip in the results" ||
    fail "no skip row in the results"
tar tzf "$SCRATCH/out_1/bundle.tgz" >"$SCRATCH/bundle" && grep -qx 'verdicts.tsv' "$SCRATCH/bundle" &&
    grep -qx 'facts.txt' "$SCRATCH/bundle" && pass "bundle.tgz: verdicts and facts" || fail "bundle: $(cat "$SCRATCH/bundle")"

expect_exit 0 "slice 6 with no time" run 6
grep -q 'timing integrity: not run (out of time in slice 6)' "$SCRATCH/out" && pass "slice 6 says integrity was not run" ||
    fail "slice 6: no out-of-time line: $(grep -v '^ok' "$SCRATCH/out" | head -5)"

expect_exit 0 "slice 3 after it, same work folder" run 3
md=$SCRATCH/out_3/$(basename "$md")
grep -q '| skip | compute-sanitizer | not run | out of time in slice 3 |' "$md" &&
    grep -q '| skip | validate .* | not run | out of time in slice 1 |' "$md" &&
    pass "the results of both slices" || fail "slice 3's results lack a slice's lines"

# Slices on different machines: their bundles merged here give the same file.
mkdir -p "$SCRATCH/b1" "$SCRATCH/b3"
tar xzf "$SCRATCH/out_1/bundle.tgz" -C "$SCRATCH/b1" && tar xzf "$SCRATCH/out_3/bundle.tgz" -C "$SCRATCH/b3" ||
    fail "unpack the bundles"
expect_exit 0 "results.py on the two bundles" python3 "$top_srcdir/tests/gpu/results.py" --outdir "$SCRATCH/merged" \
    "$SCRATCH/b1" "$SCRATCH/b3"
cmp -s "$md" "$SCRATCH/merged/$(basename "$md")" && pass "the bundles merged make the last slice's file" ||
    fail "merged bundles differ: $(diff "$md" "$SCRATCH/merged/$(basename "$md")" | head -5)"

# No GPU: an nvidia-smi that finds no driver, first on PATH (a GPU machine
# has a real one in /usr/bin).
mkdir -p "$SCRATCH/nogpu"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver." >&2\nexit 9\n' \
    >"$SCRATCH/nogpu/nvidia-smi"
chmod +x "$SCRATCH/nogpu/nvidia-smi"
PATH="$SCRATCH/nogpu:/usr/bin:/bin" expect_exit 77 "no GPU" sh "$top_srcdir/tests/gpu/run.sh" --slice 1 "$SCRATCH/work2"
finish
