#!/bin/sh
# The user guide's plugin example (docs/guide/plugins.md, "The smallest plugin
# by hand"), built the way the guide says (a plain gcc -shared, outside the
# build system), must load, list and run.
. "$top_builddir/tests/setup"

awk '/^```c$/ {grab = 1; next} /^```$/ {grab = 0} grab' "$top_srcdir/docs/guide/plugins.md" >"$SCRATCH/scale.c"
grep -q 'HARNESS_PLUGIN_INIT(scale' "$SCRATCH/scale.c" || fail "the guide's plugin example was extracted"
mkdir -p "$SCRATCH/plugins"
cc -std=gnu11 -O2 -Wall -Wextra -Werror -fPIC -shared -I"$top_srcdir/harness/include" "$SCRATCH/scale.c" \
    -o "$SCRATCH/plugins/scale.so" && pass "the example builds without warnings" || fail "the example builds"

expect_exit 0 "list with the example" "$HARNESS" list --plugin-path "$SCRATCH/plugins"
grep -q '^scale/cpu ' "$SCRATCH/out" || fail "list shows scale/cpu"
cat >"$SCRATCH/scale.yaml" <<'YAML'
schedule: {warmup_steps: 2, wait_steps: 1, measurement_steps: 10}
component:
  variant_key: scale
  config: {n: 4096}
plugin_path: [plugins]
YAML
# From another working directory: plugin_path [plugins] means next to the config.
expect_exit 0 "run the example" env -C / "$HARNESS" run "$SCRATCH/scale.yaml" --output-dir "$SCRATCH/exp"
grep -q 'scale/cpu on cpu' "$SCRATCH/out" || fail "the run names the example's variant"
grep -q 'throughput at the median' "$SCRATCH/out" || fail "the example's cost gives a throughput"
finish
