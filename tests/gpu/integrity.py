#!/usr/bin/env python3
"""One line for the GPU slice's timing-integrity part (tests/gpu/parts.sh,
part_integrity; docs/timing-integrity.md): a run's timed median beside what
CUPTI measured of its kernels per step in the trace window, and whether the
blocking kernel was used.

    integrity.py FOLDER [--goal]

FOLDER holds one run (its summary_ranks_1_rank_0.json, at any depth).
--goal: exit 3 when the median is further than 0.5 us and 3% from the
CUPTI duration (issue 37's goal for a short kernel). Exit 1 when the
summary or its kernel table is missing. Standard library only."""
import glob
import json
import os
import sys


def main(argv):
    goal = "--goal" in argv
    args = [a for a in argv if a != "--goal"]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    paths = glob.glob(os.path.join(args[0], "**", "summary_ranks_1_rank_0.json"), recursive=True)
    if not paths:
        print(f"no summary under {args[0]}")
        return 1
    s = json.load(open(paths[0]))
    t = s.get("timing") or {}
    median_us = (t.get("median") or 0) / 1e3
    kernels = s.get("gpu_kernels") or []
    steps = (s.get("schedule") or {}).get("trace_steps_run") or 0
    blocking = t.get("blocking_kernel", "?")
    if not kernels or not steps:
        print(f"median {median_us:.2f} us; no kernel table (CUPTI off?); blocking kernel {blocking}")
        return 1
    cupti_us = sum(k["total_ns"] for k in kernels) / steps / 1e3
    diff = median_us - cupti_us
    share = diff / cupti_us * 100 if cupti_us > 0 else float("inf")
    print(f"median {median_us:.2f} us, CUPTI {cupti_us:.2f} us a step: {diff:+.2f} us ({share:+.1f}%); "
          f"blocking kernel {blocking}")
    if goal and abs(diff) > 0.5 and abs(share) > 3:
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
