#!/bin/sh
# The bash completion (share/completion/harness), driven in bash as
# readline would: COMP_WORDS / COMP_CWORD set, the function called,
# COMPREPLY read. Subcommands, options, option values, config files,
# experiment folders, config keys and variant keys from `harness list`.
. "$top_builddir/tests/setup"
command -v bash >/dev/null 2>&1 || { echo "no bash: skipped"; exit 77; }

mkdir -p confs/sub exp/2026-01-01__00-00-00_abcdef12
: >confs/a.yaml; : >confs/b.yml; : >confs/notes.txt

# complete WORD...: the completions of the last word, one a line, sorted.
complete_line() {
    bash -c '
        . "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        _harness harness
        printf "%s\n" "${COMPREPLY[@]}" | sort' completion "$top_srcdir/share/completion/harness" "$@"
}
# expect DESC WANT WORD...: the completions are exactly WANT (space-separated).
expect() {
    desc=$1; want=$2; shift 2
    got=$(complete_line "$@" | tr '\n' ' ' | sed 's/ $//')
    [ "$got" = "$want" ] && pass "$desc" || fail "$desc: got '$got', want '$want'"
}
# expect_has DESC WORD WORD...: WORD is among the completions.
expect_has() {
    desc=$1; word=$2; shift 2
    complete_line "$@" | grep -qxF -- "$word" && pass "$desc" || fail "$desc: '$word' not offered"
}

expect "subcommands starting with r" "record run" "$HARNESS" r
expect "new-plugin and the rest" "new-plugin" "$HARNESS" ne
expect_has "every subcommand" export "$HARNESS" ""
expect "run's options" "--allow-above-peak --color --device --filter --help --output-dir --plugin-path --quiet --runs --set --time-budget --wide" harness run --
expect "--color's values" "always auto never" harness compare --color ""
expect "list's --json" "--json" harness list --j
expect "validate's options" "--device --help --output-dir --plugin-path --quiet --set" harness validate --
expect "export's --format values" "bmf csv gbench gha gha-throughput json" harness export --format ""
expect "history's formats" "html" harness history --format h
expect "compare's formats" "json junit markdown text" harness compare --format ""
expect "--report's formats" "json= junit= markdown= text=" harness ab x.yaml --report ""
expect "devices" "auto cpu cuda" harness run --device ""
expect "new-plugin devices" "cpu cuda" harness new-plugin x --device ""
expect "--on-ambiguous" "fail pass pass-interference" harness compare --on-ambiguous ""
expect "config files and folders for run" "confs/a.yaml confs/b.yml confs/sub" harness run confs/
expect "folders for export" "exp/2026-01-01__00-00-00_abcdef12" harness export exp/
expect "directories for --plugin-path" "confs/sub" harness run x.yaml --plugin-path confs/
expect "config keys for --set" "schedule.wait_steps= schedule.warmup_steps=" harness run x.yaml --set schedule.wa
expect_has "stopping keys for --set" "schedule.stopping.max_rel_ci=" harness run x.yaml --set schedule.stopping.
# Variant keys: from the harness being completed (here the build tree's), with the line's --plugin-path.
# '=' breaks words (bash's default COMP_WORDBREAKS): the part after it is offered.
expect_has "variant keys from harness list" "rms_norm/cpu" \
    "$HARNESS" run x.yaml --set component.variant_key=rms
"$HARNESS" new-plugin compl_probe --dir probe >/dev/null && mkdir plugins &&
    cc -std=gnu11 -fPIC -shared -I"$top_srcdir/harness/include" probe/compl_probe.c -o plugins/compl_probe.so -lm ||
    fail "a plugin for the --plugin-path case builds"
# A shell whose COMP_WORDBREAKS lacks '=': the whole KEY=VALUE is offered.
got=$(bash -c '. "$1"; COMP_WORDBREAKS=" "; COMP_LINE="harness run x.yaml --set component.variant_key=rms"
    COMP_POINT=${#COMP_LINE}; COMP_WORDS=("$2" run x.yaml --set component.variant_key=rms); COMP_CWORD=4
    _harness harness; echo "${COMPREPLY[*]}"' x "$top_srcdir/share/completion/harness" "$HARNESS" 2>&1)
case " $got " in *" component.variant_key=rms_norm/cpu "*) pass "KEY=VALUE when '=' does not break words" ;;
    *) fail "KEY=VALUE when '=' does not break words: got '$got'" ;; esac
# component.config.*: the parameters of the config file's variant (a bare
# family, or an exact key), or of the line's --set component.variant_key=.
printf 'component:\n  variant_key: rms_norm   # a family\n' >confs/rms.yaml
expect "parameters of the config's variant" "component.config.hidden_size=" \
    "$HARNESS" run confs/rms.yaml --set component.config.hid
expect_has "every parameter of rms_norm" "component.config.eps=" "$HARNESS" run confs/rms.yaml --set component.config.
expect "parameters of the variant --set names" "component.config.duration_ns=" \
    "$HARNESS" run confs/rms.yaml --set component.variant_key=spin/cpu --set component.config.du
expect "no parameters without a config" "component.config=" "$HARNESS" run --set component.config
expect "no completion for another key's value" "" harness run x.yaml --set schedule.repeat=
expect_has "variant keys of a --plugin-path" "compl_probe/cpu" \
    "$HARNESS" run --plugin-path plugins x.yaml --set component.variant_key=compl
expect "no options for an unknown command" "" harness frobnicate --

# Loaded by bash-completion too, when installed (its helpers split words differently).
if [ -f /usr/share/bash-completion/bash_completion ]; then
    got=$(bash -c '. /usr/share/bash-completion/bash_completion; . "$1"
        COMP_WORDS=(harness export --format ""); COMP_CWORD=3; COMP_LINE="harness export --format "; COMP_POINT=${#COMP_LINE}
        _harness harness; echo "${COMPREPLY[*]}"' completion "$top_srcdir/share/completion/harness" 2>&1)
    [ "$got" = "csv json bmf gha gha-throughput gbench" ] && pass "with bash-completion's helpers" || fail "with bash-completion: got '$got'"
fi
finish
