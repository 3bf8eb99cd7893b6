#!/bin/sh
# The CI recipe (scripts/ci-bench and scripts/ci-comment, as
# .github/workflows/benchmarks.yml runs them) on a scratch git repository
# whose benchmark config is a spin: on main, c1 at 50 us, c2 with an
# unrelated change; the pull request branches from c2 and makes it 10%
# slower (c3); then main moves on (c4, 10% slower too, for its own reasons).
# Main records c1 and c2 (two runs each) into the results database. The
# pull request is measured against its merge-base c2, not main's tip c4
# (against which it would be SAME): REGRESSION, exit 1, +10%, the report's
# first line naming the merge-base, the report in the job summary, the
# JUnit file parsed; c1 -> c2 is SAME (exit 0). Two pushes' reports leave
# ONE pull request comment (a fake gh on PATH logs a POST, then a PATCH),
# and others' comments are never edited.
. "$top_builddir/tests/setup"
command -v git >/dev/null || { echo "git not installed"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }

CI_BENCH="$top_srcdir/scripts/ci-bench"
CI_COMMENT="$top_srcdir/scripts/ci-comment"
export HARNESS OUT="$SCRATCH/ci"
export AB_ROUNDS=12 RUNS=2
repo="$SCRATCH/repo"
mkdir "$repo" && cd "$repo" || exit 99
git init -q -b main . && git config user.email ci@example.com && git config user.name ci || fail "git init"
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
git checkout -q -b pr || fail "branch pr"
c3=$(write_config 55000 "a spin 10% slower") || fail "commit c3"
git checkout -q main || fail "back on main"
write_config 55000 "main slower too, after the pull request branched" >/dev/null || fail "commit c4"
cd "$SCRATCH" || exit 99
git -C "$repo" worktree add -q "$SCRATCH/at-c1" "$c1" && git -C "$repo" worktree add -q "$SCRATCH/at-c2" "$c2" &&
    git -C "$repo" worktree add -q "$SCRATCH/at-c3" "$c3" || fail "worktrees"

# On main: c1, then c2, recorded; each job prints the history.
expect_exit 0 "main records c1" "$CI_BENCH" main "$SCRATCH/results.sqlite" "$c1" main "$SCRATCH/at-c1/bench.yaml"
expect_exit 0 "main records c2" "$CI_BENCH" main "$SCRATCH/results.sqlite" "$c2" main "$SCRATCH/at-c2/bench.yaml"
grep -q "^## harness history: 1 series" "$SCRATCH/out" || fail "main: the history"
grep -q "^4 runs, 0 change points" "$SCRATCH/out" || fail "main: two runs of each commit in the series"
grep -q "| 3 | \`$c2\` |" "$SCRATCH/out" || fail "main: c2's runs come third and fourth"

# The pull request's base tree: the merge-base of its head c3 and main
# (c2), not main's tip (c4).
expect_exit 0 "the merge-base of the pull request and main" "$CI_BENCH" base "$SCRATCH/at-c3" main base
[ "$(cat "$SCRATCH/out")" = "$c2" ] || fail "base: printed $(cat "$SCRATCH/out"), the merge-base is c2 $c2"
[ "$(git -C "$SCRATCH/base" rev-parse HEAD)" = "$c2" ] || fail "base: the base tree is not at c2"
# GitLab names the merge-base itself (CI_MERGE_REQUEST_DIFF_BASE_SHA), and
# its runner keeps the clone but cleans the last job's base tree away.
expect_exit 0 "a merge-base given as a commit" "$CI_BENCH" base "$SCRATCH/at-c3" "$c2" base-gl
rm -rf "$SCRATCH/base-gl"
expect_exit 0 "again, after the base tree was cleaned away" "$CI_BENCH" base "$SCRATCH/at-c3" "$c2" base-gl
[ "$(git -C "$SCRATCH/base-gl" rev-parse HEAD)" = "$c2" ] || fail "base: the commit's tree"
expect_exit 2 "a target that does not exist" "$CI_BENCH" base "$SCRATCH/at-c3" no-such-branch base2
expect_err "no merge-base of" "base: a missing target is named"
[ ! -e "$SCRATCH/base2" ] || fail "base: a tree left behind for a missing target"

# Pull request c3 against its merge-base: 10% slower, REGRESSION, exit 1;
# the report in the job summary too, and the same verdict as JUnit.
summary="$SCRATCH/summary.md"
echo "an earlier step's summary" >"$summary"
TARGET_BRANCH=main GITHUB_STEP_SUMMARY=$summary AB_ARGS="--report json=$SCRATCH/ab.json"
export TARGET_BRANCH GITHUB_STEP_SUMMARY AB_ARGS
expect_exit 1 "pull request c3 against its merge-base" "$CI_BENCH" pr base "$SCRATCH/at-c3" "$SCRATCH/report.md" bench.yaml
unset TARGET_BRANCH GITHUB_STEP_SUMMARY AB_ARGS
short_c2=$(git -C "$repo" rev-parse --short "$c2")
head -n 1 "$SCRATCH/report.md" | grep -q "^\*\*harness ab: REGRESSION\*\* against merge-base \`$short_c2\` of \`main\`: 1 regression" ||
    { fail "c3: the first line names the verdict and the merge-base"; head -n 1 "$SCRATCH/report.md"; }
