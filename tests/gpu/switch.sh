#!/bin/sh
# switch.sh env|words VARIANT: a Hopper A/B variant's line of
# tests/gpu/hopper_switches: its settings as environment assignments
# (HARNESS_ATTENTION_HOPPER_PERSISTENT=0 ...), or the words its kernel note
# must hold. Nothing (exit 1) for a variant the table does not have.
field=${1:?usage: switch.sh env|words VARIANT} variant=${2:?usage: switch.sh env|words VARIANT}
awk -F'|' -v v="$variant" -v f="$field" '
    /^#/ { next }
    { name = $1; gsub(/ /, "", name) }
    name == v {
        if (f == "env") { n = split($2, s, " "); for (i = 1; i <= n; i++) printf "%sHARNESS_ATTENTION_HOPPER_%s", (i > 1 ? " " : ""), s[i] }
        else { w = $3; gsub(/^ +| +$/, "", w); printf "%s", w }
        print ""; found = 1 }
    END { exit !found }' "$(dirname "$0")/hopper_switches"
