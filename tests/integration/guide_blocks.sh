#!/bin/sh
# The user guide's runnable examples (docs/guide/README.md, "Runnable
# examples"): every fenced code block whose info string is `sh runnable` in
# docs/guide/*.md runs with `sh -e` in a fresh folder holding a copy of
# configs/, with the built harness first on PATH and the build's share/ on
# PKG_CONFIG_PATH (a clone that is built, not installed). A block that exits
# nonzero fails the test, named by file:line of its opening fence. Every
# topic page (all but the index) must open with one. First the runner proves
# on a fixture that it catches a broken block and names its line.
. "$top_builddir/tests/setup"
PATH="$top_builddir/harness:$PATH"
PKG_CONFIG_PATH="$top_builddir/share${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PATH PKG_CONFIG_PATH
MAKE=${MAKE:-make}
command -v "$MAKE" >/dev/null 2>&1 || MAKE=make
export MAKE
block_timeout=${GUIDE_BLOCK_TIMEOUT:-120}

# extract FILE...: write each runnable block of FILE to blocks/N.sh and a line
# "N FILE LINE" to blocks/list (LINE: the opening fence's).
extract() {
    rm -rf "$SCRATCH/blocks" && mkdir "$SCRATCH/blocks"
    awk -v dir="$SCRATCH/blocks" '
        FNR == 1 { inside = 0 }
        !inside && /^```sh runnable[ \t]*$/ { inside = 1; n++; out = dir "/" n ".sh";
            printf "%d %s %d\n", n, FILENAME, FNR > (dir "/list"); printf "" > out; next }
        inside && /^```[ \t]*$/ { inside = 0; close(out); next }
        inside { print > out }
        END { if (!n) printf "" > (dir "/list") }' "$@"
}

# run_blocks: run every extracted block; print "FILE:LINE: ..." per failure.
# Returns the number of blocks that failed (capped at 255 by the shell).
run_blocks() {
    bad=0
    while read -r n file line; do
        dir="$SCRATCH/run/$n"
        rm -rf "$dir" && mkdir -p "$dir"
        cp -R "$top_srcdir/configs" "$dir/configs" && chmod -R u+w "$dir/configs"
        start=$(date +%s)
        (cd "$dir" && timeout "$block_timeout" sh -e "$SCRATCH/blocks/$n.sh") >"$dir.log" 2>&1
        rc=$?
        secs=$(($(date +%s) - start))
        name=${file#"$top_srcdir/"}
        if [ "$rc" -eq 0 ]; then
            printf 'ok: %s:%s ran (%s s)\n' "$name" "$line" "$secs"
        else
            [ "$rc" -eq 124 ] && why="timed out after $block_timeout s" || why="exited $rc"
            printf '%s:%s: the runnable block %s; its last lines:\n' "$name" "$line" "$why"
            tail -15 "$dir.log" | sed 's/^/  | /'
            bad=$((bad + 1))
        fi
        rm -rf "$dir"
    done <"$SCRATCH/blocks/list"
    return "$bad"
}

# The runner catches a broken block and names the file and line of its fence.
mkdir "$SCRATCH/fixture"
cat >"$SCRATCH/fixture/broken.md" <<'MD'
# A page

```sh runnable
harness --version
```

```sh
this is not run
```

```sh runnable
harness run configs/no_such_config.yaml
```
MD
extract "$SCRATCH/fixture/broken.md"
[ "$(wc -l <"$SCRATCH/blocks/list")" -eq 2 ] && pass "the fixture has two runnable blocks" ||
    fail "the fixture's runnable blocks: $(cat "$SCRATCH/blocks/list")"
run_blocks >"$SCRATCH/fixture.out" 2>&1
[ $? -eq 1 ] && grep -q "^$SCRATCH/fixture/broken.md:11: the runnable block exited 2" "$SCRATCH/fixture.out" &&
    grep -q "broken.md:3 ran" "$SCRATCH/fixture.out" &&
    pass "a broken block fails, named by file:line" ||
    { fail "a broken block fails, named by file:line"; sed 's/^/  /' "$SCRATCH/fixture.out"; }

# The guide.
guide="$top_srcdir/docs/guide"
extract "$guide"/*.md
total=$(wc -l <"$SCRATCH/blocks/list")
[ "$total" -ge 10 ] && pass "the guide has $total runnable blocks" || fail "the guide has only $total runnable blocks"
for page in "$guide"/*.md; do
    [ "$(basename "$page")" = README.md ] && continue
    grep -q " $page " "$SCRATCH/blocks/list" || fail "${page#"$top_srcdir/"} has no runnable block"
done
run_blocks
bad=$?
[ "$bad" -eq 0 ] && pass "every runnable block of the guide ran" || fail "$bad runnable block(s) of the guide failed"

# The README stays a page read in two minutes; the guide holds the rest.
lines=$(wc -l <"$top_srcdir/README.md")
[ "$lines" -le 250 ] && pass "README.md has $lines lines (at most 250)" ||
    fail "README.md has $lines lines; at most 250: move the detail to docs/guide/"
for link in docs/guide/gating.md docs/guide/plugins.md; do
    grep -q "($link" "$top_srcdir/README.md" && pass "the README links $link" || fail "the README does not link $link"
done
finish
