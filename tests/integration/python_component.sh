#!/bin/sh
# The python component (components/python, docs/guide/python.md): a class of
# tests/python/fixtures.py validated and run, its check failing (exit 1), an
# exception in each method (exit 3, naming its file:line), and bad
# callable, params and python values (exit 2, naming the key).
. "$top_builddir/tests/setup"
# The embedded interpreter is never finalized (components/python/python_runtime.c):
# in a sanitizer build, what CPython keeps until exit is not the harness's leak.
export ASAN_OPTIONS="${ASAN_OPTIONS}:detect_leaks=0"

if ! "$HARNESS" list 2>/dev/null | grep -q '^python/cpu '; then
    echo "skip: the python component is not built (configure: python components: no)"
    exit 77
fi
FIXTURES="$top_srcdir/tests/python/fixtures.py"

# config NAME CLASS [PARAMS]: $SCRATCH/NAME.yaml running fixtures.py's CLASS
config() {
    p=${3-}; [ -n "$p" ] || p='{}'
    cat >"$SCRATCH/$1.yaml" <<YAML
schedule: {warmup_steps: 2, wait_steps: 1, measurement_steps: 10, repeat: 2}
component:
  variant_key: python/cpu
  config:
    callable: $FIXTURES:$2
    params: '$p'
YAML
}

