#!/bin/sh
# The dashboard of `harness history --out` in a real browser (issue 41):
# headless Chromium, inside a network namespace of its own (unshare -n: a
# fetch would fail, and the test proves it does), screenshots the index and
# the spin/cpu suite's page of a 12-commit database (tests/tools/
# dashboard_db.sh, a 25% step planted at c7); the PNGs, decoded with
# python3's zlib, must not be blank and must show the index's verdict in
# its colour and the suite page's charts: the runs' blue points, the levels'
# green, the change point's red. Skipped (77) without chromium
# (`scripts/setup --with-browser` installs it) or network namespaces.
. "$top_builddir/tests/setup"
. "$top_srcdir/tests/tools/dashboard_db.sh"

browser=$(command -v chromium || command -v chromium-browser) ||
    { echo "no chromium: skipped (scripts/setup --with-browser installs it)"; exit 77; }
if unshare -n true 2>/dev/null; then
    offline="unshare -n"
elif unshare -rn true 2>/dev/null; then
    offline="unshare -rn"                  # not root: a user namespace maps us to root in it
else
    echo "no network namespace (unshare -n): skipped"; exit 77
fi
# The namespace has no network: a connection out fails at once.
$offline python3 -c 'import socket; socket.create_connection(("192.0.2.1", 80), timeout=5)' 2>/dev/null &&
    fail "a connection out of the namespace worked" || pass "no network inside the namespace"

dashboard_db "$SCRATCH/results.sqlite" 12 7 || { fail "building the database"; finish; }
"$HARNESS" history --db "$SCRATCH/results.sqlite" --out site >/dev/null || { fail "history --out site"; finish; }

# shot PAGE PNG: the page as the browser draws it, 1280 px wide (its profile
# and caches in the scratch folder, not the user's home)
shot() {
    # shellcheck disable=SC2086
    HOME="$SCRATCH" timeout 60 $offline "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --user-data-dir="$SCRATCH/profile" --window-size=1280,1600 --screenshot="$2" "file://$SCRATCH/site/$1" \
        >"$SCRATCH/browser.log" 2>&1
    [ -s "$2" ] && pass "$1: a screenshot" || { fail "$1: no screenshot"; tail -5 "$SCRATCH/browser.log"; }
}
shot index.html index.png
shot s2-spin-cpu.html suite.png

if python3 - index.png suite.png <<'PY'; then
import struct, sys, zlib

def pixels(path):
    """The RGB pixels of an 8-bit RGB or RGBA PNG, row by row."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (path, depth, colour)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 3 if colour == 2 else 4
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return rows

def near(p, rgb, tol=24):
    return all(abs(p[i] - rgb[i]) <= tol for i in range(3))

def count(rows, rgb):
    return sum(1 for r in rows for p in r if near(p, rgb))

index, suite = pixels(sys.argv[1]), pixels(sys.argv[2])
for name, rows in (("index", index), ("suite", suite)):
    ink = sum(1 for r in rows for p in r if p != (255, 255, 255))
    assert ink > 0.01 * len(rows) * len(rows[0]), (name, "blank", ink)
    print("%s: %d pixels not white" % (name, ink))
slower = count(index, (0xb0, 0x00, 0x20))
assert slower > 200, ("index: the slower verdict's red", slower)
# the levels are drawn at opacity 0.7 over the plot's #fcfcfc
blue, green, red = count(suite, (0x1f, 0x77, 0xb4)), count(suite, (106, 188, 106)), count(suite, (0xd6, 0x27, 0x28))
print("index: %d pixels of the slower verdict; suite: %d blue (runs), %d green (levels), %d red (change point)" % (
    slower, blue, green, red))
assert blue > 500 and green > 500 and red > 50, (blue, green, red)
PY
    pass "the screenshots: not blank, the verdict and the charts drawn"
else
    fail "the screenshots"
fi
[ -n "${KEEP_SHOTS-}" ] && cp index.png suite.png "$KEEP_SHOTS"/
finish
