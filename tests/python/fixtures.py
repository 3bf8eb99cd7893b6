"""Components in Python of known behaviour, for tests/integration/python_*.sh
and bench/python_shim.sh. Pure Python over memoryviews (numpy not needed)."""

import threading
import time


class Scale:
    """y = alpha * x over n float32, checked with reference()."""

    def __init__(self, params, ctx):
        self.n = int(params.get("n", 256))
        self.alpha = float(params.get("alpha", 0.5))
        self.ctx = ctx
        self.x = ctx.input(ctx.alloc(self.n, "float32", "x"))
        self.y = ctx.output(ctx.alloc(self.n, "float32", "y"))

    def step(self):
        with self.ctx.region("scale"):
            x, y, a = self.x, self.y, self.alpha
            for i in range(self.n):
                y[i] = a * x[i]

    def reference(self):
        return [float(v) * self.__dict__.get("asked", self.alpha) for v in self.x]

    def cost(self):
        return {"flops": self.n, "bytes": 8 * self.n}

    def notes(self):
        return {"impl": "pure python", "n": self.n}


class WrongScale(Scale):
    """Computes 1.5 x, its reference says 0.5 x: the check fails."""

    def __init__(self, params, ctx):
        super().__init__(params, ctx)
        self.asked, self.alpha = self.alpha, self.alpha + 1.0


class Empty:
    """A step that does nothing: the shim's own cost (bench/python_shim.sh)."""

    def __init__(self, params, ctx):
        pass

    def step(self):
        pass

    def check(self):
        return True


class Raises:
    """Raises ZeroDivisionError in the method params["where"] names."""

    def __init__(self, params, ctx):
        self.where = params["where"]
        self._maybe("__init__")

    def _maybe(self, method):
        if self.where == method:
            1 / 0                       # the frame the error names

    def step(self):
        self._maybe("step")

    def check(self):
        self._maybe("check")
        return True

    def cost(self):
        self._maybe("cost")
        return {"flops": 1, "bytes": 1}

    def notes(self):
        self._maybe("notes")
        return {}


class LeaksThread(Empty):
    """Starts a thread in __init__ that never stops."""

    def __init__(self, params, ctx):
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.thread.start()

    @staticmethod
    def _spin():
        while True:
            time.sleep(0.05)


class Blocks(Empty):
    """A step that never returns: asleep, or busy in Python (params["how"])."""

    def __init__(self, params, ctx):
        self.how = params.get("how", "sleep")

    def step(self):
        while True:
            if self.how == "sleep":
                time.sleep(3600)


class NumpyScale:
    """Scale with numpy, on a 2-D array: ctx.alloc gives numpy arrays when
    numpy imports (from the embedded interpreter's site, or component.config.python)."""

    def __init__(self, params, ctx):
        import numpy as np
        self.np = np
        rows, cols = int(params.get("rows", 16)), int(params.get("cols", 64))
        self.alpha = float(params.get("alpha", 0.5))
        self.x = ctx.input(ctx.alloc((rows, cols), "float32", "x"))
        self.y = ctx.output(ctx.alloc((rows, cols), "float32", "y"))
        assert isinstance(self.x, np.ndarray) and self.x.shape == (rows, cols), type(self.x)
        assert self.x.std() > 0.1, "ctx.input filled x"

    def step(self):
        self.np.multiply(self.x, self.alpha, out=self.y)

    def reference(self):
        return self.x.astype(self.np.float64) * self.alpha

    def cost(self):
        return {"flops": self.x.size, "bytes": 8 * self.x.size}


class Naps(Empty):
    """A step asleep for a millisecond: a run long enough to be stopped while
    Python runs."""

    def step(self):
        time.sleep(0.001)
