#!/bin/sh
# Every command's `--help` and its man page, man/harness-COMMAND.1, name the
# same options, both ways: an option --help lists (made from the table the
# command parses with, cli/cli_help.h) that the page's OPTIONS lack fails, and
# so does an option the page documents that the command does not take. A short
# letter counts as part of its option: -s, --set in one and --set alone in the
# other is a mismatch. The commands are those `harness --help` lists (main.c's
# table); each has its page, and each page its command.
. "$top_builddir/tests/setup"
MAN="$top_srcdir/man"

# help_options FILE: the options of a --help text, one a line: "-s --set" or "--set".
help_options() {
    sed -n '/^options:$/,/^$/p' "$1" |
        sed -n 's/^  -\([a-zA-Z]\), --\([a-z0-9-]*\).*/-\1 --\2/p; s/^      --\([a-z0-9-]*\).*/--\1/p' | sort -u
}

# man_options PAGE: the options of the OPTIONS section of a man page, the same
# way. Each .TP's tag line may name several (".BR \-t ", " \-\-threshold ", "
# \-a ..."): a short letter followed by a long name is one option.
man_options() {
    awk '/^\.SH / { on = ($2 == "OPTIONS"); next } on' "$1" |
        awk 'tag { print; tag = 0; next } /^\.TP/ { tag = 1 }' |
        sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/^\.[A-Z]* *//' |
        awk '{
            n = 0; line = $0
            # an option: "-" or "--" at the start or after a space, quote or comma
            while (match(line, /(^|[ ",;(])--?[a-zA-Z][a-z0-9-]*/)) {
                tok = substr(line, RSTART, RLENGTH); sub(/^[ ",;(]/, "", tok)
                line = substr(line, RSTART + RLENGTH)
                toks[++n] = tok
            }
            for (i = 1; i <= n; i++) {
                if (toks[i] !~ /^--/ && i < n && toks[i + 1] ~ /^--/) { print toks[i] " " toks[i + 1]; i++ }
                else print toks[i]
            }
        }' | sort -u
}

# compare_options CMD HELP PAGE: one line per option in one and not the other.
compare_options() {
    help_options "$2" >"$SCRATCH/h.opts"
    man_options "$3" >"$SCRATCH/m.opts"
    comm -23 "$SCRATCH/h.opts" "$SCRATCH/m.opts" | while read -r o; do
        echo "$1: '$o' is in \`harness $1 --help\` but not in the OPTIONS of $(basename "$3")"
    done
    comm -13 "$SCRATCH/h.opts" "$SCRATCH/m.opts" | while read -r o; do
        echo "$1: '$o' is in the OPTIONS of $(basename "$3") but \`harness $1 --help\` does not take it"
    done
}

"$HARNESS" --help >main_help || fail "harness --help"
sed -n '/^commands:$/,/^$/p' main_help | awk 'NR > 1 && NF { print $1 }' >commands
[ "$(wc -l <commands)" -ge 10 ] && pass "harness --help lists $(wc -l <commands) commands" ||
    fail "commands found in harness --help"

# ---- the check itself finds each kind of drift ---------------------------------
"$HARNESS" run --help >run_help
help_options run_help >run_help.opts
grep -qx -- '-s --set' run_help.opts && grep -qx -- '--runs' run_help.opts &&
    [ "$(wc -l <run_help.opts)" -ge 10 ] && pass "run --help: $(wc -l <run_help.opts) options read" ||
    fail "run --help's options read (has the help's layout changed?): $(cat run_help.opts)"
man_options "$MAN/harness-run.1" >run_man.opts
cmp -s run_help.opts run_man.opts && pass "harness-run(1) and run --help agree" || true
# An option taken out of the page (its .TP entry), one added that run does not
# take, a short letter dropped from the page: each is named.
awk '/^\.TP$/ { hold = $0; next } hold != "" { if ($0 ~ /--runs|\\-\\-runs/) { skip = 1 } else { print hold; skip = 0 }; hold = "" }
     /^\.(TP|SH)/ { skip = 0 } !skip' "$MAN/harness-run.1" >no_runs.1
grep -q 'runs " ' no_runs.1 && fail "the mutated page still has --runs" || true
compare_options run run_help no_runs.1 >drift
grep -qF "run: '--runs' is in \`harness run --help\` but not in the OPTIONS of no_runs.1" drift &&
    [ "$(wc -l <drift)" -eq 1 ] && pass "an option missing from the page is named" ||
    fail "an option missing from the page: $(cat drift)"
sed 's/^\.SH OPTIONS$/.SH OPTIONS\n.TP\n.BR \\-\\-frobnicate " \\fIN\\fR"\nNot an option of run./' "$MAN/harness-run.1" >extra.1
compare_options run run_help extra.1 >drift
grep -qF "run: '--frobnicate' is in the OPTIONS of extra.1 but \`harness run --help\` does not take it" drift &&
    [ "$(wc -l <drift)" -eq 1 ] && pass "an option the command does not take is named" ||
    fail "an option the command does not take: $(cat drift)"
sed 's/^\.BR \\-s ", " \\-\\-set /.BR \\-\\-set /' "$MAN/harness-run.1" >no_short.1
compare_options run run_help no_short.1 >drift
grep -qF "'-s --set' is in \`harness run --help\`" drift && grep -qF "'--set' is in the OPTIONS of no_short.1" drift &&
    pass "a short letter missing from the page is named" || fail "a short letter missing: $(cat drift)"

# ---- every command ---------------------------------------------------------------
while read -r cmd; do
    page="$MAN/harness-$cmd.1"
    [ -f "$page" ] || { fail "$cmd: no man page man/harness-$cmd.1"; continue; }
    "$HARNESS" "$cmd" --help >"help.$cmd" 2>"help.$cmd.err" || { fail "$cmd --help exits 0"; continue; }
    "$HARNESS" help "$cmd" >"helpcmd.$cmd" 2>/dev/null
    cmp -s "help.$cmd" "helpcmd.$cmd" || fail "harness help $cmd differs from harness $cmd --help"
    grep -q "man harness-$cmd" "help.$cmd" || fail "$cmd --help does not point to man harness-$cmd"
    grep -q "^\.SH OPTIONS" "$page" || { fail "harness-$cmd(1) has no OPTIONS section"; continue; }
    for s in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" EXAMPLES "SEE ALSO"; do
        grep -q "^\.SH $s\$" "$page" || fail "harness-$cmd(1) has no $s section"
    done
    sed -n '/^\.SH NAME/{n;p;}' "$page" | sed 's/\\-/-/g' | grep -q "^harness-$cmd - " ||
        fail "harness-$cmd(1): NAME is not harness-$cmd"
    [ "$(help_options "help.$cmd" | wc -l)" -ge 2 ] || fail "$cmd --help: no options read"
    compare_options "$cmd" "help.$cmd" "$page" >"drift.$cmd"
    if [ -s "drift.$cmd" ]; then
        while read -r line; do fail "$line"; done <"drift.$cmd"
    else
        pass "$cmd: the $(help_options "help.$cmd" | wc -l) options of --help are those of harness-$cmd(1)"
    fi
done <commands
# A page for a command main.c does not dispatch.
for page in "$MAN"/harness-*.1; do
    cmd=$(basename "$page" .1); cmd=${cmd#harness-}
    grep -qx -- "$cmd" commands || fail "man/harness-$cmd.1: harness has no command $cmd"
done
# harness(1) points to every command's page.
while read -r cmd; do
    sed 's/\\-/-/g' "$MAN/harness.1" | grep -q "^\.BR harness-$cmd (1)" ||
        fail "harness(1) does not point to harness-$cmd(1)"
done <commands
finish
