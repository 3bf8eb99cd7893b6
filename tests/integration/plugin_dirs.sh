#!/bin/sh
# Plugin directories: a file that cannot be loaded is a warning naming it,
# unless the config needs a variant from it; no plugin at all is exit 2.
. "$top_builddir/tests/setup"

mkdir -p "$SCRATCH/plugins" "$SCRATCH/empty"
cp "$top_builddir/tests/fixtures/.libs/good.so" "$SCRATCH/plugins/good.so"
echo 'not an ELF file' >"$SCRATCH/plugins/garbage.so"

expect_exit 0 "list with a garbage .so beside a good plugin" "$HARNESS" list --plugin-path "$SCRATCH/plugins"
grep -q '^fixture/cpu ' "$SCRATCH/out" || fail "the good plugin is listed"
expect_err "harness: warning: skipped $SCRATCH/plugins/garbage.so: cannot load plugin" "the garbage file is named"

cat >"$SCRATCH/fixture.yaml" <<'YAML'
component: {variant_key: fixture}
YAML
expect_exit 0 "a config that needs only the good plugin" "$HARNESS" validate "$SCRATCH/fixture.yaml" \
    --plugin-path "$SCRATCH/plugins"
expect_err "warning: skipped $SCRATCH/plugins/garbage.so" "the warning is given on validate too"
expect_exit 3 "a config that needs the broken plugin" "$HARNESS" validate "$SCRATCH/fixture.yaml" \
    --plugin-path "$SCRATCH/plugins" --set component.variant_key=garbage
expect_err "component.variant_key: variant 'garbage' is not available: cannot load plugin $SCRATCH/plugins/garbage.so" \
    "the error names the broken file"

# A FIFO named x.la (or y.so) and a link to /dev/zero in a plugin folder:
# skipped with a warning, never opened in a way that waits (timeout 20).
mkfifo "$SCRATCH/plugins/x.la" "$SCRATCH/plugins/y.so"
ln -s /dev/zero "$SCRATCH/plugins/z.la"
expect_exit 0 "list with FIFOs and a link to /dev/zero among the plugins" timeout 20 "$HARNESS" list \
    --plugin-path "$SCRATCH/plugins"
expect_err "harness: warning: skipped $SCRATCH/plugins/x.la: cannot load plugin $SCRATCH/plugins/x.la: not a regular file" \
    "the FIFO x.la is named"
expect_err "skipped $SCRATCH/plugins/z.la" "the link to /dev/zero is named"
rm -f "$SCRATCH/plugins/x.la" "$SCRATCH/plugins/y.so" "$SCRATCH/plugins/z.la"

# Outside the build tree the harness finds no plugin of its own.
cp "$top_builddir/harness/harness" "$SCRATCH/harness-copy"
expect_exit 2 "list with no plugin anywhere" "$SCRATCH/harness-copy" list --plugin-path "$SCRATCH/empty"
expect_err "no plugin found; searched:" "list says it found nothing"
expect_err "  $SCRATCH/empty" "list names the directories searched"
finish
