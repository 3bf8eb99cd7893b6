#!/usr/bin/env python3
"""Whether the Hopper attention's softmax runs under its P V in machine code:
softmax_under_pv.py SASS (cuobjdump -sass output of attention_hopper.o).

In each kernel (a "Function :" of the listing), the main loop must wait for
the Q K^T alone (WARPGROUP.DEPBAR.LE gsb0, 0x1), then run the softmax's
exp2s (at least 64 MUFU.EX2: a tile's weights a thread), and only then wait
for the P V (DEPBAR.LE gsb0, 0x0). ptxas once scheduled that last wait ahead
of every exp2 (the PTX order notwithstanding), which lost the overlap
without a visible error; attention_hopper.cu's retire_pv has why.

Prints a line per kernel; exit 1 when one lacks the order, 2 when the
listing has no kernel. Standard library only."""
import re
import sys

EXP2S_A_TILE = 64


def events(lines):
    """Per kernel: its waits and exp2s in order, as 'LE1', 'LE0', 'EX2'."""
    kernels, name = {}, None
    for line in lines:
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = m.group(1)
            kernels[name] = []
        elif name and "WARPGROUP.DEPBAR.LE" in line:
            kernels[name].append("LE1" if re.search(r"gsb0,\s*0x1", line) else "LE0")
        elif name and "MUFU.EX2" in line:
            kernels[name].append("EX2")
    return kernels


def under_pv(seq):
    """An LE1, then EXP2S_A_TILE exp2s or more, then an LE0, with no LE0 between."""
    for i, e in enumerate(seq):
        if e != "LE1":
            continue
        n = 0
        for f in seq[i + 1:]:
            if f == "EX2":
                n += 1
            elif f == "LE0":
                break
        if n >= EXP2S_A_TILE:
            return n
    return 0


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    kernels = events(open(argv[0]).read().splitlines())
    if not kernels:
        print(f"softmax_under_pv: no kernel in {argv[0]}")
        return 2
    bad = 0
    for name, seq in sorted(kernels.items()):
        n = under_pv(seq)
        print(f"{'ok' if n else 'FAIL'}: {name}: " +
              (f"{n} exp2s between the wait for Q K^T and the wait for P V" if n else
               "no softmax between the wait for Q K^T and the wait for P V"))
        bad += not n
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
