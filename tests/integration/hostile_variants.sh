#!/bin/sh
# Issue 25's own list of hostile variants, beyond the cases it names (those
# are in hangs.sh, hostile_folders.sh, inputs.sh, bad_inputs.sh): what a user
# might do by mistake or an attacker on purpose to configs, options, plugin
# folders, experiment folders and databases. Each must end with exit 2 or 3
# (never 124 under `timeout 20`), a `harness: ` line on stderr, and write
# nothing outside the scratch folder. The count is printed at the end.
. "$top_builddir/tests/setup"
TINY="$CONFIGS/rms_norm_tiny.yaml"
# A sanitizer build: an allocation past the memory returns NULL, as malloc
# does, instead of AddressSanitizer ending the process.
export ASAN_OPTIONS="${ASAN_OPTIONS}:allocator_may_return_null=1"
W="$SCRATCH/w"
mkdir -p "$W"
cases=0

# variant DESC WANT CMD...: CMD ends under timeout 20 with an exit in WANT
# ("2", "2|3"), a `harness: ` line on stderr.
variant() {
    desc=$1; want=$2; shift 2
    cases=$((cases + 1))
    timeout 20 "$@" >"$SCRATCH/out" 2>"$SCRATCH/err" </dev/null
    got=$?
    if [ $got -eq 124 ]; then fail "$desc: hung (killed after 20 s)"; return; fi
    case "|$want|" in *"|$got|"*) ;; *) fail "$desc: exit $got, want $want"
        sed 's/^/  stderr: /' "$SCRATCH/err" | head -4; return ;; esac
    grep -q '^harness: ' "$SCRATCH/err" && pass "$desc: exit $got" \
        || { fail "$desc: no 'harness: ' line"; sed 's/^/  stderr: /' "$SCRATCH/err" | head -4; }
}
run() { variant "$1" "$2" "$HARNESS" run "$3" --output-dir "$W/out" --quiet; }
cfg() { printf '%s\n' "$2" >"$W/$1.yaml"; echo "$W/$1.yaml"; }
tiny_with() {  # a copy of the tiny config with one more line
    { cat "$TINY"; printf '%s\n' "$2"; } >"$W/$1.yaml"; echo "$W/$1.yaml"
}

# ---- configs -------------------------------------------------------------
mkdir -p "$W/cfgdir.yaml"
run "config that is a folder" 2 "$W/cfgdir.yaml"
mkfifo "$W/fifo.yaml"
run "config that is a FIFO" 2 "$W/fifo.yaml"
ln -s /dev/zero "$W/zero.yaml"
run "config linked to /dev/zero" 2 "$W/zero.yaml"
ln -s /dev/urandom "$W/urandom.yaml"
run "config linked to /dev/urandom" 2 "$W/urandom.yaml"
truncate -s 3G "$W/sparse.yaml"
run "config: a 3 GB sparse file" 2 "$W/sparse.yaml"
ln -s loop2.yaml "$W/loop1.yaml"; ln -s loop1.yaml "$W/loop2.yaml"
run "config: a symlink loop" 2 "$W/loop1.yaml"
head -c 4096 /dev/urandom >"$W/random.yaml"
run "config of random bytes" 2 "$W/random.yaml"
printf 'schedule:\n  warmup_steps: 1\0\n' >"$W/nul.yaml"
run "config with a NUL byte" 2 "$W/nul.yaml"
python3 - "$W/laughs.yaml" <<'PY'
import sys
lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
for i in range(1, 12):
    lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i-1}"] * 10) + "]")
