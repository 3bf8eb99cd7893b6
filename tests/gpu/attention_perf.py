"""The table of tests/gpu/attention_perf.sh: per dtype and shape, the useful
TFLOP/s (causal counts only the visible pairs) of attention/cuda (mma.sync,
and its Hopper kernel: wgmma + TMA), attention/cublas and PyTorch's scaled_dot_product_attention timed as table.py
times it, their ratios, and causal's rate per useful FLOP as a fraction of the
non-causal one. Where the Hopper kernel also ran with an optimization switched
off, its default's rate over that run's: "hopper / serial" (persistent blocks
against a block per work item), "hopper / direct" (O through shared memory and
TMA stores against stores from registers), "hopper / pair" (three consumer
warpgroups at head_dim 64 against two); above 1, the optimization helps; and
"wide / hopper", the 176-key tiles' rate (an option, not the default) over
the default's: above 1, they pay;
"-" where that run was not made. Each Hopper run's summary must say (its
"kernel" note) that its switch took effect; one that does not is named on
stderr and the exit status is 1.

    usage: python3 tests/gpu/attention_perf.py OUTDIR
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from switches import SWITCHES  # noqa: E402
from table import torch_attention  # noqa: E402


# attention_perf.sh's variants of attention/cuda other than its default:
# its 32-key build (HARNESS_ATTENTION_TC_BK=32), the Hopper kernel
# (HARNESS_ATTENTION_KERNEL=hopper) and its A/B switches (hopper_switches).
CUDA_BUILDS = {"cuda32": "/32", "hopper": "/hopper"}
CUDA_BUILDS.update({v: "/" + v for v in SWITCHES})

# What each Hopper run's "kernel" note (attention/cuda's component_notes,
# attention_cuda_describe) must say: its switch took effect. Else its ratio
# would hold the default against itself, or against something else.
HOPPER_NOTES = {"hopper": ("Hopper", "persistent")}
HOPPER_NOTES.update({v: ("Hopper", words) for v, (words, _label) in SWITCHES.items()})


def main():
    runs = {}   # (dtype, d, seq, causal) -> {variant: (tflops, cfg)}
    unswitched = 0
    for path in glob.glob(os.path.join(sys.argv[1], "*", "*", "summary_*.json")):
        s = json.load(open(path))
        cfg = s["component"]["config"]
        key = (cfg["dtype"], cfg["head_dim"], cfg["seq_len"], bool(cfg["causal"]))
        gflops = (s.get("throughput") or {}).get("gflop_per_s")
        # The tag is DTYPE_dD_sSEQ_CAUSAL_VARIANT (attention_perf.sh): its variant says
        # which build or kernel of attention/cuda ran.
        tag = path.split(os.sep)[-3]
        build = tag.split("_", 4)[-1]
        variant = s["component"]["variant_key"] + CUDA_BUILDS.get(build, "")
        note = (s.get("component_notes") or {}).get("kernel", "")
        if build in HOPPER_NOTES and not all(w in note for w in HOPPER_NOTES[build]):
            print(f"attention_perf.py: {tag} ran \"{note}\", not what its switch asks "
                  f"({', '.join(HOPPER_NOTES[build])})", file=sys.stderr)
            unswitched += 1
        runs.setdefault(key, {})[variant] = (gflops and gflops / 1e3, cfg, s)
    if not runs:
        return 1
    head = ["dtype", "head_dim", "seq", "causal", "cuda TFLOP/s", "cublas TFLOP/s", "torch TFLOP/s",
            "cuda / cublas", "cuda / torch", "causal / non-causal (cuda)", "cuda 32-key TFLOP/s", "64 / 32 keys",
            "hopper TFLOP/s", "hopper / cuda", "hopper / torch", "causal / non-causal (hopper)",
            "hopper / serial", "hopper / direct", "hopper / pair", "hopper / solo", "wide / hopper"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for key in sorted(runs):
        r = runs[key]
        cuda = r.get("attention/cuda", (None,))[0]
        cublas = r.get("attention/cublas", (None,))[0]
        cuda32 = r.get("attention/cuda/32", (None,))[0]
        hopper = r.get("attention/cuda/hopper", (None,))[0]
        serial = r.get("attention/cuda/hopper_serial", (None,))[0]
        direct = r.get("attention/cuda/hopper_direct", (None,))[0]
        pair = r.get("attention/cuda/hopper_pair", (None,))[0]
        solo = r.get("attention/cuda/hopper_solo", (None,))[0]
        wide = r.get("attention/cuda/hopper_wide", (None,))[0]
        torch_tf = None
        any_run = r.get("attention/cuda") or r.get("attention/cublas") or r.get("attention/cuda/hopper")
        try:
            s = any_run[2]
            torch_tf = s["throughput"]["flops_per_step"] / torch_attention(any_run[1]) / 1e3
        except Exception as e:   # no PyTorch: the column says "-"
            print(f"torch: {e}", file=sys.stderr)
        nc = runs.get(key[:3] + (False,), {}).get("attention/cuda", (None,))[0]
        nc_hopper = runs.get(key[:3] + (False,), {}).get("attention/cuda/hopper", (None,))[0]
        f = lambda x, spec=".1f": "-" if x is None else format(x, spec)
        print("| " + " | ".join([key[0], str(key[1]), str(key[2]), str(key[3]).lower(), f(cuda), f(cublas), f(torch_tf),
                                 f(cuda and cublas and cuda / cublas, ".2f"), f(cuda and torch_tf and cuda / torch_tf, ".2f"),
                                 f(cuda / nc if key[3] and cuda and nc else None, ".2f"), f(cuda32),
                                 f(cuda and cuda32 and cuda / cuda32, ".2f"), f(hopper),
                                 f(hopper and cuda and hopper / cuda, ".2f"),
                                 f(hopper and torch_tf and hopper / torch_tf, ".2f"),
                                 f(hopper / nc_hopper if key[3] and hopper and nc_hopper else None, ".2f"),
                                 f(hopper and serial and hopper / serial, ".2f"),
                                 f(hopper and direct and hopper / direct, ".2f"),
                                 f(hopper and pair and hopper / pair, ".2f"),
                                 f(hopper and solo and hopper / solo, ".2f"),
                                 f(hopper and wide and wide / hopper, ".2f")]) + " |")
    return 1 if unswitched else 0


if __name__ == "__main__":
    sys.exit(main())
