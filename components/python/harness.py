"""harness: what a component written in Python sees of the harness.

The python component (python_component.so, docs/guide/python.md) embeds
CPython and makes this module importable as `harness`. A component is a
class, named in the config as `component.config.callable: FILE.py:Class`
(or `module:Class`), built once per instance as `Class(params, ctx)`:

    params   the dict decoded from `component.config.params` (a JSON object)
    ctx      a harness.Context: memory, data, regions, notes, the stream

and then called as the C plugins' callbacks are (plugin.h):

    step()              the timed work, required
    check()             optional: runs one step and compares with a reference;
                        returns True/False, a float (the max abs error, held to
                        self.tolerance, default 1e-5) or a dict of
                        harness_check's fields (passed, checked, mismatches,
                        max_abs_err, max_rel_err, tolerance, detail)
    reference()         optional, instead of check(): the expected values of
                        the declared outputs (ctx.output), a sequence in the
                        order they were declared (or one array for one output);
                        the harness runs one step and compares
    cost()              optional: {"flops": F, "bytes": B} of one step
    notes()             optional: {key: value} facts, into component_notes
    close()             optional: release what __init__ acquired (destroy)

This file is the contract: its names and meanings stay as documented. Outside
the harness (no `_harness` module) it still imports, so a component's module
can be imported and its pure parts tested with plain python.
"""

import difflib
import importlib
import importlib.util
import json
import math
import os
import sys
import traceback

try:  # the services of the running instance, built into the python component
    import _harness
except ImportError:  # plain python: only the pure helpers are usable
    _harness = None

__all__ = ["Context", "DTYPES", "HarnessError"]

# Element types: the harness_dtype code, the element size and the buffer
# format of a memoryview over it. bfloat16 is stored as uint16 (the upper half
# of a float32), as in the C plugins.
DTYPES = {
    "float32": (1, 4, "f"),
    "bfloat16": (2, 2, "H"),
    "float16": (3, 2, "e"),
    "float64": (4, 8, "d"),
    "int32": (5, 4, "i"),
}
_FORMAT_DTYPE = {"f": "float32", "e": "float16", "d": "float64", "i": "int32"}


class HarnessError(RuntimeError):
    """A service of the harness refused (out of memory, called from the wrong
    callback, ...); its message is the harness's."""


def _numpy():
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def _count(shape):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    n = 1
    for d in shape:
        if not isinstance(d, int) or d < 0:
            raise ValueError(f"shape {shape}: dimensions are integers >= 0")
        n *= d
    return shape, n