lines.append("component: {variant_key: rms_norm, config: {batch_size: *a11}}")
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
run "YAML alias bomb (billion laughs)" 2 "$W/laughs.yaml"
python3 -c 'import sys; open(sys.argv[1], "w").write("schedule: " + "[" * 200000 + "]" * 200000 + "\n")' "$W/deep.yaml"
run "YAML nested 200,000 deep" 2 "$W/deep.yaml"
run "config root is a list" 2 "$(cfg list '- schedule: {}')"
run "config root is a scalar" 2 "$(cfg scalar 'hello')"
run "config with version 99" 2 "$(tiny_with v99 'version: 99')"
run "a key given twice" 2 "$(tiny_with dup 'schedule: {repeat: 1}')"
run "variant key with a path" 2 "$(cfg path 'component: {variant_key: ../../../../etc/passwd}')"
run "variant key of 100 kB" 2 "$(cfg longkey "component: {variant_key: $(head -c 100000 /dev/zero | tr '\0' a)}")"
run "repeat: 1e300" 2 "$(cfg e300 'schedule: {repeat: 1e300}
component: {variant_key: rms_norm}')"
run "measurement_steps: .inf" 2 "$(cfg inf 'schedule: {measurement_steps: .inf}
component: {variant_key: rms_norm}')"
run "max_time_s: .nan" 2 "$(cfg nan 'schedule: {stopping: {max_time_s: .nan}}
component: {variant_key: rms_norm}')"
run "step_timeout_s: -1" 2 "$(cfg negto 'schedule: {step_timeout_s: -1}
component: {variant_key: rms_norm}')"
run "data.seed: 2^64" 2 "$(cfg seed 'data: {seed: 18446744073709551616}
component: {variant_key: rms_norm}')"
run "warmup_steps: 2^63" 2 "$(cfg w63 'schedule: {warmup_steps: 9223372036854775808}
component: {variant_key: rms_norm}')"
run "hidden_size past the memory" "2|3" "$(cfg huge 'component: {variant_key: rms_norm, config: {batch_size: 1000000, seq_len: 1000000, hidden_size: 1000000}}')"
run "a tab for indentation" 2 "$(printf 'schedule:\n\twarmup_steps: 1\n' >"$W/tab.yaml"; echo "$W/tab.yaml")"
run "an anchor as a key" 2 "$(cfg anchorkey '&k schedule: {}
*k : {}')"
run "a YAML tag that runs code" 2 "$(cfg tag 'component: !!python/object/apply:os.system [echo pwned]')"
run "a config of 1 MB of comments and one bad key" 2 "$(python3 -c 'import sys; open(sys.argv[1], "w").write("#" * 1000 + "\n" * 1000 + "sched: 1\n")' "$W/big.yaml"; echo "$W/big.yaml")"
variant "--set with a newline in the value" 2 "$HARNESS" run "$TINY" --output-dir "$W/out" \
    --set 'experiment.name=a
b: c'
variant "--set a key path 10,000 deep" 2 "$HARNESS" run "$TINY" --output-dir "$W/out" \
    --set "$(python3 -c 'print(".".join(["a"] * 10000))')=1"
variant "--set of a map onto a number" 2 "$HARNESS" run "$TINY" --output-dir "$W/out" --set 'schedule.repeat={a: 1}'

# ---- options -------------------------------------------------------------
variant "an unknown option" 2 "$HARNESS" run "$TINY" --no-such-option
variant "an unknown command" 2 "$HARNESS" frobnicate
variant "--output-dir /dev/null" "2|3" "$HARNESS" run "$TINY" --output-dir /dev/null
: >"$W/afile"
variant "--output-dir under a file" "2|3" "$HARNESS" run "$TINY" --output-dir "$W/afile/sub"
variant "--output-dir in /proc" "2|3" "$HARNESS" run "$TINY" --output-dir /proc/harness-test
variant "--output-dir of 5000 bytes" "2|3" "$HARNESS" run "$TINY" --output-dir "$W/$(head -c 5000 /dev/zero | tr '\0' d)"
variant "--runs 0" 2 "$HARNESS" run "$TINY" --runs 0 --output-dir "$W/out"
variant "--runs 10^12" 2 "$HARNESS" run "$TINY" --runs 1000000000000 --output-dir "$W/out"
variant "--plugin-path a file" 2 "$HARNESS" run "$TINY" --plugin-path "$TINY" --output-dir "$W/out"

# ---- plugin folders ------------------------------------------------------
mkdir -p "$W/plugins"
printf 'not an ELF\n' >"$W/plugins/rms_norm.so"
printf "dlname='../../../../../etc/passwd'\nlibrary_names='x.so'\n" >"$W/plugins/evil.la"
ln -s /dev/zero "$W/plugins/zero.la"
ln -s . "$W/plugins/self"
variant "a plugin folder of fakes (text .so, .la naming /etc/passwd, /dev/zero, a loop)" "0|2|3" \
    "$HARNESS" list --plugin-path "$W/plugins"
# The run skips each fake with a warning naming it and runs the real rms_norm
# (exit 0): a fake must never be loaded in its place.
variant "run beside a plugin folder of fakes" "0" "$HARNESS" run "$TINY" --plugin-path "$W/plugins" --output-dir "$W/out"
grep -q "skipped $W/plugins/rms_norm.so: .*not an ELF" "$SCRATCH/err" && pass "the fake rms_norm.so is named and skipped" \
    || fail "the fake rms_norm.so is not named as skipped"

