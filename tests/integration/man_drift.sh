#!/bin/sh
# The man pages and the bash completion keep up with the code: every key of
# the config schema (walked from its table by tests/tools/config_keys) is in
# harness-config(5) and the completion's --set keys; every command main.c
# dispatches has a section in harness(1); every option in the CLI's getopt
# tables (long and short) is in its command's section of harness(1), and
# every long option in the completion.
. "$top_builddir/tests/setup"
MAN="$top_srcdir/man"
CLI="$top_srcdir/harness/cli"
COMPLETION="$top_srcdir/share/completion/harness"

# roff source to plain text: \- is -, font changes dropped.
plain() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(dq/"/g' -e 's/\\(em/-/g' "$1"; }
plain "$MAN/harness.1" >harness.1.txt
plain "$MAN/harness-config.5" >config.5.txt
# The text of one `.SS NAME` section of harness(1).
section() { awk -v name="$1" '/^\.S[SH] / { on = ($1 == ".SS" && $2 == name); next } on' harness.1.txt; }

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
# `{"NAME", harness_cmd_...}` in main.c's table: a command.
grep -o '{"[a-z-]*", harness_cmd_' "$CLI/main.c" | sed 's/{"\([a-z-]*\)".*/\1/' >commands
[ "$(wc -l <commands)" -ge 10 ] && pass "main.c dispatches $(wc -l <commands) commands" || fail "commands found in main.c"
while read -r cmd; do
    grep -q "^\.SS $cmd\$" harness.1.txt || fail "harness(1) has no section for the command $cmd"
    grep -qw -- "$cmd" "$COMPLETION" || fail "the completion lacks the command $cmd"
done <commands
# The other words main.c takes (--help, -h, help, --version, -V).
grep -o 'strcmp(cmd, "[^"]*")' "$CLI/main.c" | sed 's/.*"\(.*\)")/\1/' | while read -r word; do
    grep -qE -- "(^|[^a-z-])$word([^a-z-]|\$)" harness.1.txt || echo "$word"
done >missing_words
[ -s missing_words ] && fail "harness(1) lacks: $(cat missing_words)" || pass "harness(1) names --help, --version and the rest"

# ---- options ---------------------------------------------------------------
# cmd_common.c parses run, validate and list; cmd_X.c parses X (cmd_new_plugin.c: new-plugin).
for src in "$CLI"/cmd_*.c; do
    base=$(basename "$src" .c)
    grep -q 'getopt_long' "$src" || continue
    case $base in
        cmd_common) sections="run validate list" ;;
        *) sections=$(echo "${base#cmd_}" | tr _ -) ;;
    esac
    : >text
    for s in $sections; do section "$s" >>text; done
    [ -s text ] || { fail "harness(1) has no section for $sections ($base.c)"; continue; }
    longs=$(grep -o '{"[a-z-]*", *\(no\|required\|optional\)_argument' "$src" | sed 's/{"\([a-z-]*\)".*/\1/')
    shorts=$(grep -o 'getopt_long(argc, argv, "[^"]*"' "$src" | sed 's/.*"\(.*\)"/\1/' | tr -d ':' | fold -w1)
    [ -n "$longs" ] || fail "$base.c: no long options found (has the table's format changed?)"
    # --help and -h are documented once, for every command (harness(1), run).
    for o in $longs; do
        [ "$o" = help ] && continue
        grep -qE -- "(^|[^a-z-])--$o([^a-z-]|\$)" text || fail "harness(1), $sections: lacks --$o ($base.c)"
        grep -qE -- "(^|[^a-z-])--$o([^a-z-]|\$)" "$COMPLETION" || fail "the completion lacks --$o ($base.c)"
    done
    for o in $shorts; do
        [ "$o" = h ] && continue
        grep -qE -- "(^|[^a-zA-Z-])-$o([^a-zA-Z-]|\$)" text || fail "harness(1), $sections: lacks -$o ($base.c)"
    done
    pass "$base.c: $(echo $longs | wc -w) long and $(echo $shorts | wc -w) short options checked"
done

# ---- --metric's values -----------------------------------------------------------
# Every name of compare/metric.c's table is in each --metric line of
# harness(1) (compare, history) and in the completion's list.
names=$(sed -n 's/.*names\[HARNESS_METRIC_COUNT\] = {\(.*\)};.*/\1/p' "$top_srcdir/harness/compare/metric.c" |
        tr -d '" ' | tr ',' ' ')
[ "$(echo $names | wc -w)" -ge 5 ] && pass "metric.c names $(echo $names | wc -w) metrics" ||
    fail "metric.c's names table found (has its format changed?)"
grep -- '^\.BR --metric ' harness.1.txt >metric_lines
[ "$(wc -l <metric_lines)" -ge 2 ] || fail "harness(1) documents --metric for compare and history"
completion_metrics=$(sed -n '/--metric)/,/return/p' "$COMPLETION" | grep -o 'compgen -W "[^"]*"')
: >metric_missing
for m in $names; do
    while read -r line; do
        echo "$line" | grep -qw -- "$m" || echo "harness(1): $line lacks the metric $m" >>metric_missing
    done <metric_lines
    echo "$completion_metrics" | grep -qw -- "$m" || echo "the completion's --metric values lack $m" >>metric_missing
done
[ -s metric_missing ] && fail "$(cat metric_missing)" ||
    pass "every metric is in harness(1)'s --metric lines and the completion"

# ---- the pages render without roff warnings ------------------------------------
if command -v groff >/dev/null 2>&1; then
    for page in harness.1 harness-config.5 harness-plugin.7; do
        groff -man -Tutf8 -ww -z "$MAN/$page" 2>warnings
        [ -s warnings ] && { fail "$page: groff warns"; head -5 warnings; } || pass "$page renders cleanly"
    done
fi
finish