class _Region:
    """What ctx.region returns: a plain class, cheaper per step than
    contextlib's generator."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        _harness.region_push(self.name)

    def __exit__(self, *exc):
        _harness.region_pop()
        return False


class Context:
    """The instance's view of the harness. Built by the harness; one per
    instance, valid until close() returns."""

    def __init__(self, device, stream, rank, world_size, num_threads):
        self.device = device            # "cpu" or "cuda"
        self.stream = stream            # the cudaStream_t as an int; 0 on the CPU
        self.rank = rank
        self.world_size = world_size
        self.num_threads = num_threads  # CPU threads the component may use
        self._dtypes = {}               # address -> dtype name of what alloc gave
        self._seed = None
        self._outputs = []              # what output() declared, for reference()

    # ---- memory and data ----------------------------------------------

    def alloc(self, shape, dtype="float32", tag="python"):
        """Tracked host memory (the memory report counts it, under `tag`),
        64-byte aligned, zeroed by nothing: fill it or write it. A numpy array
        of `shape` when numpy imports, else a memoryview of that shape."""
        if dtype not in DTYPES:
            raise ValueError(f"dtype {dtype!r}: expected one of {', '.join(DTYPES)}")
        shape, n = _count(shape)
        code, size, fmt = DTYPES[dtype]
        address, raw = _harness.alloc(max(n * size, 1), tag)
        self._dtypes[address] = dtype
        np = _numpy()
        if np is not None:
            np_dtype = np.uint16 if dtype == "bfloat16" else np.dtype(dtype)
            return np.frombuffer(raw, dtype=np_dtype, count=n).reshape(shape)
        return raw[: n * size].cast(fmt, shape)

    def _buffer(self, buf, dtype):
        """(address, element count, harness_dtype code) of a writable,
        C-contiguous buffer: one from alloc, or any numpy array or memoryview."""
        view = memoryview(buf)
        if view.readonly or not view.c_contiguous:
            raise ValueError("expected a writable, C-contiguous buffer")
        address = _harness.address(view)
        if dtype is None:
            dtype = self._dtypes.get(address) or _FORMAT_DTYPE.get(view.format.lstrip("@=<"))
        if dtype not in DTYPES:
            raise ValueError(f"cannot tell the element type of format {view.format!r}; pass dtype=")
        code, size, _ = DTYPES[dtype]
        return address, view.nbytes // size, code

    def fill(self, buf, dtype=None):
        """The config's data generator (data.generator, data.seed) into `buf`:
        the same values a C plugin's fill gives. Returns buf."""
        _harness.fill(*self._buffer(buf, dtype))
        return buf

    def input(self, buf, dtype=None):
        """fill, and declare `buf` an input step() reads afresh on every call
        (timing integrity: the harness may write new values between steps).
        From __init__ only. Returns buf."""
        _harness.input(*self._buffer(buf, dtype))
        return buf

    def output(self, buf, dtype=None):
        """Declare `buf` the output step() writes in full on every call; the
        harness overwrites it after timing and checks a step rewrites it. From
        __init__ only. Returns buf."""
        address, count, code = self._buffer(buf, dtype)
        _harness.output(address, count, code)
        self._outputs.append(buf)
        return buf

    @property
    def seed(self):
        """A 63-bit integer drawn once from the data generator: the same for
        the same config (data.seed), for libraries with a seed of their own
        (numpy.random, torch.manual_seed). Read it in __init__, after the
        fills (it draws a stream of its own)."""
        if self._seed is None:
            pair = self.alloc(2, "int32", "seed")
            self.fill(pair)
            lo, hi = (int(v) & 0xFFFFFFFF for v in pair)
            self._seed = ((hi << 32) | lo) & (2**63 - 1)
        return self._seed

    # ---- device memory (ctx.device == "cuda") ------------------------------

    def device_alloc(self, nbytes, tag="python"):
        """Tracked device memory, 256-byte aligned: its address as an int."""
        return _harness.device_alloc(nbytes, tag)

    def device_fill(self, address, count, dtype="float32"):
        _harness.device_fill(address, count, DTYPES[dtype][0])

    def device_input(self, address, count, dtype="float32"):
        """device_fill, and declare the buffer an input (as input())."""
        _harness.input(address, count, DTYPES[dtype][0])

    def device_output(self, address, count, dtype="float32"):
        _harness.output(address, count, DTYPES[dtype][0])

    def synchronize(self):
        """Wait for the stream's work (checks only; never in step)."""
        _harness.synchronize()

    # ---- profiling and facts ---------------------------------------------

    def region(self, name):
        """`with ctx.region("matmul"):` a named range of the trace (and NVTX)."""
        return _Region(name)

    def note(self, key, value):
        """A fact about this instance, into the summary's component_notes."""
        _harness.note(str(key), str(value))

    def log(self, message, level="info"):
        """A line of the harness's log: level error, warn, info or debug."""
        _harness.log(("error", "warn", "info", "debug").index(level), str(message))


# ---- what the C side calls -------------------------------------------------
# (python_component.c; private: a component uses Context and nothing below)


class _ConfigError(Exception):
    """A bad value of a config key: the run stops with exit 2 naming it."""

    def __init__(self, key, message):
        super().__init__(f"{key}: {message}")


def _short(path):
    """A file's path as the user wrote it: relative when under the working directory."""
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    return path if rel.startswith("..") else rel


def _describe(exc):
    """(one line, the whole traceback) of an exception: the line names the
    last frame of the component's code (not this module's), as file:line."""
    if isinstance(exc, _ConfigError):
        return str(exc), ""
    where = ""
    if isinstance(exc, SyntaxError) and exc.filename:
        where = f"{_short(exc.filename)}:{exc.lineno}: "
    else:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != "harness.py"]
        if frames:
            where = f"{_short(frames[-1].filename)}:{frames[-1].lineno}: "
    text = str(exc)
    line = f"{where}{type(exc).__name__}" + (f": {text}" if text else "")
    return line, "".join(traceback.format_exception(exc))


_VENVS = set()
_PROBE = "import json, sys; print(json.dumps([list(sys.version_info[:2]), sys.path]))"