# ---- suites ----------------------------------------------------------------
printf '%s\n' "$W/self.suite" >"$W/self.suite"
variant "a suite that lists itself" 2 "$HARNESS" run "$W/self.suite" --output-dir "$W/out"
mkfifo "$W/fifo.suite"
variant "a suite file that is a FIFO" 2 "$HARNESS" run "$W/fifo.suite" --output-dir "$W/out"

# ---- experiment folders and databases ---------------------------------------
"$HARNESS" run "$CONFIGS/spin_tiny.yaml" --output-dir "$SCRATCH/good" --quiet >/dev/null 2>&1 || fail "a good run"
GOOD=$(echo "$SCRATCH"/good/*)
variant "compare a path that does not exist" 2 "$HARNESS" compare "$GOOD" "$W/nothing"
variant "compare a regular file" 2 "$HARNESS" compare "$GOOD" "$TINY"
variant "compare /dev/zero" 2 "$HARNESS" compare "$GOOD" /dev/zero
# summary_as NAME PYTHON: a copy of the good folder whose summary is rewritten.
summary_as() {
    d="$W/f_$1"; rm -rf "$d"; cp -r "$GOOD" "$d"
    python3 - "$d/summary_ranks_1_rank_0.json" "$2" <<'PY'
import json, sys
p, how = sys.argv[1], sys.argv[2]
s = json.load(open(p))
if how == "deep":
    open(p, "w").write('{"schema": "harness.summary/1", "x": ' + "[" * 100000 + "]" * 100000 + "}")
elif how == "e400":        # a sample past binary64: infinite
    s["timing"]["samples"][0] = 12345.678; open(p, "w").write(json.dumps(s).replace("12345.678", "1e400"))
elif how == "badutf8":
    open(p, "wb").write(json.dumps(s).replace("spin", "sp\udcffn").encode("utf-8", "surrogateescape"))
elif how == "negative_n":  # a negative step time
    s["timing"]["samples"][0] = -5; json.dump(s, open(p, "w"))
elif how == "rank_lie":
    s["rank"] = 7; s["world_size"] = 2; json.dump(s, open(p, "w"))
elif how == "samples_string":
    s["timing"]["samples"] = "lots"; json.dump(s, open(p, "w"))
elif how == "no_schema":
    del s["schema"]; json.dump(s, open(p, "w"))
elif how == "truncated":
    open(p, "w").write(json.dumps(s)[:100])
PY
    echo "$d"
}
for how in deep e400 badutf8 negative_n rank_lie samples_string no_schema truncated; do
    variant "compare a summary: $how" 2 "$HARNESS" compare "$GOOD" "$(summary_as $how $how)"
done
mkdir -p "$W/dbdir"
variant "record into a database that is a folder" "2|3" "$HARNESS" record "$GOOD" --db "$W/dbdir" --commit c --branch b
mkfifo "$W/db.fifo"
variant "record into a database that is a FIFO" "2|3" "$HARNESS" record "$GOOD" --db "$W/db.fifo" --commit c --branch b
head -c 8192 /dev/urandom >"$W/garbage.sqlite"
variant "history of a database of random bytes" "2|3" "$HARNESS" history --db "$W/garbage.sqlite"
variant "history of /dev/zero" "2|3" "$HARNESS" history --db /dev/zero
variant "export in an unknown format" 2 "$HARNESS" export "$GOOD" --format yaml

# experiment.name is never a path: a name that tries to leave the folder
# runs (exit 0) inside it.
cases=$((cases + 1))
timeout 20 "$HARNESS" run "$(cfg slash 'experiment: {name: ../../escape}
component: {variant_key: rms_norm}')" --output-dir "$W/named" --quiet >/dev/null 2>&1 \
    && [ "$(ls "$W/named" | wc -l)" -eq 1 ] && pass "experiment.name ../../escape stays in the folder" \
    || fail "experiment.name ../../escape"

# Nothing was written outside the scratch folder: no experiments/ where the
# test ran, no escape from experiment.name.
[ ! -e "$SCRATCH/../escape" ] || fail "experiment.name escaped the output folder"
echo "hostile variants: $cases"
[ "$cases" -ge 40 ] && pass "$cases hostile variants" || fail "only $cases hostile variants"
finish
