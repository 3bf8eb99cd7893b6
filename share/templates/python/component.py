"""@NAME@: a harness component written in Python (docs/guide/python.md).

z = alpha * x + y over n floats, in plain Python over the harness's memory
(ctx.alloc gives numpy arrays instead when numpy is installed: then write
the step as numpy.multiply(x, alpha, out=z); z += y)."""


class Component:
    def __init__(self, params, ctx):
        """create: allocate through ctx (the memory report counts it), fill
        and declare the inputs, declare the output."""
        self.n = int(params.get("n", 4096))
        self.alpha = float(params.get("alpha", 2.0))
        self.ctx = ctx
        self.x = ctx.input(ctx.alloc(self.n, "float32", "x"))
        self.y = ctx.input(ctx.alloc(self.n, "float32", "y"))
        self.z = ctx.output(ctx.alloc(self.n, "float32", "z"))

    def step(self):
        """The timed work."""
        with self.ctx.region("axpy"):
            x, y, z, a = self.x, self.y, self.z, self.alpha
            for i in range(self.n):
                z[i] = a * x[i] + y[i]

    def reference(self):
        """What the output should be; the harness runs a step and compares
        within self.tolerance (float32 rounding: relative 1e-6 is plenty)."""
        return [self.alpha * float(x) + float(y) for x, y in zip(self.x, self.y)]

    tolerance = 1e-5

    def cost(self):
        """Work of one step: 2 FLOPs and 12 bytes an element."""
        return {"flops": 2 * self.n, "bytes": 12 * self.n}

    def notes(self):
        return {"impl": "pure python"}
