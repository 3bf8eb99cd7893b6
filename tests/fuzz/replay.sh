#!/bin/sh
# The fuzz targets over their seed corpus and every regression input (a
# crash, leak or round-trip mismatch once found by `make fuzz` and kept in
# tests/fuzz/regressions/<target>/): each must run clean. In the sanitizer
# build this is where a leak or an overflow on those inputs shows up.
. "$top_builddir/tests/setup"

fuzz="$top_builddir/tests/fuzz"
regress="$top_srcdir/tests/fuzz/regressions"

# The config target: every config in the tree, then the regressions.
set -- "$top_srcdir"/configs/*.yaml "$top_srcdir"/tests/configs/*.yaml "$top_srcdir"/tests/configs/bad/*.yaml \
    "$regress"/config/*
if "$fuzz/replay_config" "$@" 2>"$SCRATCH/err"; then pass "config target: $# inputs"
else fail "config target"; head -40 "$SCRATCH/err"; fi

# The summary target: a real summary, then the regressions.
"$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/exp" --quiet >/dev/null 2>&1 ||
    fail "no summary to seed with"
set -- "$SCRATCH"/exp/*/summary_ranks_1_rank_0.json "$regress"/summary/*
if "$fuzz/replay_summary" "$@" 2>"$SCRATCH/err"; then pass "summary target: $# inputs"
else fail "summary target"; head -40 "$SCRATCH/err"; fi

# The folder target: a real run's status and summary as records, then the
# regressions (FIFOs, links to /dev/zero and to the folder, huge ranks).
python3 - "$SCRATCH"/exp/* "$SCRATCH/folder_seed" <<'PY' || fail "a folder seed"
import sys
d, out = sys.argv[1:]
recs = [b"f" + name.encode() + b"\0" + open(f"{d}/{name}", "rb").read()
        for name in ("status.json", "summary_ranks_1_rank_0.json")]
open(out, "wb").write(b"\0\0".join(recs))
PY
set -- "$SCRATCH/folder_seed" "$regress"/folder/*
if timeout 120 "$fuzz/replay_folder" "$@" 2>"$SCRATCH/err"; then pass "folder target: $# inputs"
else fail "folder target"; head -40 "$SCRATCH/err"; fi
finish
