#!/bin/sh
# tests/gpu/parts.sh's validation of the Hopper attention's A/B switches, on
# a machine without a GPU: a stand-in nvidia-smi says compute capability
# 9.0 and a stand-in harness writes the summary's kernel note from the
# switches it honours. Each switch's run is validated once, with its
# variable set and no other; a run whose note does not show its switch (the
# stand-in ignoring IGNORE) is a FAIL naming the note.
. "$top_builddir/tests/setup"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }

mkdir -p "$SCRATCH/bin"
printf '#!/bin/sh\necho 9.0\n' >"$SCRATCH/bin/nvidia-smi"
cat >"$SCRATCH/harness" <<'H'
#!/bin/sh
# run CONFIG ... --output-dir DIR
while [ $# -gt 0 ]; do [ "$1" = --output-dir ] && out=$2; shift; done
echo "$(basename "$out") bk=${HARNESS_ATTENTION_HOPPER_BK:-} c=${HARNESS_ATTENTION_HOPPER_CONSUMERS:-}" \
    "p=${HARNESS_ATTENTION_HOPPER_PERSISTENT:-} t=${HARNESS_ATTENTION_HOPPER_TMA_STORE:-}" \
    "cl=${HARNESS_ATTENTION_HOPPER_CLUSTER:-}" >>"$CALLS"
stages=${HARNESS_ATTENTION_HOPPER_STAGES:-3} bk=128 c=3 sched=persistent o="through TMA stores"
cl="K/V multicast over clusters of 2"
[ "${HARNESS_ATTENTION_HOPPER_BK:-}" = 176 ] && [ "${IGNORE:-}" != BK ] && bk=176
[ "${HARNESS_ATTENTION_HOPPER_CONSUMERS:-}" = 2 ] && c=2
[ "${HARNESS_ATTENTION_HOPPER_PERSISTENT:-}" = 0 ] && sched="a block per item"
[ "${HARNESS_ATTENTION_HOPPER_TMA_STORE:-}" = 0 ] && o="stored from registers"
[ "${HARNESS_ATTENTION_HOPPER_CLUSTER:-}" = 1 ] && cl="no cluster"
mkdir -p "$out/run"
echo "{\"component_notes\": {\"kernel\": \"Hopper: $stages stages of $bk keys, $c consumer warpgroups, $cl, $sched, O $o\"}}" \
    >"$out/run/summary_ranks_1_rank_0.json"
H
chmod +x "$SCRATCH/bin/nvidia-smi" "$SCRATCH/harness"
CALLS=$SCRATCH/calls
export CALLS

# validate [VAR=VALUE...]: part_hopper_validate with the stand-ins, its verdicts in $SCRATCH/verdicts.
validate() {
    : >"$CALLS"
    rm -rf "$SCRATCH/out" && mkdir -p "$SCRATCH/out"
    env PATH="$SCRATCH/bin:$PATH" "$@" sh -c '
        H=$1 out=$2 repo=$3 deadline= scope=test
        out_of_time() { return 1; }
        time_left() { echo 100; }
        verdict() { echo "$*"; }
        . "$3/tests/gpu/parts.sh"
        part_hopper_validate' sh "$SCRATCH/harness" "$SCRATCH/out" "$top_srcdir" >"$SCRATCH/verdicts" 2>&1
}

validate
for sw in hopper_pair hopper_direct hopper_serial hopper_wide hopper_solo; do
    grep -q "^validate attention/cuda hopper kernel ([23] stages, $sw) .* ok$" "$SCRATCH/verdicts" &&
        pass "$sw: validated once, its note shows it" || fail "$sw: $(grep "$sw" "$SCRATCH/verdicts")"
done
[ "$(grep -c '_hopper_[a-z]* ' "$CALLS")" = 5 ] &&
    grep -q '_hopper_wide bk=176 c= p= t= cl=$' "$CALLS" && grep -q '_hopper_pair bk= c=2 p= t= cl=$' "$CALLS" &&
    grep -q '_hopper_solo bk= c= p= t= cl=1$' "$CALLS" &&
    pass "each switch's run sets its variables (tests/gpu/hopper_switches) and no other" ||
    fail "calls: $(grep '=' "$CALLS" | tr '\n' ';')"
grep -q 'FAIL' "$SCRATCH/verdicts" && fail "a FAIL: $(grep FAIL "$SCRATCH/verdicts")" || pass "no other verdict fails"

validate IGNORE=BK
grep -q "^validate attention/cuda hopper kernel (2 stages, hopper_wide) .* FAIL the switch did not take: its note says 'Hopper: 2 stages of 128 keys, 3 consumer warpgroups, K/V multicast over clusters of 2, persistent, O through TMA stores'$" \
    "$SCRATCH/verdicts" && pass "a switch that did not take fails, naming the note" ||
    fail "BK ignored: $(grep BK "$SCRATCH/verdicts")"
finish
