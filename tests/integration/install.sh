#!/bin/sh
# The installed SDK end to end: `make install DESTDIR=...` of this build,
# then with only the installed files and pkg-config (PATH and
# PKG_CONFIG_PATH pointing into the staged tree, nothing of the build
# tree): the layout, harness-plugin.pc's variables, the installed harness
# finding its installed plugins and $HARNESS_PLUGIN_PATH ones with no flag,
# a CPU scaffold built, run and its summary checked, a plugin installed into
# plugindir found, a CUDA scaffold built with nvcc where there is one, man
# pages and completion; a copy of the install loading its own plugins; then
# `make uninstall` leaves no file behind.
#
# The staged tree is a relocated install: the harness finds its plugins
# next to itself (harness/util/install_dir.c), and pkg-config is told the
# staged prefix with --define-variable.
. "$top_builddir/tests/setup"
MAKE=${MAKE:-make}
command -v "$MAKE" >/dev/null 2>&1 || MAKE=make
# The scaffolds' makes are the user's, not this make check's.
unset MAKEFLAGS MFLAGS MAKELEVEL HARNESS_PLUGIN_PATH

prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
DEST="$SCRATCH/root"
P="$DEST$prefix"
"$MAKE" -C "$top_builddir" install DESTDIR="$DEST" >install.log 2>&1 && pass "make install DESTDIR" ||
    { fail "make install DESTDIR"; tail -20 install.log; finish; }

for f in bin/harness include/harness/plugin.h lib/pkgconfig/harness-plugin.pc lib/pkgconfig/harness.pc lib/harness/rms_norm.so \
    lib/harness/attention.so share/man/man1/harness.1 share/man/man5/harness-config.5 \
    share/man/man7/harness-plugin.7 share/bash-completion/completions/harness; do
    [ -f "$P/$f" ] || fail "installed: $f"
done
# every command's page beside the overview (man harness-run)
for page in "$top_srcdir"/man/harness-*.1; do
    [ -f "$P/share/man/man1/$(basename "$page")" ] || fail "installed man page: $(basename "$page")"