grep -q '^| \*\*REGRESSION\*\* | `spin/cpu` | `duration_ns=50000` | 0/1 | .* | +\(9\.[5-9]\|10\.[0-5]\)% | [0-9.]* | 12/12 rounds |' \
    "$SCRATCH/report.md" || { fail "c3: the row says +10% on 12 rounds"; cat "$SCRATCH/report.md"; }
[ "$(tail -n 1 "$SCRATCH/report.md")" = "<!-- harness-benchmark-report -->" ] || fail "c3: the report ends with its marker"
{ echo "an earlier step's summary"; cat "$SCRATCH/report.md"; } | cmp -s - "$summary" || fail "c3: the job summary gets the report"
python3 - "$SCRATCH/report.xml" <<'PY' || fail "c3: the JUnit file (report.xml) is JUnit XML with one failure"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag in ("testsuites", "testsuite"), root.tag
failed = [c.get("name") for c in root.iter("testcase") if c.find("failure") is not None]
assert len(failed) == 1 and "spin/cpu" in failed[0], failed
PY
# GitLab's metrics report, from ab's JSON verdict (docs/.gitlab-ci.yml).
expect_exit 0 "the verdict as OpenMetrics" "$top_srcdir/scripts/ci-metrics" "$SCRATCH/ab.json"
grep -q '^harness_regression{benchmark="spin/cpu duration_ns=50000"} 1$' "$SCRATCH/out" &&
    grep -q '^harness_ab_ratio{benchmark="spin/cpu duration_ns=50000"} 1\.\(09[5-9]\|10[0-5]\)' "$SCRATCH/out" &&
    [ "$(tail -n 1 "$SCRATCH/out")" = "# EOF" ] || { fail "c3: the metrics say REGRESSION, ratio 1.10"; cat "$SCRATCH/out"; }
expect_exit 2 "metrics of what is not a verdict" "$top_srcdir/scripts/ci-metrics" "$SCRATCH/report.md"

# Pull request c1 -> c2: the same speed, SAME, exit 0 (at a generous
# threshold: make check shares its machine with other builds); no
# TARGET_BRANCH: the base is named by its commit alone; JUNIT names the file.
short_c1=$(git -C "$repo" rev-parse --short "$c1")
AB_THRESHOLD=20 JUNIT="$SCRATCH/same.xml"
export AB_THRESHOLD JUNIT
expect_exit 0 "pull request c1 -> c2" "$CI_BENCH" pr "$SCRATCH/at-c1" "$SCRATCH/at-c2" "$SCRATCH/report2.md" bench.yaml
unset AB_THRESHOLD JUNIT
head -n 1 "$SCRATCH/report2.md" | grep -q "^\*\*harness ab: SAME\*\* against \`$short_c1\`: " || fail "c1 -> c2: the headline"
[ -s "$SCRATCH/same.xml" ] || fail "c1 -> c2: JUNIT names the JUnit file"

# Bad input is not a verdict: a config the trees lack exits 2, and the
# report says there is no verdict, with ab's error.
expect_exit 2 "a config the trees lack" "$CI_BENCH" pr "$SCRATCH/at-c1" "$SCRATCH/at-c2" "$SCRATCH/r3.md" nope.yaml
head -n 1 "$SCRATCH/r3.md" | grep -q '^\*\*harness ab: no verdict\*\* against `[0-9a-f]*`: harness ab exited 2$' ||
    fail "no verdict: the first line"
grep -q "nope.yaml" "$SCRATCH/r3.md" || fail "no verdict: ab's error is in the report"
expect_exit 3 "a report that cannot be written" "$CI_BENCH" pr "$SCRATCH/at-c1" "$SCRATCH/at-c2" "$SCRATCH/no/r.md" bench.yaml
expect_err "cannot write the report $SCRATCH/no/r.md" "a report that cannot be written: named"
expect_exit 2 "no mode" "$CI_BENCH"
# Another format asked for through AB_ARGS is the report as it is.
AB_ARGS="--format json" AB_THRESHOLD=20 JUNIT=
export AB_ARGS AB_THRESHOLD JUNIT
expect_exit 0 "pull request c1 -> c2 in JSON" "$CI_BENCH" pr "$SCRATCH/at-c1" "$SCRATCH/at-c2" "$SCRATCH/r4.json" bench.yaml
unset AB_ARGS AB_THRESHOLD JUNIT
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["verdict"] == "same"' "$SCRATCH/r4.json" ||
    fail "AB_ARGS --format json: the report is ab's JSON"

