#!/bin/sh
# scripts/setup is quiet (issue 40): run in a fake tree whose packages,
# configure and make print hundreds of lines, it prints one line a phase with
# its time and the expected time up front, at most 15 lines in all, and keeps
# the tools' output in setup.log; --verbose prints it all; a compiler warning
# is printed (CI counts them in the output: .ci/run); a failing phase prints
# the log's last 30 lines and its path and exits nonzero.
. "$top_builddir/tests/setup"

# fake TREE: scripts/setup with a configure that writes a Makefile whose
# build prints 300 lines (and what $BUILD_EXTRA says), and on PATH a
# dpkg-query where $MISSING is not installed and an apt-get that prints 50.
fake() {
    mkdir -p "$1/scripts"
    cp "$top_srcdir/scripts/setup" "$1/scripts/setup"
    cat >"$1/configure" <<'EOF'
#!/bin/sh
i=0; while [ $i -lt 120 ]; do echo "checking for thing $i... yes"; i=$((i + 1)); done
printf 'all:\n\t@i=0; while [ $$i -lt 300 ]; do echo "CC file$$i.lo"; i=$$((i + 1)); done\n\t@$(BUILD_EXTRA)\n' >Makefile
EOF
    chmod +x "$1/configure"
}
mkdir -p bin
cat >bin/dpkg-query <<'EOF'
#!/bin/sh
for p; do :; done
[ "$p" = "${MISSING-}" ] && exit 1
printf 'install ok installed'
EOF
cat >bin/apt-get <<'EOF'
#!/bin/sh
i=0; while [ $i -lt 50 ]; do echo "Get:$i http://deb.debian.org bookworm pkg$i"; i=$((i + 1)); done
EOF
printf '#!/bin/sh\nexec "$@"\n' >bin/sudo
chmod +x bin/dpkg-query bin/apt-get bin/sudo
PATH="$SCRATCH/bin:$PATH"
export PATH
# As a user runs it, not as a sub-make of make check.
unset MAKEFLAGS MFLAGS MAKELEVEL

# A first setup: a package missing, configure, build.
fake t1
expect_exit 0 "setup in a fresh tree" env MISSING=libyaml-dev t1/scripts/setup
lines=$(wc -l <out)
[ "$lines" -le 15 ] && pass "$lines lines on success" || { fail "$lines lines on success, expected <= 15"; head -40 out; }
grep -q 'about 5 min' out && pass "says the expected time first" || fail "the expected time is not said"
head -2 out | grep -q 'setup.log' && pass "says where the log is, up front" || fail "the log's place is not said up front"
for p in packages configure build; do
    grep -Eq "^setup: $p +ok \([0-9]+ s\)$" out && pass "one line for $p, with its time" || fail "no line for $p: $(cat out)"
done
grep -q 'CC file299.lo' t1/setup.log && grep -q 'checking for thing 119' t1/setup.log && grep -q 'Get:49' t1/setup.log &&
    pass "the tools' output is in setup.log" || fail "setup.log lacks the tools' output"
grep -q 'CC file\|checking for\|Get:' out && fail "the tools' output reached the terminal" || pass "not on the terminal"
grep -q 'make -j2 check' out && grep -q '30 min' out && pass "says how long make check takes" || fail "make check's time"

# Up to date: packages present, configure done.
expect_exit 0 "setup again" t1/scripts/setup
grep -Eq '^setup: packages +all [0-9]+ present$' out && grep -Eq '^setup: configure +already done' out &&
    pass "an up-to-date tree: packages and configure skipped" || fail "up to date: $(cat out)"

# --verbose prints everything, and still logs it.
expect_exit 0 "setup --verbose" t1/scripts/setup --verbose
[ "$(grep -c 'CC file' out)" -eq 300 ] && pass "--verbose prints the build's output" || fail "--verbose: $(wc -l <out) lines"
grep -q 'CC file299.lo' t1/setup.log && pass "--verbose logs it too" || fail "--verbose: no log"

# A compiler warning is printed (CI fails on it), in the quiet mode too.
fake t2
expect_exit 0 "a build with a warning" env BUILD_EXTRA='echo "harness/x.c:12:5: warning: unused variable y [-Wunused-variable]"' \
    t2/scripts/setup
grep -q '^harness/x.c:12:5: warning: unused variable y' out && pass "the warning is printed" || fail "the warning is hidden"
grep -Ec '^[^ ]+:[0-9]+:[0-9]+: warning:' out | grep -qx 1 && pass "once" || fail "the warning printed $(grep -c warning: out) times"

# A failing build: the log's last 30 lines, its path, a nonzero exit.
fake t3
expect_exit 2 "a failing build exits nonzero" env BUILD_EXTRA='echo "harness/y.c:3:1: error: expected ;"; exit 1' t3/scripts/setup
grep -Eq '^setup: build +FAILED' out && pass "says the build failed" || fail "no FAILED line: $(cat out)"
grep -q '^harness/y.c:3:1: error: expected ;' out && pass "prints the error from the log" || fail "the error is not shown"
tail -n 30 t3/setup.log >want_tail
sed -n '/^---- the last 30 lines of setup.log:$/,/^----$/p' out | sed '1d;$d' >got_tail
cmp -s want_tail got_tail && grep -q 'CC file299.lo' got_tail && ! grep -q 'CC file200.lo' got_tail &&
    pass "the last 30 lines of the log" || { fail "not the last 30 lines"; diff want_tail got_tail | head; }
grep -qF "$SCRATCH/t3/setup.log" out && pass "names the log's full path" || fail "the log's path is not said"

# A failing configure stops before the build.
fake t4
printf '#!/bin/sh\necho "configure: error: no yaml.h"\nexit 1\n' >t4/configure
expect_exit 1 "a failing configure exits nonzero" t4/scripts/setup
grep -Eq '^setup: configure +FAILED' out && ! grep -q '^setup: build' out && grep -q 'configure: error: no yaml.h' out &&
    pass "configure's error shown, no build" || fail "a failing configure: $(cat out)"
finish