done
for c in "$top_srcdir"/configs/*.yaml; do
    [ -f "$P/share/harness/configs/$(basename "$c")" ] || fail "installed config: $(basename "$c")"
done
pass "the install's layout"

# From here on, only the installed files: a PATH and a PKG_CONFIG_PATH
# that lead into the staged tree, run from a folder outside the build tree.
PATH="$P/bin:$PATH"
PKG_CONFIG_PATH="$P/lib/pkgconfig"
PKG_CONFIG_LIBDIR="$P/lib/pkgconfig"
PKG_CONFIG="pkg-config --define-variable=prefix=$P"
export PATH PKG_CONFIG_PATH PKG_CONFIG_LIBDIR PKG_CONFIG
mkdir work && cd work || exit 99

abi=$(sed -n 's/^#define HARNESS_ABI_MAJOR \([0-9]*\)/\1/p' "$P/include/harness/plugin.h").$(sed -n \
    's/^#define HARNESS_ABI_MINOR \([0-9]*\)/\1/p' "$P/include/harness/plugin.h")
[ "$($PKG_CONFIG --variable=abi_version harness-plugin)" = "$abi" ] && pass "pc: abi_version $abi" ||
    fail "pc: abi_version is $($PKG_CONFIG --variable=abi_version harness-plugin), plugin.h says $abi"
[ "$($PKG_CONFIG --variable=plugindir harness-plugin)" = "$P/lib/harness" ] && pass "pc: plugindir" ||
    fail "pc: plugindir is $($PKG_CONFIG --variable=plugindir harness-plugin)"
[ "$($PKG_CONFIG --cflags harness-plugin | sed 's/ *$//')" = "-I$P/include" ] && pass "pc: cflags" ||
    fail "pc: cflags are $($PKG_CONFIG --cflags harness-plugin)"
[ -z "$($PKG_CONFIG --libs harness-plugin)" ] && pass "pc: nothing to link" || fail "pc: libs"
# harness.pc: the same, under the name a user tries first (issue 40).
[ "$($PKG_CONFIG --cflags harness | sed 's/ *$//')" = "-I$P/include" ] &&
    [ "$($PKG_CONFIG --variable=plugindir harness)" = "$P/lib/harness" ] && pass "pc: pkg-config harness too" ||
    fail "pc: pkg-config harness: '$($PKG_CONFIG --cflags harness)'"

[ "$(command -v harness)" = "$P/bin/harness" ] || fail "harness is the installed one"
expect_exit 0 "installed harness --version" harness --version
grep -q "plugin ABI $abi" "$SCRATCH/out" || fail "--version names ABI $abi"
expect_exit 0 "installed harness list, no flags" harness list
grep -q '^rms_norm/cpu ' "$SCRATCH/out" && grep -q "plugin: $P/lib/harness/" "$SCRATCH/out" &&
    ! grep -q "plugin: $top_builddir" "$SCRATCH/out" && pass "its plugins come from the install" ||
    fail "list's plugins are not the installed ones: $(grep 'plugin:' "$SCRATCH/out" | head -3)"
expect_exit 0 "an installed config runs" harness run "$P/share/harness/configs/rms_norm.yaml" --quiet \
    --set component.config.seq_len=4 --set schedule.warmup_steps=1 --set schedule.measurement_steps=5 \
    --output-dir exp

# A moved install (a tarball of the prefix unpacked elsewhere) loads the
# plugins beside it, never those of the tree it was copied from. An installed
# .la names its install's folder (libdir=), and libltdl opens that folder's
# .so first: the staged .la files name $prefix, empty here, so the copy's are
# pointed at $P, as an install made at $P would have them, which is still
# there to be wrongly loaded.
M="$SCRATCH/moved"
cp -a "$P" "$M" && find "$M/lib/harness" -name '*.la' -exec sed -i "s|^libdir='$prefix/|libdir='$P/|" {} + ||
    fail "copy the install to $M"
grep -q "^libdir='$P/lib/harness'" "$M/lib/harness/rms_norm.la" || fail "the copy's .la names the original"
expect_exit 0 "a moved install's harness list" "$M/bin/harness" list
others=$(grep 'plugin:' "$SCRATCH/out" | grep -v "plugin: $M/lib/harness/")
grep -q '^rms_norm/cpu ' "$SCRATCH/out" && [ -z "$others" ] && pass "its plugins are the moved ones" ||
    fail "a moved install loads plugins from elsewhere: $(echo "$others" | head -3)"
expect_exit 0 "a moved install runs" "$M/bin/harness" run "$M/share/harness/configs/rms_norm.yaml" --quiet \
    --set component.config.seq_len=4 --set schedule.warmup_steps=1 --set schedule.measurement_steps=5 \
    --output-dir moved_exp
python3 - moved_exp/*/summary_ranks_1_rank_0.json <<PY && pass "its summary: the moved plugin, ok" || fail "the moved run's summary"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["status"] == "ok" and s["validation"]["passed"], (s["status"], s["validation"])
assert s["component"]["plugin"].startswith("$M/lib/harness/"), s["component"]["plugin"]
assert s["env"]["executable"] == "$M/bin/harness", s["env"]["executable"]
PY
rm -rf "$M"