# Two pushes to pull request 7: one comment, posted then edited; a comment
# by someone else holding the marker, and the bot's own without it, are
# left alone; the listing spans pages (the fake answers two a page).
mkdir "$SCRATCH/bin" && ln -s "$top_srcdir/tests/tools/fake_forge_cli.py" "$SCRATCH/bin/gh" &&
    ln -s "$top_srcdir/tests/tools/fake_forge_cli.py" "$SCRATCH/bin/glab" || exit 99
FAKE_LOG="$SCRATCH/api.log" FAKE_STORE="$SCRATCH/comments.json" FAKE_LOGIN='github-actions[bot]' GITHUB_ACTIONS=true
PATH="$SCRATCH/bin:$PATH"
export FAKE_LOG FAKE_STORE FAKE_LOGIN GITHUB_ACTIONS PATH
cat >"$FAKE_STORE" <<'JSON'
[{"id": 1, "pr": 7, "body": "quoting the bot: <!-- harness-benchmark-report -->", "user": {"login": "alice"}},
 {"id": 2, "pr": 7, "body": "an old report of the bot, before the marker", "user": {"login": "github-actions[bot]"}},
 {"id": 3, "pr": 8, "body": "another pull request <!-- harness-benchmark-report -->", "user": {"login": "github-actions[bot]"}}]
JSON
others=$(python3 -c 'import json,sys; print(json.dumps([c for c in json.load(open(sys.argv[1])) if c["id"] < 1000]))' "$FAKE_STORE")
expect_exit 0 "first push: the comment is posted" "$CI_COMMENT" github owner/repo 7 "$SCRATCH/report.md"
expect_exit 0 "second push: the comment is edited" "$CI_COMMENT" github owner/repo 7 "$SCRATCH/report2.md"
grep -q "edited comment 1003 on owner/repo#7" "$SCRATCH/out" || fail "second push: says what it edited"
printf '%s\n' "GET repos/owner/repo/issues/7/comments?per_page=100" "POST repos/owner/repo/issues/7/comments" \
    "GET repos/owner/repo/issues/7/comments?per_page=100" "PATCH repos/owner/repo/issues/comments/1003" |
    cmp -s - "$FAKE_LOG" || { fail "gh: a POST, then a PATCH of the same comment"; cat "$FAKE_LOG"; }
python3 - "$FAKE_STORE" "$SCRATCH/report2.md" "$others" <<'PY' || fail "gh: one comment of ours, holding the second report; the others untouched"
import json, sys
store, report, others = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), json.loads(sys.argv[3])
ours = [c for c in store if c["id"] >= 1000]
assert len(ours) == 1 and ours[0]["pr"] == 7 and ours[0]["body"] == report, ours
assert [c for c in store if c["id"] < 1000] == others
PY

# gh failing: its exit status and message, exit 3, nothing posted.
cp "$FAKE_STORE" "$SCRATCH/before.json"
FAKE_FAIL=4
export FAKE_FAIL
expect_exit 3 "gh failing" "$CI_COMMENT" github owner/repo 7 "$SCRATCH/report.md"
unset FAKE_FAIL
expect_err "gh api --paginate repos/owner/repo/issues/7/comments?per_page=100 failed (exit 4): HTTP 401: Bad credentials" \
    "gh failing: its command, exit status and message"
cmp -s "$FAKE_STORE" "$SCRATCH/before.json" || fail "gh failing: the comments changed"
# A report without the marker would post anew every push: refused, 2.
printf '**harness ab: SAME**\n' >"$SCRATCH/nomarker.md"
expect_exit 2 "a report without the marker" "$CI_COMMENT" github owner/repo 7 "$SCRATCH/nomarker.md"
expect_err "lacks the marker" "a report without the marker: said"
expect_exit 2 "a report that does not exist" "$CI_COMMENT" github owner/repo 7 "$SCRATCH/none.md"
expect_exit 2 "a pull request that is not a number" "$CI_COMMENT" github owner/repo seven "$SCRATCH/report.md"

# GitLab: the same through glab, a merge request's notes, as the token's user.
unset GITHUB_ACTIONS
FAKE_LOGIN=project_5_bot
export FAKE_LOGIN
: >"$FAKE_LOG"
expect_exit 0 "gitlab: the note is posted" "$CI_COMMENT" gitlab group/project 7 "$SCRATCH/report.md"
expect_exit 0 "gitlab: the note is edited" "$CI_COMMENT" gitlab group/project 7 "$SCRATCH/report2.md"
printf '%s\n' user "GET projects/group%2Fproject/merge_requests/7/notes?per_page=100&sort=asc" \
    "POST projects/group%2Fproject/merge_requests/7/notes" user \
    "GET projects/group%2Fproject/merge_requests/7/notes?per_page=100&sort=asc" \
    "PUT projects/group%2Fproject/merge_requests/7/notes/1004" |
    sed 's/^user$/GET user/' | cmp -s - "$FAKE_LOG" || { fail "glab: a POST, then a PUT of the same note"; cat "$FAKE_LOG"; }
finish
