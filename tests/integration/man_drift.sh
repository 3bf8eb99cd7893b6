#!/bin/sh
# The man pages and the bash completion keep up with the code: every key of
# the config schema (walked from its table by tests/tools/config_keys) is in
# harness-config(5) and the completion's --set keys; every command main.c
# dispatches (as `harness --help` lists them) has its page,
# man/harness-COMMAND.1, and is in the completion; every long option a
# command's --help lists (made from the table it parses with) is in the
# completion's list for that command, and nothing else there.
# help_vs_man.sh holds each page's OPTIONS to its --help.
. "$top_builddir/tests/setup"
MAN="$top_srcdir/man"
CLI="$top_srcdir/harness/cli"
COMPLETION="$top_srcdir/share/completion/harness"

# roff source to plain text: \- is -, font changes dropped.
plain() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(dq/"/g' -e 's/\\(em/-/g' "$1"; }
plain "$MAN/harness.1" >harness.1.txt
plain "$MAN/harness-config.5" >config.5.txt
for page in "$MAN"/harness-*.1; do plain "$page"; done >commands.1.txt

# ---- config keys ---------------------------------------------------------
"$top_builddir/tests/tools/config_keys" >keys || fail "config_keys runs"
[ "$(wc -l <keys)" -ge 30 ] && pass "the schema has $(wc -l <keys) keys" || fail "config_keys lists the schema"
missing=0
while read -r key; do
    pattern="(^|[^a-z_.])$(printf '%s' "$key" | sed 's/\./\\./g')([^a-z_]|$)"
    grep -qE "$pattern" config.5.txt || { fail "harness-config(5) lacks $key"; missing=1; }
    grep -qE "$pattern" "$COMPLETION" || { fail "the completion's config keys lack $key"; missing=1; }
done <keys
[ $missing -eq 0 ] && pass "every config key is in harness-config(5) and the completion"

# ---- commands ------------------------------------------------------------
"$HARNESS" --help >main_help || fail "harness --help"
sed -n '/^commands:$/,/^$/p' main_help | awk 'NR > 1 && NF { print $1 }' >commands
[ "$(wc -l <commands)" -ge 10 ] && pass "harness --help lists $(wc -l <commands) commands" ||
    fail "commands found in harness --help"
grep -o '{"[a-z-]*", "[^"]*", "[^"]*", harness_cmd_' "$CLI/main.c" | sed 's/{"\([a-z-]*\)".*/\1/' |
    cmp -s - commands && pass "they are main.c's table" || fail "harness --help lists other commands than main.c's table"
while read -r cmd; do
    [ -f "$MAN/harness-$cmd.1" ] || fail "the command $cmd has no man page man/harness-$cmd.1"
    grep -qw -- "$cmd" "$COMPLETION" || fail "the completion lacks the command $cmd"
done <commands
# The other words main.c takes (--help, -h, help, --version, -V).
grep -o 'strcmp(cmd, "[^"]*")' "$CLI/main.c" | sed 's/.*"\(.*\)")/\1/' | while read -r word; do
    grep -qE -- "(^|[^a-z-])$word([^a-z-]|\$)" harness.1.txt || echo "$word"
done >missing_words
[ -s missing_words ] && fail "harness(1) lacks: $(cat missing_words)" || pass "harness(1) names --help, --version and the rest"

# ---- options in the completion ----------------------------------------------
# A command's --help lists what it parses (cli/cli_help.h).
while read -r cmd; do
    "$HARNESS" "$cmd" --help >help.txt 2>/dev/null || { fail "$cmd --help"; continue; }
    longs=$(sed -n '/^options:$/,/^$/p' help.txt | sed -n 's/^  [ -][a-zA-Z ][, ] --\([a-z0-9-]*\).*/\1/p')
    [ -n "$longs" ] || { fail "$cmd --help: no options found (has its layout changed?)"; continue; }
    # the completion's `CMD) echo "--a --b ..." ;;` line(s): exactly these
    offered=$(awk -v c="        $cmd) echo" 'index($0, c) == 1 { on = 1 } on { print } on && /;;/ { exit }' "$COMPLETION" |
              grep -o -- '--[a-z0-9-]*' | sort)
    [ -n "$offered" ] || { fail "the completion has no option list for $cmd"; continue; }
    for o in $longs; do
        echo "$offered" | grep -qx -- "--$o" || fail "the completion lacks $cmd's --$o"
    done
    for o in $offered; do
        echo "$longs" | grep -qx -- "${o#--}" || fail "the completion offers $o for $cmd, which $cmd does not take"
    done
    pass "$cmd: the completion offers its $(echo $longs | wc -w) options"
done <commands

# ---- --metric's values -----------------------------------------------------------
# Every name of compare/metric.c's table is in each --metric line of the
# commands' pages (harness-compare(1), harness-history(1)) and in the
# completion's list.
names=$(sed -n 's/.*names\[HARNESS_METRIC_COUNT\] = {\(.*\)};.*/\1/p' "$top_srcdir/harness/compare/metric.c" |
        tr -d '" ' | tr ',' ' ')
[ "$(echo $names | wc -w)" -ge 5 ] && pass "metric.c names $(echo $names | wc -w) metrics" ||
    fail "metric.c's names table found (has its format changed?)"
grep -- '^\.BR --metric ' commands.1.txt >metric_lines
[ "$(wc -l <metric_lines)" -ge 2 ] || fail "harness-compare(1) and harness-history(1) document --metric"
completion_metrics=$(sed -n '/--metric)/,/return/p' "$COMPLETION" | grep -o 'compgen -W "[^"]*"')
: >metric_missing
for m in $names; do
    while read -r line; do
        echo "$line" | grep -qw -- "$m" || echo "a man page: $line lacks the metric $m" >>metric_missing
    done <metric_lines
    echo "$completion_metrics" | grep -qw -- "$m" || echo "the completion's --metric values lack $m" >>metric_missing
done
[ -s metric_missing ] && fail "$(cat metric_missing)" ||
    pass "every metric is in the man pages' --metric lines and the completion"

# ---- the pages render without roff warnings ------------------------------------
if command -v groff >/dev/null 2>&1; then
    for page in $(cd "$MAN" && ls harness.1 harness-*.1 harness-config.5 harness-plugin.7); do
        groff -man -Tutf8 -ww -z "$MAN/$page" 2>warnings
        [ -s warnings ] && { fail "$page: groff warns"; head -5 warnings; } || pass "$page renders cleanly"
    done
fi
finish