# A CPU scaffold, built with pkg-config, run by the installed harness.
expect_exit 0 "new-plugin sdkaxpy" harness new-plugin sdkaxpy
grep -qF 'cd sdkaxpy && make && harness run sdkaxpy.yaml' "$SCRATCH/out" || fail "installed: plain make and harness"
expect_exit 0 "make (pkg-config, installed header)" "$MAKE" -C sdkaxpy CFLAGS="-O2 -Werror"
grep -q -- "-I$P/include" "$SCRATCH/out" || fail "compiled against the installed header"
expect_exit 0 "harness run sdkaxpy.yaml" env -C sdkaxpy harness run sdkaxpy.yaml --quiet
python3 - sdkaxpy/experiments/*/summary_ranks_1_rank_0.json <<PY && pass "its summary: ok and validated" || fail "the scaffold's summary"
import json, os, sys
s = json.load(open(sys.argv[1]))
assert s["status"] == "ok" and s["validation"]["passed"], (s["status"], s["validation"])
assert s["component"]["variant_key"] == "sdkaxpy/cpu", s["component"]
# plugin_path [.]: the config's folder, made absolute
assert s["component"]["plugin"] == os.path.abspath("sdkaxpy/sdkaxpy.so"), s["component"]["plugin"]
assert s["env"]["executable"] == "$P/bin/harness", s["env"]["executable"]
PY
expect_exit 0 "make check: the .pc's harness" env PATH=/usr/bin:/bin "$MAKE" -C sdkaxpy check
grep -qF "$P/bin/harness run sdkaxpy.yaml" "$SCRATCH/out" || fail "make check runs the installed binary"
# Found through HARNESS_PLUGIN_PATH, and once installed into plugindir, with no flag.
mkdir envplugins && cp sdkaxpy/sdkaxpy.so envplugins/
expect_exit 0 "list with HARNESS_PLUGIN_PATH" env HARNESS_PLUGIN_PATH="$SCRATCH/work/envplugins" harness list
grep -q '^sdkaxpy/cpu ' "$SCRATCH/out" || fail "HARNESS_PLUGIN_PATH's plugin is listed"
expect_exit 0 "make install (the scaffold's)" "$MAKE" -C sdkaxpy install
[ -f "$P/lib/harness/sdkaxpy.so" ] || fail "the scaffold installed into plugindir"
expect_exit 0 "list finds the installed scaffold" harness list
grep -q '^sdkaxpy/cpu ' "$SCRATCH/out" && pass "found in plugindir without flags" || fail "not found in plugindir"
rm -f "$P/lib/harness/sdkaxpy.so"

# A CUDA scaffold builds with nvcc (running it needs a GPU: tests/integration/sdk_gpu.sh).
expect_exit 0 "new-plugin --device cuda" harness new-plugin sdkgaxpy --device cuda
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    command -v nvcc >/dev/null 2>&1 || PATH="$PATH:/usr/local/cuda/bin"
    expect_exit 0 "the CUDA scaffold builds with nvcc" "$MAKE" -C sdkgaxpy CFLAGS="-O2 -Werror"
    [ -f sdkgaxpy/sdkgaxpy.so ] || fail "sdkgaxpy.so built"
else
    echo "no nvcc: the CUDA scaffold is not built"
fi

# Man pages and completion, as installed.
if command -v man >/dev/null 2>&1; then
    MANPATH="$P/share/man" man -w harness-plugin >/dev/null 2>&1 && pass "man finds harness-plugin(7)" ||
        fail "man -w harness-plugin"
    # `harness run --help` ends by pointing there
    MANPATH="$P/share/man" man -w harness-run >/dev/null 2>&1 && pass "man finds harness-run(1)" ||
        fail "man -w harness-run"
fi
if command -v bash >/dev/null 2>&1; then
    got=$(bash -c '. "$1"; COMP_WORDS=(harness new); COMP_CWORD=1; _harness harness; echo "${COMPREPLY[*]}"' \
        x "$P/share/bash-completion/completions/harness")
    [ "$got" = "new-plugin" ] && pass "the installed completion" || fail "the installed completion: '$got'"
fi

cd "$SCRATCH" || exit 99
"$MAKE" -C "$top_builddir" uninstall DESTDIR="$DEST" >uninstall.log 2>&1 && pass "make uninstall DESTDIR" ||
    { fail "make uninstall"; tail -20 uninstall.log; }
left=$(find "$DEST" ! -type d)
[ -z "$left" ] && pass "nothing left after uninstall" || fail "left after uninstall: $left"
finish
