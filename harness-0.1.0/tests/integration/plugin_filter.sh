#!/bin/sh
# A plugin directory holding ordinary libraries: none is loaded (loading
# would run its initialisers), each is named in a warning; a wrong
# plugin_path in the config names the config's line.
. "$top_builddir/tests/setup"

command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
mkdir -p "$SCRATCH/libs"
cat >"$SCRATCH/ordinary.c" <<'C'
#include <stdio.h>
__attribute__((constructor)) static void ran(void)
{
    FILE *f = fopen("initialiser-ran", "w");
    if (f)
        fclose(f);
}
int ordinary_function(void) { return 1; }
C
cc -shared -fPIC -o "$SCRATCH/libs/libordinary.so" "$SCRATCH/ordinary.c" || fail "cannot build the library"
printf 'dlname='"'"'libordinary.so'"'"'\n' >"$SCRATCH/libs/other.la"
cp "$top_builddir/tests/fixtures/.libs/good.so" "$SCRATCH/libs/good.so"

expect_exit 0 "list over a folder of ordinary libraries" "$HARNESS" list --plugin-path "$SCRATCH/libs"
[ ! -e "$SCRATCH/initialiser-ran" ] && pass "no initialiser ran" || fail "an ordinary library's initialiser ran"
expect_err "skipped $SCRATCH/libs/libordinary.so: cannot load plugin $SCRATCH/libs/libordinary.so: not a harness plugin (it exports no harness_plugin_abi symbol)" \
    "the library is named"
expect_err "skipped $SCRATCH/libs/other.la: cannot load plugin $SCRATCH/libs/other.la: not a harness plugin" \
    "a .la naming it is named too"
grep -q '^fixture/cpu ' "$SCRATCH/out" && pass "the plugin beside them loads" || fail "the good plugin is listed"

cat >"$SCRATCH/wrong.yaml" <<'YAML'
component: {variant_key: spin}
plugin_path: [no/such/folder]
YAML
expect_exit 2 "a plugin_path that does not exist" "$HARNESS" validate "$SCRATCH/wrong.yaml"
expect_err "wrong.yaml:2:14: plugin_path: plugin directory $SCRATCH/no/such/folder: No such file or directory" \
    "names the config's line"
finish
