#!/bin/sh
# harness history --out DIR (issue 41): the static dashboard of a database
# of 30 commits of 5 benchmarks in 2 suites (tests/tools/dashboard_db.sh:
# spin/cpu at 4 durations, one rms_norm/cpu config; spin/cpu at 40 us 25%
# slower from c21 on). The site: index.html and a page per suite, every
# link resolving, every page well-formed (python3's html.parser, tags
# balanced), nothing fetched (no http:// or https:// resource, no script,
# no external style or font); the planted step marked where it was planted
# and nowhere else, on the chart, in its table and as the benchmark's latest
# verdict; each run's commit in its point's tooltip and the runs' table.
# Then: a site replaced whole, bad input (exit 2, nothing touched), a
# failure while writing (exit 3, the old site intact, no temporary left).
# The real-browser check is dashboard_browser.sh.
. "$top_builddir/tests/setup"
. "$top_srcdir/tests/tools/dashboard_db.sh"

dashboard_db "$SCRATCH/results.sqlite" 30 21 || { fail "building the database"; finish; }

expect_exit 0 "history --out site" "$HARNESS" history --db "$SCRATCH/results.sqlite" --format html --out site
[ "$(cat "$SCRATCH/out")" = "site/index.html" ] && pass "prints the index's path" ||
    fail "stdout: $(cat "$SCRATCH/out")"
ls site >"$SCRATCH/files"
printf 'index.html\ns1-rms_norm-cpu.html\ns2-spin-cpu.html\n' | cmp -s - "$SCRATCH/files" &&
    pass "index.html and a page per suite" || fail "the site's files: $(cat "$SCRATCH/files")"

if python3 - site <<'PY'; then
import html.parser, os, re, sys

site = sys.argv[1]
VOID = {"meta", "br", "img", "input", "link", "hr", "wbr", "col", "area", "base", "source", "track", "embed"}

class Page(html.parser.HTMLParser):
    """Tags balanced (each end tag closes the innermost open one), and every
    link, source and id collected."""
    def __init__(self, name):
        super().__init__()
        self.name, self.stack, self.hrefs, self.ids, self.titles = name, [], [], set(), []
        self.in_title = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        assert "src" not in a, (self.name, tag, a)
        if "href" in a:
            self.hrefs.append(a["href"])
        if "id" in a:
            self.ids.add(a["id"])
        assert tag not in ("script", "link", "iframe", "object", "img"), (self.name, tag)
        if tag not in VOID:
            self.stack.append((tag, self.getpos()))
        if tag == "title":
            self.in_title = ""
    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()
    def handle_endtag(self, tag):
        assert self.stack, (self.name, "</%s> with nothing open" % tag, self.getpos())
        open_tag, pos = self.stack.pop()
        assert open_tag == tag, (self.name, "<%s> at %s closed by </%s> at %s" % (open_tag, pos, tag, self.getpos()))
        if tag == "title":
            self.titles.append(self.in_title)
            self.in_title = None
    def handle_data(self, data):
        if self.in_title is not None:
            self.in_title += data

pages = {}
for name in sorted(os.listdir(site)):
    text = open(os.path.join(site, name), encoding="utf-8").read()
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>"), name
    # nothing fetched: the SVG namespace is a name, not a resource
    bare = text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert not re.search(r"https?://|url\(|@import|@font-face", bare), (name, re.search(r"https?://|url\(|@import", bare))
    p = Page(name)
    p.feed(text)
    p.close()
    assert not p.stack, (name, "left open", p.stack)
    pages[name] = (text, p)

# every link resolves: a page of the site, and an anchor on it
for name, (text, p) in pages.items():
    for href in p.hrefs:
        target, _, anchor = href.partition("#")
        target = target or name
        assert target in pages, (name, href)
        assert not anchor or anchor in pages[target][1].ids, (name, href)
index, ix = pages["index.html"]
assert {h.partition("#")[0] for h in ix.hrefs} == {"s1-rms_norm-cpu.html", "s2-spin-cpu.html"}, ix.hrefs
assert '<meta name="generator" content="harness history --out">' in index

# the suites and their verdicts
assert re.search(r'<a href="s2-spin-cpu.html"><code>spin/cpu</code></a></td><td>4</td><td>120</td>'
                 r'<td class="name"><span class="slower">1 slower</span>, <span class="steady">3 steady</span>', index)
assert re.search(r'<a href="s1-rms_norm-cpu.html"><code>rms_norm/cpu</code></a></td><td>1</td><td>30</td>'
                 r'<td class="name"><span class="steady">1 steady</span>', index)
# the planted step: the latest verdict of spin/cpu at 40 us, and of it alone
rows = [r for r in index.split("<tr>") if "duration_ns=" in r or "batch_size=" in r]
assert len(rows) == 5, rows
for r in rows:
    slower = 'class="name slower">slower since <code>c21</code> (run #21): ' in r
    assert slower == ("duration_ns=40000" in r), r
    assert slower or 'class="name steady">steady: no change point' in r, r
    assert "<td>30</td><td><code>c30</code></td>" in r, r    # runs, the latest commit

