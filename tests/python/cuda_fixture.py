"""python/cuda's plumbing without torch or cupy: y = x copied on the
harness's stream (ctx.stream) by cudaMemcpyAsync through ctypes, in device
memory from ctx.device_alloc, checked on the host. For tests/gpu (slice 1
validates every CUDA variant, tests/gpu/configs/python.yaml)."""

import ctypes

D2H, D2D = 2, 3   # cudaMemcpyKind


def _cudart():
    for name in ("libcudart.so", "libcudart.so.12", "libcudart.so.11.0"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            pass
    raise OSError("libcudart not found (libcudart.so, .so.12, .so.11.0)")


class CudaCopy:
    def __init__(self, params, ctx):
        assert ctx.device == "cuda" and ctx.stream != 0, (ctx.device, ctx.stream)
        self.rt = _cudart()
        self.n = int(params.get("n", 1 << 20))
        self.nbytes = 4 * self.n
        self.x = ctx.device_alloc(self.nbytes, "x")
        self.y = ctx.device_alloc(self.nbytes, "y")
        ctx.device_input(self.x, self.n)
        ctx.device_output(self.y, self.n)
        self.stream = ctypes.c_void_p(ctx.stream)
        ctx.note("stream", hex(ctx.stream))

    def _copy(self, dst, src, nbytes, kind):
        rc = self.rt.cudaMemcpyAsync(ctypes.c_void_p(dst), ctypes.c_void_p(src), ctypes.c_size_t(nbytes),
                                     ctypes.c_int(kind), self.stream)
        if rc != 0:
            raise RuntimeError(f"cudaMemcpyAsync: error {rc}")

    def step(self):
        self._copy(self.y, self.x, self.nbytes, D2D)

    def check(self):
        self.step()
        hx, hy = (ctypes.c_float * self.n)(), (ctypes.c_float * self.n)()
        self._copy(ctypes.addressof(hx), self.x, self.nbytes, D2H)
        self._copy(ctypes.addressof(hy), self.y, self.nbytes, D2H)
        if self.rt.cudaStreamSynchronize(self.stream) != 0:
            raise RuntimeError("cudaStreamSynchronize failed")
        bad = sum(1 for a, b in zip(hx, hy) if a != b)
        return {"passed": bad == 0 and any(hx), "checked": self.n, "mismatches": bad,
                "detail": "y equals x, copied on ctx.stream"}

    def cost(self):
        return {"flops": 0, "bytes": 2 * self.nbytes}
