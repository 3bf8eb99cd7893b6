"""A reader of Google Benchmark's JSON output (--benchmark_format=json),
written from the format as its docs (docs/user_guide.md, "Output Formats")
and its tools/compare.py use it: what a harness export --format gbench must
hold for compare.py to read it unchanged. read(path) checks the file and
returns it; compare(old, new) is compare.py's per-name relative change of
real_time and cpu_time ((new - old) / |old|), over the entries both have."""
import json

CONTEXT = {"date": str, "host_name": str, "executable": str, "num_cpus": int, "mhz_per_cpu": (int, float),
           "cpu_scaling_enabled": bool, "caches": list, "load_avg": list, "library_build_type": str}
CACHE = {"type": str, "level": int, "size": (int, float), "num_sharing": int}
ENTRY = {"name": str, "run_name": str, "run_type": str, "repetitions": int, "threads": int,
         "iterations": (int, float), "real_time": (int, float), "cpu_time": (int, float), "time_unit": str}
AGGREGATES = {"mean", "median", "stddev", "cv"}


def need(obj, fields, where):
    for key, kind in fields.items():
        assert key in obj, "%s: no %s" % (where, key)
        assert isinstance(obj[key], kind) and not (kind is int and isinstance(obj[key], bool)), \
            "%s: %s is %r" % (where, key, obj[key])


def read(path):
    doc = json.load(open(path))
    need(doc, {"context": dict, "benchmarks": list}, path)
    need(doc["context"], CONTEXT, "context")
    assert doc["context"]["library_build_type"] in ("debug", "release")
    for c in doc["context"]["caches"]:
        need(c, CACHE, "cache")
    reps = {}
    for i, b in enumerate(doc["benchmarks"]):
        where = "benchmarks[%d] %s" % (i, b.get("name"))
        need(b, ENTRY, where)
        assert b["time_unit"] in ("ns", "us", "ms", "s"), where
        assert b["run_type"] in ("iteration", "aggregate"), where
        if b["run_type"] == "iteration":
            assert b["name"] == b["run_name"], where
            assert isinstance(b["repetition_index"], int), where
            reps.setdefault(b["name"], []).append(b)
        else:
            assert b["aggregate_name"] in AGGREGATES, where
            assert b["name"] == b["run_name"] + "_" + b["aggregate_name"], where
            assert b["aggregate_unit"] == ("percentage" if b["aggregate_name"] == "cv" else "time"), where
    for name, runs in reps.items():
        assert [r["repetition_index"] for r in runs] == list(range(len(runs))), name
        assert all(r["repetitions"] == len(runs) for r in runs), name
    return doc


def compare(old, new):
    """{name: [(time change, cpu change) per repetition]} as compare.py
    computes it: entries paired by name and position, same time unit."""
    def by_name(doc):
        out = {}
        for b in doc["benchmarks"]:
            if not b.get("error_occurred"):
                out.setdefault(b["name"], []).append(b)
        return out
    a, b = by_name(old), by_name(new)
    change = lambda x, y: (y - x) / abs(x) if x else 0.0
    return {name: [(change(x["real_time"], y["real_time"]), change(x["cpu_time"], y["cpu_time"]))
                   for x, y in zip(a[name], b[name]) if x["time_unit"] == y["time_unit"]]
            for name in a if name in b}
