#!/bin/sh
# What `run --quiet` prints, whole: the folders' paths, then the warnings
# once at the end, each naming its folder; nothing else. And the folders
# themselves: "base/" is "base", and the hash is of what ran, not of where.
. "$top_builddir/tests/setup"

# noop's median step is a few clock ticks: the near-resolution warning
# fires for every point, whatever the machine's load.
cat >"$SCRATCH/q.yaml" <<'YAML'
device: auto
schedule:
  warmup_steps: 2
  wait_steps: 1
  measurement_steps: 50
  repeat: 2
component:
  variant_key: noop
sweep:
  schedule.warmup_steps: [1, 2]
YAML
"$HARNESS" run "$SCRATCH/q.yaml" --quiet --output-dir "$SCRATCH/base/" >"$SCRATCH/all" 2>&1
code=$?
[ "$code" -eq 0 ] && pass "--quiet sweep (exit 0)" || fail "--quiet sweep: exit $code"
python3 - "$SCRATCH/all" "$SCRATCH/base" <<'PY' && pass "--quiet: two paths, then only warnings naming them" ||
import re, sys
lines = open(sys.argv[1]).read().splitlines()
base = sys.argv[2]
folder = re.escape(base) + r"/\d{4}-\d\d-\d\d__\d\d-\d\d-\d\d_[0-9a-f]{8}(-\d+)?"
paths = lines[:2]
assert all(re.fullmatch(folder, p) for p in paths), paths
rest = lines[2:]
warn = re.compile(r"harness: warning: (%s): (.*)" % folder)
assert rest, "no warnings at all"
for line in rest:
    m = warn.fullmatch(line)
    assert m, "not a warning naming its folder: " + line
    assert m.group(1) in paths, line
for p in paths:
    assert any(l.startswith("harness: warning: %s: median step" % p) for l in rest), ("no clock warning", p)
PY
    { fail "--quiet prints more than the paths and the warnings at the end:"; sed 's/^/  /' "$SCRATCH/all"; }

# One config into two places: one hash; "base/" gives no "base//".
TINY="$CONFIGS/rms_norm_tiny.yaml"
"$HARNESS" run "$TINY" --quiet --output-dir "$SCRATCH/one" >"$SCRATCH/p1" 2>/dev/null || fail "run into one"
"$HARNESS" run "$TINY" --quiet --output-dir "$SCRATCH/two///" >"$SCRATCH/p2" 2>/dev/null || fail "run into two"
case $(cat "$SCRATCH/p2") in
    *//*) fail "--output-dir two/// printed $(cat "$SCRATCH/p2")" ;;
    "$SCRATCH/two/"*) pass "--output-dir with trailing slashes prints one slash" ;;
    *) fail "--output-dir two/// printed $(cat "$SCRATCH/p2")" ;;
esac
h1=$(sed 's/.*_//' "$SCRATCH/p1"); h2=$(sed 's/.*_//' "$SCRATCH/p2")
[ -n "$h1" ] && [ "$h1" = "$h2" ] && pass "one config into two places: one hash ($h1)" ||
    fail "one config into two places: hashes $h1 and $h2"
"$HARNESS" run "$TINY" --quiet --output-dir "$SCRATCH/three" --set component.config.hidden_size=8 \
    >"$SCRATCH/p3" 2>/dev/null || fail "run with another size"
[ "$(sed 's/.*_//' "$SCRATCH/p3")" != "$h1" ] && pass "another config: another hash" ||
    fail "another config got the same hash $h1"

finish