def _use_python(exe):
    """Put the sys.path of the interpreter `exe` (a virtual environment's
    python) first, once; its version must be the embedded one."""
    key = "component.config.python"
    if not exe or exe in _VENVS:
        return
    import subprocess
    try:
        run = subprocess.run([exe, "-c", _PROBE], capture_output=True, text=True, timeout=120)
    except OSError as e:
        raise _ConfigError(key, f"{exe}: cannot run it: {e.strerror}") from None
    except subprocess.TimeoutExpired:
        raise _ConfigError(key, f"{exe}: did not print its sys.path within 120 s") from None
    try:
        version, path = json.loads(run.stdout) if run.returncode == 0 else (None, None)
    except ValueError:
        version = path = None
    if not isinstance(path, list) or not isinstance(version, list):
        err = (run.stderr.strip().splitlines() or ["no output"])[-1]
        raise _ConfigError(key, f"{exe} -c 'print(sys.path)' failed (exit {run.returncode}): {err}")
    mine = list(sys.version_info[:2])
    if version != mine:
        have, want = ".".join(map(str, version)), ".".join(map(str, mine))
        raise _ConfigError(key, f"{exe} is Python {have}, the interpreter the harness embeds is Python {want}: "
                                f"use a virtual environment made with Python {want}")
    for entry in reversed([p for p in path if p and p not in sys.path]):
        sys.path.insert(0, entry)
    _VENVS.add(exe)


def _import_file(target, key):
    path = os.path.abspath(target)
    if not os.path.isfile(path):
        raise _ConfigError(key, f"{target}: no such file (a relative path is to the working directory, "
                                f"{os.getcwd()})")
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)      # modules beside the file import
    name = os.path.splitext(os.path.basename(path))[0]
    known = sys.modules.get(name)
    if known is not None and getattr(known, "__file__", None) == path:
        return known
    if known is not None:               # a module of that name already: keep it, use another
        name = "harness_component_" + name
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _load(callable_text, python):
    """The class `component.config.callable` names: FILE.py:Class or module:Class."""
    key = "component.config.callable"
    _use_python(python)
    target, sep, name = callable_text.rpartition(":")
    if not sep or not target or not name:
        raise _ConfigError(key, f"'{callable_text}': expected FILE.py:Class or module:Class")
    try:
        if target.endswith(".py"):
            module = _import_file(target, key)
        else:
            module = importlib.import_module(target)
    except _ConfigError:
        raise
    except ModuleNotFoundError as e:
        if e.name and (target == e.name or target.startswith(e.name + ".")):
            raise _ConfigError(key, f"no module named '{e.name}' (sys.path: {', '.join(sys.path)})") from None
        raise _ConfigError(key, f"importing {target}: {_describe(e)[0]}") from None
    except BaseException as e:
        raise _ConfigError(key, f"importing {target}: {_describe(e)[0]}") from None
    cls = getattr(module, name, None)
    if cls is None:
        names = [n for n in dir(module) if isinstance(getattr(module, n), type)]
        guess = difflib.get_close_matches(name, names, 1)
        hint = f"; did you mean {guess[0]}?" if guess else (f"; it has {', '.join(names)}" if names else "")
        raise _ConfigError(key, f"{target} has no {name}{hint}")
    if not callable(cls) or not callable(getattr(cls, "step", None)):
        raise _ConfigError(key, f"{target}:{name} is not a class with a step() method")
    return cls


def _validate(callable_text, python, params_text):
    _load(callable_text, python)
    _decode_params(params_text)


def _create(callable_text, python, params_text, device, stream, rank, world_size, num_threads):
    """(instance, ctx): the class built with its params and a Context."""
    cls = _load(callable_text, python)
    ctx = Context(device, stream, rank, world_size, num_threads)
    instance = cls(_decode_params(params_text), ctx)
    notes = getattr(instance, "notes", None)
    for k, v in (notes() if notes else {}).items():
        ctx.note(k, v)
    return instance, ctx


def _cost(instance):
    """(flops, bytes) of one step; zeros without cost()."""
    cost = getattr(instance, "cost", None)
    if cost is None:
        return 0.0, 0.0
    value = cost()
    if not isinstance(value, dict) or set(value) - {"flops", "bytes"}:
        raise TypeError(f"cost() returned {value!r}; expected a dict of flops and bytes")
    return float(value.get("flops", 0)), float(value.get("bytes", 0))


def _destroy(instance, ctx):
    """close(), then free what ctx.alloc gave (the instance is done with it)."""
    try:
        close = getattr(instance, "close", None)
        if close is not None:
            close()
    finally:
        for address in ctx._dtypes:
            _harness.free(address)
        ctx._dtypes.clear()
        ctx._outputs.clear()


