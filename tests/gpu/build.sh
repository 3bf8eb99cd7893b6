# tests/gpu/build.sh - sourced by tests/gpu/run.sh: the dependencies and the
# CUDA build, first in every command and slice, so that one on a fresh
# machine builds and one on a warm machine reuses the build (make finds
# nothing to do). Uses run.sh's repo, out, jobs, scope, note, verdict; sets
# top (the built tree) and H (its harness).

# The .deb files carried from tests/gpu/prepare.sh (or HARNESS_DEPS_DEBS),
# unpacked once into a private prefix: the libraries' headers, .so links and
# run-time files, for a machine without the -dev packages or a registry.
deps_from_debs() {
    debs=${HARNESS_DEPS_DEBS:-$(carry_dir)/debs}
    ls "$debs"/*.deb >/dev/null 2>&1 || { note "no .deb files in $debs: the system's libraries"; return 0; }
    deps=$out/deps
    if [ ! -f "$deps/.unpacked" ]; then
        rm -rf "$deps"
        for f in "$debs"/*.deb; do
            # dpkg-deb where there is one; else the .deb's ar archive by hand.
            if command -v dpkg-deb >/dev/null; then dpkg-deb -x "$f" "$deps"
            else mkdir -p "$deps" && (cd "$deps" && ar p "$f" "$(ar t "$f" | grep '^data.tar')" | tar xJf - 2>/dev/null ||
                ar p "$f" "$(ar t "$f" | grep '^data.tar')" | tar xf -); fi || { note "could not unpack $f"; return 1; }
        done
        : >"$deps/.unpacked"
    fi
    lib=$deps/usr/lib/x86_64-linux-gnu
    # The .pc files name /usr; flags set here spare configure the pkg-config
    # look-ups (pkg.m4 uses a preset _CFLAGS and _LIBS as they are).
    export CPPFLAGS="-I$deps/usr/include ${CPPFLAGS:-}" LDFLAGS="-L$lib -Wl,-rpath,$lib ${LDFLAGS:-}"
    export YAML_CFLAGS="-I$deps/usr/include" YAML_LIBS="-L$lib -lyaml"
    export CJSON_CFLAGS="-I$deps/usr/include/cjson" CJSON_LIBS="-L$lib -lcjson"
    export CMOCKA_CFLAGS="-I$deps/usr/include" CMOCKA_LIBS="-L$lib -lcmocka"
    export SQLITE3_CFLAGS="-I$deps/usr/include" SQLITE3_LIBS="-L$lib -lsqlite3"
    export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    note "dependencies from $(ls "$debs"/*.deb | wc -l) .deb files, unpacked in $deps"
}

# The tree to build: the carried `make dist` tarball, unpacked under OUT/build
# (again only when the tarball changed); else this tree's ./configure; else
# autoreconf's.
source_tree() {
    tarball=$(ls "$(carry_dir)"/harness-*.tar.gz 2>/dev/null | head -1)
    if [ -n "$tarball" ]; then
        sum=$(sha256sum "$tarball" | cut -c1-16)
        top=$out/build/$(basename "$tarball" .tar.gz)
        if [ "$(cat "$out/build/.tarball" 2>/dev/null)" != "$sum" ] || [ ! -x "$top/configure" ]; then
            rm -rf "$out/build" && mkdir -p "$out/build" && tar xzf "$tarball" -C "$out/build" &&
                echo "$sum" >"$out/build/.tarball" || { note "could not unpack $tarball"; return 1; }
        fi
        note "source: $(basename "$tarball") ($(cat "$(carry_dir)/SOURCE" 2>/dev/null))"
    elif [ -x "$repo/configure" ]; then
        top=$repo
    elif command -v autoreconf >/dev/null && (cd "$repo" && autoreconf -fi) >"$out/autoreconf.log" 2>&1; then
        top=$repo
    else
        note "no tests/gpu/carry/harness-*.tar.gz, no ./configure and no autoreconf: run tests/gpu/prepare.sh" \
            "where autotools are, and carry tests/gpu/carry"
        return 1
    fi
}

# build [DEADLINE]: configure with CUDA and build, or make what changed in a
# tree an earlier command configured; stopped at DEADLINE (epoch seconds).
build() {
    # HARNESS_GPU_TREE: a tree built already (by hand, or the tests'): used as it is.
    if [ -n "${HARNESS_GPU_TREE:-}" ]; then
        top=$HARNESS_GPU_TREE H=$HARNESS_GPU_TREE/harness/harness
        note "source: $top, built already (HARNESS_GPU_TREE)"
        return 0
    fi
    source_tree || return 1
    limit=0
    if [ -n "${1:-}" ]; then
        limit=$(($1 - $(date +%s)))
        [ $limit -gt 0 ] || { note "build: out of time in $scope"; return 1; }
    fi
    if [ -f "$top/Makefile" ] && grep -q '^#define HAVE_CUDA 1' "$top/build_config.h" 2>/dev/null; then
        (cd "$top" && timeout "$limit" make -j"$jobs") >"$out/build.log" 2>&1 || { build_failed; return 1; }
        note "build reused (configured with CUDA already; make found what changed)"
    else
        # shellcheck disable=SC2086
        (cd "$top" && timeout "$limit" sh -c './configure --with-cuda "$@" && make -j"$0"' "$jobs" \
            ${HARNESS_CONFIGURE_ARGS:-}) >"$out/build.log" 2>&1 || { build_failed; return 1; }
        note "built: $(grep -E 'CUDA:' "$out/build.log" | tail -1 | sed 's/^ *//')"
    fi
    H=$top/harness/harness
}

# The build's end, and why, when it failed or ran out of its time (timeout's 124).
build_failed() {
    rc=$?
    [ $rc = 124 ] && note "build: stopped at its deadline, in $scope (build.log)" || note "build failed (build.log)"
    tail -30 "$out/build.log"
}
