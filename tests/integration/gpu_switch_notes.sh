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
    "p=${HARNESS_ATTENTION_HOPPER_PERSISTENT:-} t=${HARNESS_ATTENTION_HOPPER_TMA_STORE:-}" >>"$CALLS"
stages=${HARNESS_ATTENTION_HOPPER_STAGES:-3} bk=128 c=3 sched=persistent o="through TMA stores"
[ "${HARNESS_ATTENTION_HOPPER_BK:-}" = 176 ] && [ "${IGNORE:-}" != BK ] && bk=176
[ "${HARNESS_ATTENTION_HOPPER_CONSUMERS:-}" = 2 ] && c=2
[ "${HARNESS_ATTENTION_HOPPER_PERSISTENT:-}" = 0 ] && sched="a block per item"
[ "${HARNESS_ATTENTION_HOPPER_TMA_STORE:-}" = 0 ] && o="stored from registers"
mkdir -p "$out/run"
echo "{\"component_notes\": {\"kernel\": \"Hopper: $stages stages of $bk keys, $c consumer warpgroups, $sched, O $o\"}}" \
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
        H=$1 out=$2 deadline= scope=test
        out_of_time() { return 1; }
        time_left() { echo 100; }
        verdict() { echo "$*"; }
        . "$3/tests/gpu/parts.sh"
        part_hopper_validate' sh "$SCRATCH/harness" "$SCRATCH/out" "$top_srcdir" >"$SCRATCH/verdicts" 2>&1
}

validate
for sw in CONSUMERS=2 TMA_STORE=0 PERSISTENT=0 BK=176; do
    grep -q "^validate attention/cuda hopper kernel ([23] stages, $sw) .* ok$" "$SCRATCH/verdicts" &&
        pass "$sw: validated once, its note shows it" || fail "$sw: $(grep "$sw" "$SCRATCH/verdicts")"
done
[ "$(grep -c '_\(CONSUMERS-2\|TMA_STORE-0\|PERSISTENT-0\|BK-176\) ' "$CALLS")" = 4 ] &&
    grep -q '_BK-176 bk=176 c= p= t=$' "$CALLS" && grep -q '_CONSUMERS-2 bk= c=2 p= t=$' "$CALLS" &&
    pass "each switch's run sets its variable and no other" || fail "calls: $(grep '=' "$CALLS" | tr '\n' ';')"
grep -q 'FAIL' "$SCRATCH/verdicts" && fail "a FAIL: $(grep FAIL "$SCRATCH/verdicts")" || pass "no other verdict fails"

validate IGNORE=BK
grep -q "^validate attention/cuda hopper kernel (2 stages, BK=176) .* FAIL the switch did not take: its note says 'Hopper: 2 stages of 128 keys, 3 consumer warpgroups, persistent, O through TMA stores'$" \
    "$SCRATCH/verdicts" && pass "a switch that did not take fails, naming the note" ||
    fail "BK ignored: $(grep BK "$SCRATCH/verdicts")"
finish
