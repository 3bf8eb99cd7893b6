"""vs_pytorch_ab.py - vs_pytorch.py's cases measured by `harness ab`: each
case a benchmark, its base the C variant and its candidate the
PyTorch peer (components/python/torch) under the python component, both run
by the harness (same schedule, same data from the same seed, same
validation, same statistics), rounds interleaved by ab. What comes back is
vs_pytorch.py's per-case record (per-round medians of both sides), so that
the same table prints, plus ab's verdict and interval per case.

Each case's two configs are written to a temporary folder and run as
    harness ab NN_FAMILY/harness.yaml NN_FAMILY/torch.yaml --format json
bench/vs_pytorch/ holds the peers' configs for the shipped configs' shapes,
and the suite that pairs them."""

import json
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARNESS = os.path.join(TOP, "harness", "harness")
PEERS = os.path.join(TOP, "components", "python", "torch")
CLASSES = {"rms_norm": "rms_norm_torch.py:RmsNormTorch", "attention": "attention_torch.py:AttentionTorch",
           "transformer_block": "transformer_block_torch.py:TransformerBlockTorch"}


def variant_keys():
    """The variant keys `harness list` shows."""
    p = subprocess.run([HARNESS, "list", "--json"], capture_output=True, text=True)
    return {v["key"] for v in json.loads(p.stdout)["variants"]} if p.returncode == 0 else set()


def unavailable(venv_python):
    """Why ab mode cannot run here (None: it can)."""
    if not os.path.exists(venv_python):
        return f"no {venv_python} (scripts/setup --with-torch, or --venv DIR)"
    if "python/cpu" not in variant_keys():
        return "the python component is not built (harness list shows no python/cpu)"
    return None


def _scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _typed(v):
    """A case's --set value ("true", 8, 1e-6) as JSON wants it."""
    return {"true": True, "false": False}.get(v, v) if isinstance(v, str) else v


def config_text(family, variant, params, steps, warmup, validate, venv_python, registered):
    """One side's config: the C variant's, or the peer's: rms_norm/torch and
    the like where the python component registers the peers, else python/cpu
    with the same parameters as its params."""
    lines = [f"experiment:\n  name: {family}\n  output_dir: experiments", "device: cpu",
             f"schedule:\n  warmup_steps: {warmup}\n  wait_steps: 1\n  measurement_steps: {steps}\n  repeat: 1",
             "profiling:\n  trace: false\n  memory: false", "component:"]
    peer = variant.endswith("/torch")
    if peer and variant not in registered:
        blob = json.dumps({k: _typed(v) for k, v in params.items()})
        lines.append(f"  variant_key: python/cpu\n  config:\n    callable: {os.path.join(PEERS, CLASSES[family])}\n"
                     f"    params: '{blob}'\n    python: {venv_python}")
    else:
        lines.append(f"  variant_key: {variant}\n  config:")
        lines += [f"    {k}: {_scalar(v)}" for k, v in params.items()]
    lines += ["data:\n  generator: random_normal\n  seed: 1234", f"validate: {'true' if validate else 'false'}"]
    return "\n".join(lines) + "\n"


def write_pair(root, i, c, steps_of, validate, venv_python, registered):
    """root/NN_FAMILY/{harness,torch}.yaml: case i's two sides."""
    d = os.path.join(root, f"{i + 1:02d}_{c['family']}")
    os.makedirs(d, exist_ok=True)
    steps, warmup = steps_of(c)
    paths = []
    for side, variant in (("harness", c["variant"]), ("torch", c["family"] + "/torch")):
        paths.append(os.path.join(d, side + ".yaml"))
        with open(paths[-1], "w") as f:
            f.write(config_text(c["family"], variant, c["sets"], steps, warmup, validate, venv_python, registered))
    return d, paths


def summary_of(folder):
    """An experiment folder's rank-0 summary, or None."""
    path = os.path.join(folder or "", "summary_ranks_1_rank_0.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def run(cases, steps_of, validate, venv_python, rounds):
    """Runs `harness ab HARNESS.yaml TORCH.yaml` per case; per case name:
    dict(h=[ns], t=[ns], summary, valid, isa, verdict, ratio, interval), and
    the worst exit code of the ab runs (0 or 1: their verdicts).

    One ab a case, not one suite: the python component cannot prepare a
    second python/cpu config in the process that prepared the first (a
    suite's), so each pair is its own ab today."""
    registered = variant_keys()
    out, worst = {}, 0
    with tempfile.TemporaryDirectory(prefix="vs_pytorch_ab.") as root:
        for i, c in enumerate(cases):
            d, (base, cand) = write_pair(root, i, c, steps_of, validate, venv_python, registered)
            cmd = [HARNESS, "ab", base, cand, "--output-dir", os.path.join(d, "ab"), "--format", "json", "--quiet"]
            if rounds:
                cmd += ["--rounds", str(rounds)]
            p = subprocess.run(cmd, cwd=TOP, capture_output=True, text=True)
            if p.returncode not in (0, 1):
                raise RuntimeError(f"{' '.join(cmd)}\n  exit {p.returncode}: {p.stderr.strip()}")
            worst = max(worst, p.returncode)
            report = json.loads(p.stdout)
            rs = [r for r in report["rounds"] if not r["failed"]]
            pair = report["pairs"][0] if report["pairs"] else None
            e = dict(h=[r["base_median_ns"] for r in rs], t=[r["cand_median_ns"] for r in rs], summary=None,
                     valid="off", isa=None, verdict=pair and pair["verdict"], ratio=pair and pair["ratio"],
                     interval=pair and pair["ratio_interval"], coverage=pair and pair["ratio_interval_coverage"])
            sides = [summary_of(r[k]) for r in rs for k in ("base_folder", "cand_folder")]
            if sides and sides[0]:
                e["summary"] = sides[0]
                e["isa"] = (sides[0].get("component_notes") or {}).get("isa")
                e["torch_notes"] = sides[1].get("component_notes") if sides[1] else None
            if validate and sides and all(sides):
                e["valid"] = "passed" if all(s["validation"].get("passed") for s in sides) else "FAILED"
            out[c["name"]] = e
            print(f"  ab {i + 1}/{len(cases)} done: {c['name']}", file=sys.stderr, flush=True)
    return out, worst