# the suite page: a section per benchmark, the change point in the 40 us one alone
spin, sp = pages["s2-spin-cpu.html"]
assert ["spin/cpu - harness dashboard"] == sp.titles[:1], sp.titles[:1]
parts = re.split(r'<h2 id="b\d">', spin)[1:]
assert len(parts) == 4, len(parts)
for part in parts:
    planted = "duration_ns=40000" in part.split("</h2>")[0]
    assert part.count('<line class="change"') == (1 if planted else 0), part[:200]
    assert ("<td>21</td><td><code>c21</code></td>" in part) == planted
    assert ('<text class="change-label"' in part) == planted
    if planted:
        assert re.search(r'<text class="change-label"[^>]*>\+2[0-9]\.[0-9]% at c21 \(p ', part), part
        assert '<p class="verdict slower">latest verdict: slower since <code>c21</code>' in part
    # every run's commit: in its point's tooltip and in the runs' table
    for k in range(1, 31):
        assert "<title>#%d c%d: " % (k, k) in part, (k, part[:200])
        assert "<tr><td>%d</td><td class=\"name\"><code>c%d</code></td><td class=\"name\">main</td>" % (k, k) in part
rms, _ = pages["s1-rms_norm-cpu.html"]
assert rms.count('<line class="change"') == 0 and rms.count("<svg") == 1
PY
    pass "the site: files, links, well-formed, nothing fetched, the planted step marked alone"
else
    fail "the site"
fi

# Written again: the site replaced whole (a suite gone is a page gone), and no temporary left.
expect_exit 0 "history --out site again, one suite" "$HARNESS" history --db "$SCRATCH/results.sqlite" \
    --variant rms_norm/cpu --out site/
[ "$(ls site | tr '\n' ' ')" = "index.html s1-rms_norm-cpu.html " ] && pass "the old site replaced whole" ||
    fail "after a rewrite: $(ls site)"
ls -a | grep -q 'tmp-' && fail "a temporary folder left: $(ls -a)" || pass "no temporary folder left"

# --out with another format; DIR a file, a link, a folder of something else: exit 2, nothing touched.
expect_exit 2 "--out with --format json" "$HARNESS" history --db "$SCRATCH/results.sqlite" --format json --out s2
expect_err "history: --out s2 writes a site of HTML pages: it takes --format html (or no --format), not --format json" \
    "--out with json: the message"
[ -e s2 ] && fail "--out with json made s2" || pass "--out with json: nothing written"
echo keep >afile
expect_exit 2 "--out a file" "$HARNESS" history --db "$SCRATCH/results.sqlite" --out afile
expect_err "history: --out afile: exists and is not a folder" "--out a file: the message"
[ "$(cat afile)" = keep ] && pass "--out a file: the file untouched" || fail "--out a file: changed"
mkdir other && echo mine >other/notes.txt
expect_exit 2 "--out a folder of other files" "$HARNESS" history --db "$SCRATCH/results.sqlite" --out other
expect_err "history: --out other: a folder that is not empty and not a dashboard" "--out a foreign folder: the message"
[ "$(ls other)" = notes.txt ] && pass "--out a foreign folder: untouched" || fail "--out a foreign folder: $(ls other)"
ln -s site link
expect_exit 2 "--out a link" "$HARNESS" history --db "$SCRATCH/results.sqlite" --out link
expect_err "history: --out link: exists and is not a folder (a symbolic link)" "--out a link: the message"
expect_exit 3 "--out under a file" "$HARNESS" history --db "$SCRATCH/results.sqlite" --out afile/site
expect_err "history: --out afile/site: " "--out under a file: the message names DIR"

# A failure while writing (a file-size limit of 50 KB: the spin page, 68 KB, does not fit):
# exit 3 naming DIR, the old site as it was, no temporary folder left.
"$HARNESS" history --db "$SCRATCH/results.sqlite" --out site >/dev/null || fail "a site to keep"
cat site/* | cksum >"$SCRATCH/before"
python3 -c 'import os, resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (50000, 50000)); os.execv(sys.argv[1], sys.argv[1:])' \
    "$HARNESS" history --db "$SCRATCH/results.sqlite" --out site >"$SCRATCH/out" 2>"$SCRATCH/err"
got=$?
[ $got = 3 ] && pass "a write that fails: exit 3" || fail "a write that fails: exit $got, expected 3"
expect_err "history: --out site: cannot write site.tmp-" "a write that fails: the message names DIR and the page"
cat site/* | cksum | cmp -s - "$SCRATCH/before" && pass "a write that fails: the old site intact" ||
    fail "a write that fails: the old site changed"
ls -a | grep -q 'tmp-' && fail "a write that fails: a temporary folder left: $(ls -a)" ||
    pass "a write that fails: no temporary folder left"
finish
