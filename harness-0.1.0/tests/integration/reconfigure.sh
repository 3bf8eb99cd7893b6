#!/bin/sh
# Reconfiguring a built tree rebuilds what depends on the configuration:
# after `configure --enable-ubsan` an object built before is rebuilt, with
# the sanitizer; configuring again with the same arguments
# rebuilds nothing. Runs in a copy of the source tree (configure ~10 s).
. "$top_builddir/tests/setup"

copy="$SCRATCH/tree"
mkdir "$copy"
(cd "$top_srcdir" && tar cf - --exclude=.git --exclude=.libs --exclude=.deps --exclude='*.o' --exclude='*.lo' \
    --exclude='*.la' --exclude='*.log' --exclude='*.trs' --exclude=config.status --exclude=Makefile \
    --exclude=libtool --exclude=build_config.h --exclude=stamp-h1 --exclude=experiments \
    --exclude='tests/unit/test_*[!c]' .) | (cd "$copy" && tar xf -) || { fail "copy the tree"; finish; }
[ -x "$copy/configure" ] || { echo "no generated configure in the source tree"; exit 77; }
cd "$copy" || exit 99
obj=harness/util/libharness_la-error.lo

# compiled DESC: the last make printed that it compiled $obj (silent rules: "CC obj").
compiled() { grep -q "CC .*$obj" "$SCRATCH/out"; }

expect_exit 0 "configure" ./configure -q --without-cuda
expect_exit 0 "build one object" make "$obj"
compiled || fail "the object was compiled"

expect_exit 0 "configure again, same arguments" ./configure -q --without-cuda
expect_exit 0 "make after the same arguments" make "$obj"
compiled && fail "the same arguments rebuild nothing"

expect_exit 0 "reconfigure with UBSan" ./configure -q --without-cuda --enable-ubsan
expect_exit 0 "make after reconfiguring" make "$obj"
compiled || fail "reconfiguring rebuilds the object"
nm "harness/util/.libs/libharness_la-error.o" | grep -q __ubsan ||
    fail "the rebuilt object is built with UBSan"
finish
