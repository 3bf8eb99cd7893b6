#!/bin/sh
# The CI recipe (scripts/ci-bench, as .github/workflows/benchmarks.yml runs
# it) on a scratch git repository whose benchmark config is a spin: commit
# c1 at 50 us, c2 with an unrelated change, c3 configured 10% slower.
# Main records c1 and c2 (two runs each) into the results database; the pull request c2 ->
# c3 is a REGRESSION (exit 1, the markdown report says +10%), c1 -> c2 is
# SAME (exit 0).
. "$top_builddir/tests/setup"
command -v git >/dev/null || { echo "git not installed"; exit 77; }

CI_BENCH="$top_srcdir/scripts/ci-bench"
export HARNESS OUT="$SCRATCH/ci"
export AB_ROUNDS=12 RUNS=2
repo="$SCRATCH/repo"
mkdir "$repo" && cd "$repo" || exit 99
git init -q . && git config user.email ci@example.com && git config user.name ci || fail "git init"
write_config() {  # write_config DURATION_NS COMMENT
    cat >bench.yaml <<YAML
# $2
schedule: {warmup_steps: 5, wait_steps: 1, measurement_steps: 60, repeat: 3}
profiling: {trace: false, memory: false}
component:
  variant_key: spin/cpu
  config: {duration_ns: $1}
validate: false
YAML
    git add bench.yaml && git commit -qm "$2" && git rev-parse HEAD
}
c1=$(write_config 50000 "a spin of 50 us") || fail "commit c1"
c2=$(write_config 50000 "the same spin, a comment changed") || fail "commit c2"
c3=$(write_config 55000 "a spin 10% slower") || fail "commit c3"
cd "$SCRATCH" || exit 99
git -C "$repo" worktree add -q "$SCRATCH/at-c1" "$c1" && git -C "$repo" worktree add -q "$SCRATCH/at-c2" "$c2" &&
    git -C "$repo" worktree add -q "$SCRATCH/at-c3" "$c3" || fail "worktrees"

# On main: c1, then c2, recorded; each job prints the history.
expect_exit 0 "main records c1" "$CI_BENCH" main "$SCRATCH/results.sqlite" "$c1" main "$SCRATCH/at-c1/bench.yaml"
expect_exit 0 "main records c2" "$CI_BENCH" main "$SCRATCH/results.sqlite" "$c2" main "$SCRATCH/at-c2/bench.yaml"
grep -q "^## harness history: 1 series" "$SCRATCH/out" || fail "main: the history"
grep -q "^4 runs, 0 change points" "$SCRATCH/out" || fail "main: two runs of each commit in the series"
grep -q "| 3 | \`$c2\` |" "$SCRATCH/out" || fail "main: c2's runs come third and fourth"

# Pull request c2 -> c3: 10% slower, REGRESSION, exit 1.
expect_exit 1 "pull request c2 -> c3" "$CI_BENCH" pr "$SCRATCH/at-c2" "$SCRATCH/at-c3" "$SCRATCH/report.md" bench.yaml
grep -q '^\*\*harness ab: REGRESSION\*\*' "$SCRATCH/report.md" || fail "c2 -> c3: the headline"
grep -q '^| \*\*REGRESSION\*\* | `spin/cpu` | `duration_ns=50000` | 0/1 | .* | +\(9\.[5-9]\|10\.[0-5]\)% | [0-9.]* | 12/12 rounds |' \
    "$SCRATCH/report.md" || { fail "c2 -> c3: the row says +10% on 8 rounds"; cat "$SCRATCH/report.md"; }

# Pull request c1 -> c2: the same speed, SAME, exit 0 (at a generous
# threshold: make check shares its machine with other builds).
AB_THRESHOLD=20
export AB_THRESHOLD
expect_exit 0 "pull request c1 -> c2" "$CI_BENCH" pr "$SCRATCH/at-c1" "$SCRATCH/at-c2" "$SCRATCH/report2.md" bench.yaml
unset AB_THRESHOLD
grep -q '^\*\*harness ab: SAME\*\*' "$SCRATCH/report2.md" || fail "c1 -> c2: the headline"

# Bad input is not a verdict: a config the trees lack exits 2.
expect_exit 2 "a config the trees lack" "$CI_BENCH" pr "$SCRATCH/at-c1" "$SCRATCH/at-c2" "$SCRATCH/r3.md" nope.yaml
expect_exit 2 "no mode" "$CI_BENCH"
finish
