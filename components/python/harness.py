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

import contextlib
import json
import math

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
        return buf

    @property
    def seed(self):
        """A 63-bit integer drawn once from the data generator: the same for
        the same config (data.seed), for libraries with a seed of their own
        (numpy.random, torch.manual_seed)."""
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
        _harness.device_fill(address, count, DTYPES[dtype][0], 0)

    def device_input(self, address, count, dtype="float32"):
        """device_fill, and declare the buffer an input (as input())."""
        _harness.device_fill(address, count, DTYPES[dtype][0], 1)

    def device_output(self, address, count, dtype="float32"):
        _harness.output(address, count, DTYPES[dtype][0])

    def synchronize(self):
        """Wait for the stream's work (checks only; never in step)."""
        _harness.synchronize()

    # ---- profiling and facts ---------------------------------------------

    @contextlib.contextmanager
    def region(self, name):
        """`with ctx.region("matmul"):` a named range of the trace (and NVTX)."""
        _harness.region_push(name)
        try:
            yield
        finally:
            _harness.region_pop()

    def note(self, key, value):
        """A fact about this instance, into the summary's component_notes."""
        _harness.note(str(key), str(value))

    def log(self, message, level="info"):
        """A line of the harness's log: level error, warn, info or debug."""
        _harness.log(("error", "warn", "info", "debug").index(level), str(message))


# ---- what the C side calls -------------------------------------------------


def _decode_params(text):
    """component.config.params, a JSON object, as a dict."""
    try:
        value = json.loads(text)
    except ValueError as e:
        raise ValueError(f"component.config.params: not JSON: {e}") from None
    if not isinstance(value, dict):
        raise ValueError("component.config.params: expected a JSON object {...}")
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


def _compare(outputs, expected, tolerance):
    """Each declared output against reference()'s values: max abs error,
    elements over `tolerance` (relative to the expected value's size)."""
    if len(outputs) == 1 and not isinstance(expected, (list, tuple)):
        expected = [expected]
    if len(expected) != len(outputs):
        raise ValueError(f"reference() gave {len(expected)} arrays for {len(outputs)} declared outputs")
    checked = mismatches = 0
    worst_abs = worst_rel = 0.0
    first_bad = None
    for k, (got, want) in enumerate(zip(outputs, expected)):
        got, want = _flat(got), _flat(want)
        if len(got) != len(want):
            raise ValueError(f"reference()[{k}] has {len(want)} elements, the output {len(got)}")
        for i, (g, w) in enumerate(zip(got, want)):
            g, w = float(g), float(w)
            err = abs(g - w) if math.isfinite(g) else math.inf
            rel = err / abs(w) if w else err
            worst_abs, worst_rel = max(worst_abs, err), max(worst_rel, rel)
            if not err <= tolerance * max(1.0, abs(w)):
                mismatches += 1
                first_bad = first_bad or f"output {k} element {i}: {g!r}, expected {w!r}"
        checked += len(got)
    detail = first_bad or f"reference() compared, tolerance {tolerance:g} (relative above 1)"
    return {"passed": mismatches == 0, "checked": checked, "mismatches": mismatches,
            "max_abs_err": worst_abs, "max_rel_err": worst_rel, "tolerance": tolerance, "detail": detail}
