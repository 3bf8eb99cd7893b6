#!/usr/bin/env python3
"""The known kernel bugs of tests/cudasim/mutate.sh: mutations.py NAME FILE
rewrites FILE with bug NAME put back. Each is an exact text edit at the
first (or n-th) occurrence of its anchor; an anchor that is not there
exits 1, so a kernel that changed shape is noticed rather than skipped."""
import sys

# The tensor-core kernel's loop comes first in attention_cuda.cu, the SIMT
# kernel's second: `nth` picks which one a mutant breaks.
K_LATE_TC = """        cp_async_wait_all();                   /* V_t */
        __syncthreads();
        if (kt + 1 < tiles) {
            load_tile_async<T, D, BK, THREADS>(ks, kg, kv_stride, k0 + BK, a.seq_k);
            cp_async_commit();
        }
"""
K_EARLY_TC = """        cp_async_wait_all();                   /* V_t */
        if (kt + 1 < tiles) {
            load_tile_async<T, D, BK, THREADS>(ks, kg, kv_stride, k0 + BK, a.seq_k);
            cp_async_commit();
        }
        __syncthreads();
"""
V_LATE_TC = """        __syncthreads();
        load_tile_async<T, D, BK, THREADS>(vs, vg, kv_stride, k0, a.seq_k);
        cp_async_commit();
"""
V_EARLY_TC = """        load_tile_async<T, D, BK, THREADS>(vs, vg, kv_stride, k0, a.seq_k);
        cp_async_commit();
        __syncthreads();
"""


def simt(text):
    return text.replace("load_tile_async<T, D,", "load_tile_async<float, D,")


MUTATIONS = {
    "tc_k_early": (K_LATE_TC, K_EARLY_TC, 1),
    "tc_v_early": (V_LATE_TC, V_EARLY_TC, 1),
    "simt_k_early": (simt(K_LATE_TC), simt(K_EARLY_TC), 1),
    "simt_v_early": (simt(V_LATE_TC), simt(V_EARLY_TC), 1),
    "tc_gqa": ("hk = h / a.group;", "hk = h % a.kv_heads;", 1),
    "simt_gqa": ("hk = h / a.group;", "hk = h % a.kv_heads;", 2),
    "rms_warp_sums": ("warp_sum(lane < nwarps ? warp_sums[lane] : 0.0f)", "warp_sum(warp_sums[lane])", 1),
}


def main():
    name, path = sys.argv[1], sys.argv[2]
    old, new, nth = MUTATIONS[name]
    with open(path) as f:
        text = f.read()
    at = -1
    for _ in range(nth):
        at = text.find(old, at + 1)
        if at < 0:
            print(f"mutations.py: {name}: occurrence {nth} of its anchor is not in {path}", file=sys.stderr)
            return 1
    with open(path, "w") as f:
        f.write(text[:at] + new + text[at + len(old):])
    return 0


if __name__ == "__main__":
    sys.exit(main())