config scale Scale '{"n": 64, "alpha": 0.5}'
expect_exit 0 "validate a python component" "$HARNESS" validate "$SCRATCH/scale.yaml"
expect_exit 0 "run a python component" "$HARNESS" run "$SCRATCH/scale.yaml" --output-dir "$SCRATCH/exp"
grep -q 'python/cpu on cpu' "$SCRATCH/out" || fail "the run names python/cpu"
grep -q 'throughput at the median' "$SCRATCH/out" || fail "cost() gives a throughput"
python3 - "$SCRATCH"/exp/*/summary_ranks_1_rank_0.json <<'PY' && pass "summary: check passed, notes, regions, memory" || fail "summary"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["validation"]["status"] == "passed", s["validation"]
assert s["component_notes"] == {"impl": "pure python", "n": "64"}, s["component_notes"]
assert "scale" in json.dumps(s.get("regions", s)), "region 'scale' missing"
text = json.dumps(s)
assert '"x"' in text and '"y"' in text, "tracked buffers x and y missing from the memory report"
assert s["throughput"]["flops_per_step"] == 64, s["throughput"]
PY

# Two points in one process: the interpreter starts once, the class is built twice.
config sweep Scale
cat >>"$SCRATCH/sweep.yaml" <<'YAML'
sweep:
  component.config.params: ['{"n": 16}', '{"n": 32}']
YAML
expect_exit 0 "a sweep of params in one process" "$HARNESS" run "$SCRATCH/sweep.yaml" --output-dir "$SCRATCH/sweep"
grep -q 'of 16 elements over tolerance' "$SCRATCH/out" && grep -q 'of 32 elements over tolerance' "$SCRATCH/out" \
    && pass "each point got its params" || fail "each point got its params"

config wrong WrongScale '{"n": 64}'
expect_exit 1 "a failing reference check" "$HARNESS" run "$SCRATCH/wrong.yaml" --output-dir "$SCRATCH/exp"
expect_err "output does not match the reference" "the failed check is the usual message"

config exit Raises '{"where": "none"}'
sed -i "s#callable: .*#callable: $SCRATCH/exits.py:Exits#" "$SCRATCH/exit.yaml"
printf 'import sys\nclass Exits:\n    def __init__(self, params, ctx): pass\n    def step(self): sys.exit(0)\n' >"$SCRATCH/exits.py"
expect_exit 3 "sys.exit() in step" "$HARNESS" run "$SCRATCH/exit.yaml" --output-dir "$SCRATCH/exp" --set validate=false
expect_err "exits.py:4: SystemExit: 0" "sys.exit() is an exception like any other, not the harness's exit"

for method in __init__ step check cost notes; do
    config raise_$method Raises "{\"where\": \"$method\"}"
    expect_exit 3 "an exception in $method" "$HARNESS" run "$SCRATCH/raise_$method.yaml" --output-dir "$SCRATCH/exp"
    line=$(grep -n '1 / 0' "$FIXTURES" | cut -d: -f1)
    expect_err "fixtures.py:$line: ZeroDivisionError: division by zero" "an exception in $method names its frame"
done
grep -q 'Traceback' "$SCRATCH/err" && fail "the traceback is in the debug log only" || pass "no traceback without HARNESS_DEBUG"

# Bad config values: exit 2 naming the key, also for `validate`.
bad() {
    expect_exit 2 "$1" "$HARNESS" validate "$SCRATCH/bad.yaml"
    expect_err "$2" "$1: names $3"
}
config bad NoSuchClass
bad "a missing class" "component.config.callable: $FIXTURES has no NoSuchClass" "the key"
config bad Scal
bad "a misspelt class" "has no Scal; did you mean Scale?" "the nearest class"
sed -i "s#callable: .*#callable: no_such_module_xyz:Scale#" "$SCRATCH/bad.yaml"
bad "a missing module" "component.config.callable: no module named 'no_such_module_xyz'" "the key"
sed -i "s#callable: .*#callable: missing.py:Scale#" "$SCRATCH/bad.yaml"
bad "a missing file" "component.config.callable: missing.py: no such file" "the key"
sed -i "s#callable: .*#callable: Scale#" "$SCRATCH/bad.yaml"
bad "no class in callable" "expected FILE.py:Class or module:Class" "the form"
config bad Scale '{"n": 64'
bad "params not JSON" "component.config.params: not JSON" "the key"
config bad Scale '[1, 2]'
bad "params not an object" "component.config.params: expected a JSON object" "the key"
printf 'import nothing_here_xyz\nclass C:\n    def step(self): pass\n' >"$SCRATCH/broken.py"
config bad Scale
sed -i "s#callable: .*#callable: $SCRATCH/broken.py:C#" "$SCRATCH/bad.yaml"
bad "an import error inside the file" "importing $SCRATCH/broken.py: broken.py:1: ModuleNotFoundError" "the frame"

config venv Scale '{"n": 8}'
echo "    python: $SCRATCH/no/such/python" >>"$SCRATCH/venv.yaml"
expect_exit 2 "a python that does not exist" "$HARNESS" validate "$SCRATCH/venv.yaml"
expect_err "component.config.python: $SCRATCH/no/such/python: cannot run it" "a bad python names the key"
# A python of another version: a stand-in printing what a 3.99 would.
printf '#!/bin/sh\necho "[[3, 99], [\\"/x\\"]]"\n' >"$SCRATCH/python399"
chmod +x "$SCRATCH/python399"
sed -i "s#python: .*#python: $SCRATCH/python399#" "$SCRATCH/venv.yaml"
expect_exit 2 "a python of another version" "$HARNESS" validate "$SCRATCH/venv.yaml"
want=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
expect_err "is Python 3.99, the interpreter the harness embeds is Python $want" "both versions named"
# A real virtual environment of the embedded version: its packages import.
if python3 -m venv --without-pip "$SCRATCH/venv" 2>/dev/null; then
    site=$("$SCRATCH/venv/bin/python" -c 'import site; print(site.getsitepackages()[0])')
    printf 'class FromVenv:\n    def __init__(self, params, ctx): pass\n    def step(self): pass\n    def check(self): return True\n' \
        >"$site/venv_only_component.py"
    config venv2 Scale
    sed -i "s#callable: .*#callable: venv_only_component:FromVenv#" "$SCRATCH/venv2.yaml"
    echo "    python: $SCRATCH/venv/bin/python" >>"$SCRATCH/venv2.yaml"
    expect_exit 0 "a module of a virtual environment" "$HARNESS" run "$SCRATCH/venv2.yaml" --output-dir "$SCRATCH/exp"
else
    echo "note: python3 -m venv is not available; the virtual environment case is not run"
fi
# numpy arrays from ctx.alloc, when the python on PATH (a virtual environment's
# of the embedded version) has numpy; numpy is not among scripts/setup's packages.
if np_python=$(python3 -c 'import numpy, sys; print(sys.executable)' 2>/dev/null); then
    config numpy NumpyScale '{"rows": 8, "cols": 32}'
    echo "    python: $np_python" >>"$SCRATCH/numpy.yaml"
    expect_exit 0 "numpy arrays over the harness's memory" "$HARNESS" run "$SCRATCH/numpy.yaml" --output-dir "$SCRATCH/exp"
    grep -q 'of 256 elements over tolerance' "$SCRATCH/out" && pass "reference() compared the 2-D output" \
        || fail "reference() compared the 2-D output"
else
    echo "note: no numpy for python3 on PATH; the numpy case is not run"
fi
finish
