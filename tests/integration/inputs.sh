#!/bin/sh
# Inputs that are not what they seem: a config that is a FIFO, a device or
# huge; counts that overflow; a config named like an artifact; an output
# path that cannot work; a stdout that cannot be written.
. "$top_builddir/tests/setup"

tiny="$CONFIGS/spin_tiny.yaml"

# The config is read once, from a regular file of at most 16 MiB.
mkfifo "$SCRATCH/fifo.yaml"
expect_exit 2 "a FIFO as config" timeout 20 "$HARNESS" run "$SCRATCH/fifo.yaml" --output-dir "$SCRATCH/fifo-exp"
expect_err "fifo.yaml: cannot read config: it is a pipe (FIFO); give a regular file" "names the FIFO"
[ ! -e "$SCRATCH/fifo-exp" ] && pass "no folder for a FIFO" || fail "a folder for a FIFO"
expect_exit 2 "/dev/zero as config" timeout 20 "$HARNESS" validate /dev/zero
expect_err "/dev/zero: cannot read config: it is a character device" "names /dev/zero"
cat "$tiny" | { expect_exit 2 "a pipe as config" "$HARNESS" validate /dev/stdin; cat "$SCRATCH/err"; } >"$SCRATCH/piped"
grep -q "pipe (FIFO)" "$SCRATCH/piped" && pass "names the pipe" || fail "pipe message: $(cat "$SCRATCH/piped")"
{ cat "$tiny"; head -c 17000000 /dev/zero | tr '\0' '#'; } >"$SCRATCH/huge.yaml"
expect_exit 2 "a config over 16 MiB" "$HARNESS" validate "$SCRATCH/huge.yaml"
expect_err "huge.yaml: config of 17000" "names the file and its size"

# Counts checked before any arithmetic, naming the key.
overflow() {
    key=$1; value=$2; shift 2
    expect_exit 2 "$key=$value" "$HARNESS" validate "$tiny" --set "$key=$value" "$@"
    expect_err "$key: " "$key overflow names the key"
}
overflow schedule.repeat 9223372036854775807
overflow schedule.measurement_steps 9223372036854775807
overflow schedule.warmup_steps 9223372036854775807
overflow schedule.wait_steps 9223372036854775000 --set schedule.repeat=2
cat >"$SCRATCH/auto.yaml" <<'YAML'
schedule: {measurement_steps: auto, repeat: 1000000, stopping: {max_steps: 9223372036854775807}}
component: {variant_key: spin}
YAML
expect_exit 2 "auto windows overflow" "$HARNESS" validate "$SCRATCH/auto.yaml"
expect_err "auto.yaml:1:76: schedule.stopping.max_steps:" "names stopping.max_steps with its line"

# A config named like an artifact is copied under a name that cannot collide.
for name in resolved_config.yaml status.json summary_ranks_1_rank_0.json samples_ranks_1_rank_0.bin .hidden.yaml; do
    mkdir -p "$SCRATCH/named"
    cp "$tiny" "$SCRATCH/named/$name"
    out="$SCRATCH/named-exp-$name"
    expect_exit 0 "a config named $name" "$HARNESS" run "$SCRATCH/named/$name" --output-dir "$out" --quiet \
        --set experiment.name=named
    d=$(ls -d "$out"/*)
    if cmp -s "$tiny" "$d/config_as_given.yaml" && head -1 "$d/resolved_config.yaml" | grep -q "^# resolved" &&
        python3 -c "import json,sys; [json.load(open(f)) for f in sys.argv[1:]]" "$d/status.json" \
            "$d/summary_ranks_1_rank_0.json"; then
        pass "$name: copied as config_as_given.yaml, artifacts intact"
    else
        fail "$name: $(ls -a "$d")"
    fi
done
expect_exit 0 "an ordinary name" "$HARNESS" run "$tiny" --output-dir "$SCRATCH/plain" --quiet
cmp -s "$tiny" "$SCRATCH"/plain/*/spin_tiny.yaml && pass "copied under its own name" || fail "plain copy"

# The output path is checked before any folder is made.
: >"$SCRATCH/a-file"
expect_exit 3 "output under a file" "$HARNESS" run "$tiny" --output-dir "$SCRATCH/a-file/sub"
expect_err "experiment.output_dir: $SCRATCH/a-file exists and is not a directory" "names the file in the way"
long=$(python3 -c "print('/'.join(['d' * 200] * 21))")
expect_exit 2 "an output path too long" "$HARNESS" run "$tiny" --output-dir "$SCRATCH/$long"
expect_err "is too long for the experiment folder's files" "says the path is too long"
[ ! -e "$SCRATCH/dddd" ] && [ ! -e "$SCRATCH/$(printf 'd%.0s' $(seq 200))" ] && pass "nothing made" || fail "made a folder"

# stdout that cannot be written is a failure.
if [ -w /dev/full ]; then
    expect_exit 3 "list > /dev/full" sh -c "'$HARNESS' list >/dev/full"
    expect_err "cannot write to standard output" "list says so"
    expect_exit 3 "validate > /dev/full" sh -c "'$HARNESS' validate '$tiny' >/dev/full"
    expect_exit 3 "run > /dev/full" sh -c "'$HARNESS' run '$tiny' --output-dir '$SCRATCH/full' >/dev/full"
    expect_err "cannot write to standard output" "run says so"
fi
# A map of 120,000 distinct keys (1.6 MB): refused at the limit of keys per
# map at once, naming where; a duplicate among 10,000 keys is found (a hash
# set, not a scan of the keys so far), both well inside `timeout 20`.
python3 -c "
print('component:\n  variant_key: spin\n  config:')
for i in range(120000): print('    k%d: 1' % i)" >"$SCRATCH/keys120k.yaml"
expect_exit 2 "120,000 keys in one map" timeout 20 "$HARNESS" validate "$SCRATCH/keys120k.yaml"
expect_err "keys120k.yaml:10004:5: component.config: more than 10000 keys in one map" "the key limit is named"
python3 -c "
print('component:\n  variant_key: spin\n  config:')
for i in range(9999): print('    k%d: 1' % i)
print('    k7: 2')" >"$SCRATCH/dup10k.yaml"
expect_exit 2 "a duplicate among 10,000 keys" timeout 20 "$HARNESS" validate "$SCRATCH/dup10k.yaml"
expect_err "component.config.k7: duplicate key (first at line 11)" "the duplicate is named with the first"
finish
