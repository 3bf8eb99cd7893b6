#!/bin/sh
# Facts said where people look (issue 40, item 9): the component's notes
# (the kernel path it took) in the text summaries and on stdout; compare
# with no matching run names the key that differs; a missing config names
# the nearest YAML file; a mistyped option gets a did-you-mean in every
# command; --help lists the short options.
. "$top_builddir/tests/setup"
TINY="$CONFIGS/rms_norm_tiny.yaml"

"$HARNESS" run "$TINY" --output-dir "$SCRATCH/a" >"$SCRATCH/out" 2>"$SCRATCH/err" || fail "run: $(cat "$SCRATCH/err")"
dir=$(sed -n 's/^experiment: //p' "$SCRATCH/out")
grep -q "^component notes: isa: [a-z0-9]" "$SCRATCH/out" && pass "stdout: the component's notes (isa)" ||
    { fail "stdout lacks the component notes:"; sed 's/^/  /' "$SCRATCH/out"; }
grep -q "^component notes: isa: " "$dir/summary.txt" && pass "summary.txt: the component's notes" ||
    { fail "summary.txt lacks them:"; sed 's/^/  /' "$dir/summary.txt"; }
grep -q "^  component notes: isa: " "$dir/profiler_summary_ranks_1_rank_0.txt" &&
    pass "the rank's text summary: the component's notes" || fail "the rank's text summary lacks them"

# compare with nothing matching: the key that differs, both values.
"$HARNESS" run "$TINY" --quiet --output-dir "$SCRATCH/b" --set component.config.hidden_size=9 >/dev/null 2>&1 ||
    fail "run hidden_size=9"
expect_exit 2 "compare: no run matches" "$HARNESS" compare "$SCRATCH/a" "$SCRATCH/b"
expect_err "$SCRATCH/a's rms_norm/cpu hidden_size=7, and the nearest run of $SCRATCH/b has hidden_size=9" \
    "compare names the differing key and both values"

# A missing config: the nearest YAML file in its folder, or in configs/.
mkdir -p "$SCRATCH/cf/configs" && cp "$TINY" "$SCRATCH/cf/configs/rms_norm.yaml"
expect_exit 2 "a config one letter off" "$HARNESS" run "$SCRATCH/cf/configs/rmsnorm.yaml"
expect_err "did you mean $SCRATCH/cf/configs/rms_norm.yaml?" "... names the nearest file in its folder"
(cd "$SCRATCH/cf" && "$HARNESS" validate rms_norm.yml) >/dev/null 2>"$SCRATCH/err"
expect_err "did you mean configs/rms_norm.yaml?" "... or in configs/"
expect_exit 2 "a suite with a config one letter off" "$HARNESS" run "$SCRATCH/cf/configs/rmsnorm.yaml" "$TINY"
expect_err "did you mean $SCRATCH/cf/configs/rms_norm.yaml?" "... in a suite too"
(cd "$SCRATCH/cf" && "$HARNESS" validate zzzzzzzz.yaml) >/dev/null 2>"$SCRATCH/err"
! grep -q "did you mean" "$SCRATCH/err" && pass "nothing near: no guess" || fail "a guess for zzzzzzzz.yaml"

# A mistyped option: did-you-mean in every command; an option without its value says so.
expect_exit 2 "run --quite" "$HARNESS" run "$TINY" --quite
expect_err "run: unknown option '--quite' (did you mean --quiet?)" "run --quite: did you mean --quiet?"
for cmd in run validate list compare ab record history export calibrate new-plugin; do
    expect_exit 2 "$cmd --hepl" "$HARNESS" $cmd --hepl
    expect_err "$cmd: unknown option '--hepl' (did you mean --help?)" "$cmd: did you mean --help?"
done
expect_exit 2 "harness --versin" "$HARNESS" --versin
expect_err "unknown option '--versin'; did you mean --version?" "harness --versin: did you mean --version?"
expect_exit 2 "compare --thresold" "$HARNESS" compare a b --thresold 5
expect_err "(did you mean --threshold?)" "compare: did you mean --threshold?"
expect_exit 2 "run --output-dir without its value" "$HARNESS" run "$TINY" --output-dir
expect_err "run: --output-dir needs a value (DIR)" "an option without its value is named with what it needs"

# --help lists the short options the man pages document.
"$HARNESS" run --help >"$SCRATCH/help"
grep -q -- "-q, --quiet" "$SCRATCH/help" && grep -q -- "-s, --set KEY=VALUE" "$SCRATCH/help" &&
    pass "run --help lists -q and -s" || fail "run --help lacks its short options"

finish
