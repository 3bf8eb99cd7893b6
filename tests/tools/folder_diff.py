#!/usr/bin/env python3
"""folder_diff.py BASE NEW [TOP_BASE TOP_NEW]: compare the experiment folders two builds wrote
for the same runs, file by file (BASE and NEW: folders holding NAME.path
files, each the folders one command printed, paired line by line; a suite's
folders paired by their config hash; TOP_*: the build trees, one path),
ignoring what differs from one run to the next: measured values (times,
counts of steps that depend on the clock, load, memory) and when and where
it ran. What must not differ: which files there are, every JSON file's keys
in their order, every value's kind, and every string and number that does
not measure the run. Exit 0 when nothing else differs, 1 listing what did.

Used when the writers of the folder moved (folder/, docs/ARCHITECTURE.md
section 12): a refactor must write the same bytes but for the measurement."""
import json
import os
import re
import sys

# Subtrees whose numbers (and strings of numbers) measure the run.
VOLATILE = re.compile(
    r"^(timing|noise|memory|regions|trace|communication|energy|throughput|roofline|gpu_kernels|warnings"
    r"|schedule\.(wall_s|time_budget|.*_run|measured_steps)|env\.(load_average|started_at)|validation\.(max_|probe_wait)"
    r"|impossible_figure|pid|pid_start_ticks|ranks\[\d+\]\.(median|wall_s|timing|noise|energy|memory|throughput)"
    r"|.*\.(median|p\d+|mean|min|max|stddev|cv|iqr|outliers|skew|fastest_rank|slowest_rank|gb_per_s|gflop_per_s"
    r"|[a-z0-9_]*(_ns|_s|_ratio|_median))$)")
FOLDER = re.compile(r"\d{4}-\d\d-\d\d__\d\d-\d\d-\d\d_[0-9a-f]{8}(-\d+)?|\d{4}-\d\d-\d\d__\d\d-\d\d-\d\d_suite")


def norm(s, base, new):
    return FOLDER.sub("FOLDER", s.replace(new, base))


def walk(a, b, path, out, roots):
    volatile = bool(VOLATILE.match(path))
    if type(a) is not type(b) and not (volatile and {type(a), type(b)} <= {int, float, type(None)}):
        out.append(f"{path}: {type(a).__name__} -> {type(b).__name__}")
    elif isinstance(a, dict):
        if list(a) != list(b) and not volatile:
            out.append(f"{path}: keys {list(a)} -> {list(b)}")
        for k in a:
            if k in b:
                walk(a[k], b[k], f"{path}.{k}" if path else k, out, roots)
    elif isinstance(a, list):
        if len(a) != len(b) and not volatile:
            out.append(f"{path}: {len(a)} items -> {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{path}[{i}]", out, roots)
    elif not volatile and isinstance(a, str):
        if norm(a, *roots) != norm(b, *roots) and not re.search(r"\d", a):
            out.append(f"{path}: {a!r} -> {b!r}")
    elif not volatile and a != b and not isinstance(a, str):
        out.append(f"{path}: {a!r} -> {b!r}")


def pairs(base, new):
    """(base folder, new folder) of every run the two captures made."""
    out = []
    for name in sorted(os.listdir(base)):
        if not name.endswith(".path") or not os.path.exists(os.path.join(new, name)):
            continue
        la = open(os.path.join(base, name)).read().split()
        lb = open(os.path.join(new, name)).read().split()
        for a, b in zip(la, lb):
            out.append((a, b))
            subs = lambda d: sorted((FOLDER.sub("", s)[-8:], os.path.join(d, s)) for s in os.listdir(d)
                                    if os.path.isdir(os.path.join(d, s)))
            out += [(x[1], y[1]) for x, y in zip(subs(a), subs(b))]
        if len(la) != len(lb):
            out.append((f"{name}: {len(la)} folders", f"{len(lb)}"))
    return out


def main(base, new, top_base=None, top_new=None):
    problems = []
    roots = (top_base, top_new) if top_base else (os.path.abspath(base), os.path.abspath(new))
    found = pairs(base, new)
    for da, db in found:
        if not os.path.isdir(da):
            problems.append(f"{da} -> {db}")
            continue
        na = sorted(FOLDER.sub("FOLDER", f) for f in os.listdir(da))
        nb = sorted(FOLDER.sub("FOLDER", f) for f in os.listdir(db))
        if na != nb:
            problems.append(f"{db}: files {na} -> {nb}")
        for f in sorted(os.listdir(da)):
            if not f.endswith(".json") or not os.path.exists(os.path.join(db, f)) or f.startswith("profiler_trace"):
                continue
            a = json.load(open(os.path.join(da, f)))
            b = json.load(open(os.path.join(db, f)))
            out = []
            walk(a, b, "", out, roots)
            problems += [f"{os.path.join(db, f)}: {p}" for p in out]
    for p in problems:
        print(p)
    print(f"{len(found)} folders compared, {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
