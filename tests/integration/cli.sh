#!/bin/sh
# The CLI surface: help, version, list, validate, unknown commands.
. "$top_builddir/tests/setup"

expect_exit 0 "harness --help" "$HARNESS" --help
grep -q 'run CONFIG' "$SCRATCH/out" || fail "--help lists run"
expect_exit 0 "harness --version" "$HARNESS" --version
grep -q 'plugin ABI 2\.5' "$SCRATCH/out" || fail "--version names the plugin ABI"
# The commit is the one built, not the one configure saw: make refreshes it.
if [ -e "$top_srcdir/.git" ]; then
    commit=$(git -C "$top_srcdir" rev-parse --short=12 HEAD)
    grep -q "commit $commit)" "$SCRATCH/out" || fail "--version names the checkout's commit $commit"
elif [ -f "$top_srcdir/.git-commit" ]; then
    grep -q "commit $(cat "$top_srcdir/.git-commit"))" "$SCRATCH/out" || fail "--version names the tarball's commit"
fi
for cmd in run validate list; do
    expect_exit 0 "harness $cmd --help" "$HARNESS" $cmd --help
    grep -q "usage: harness $cmd" "$SCRATCH/out" || fail "$cmd --help prints its usage"
done
expect_exit 2 "no command" "$HARNESS"
head -1 "$SCRATCH/err" | grep -q "^harness: no command given" || fail "no command: a harness: line first"
expect_exit 2 "unknown command" "$HARNESS" frobnicate
expect_err "unknown command 'frobnicate'" "unknown command is named"
# A typo gets the command meant; `help CMD` is `CMD --help`.
expect_exit 2 "typo of a command" "$HARNESS" runn x.yaml
expect_err "did you mean 'run'?" "runn suggests run"
for cmd in run compare ab export; do
    expect_exit 0 "harness help $cmd" "$HARNESS" help $cmd
    grep -q "usage: harness $cmd" "$SCRATCH/out" || fail "help $cmd prints $cmd's usage"
done
expect_exit 2 "help of an unknown command" "$HARNESS" help frobnicate
expect_exit 2 "run without a config" "$HARNESS" run
expect_err "expected a CONFIG file" "run without a config says what is missing"
expect_exit 2 "unknown option" "$HARNESS" run --bogus x.yaml
expect_err "--bogus" "unknown option is named"
# Each command takes the options of its own table (cli/cli_help.h), which
# its --help lists, and no other command's.
expect_exit 2 "list takes no --set" "$HARNESS" list --set schedule.repeat=2
expect_err "list: unknown option '--set'" "list: --set is named"
expect_exit 2 "run takes no --json" "$HARNESS" run --json "$top_srcdir/configs/noop.yaml"
expect_err "run: unknown option '--json'" "run: --json is named"
expect_exit 2 "validate takes no --runs" "$HARNESS" validate --runs 2 "$top_srcdir/configs/noop.yaml"
"$HARNESS" validate --help | grep -q -- "^  -q, --quiet " || fail "validate --help lists --quiet"

expect_exit 0 "harness list" "$HARNESS" list
for key in rms_norm/cpu noop/cpu spin/cpu copy/cpu; do
    grep -q "^$key " "$SCRATCH/out" || fail "list shows $key"
done
grep -q 'hidden_size *int *default 4096' "$SCRATCH/out" || fail "list shows parameters with type and default"
grep -q 'fp32|bf16' "$SCRATCH/out" || fail "list shows enum choices"

expect_exit 0 "harness list --json" "$HARNESS" list --json
python3 - "$SCRATCH/out" <<'PY' || fail "list --json is valid and complete"
import json, sys
doc = json.load(open(sys.argv[1]))
keys = {v["key"]: v for v in doc["variants"]}
assert {"rms_norm/cpu", "noop/cpu", "spin/cpu", "copy/cpu"} <= keys.keys(), keys.keys()
rms = keys["rms_norm/cpu"]
assert rms["device"] == "cpu" and rms["family"] == "rms_norm" and rms["summary"]
params = {p["name"]: p for p in rms["params"]}
assert params["hidden_size"]["type"] == "int" and params["hidden_size"]["default"] == 4096, params["hidden_size"]
# defaults typed like min and max
assert params["eps"]["default"] == 1e-6 and params["dtype"]["default"] == "fp32", params
for v in doc["variants"]:
    for p in v["params"]:
        want = {"int": (int, float), "float": (int, float), "bool": bool}.get(p["type"], str)
        assert p["default"] is None or isinstance(p["default"], want), p
        assert p["type"] == "bool" or not isinstance(p["default"], bool), p
tb = {p["name"]: p for p in keys["transformer_block/cpu"]["params"]}
assert tb["causal"]["default"] is True, tb["causal"]
assert params["dtype"]["choices"] == ["fp32", "bf16"], params["dtype"]
assert all(p["help"] for p in rms["params"])
PY

expect_exit 0 "validate a good config" "$HARNESS" validate "$top_srcdir/configs/rms_norm.yaml"
grep -q 'variant_key: rms_norm/cpu' "$SCRATCH/out" || fail "validate prints the resolved config"
expect_err "valid (rms_norm/cpu on cpu" "validate says which variant and device"
[ ! -e experiments ] || fail "validate created no experiment folder"

expect_exit 0 "validate with --set" "$HARNESS" validate "$top_srcdir/configs/rms_norm.yaml" \
    --set component.config.dtype=bf16 --set schedule.repeat=2
grep -q 'dtype: bf16' "$SCRATCH/out" || fail "--set reaches the resolved config"

expect_exit 2 "--device with a bad value" "$HARNESS" validate "$top_srcdir/configs/rms_norm.yaml" --device tpu
expect_err "--device: expected auto, cpu or cuda, got 'tpu'" "bad --device is named"
expect_exit 2 "--device CPU" "$HARNESS" validate "$CONFIGS/rms_norm_tiny.yaml" --device CPU
expect_err "got 'CPU'; did you mean cpu?" "--device CPU: did you mean cpu"
finish
