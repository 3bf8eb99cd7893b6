#!/bin/sh
# Plugins that cannot be used, through the real binary (test_registry covers
# the loader itself): built for another ABI, without the entry points, failing
# their init, not linking (a symbol no library gives), or registering a key
# another plugin has. The others still load; each broken one is named with
# why; asking for a variant it would have given names it; a key two plugins
# claim is refused, naming both files.
. "$top_builddir/tests/setup"

fixtures="$top_builddir/tests/fixtures/.libs"
dir="$SCRATCH/plugins"
mkdir -p "$dir"
for p in good bad_abi no_entry fail_init; do
    cp "$fixtures/$p.so" "$dir/" || fail "copy $p.so"
done

expect_exit 0 "list with broken plugins beside a good one" "$HARNESS" list --plugin-path "$dir"
grep -q "fixture/cpu" "$SCRATCH/out" || fail "the good plugin's variant is listed"
expect_err "warning: skipped $dir/bad_abi.so: plugin $dir/bad_abi.so was built for plugin ABI 3.0, but this harness provides ABI 2.5" \
    "another ABI: both versions named"
expect_err "warning: skipped $dir/no_entry.so: cannot load plugin $dir/no_entry.so: not a harness plugin" \
    "no entry point"
expect_err "warning: skipped $dir/fail_init.so: plugin $dir/fail_init.so failed to initialize: fail_init: the license file /nonexistent is missing" \
    "a failing init: the plugin's own message"
grep -q "doomed/cpu" "$SCRATCH/out" && fail "a plugin whose init failed registers nothing"

# A plugin that does not link (a symbol no library gives): the loader's own
# reason, where libltdl alone says "file not found".
printf 'const int harness_plugin_abi = 0;\nextern int harness_fixture_missing;\nint read_missing(void) { return harness_fixture_missing; }\n' \
    >"$SCRATCH/unresolved.c"
mkdir -p "$SCRATCH/unresolved"
${CC:-cc} -shared -fPIC -o "$SCRATCH/unresolved/unresolved.so" "$SCRATCH/unresolved.c" || fail "build unresolved.so"
expect_exit 0 "list with a plugin that does not link" "$HARNESS" list --plugin-path "$SCRATCH/unresolved"
expect_err "cannot load plugin $SCRATCH/unresolved/unresolved.so: $SCRATCH/unresolved/unresolved.so: undefined symbol: harness_fixture_missing" \
    "the undefined symbol named"

expect_exit 2 "a variant no loaded plugin gives" "$HARNESS" validate "$CONFIGS/rms_norm_tiny.yaml" \
    --plugin-path "$dir" --set component.variant_key=doomed/cpu
expect_err "unknown variant 'doomed/cpu' (searched for plugins in: $dir" "the search path"
expect_err "plugins that could not be loaded: $dir/bad_abi.so, $dir/fail_init.so, $dir/no_entry.so" \
    "the broken plugins, as a lead"

# Two plugins claiming one key: a stale copy of one's own plugin on the path
# must not disable list or the runs of other variants; the key itself is refused.
cp "$fixtures/dup_key.so" "$dir/"
expect_exit 0 "list with one key from two plugins" "$HARNESS" list --plugin-path "$dir"
expect_err "warning: skipped $dir/good.so: variant key fixture/cpu is registered twice: by $dir/dup_key.so and by $dir/good.so; remove or rename one" \
    "both files named"
expect_exit 0 "another variant still validates" "$HARNESS" validate "$CONFIGS/rms_norm_tiny.yaml" --plugin-path "$dir"
expect_exit 3 "the duplicated key is refused" "$HARNESS" validate "$CONFIGS/rms_norm_tiny.yaml" \
    --plugin-path "$dir" --set component.variant_key=fixture/cpu
expect_err "variant 'fixture/cpu' is not available: variant key fixture/cpu is registered twice: by $dir/dup_key.so and by $dir/good.so" \
    "the refusal names both files"
expect_exit 3 "the duplicated key is refused by its family too" "$HARNESS" validate "$CONFIGS/rms_norm_tiny.yaml" \
    --plugin-path "$dir" --set component.variant_key=fixture --device cpu
expect_err "variant 'fixture/cpu' is not available" "the family's refusal"
finish