def _check(instance, ctx):
    """harness_check's fields, from check() or from reference()."""
    tolerance = float(getattr(instance, "tolerance", 1e-5))
    if callable(getattr(instance, "check", None)):
        return _verdict(instance.check(), tolerance)
    if callable(getattr(instance, "reference", None)):
        instance.step()
        return _compare(ctx._outputs, instance.reference(), tolerance)
    raise TypeError(f"{type(instance).__name__} has neither check() nor reference(): add one, "
                    f"or run without the check (validate: false)")


def _decode_params(text):
    """component.config.params, a JSON object, as a dict."""
    key = "component.config.params"
    try:
        value = json.loads(text)
    except ValueError as e:
        raise _ConfigError(key, f"not JSON: {e}") from None
    if not isinstance(value, dict):
        raise _ConfigError(key, "expected a JSON object, {\"name\": value, ...}")
    return value


def _verdict(result, tolerance):
    """check()'s result as harness_check's fields."""
    if isinstance(result, bool):
        return {"passed": result, "checked": 1, "detail": "check() returned %s" % result}
    if isinstance(result, (int, float)):
        err = float(result)
        ok = err <= tolerance
        return {"passed": ok, "checked": 1, "mismatches": 0 if ok else 1, "max_abs_err": err,
                "tolerance": tolerance, "detail": "check() returned the max abs error"}
    if isinstance(result, dict):
        return result
    raise TypeError(f"check() returned {type(result).__name__}; expected a bool, a float or a dict")


def _flat(values):
    """A flat sequence of the elements of a numpy array, a memoryview or a list."""
    if hasattr(values, "ravel"):
        return values.ravel()
    if isinstance(values, (list, tuple)):
        return values
    view = memoryview(values)
    return view if view.ndim == 1 else view.cast("B").cast(view.format.lstrip("@=<"))


def _compare_python(got, want, tolerance):
    """(elements over tolerance, max abs error, max relative error, the first
    bad (index, got, expected) or None) of two flat sequences."""
    bad, worst_abs, worst_rel, first = 0, 0.0, 0.0, None
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = float(g), float(w)
        err = abs(g - w) if math.isfinite(g) else math.inf
        worst_abs, worst_rel = max(worst_abs, err), max(worst_rel, err / abs(w) if w else err)
        if not err <= tolerance * max(1.0, abs(w)):
            bad += 1
            first = first or (i, g, w)
    return bad, worst_abs, worst_rel, first


def _compare_numpy(got, want, tolerance):
    """_compare_python's figures, vectorized."""
    np = _numpy()
    g = np.asarray(got, dtype=np.float64)
    w = np.asarray(want, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        err = np.where(np.isfinite(g), np.abs(g - w), np.inf)
        rel = np.where(w != 0, err / np.abs(w), err)
    over = ~(err <= tolerance * np.maximum(1.0, np.abs(w)))
    bad = int(over.sum())
    first = None
    if bad:
        i = int(np.argmax(over))
        first = (i, float(g[i]), float(w[i]))
    return bad, float(err.max(initial=0.0)), float(rel.max(initial=0.0)), first


def _compare(outputs, expected, tolerance):
    """Each declared output against reference()'s values: max abs error,
    elements over `tolerance` (relative to the expected value's size)."""
    one_array = not isinstance(expected, (list, tuple)) or not expected or isinstance(expected[0], (int, float))
    if len(outputs) == 1 and one_array:
        expected = [expected]
    if len(expected) != len(outputs):
        raise ValueError(f"reference() gave {len(expected)} arrays for {len(outputs)} declared outputs")
    checked = mismatches = 0
    worst_abs = worst_rel = 0.0
    first_bad = None
    compare = _compare_numpy if _numpy() is not None else _compare_python
    for k, (got, want) in enumerate(zip(outputs, expected)):
        got, want = _flat(got), _flat(want)
        if len(got) != len(want):
            raise ValueError(f"reference()[{k}] has {len(want)} elements, the output {len(got)}")
        bad, err, rel, first = compare(got, want, tolerance)
        mismatches += bad
        worst_abs, worst_rel = max(worst_abs, err), max(worst_rel, rel)
        if first is not None and first_bad is None:
            first_bad = f"output {k} element {first[0]}: {first[1]!r}, expected {first[2]!r}"
        checked += len(got)
    detail = first_bad or f"reference() compared, tolerance {tolerance:g} (relative above 1)"
    return {"passed": mismatches == 0, "checked": checked, "mismatches": mismatches,
            "max_abs_err": worst_abs, "max_rel_err": worst_rel, "tolerance": tolerance, "detail": detail}
