"""peers.py - the PyTorch peers of the C variants: which class runs each, and
its parameter table, copied from the C variant's (names, defaults, bounds,
choices), so that a config written for the C variant runs its peer unchanged.

A registry (README.md, "Registration") reads PEERS without importing torch;
under the python/cpu variant, the classes take the same names from
component.config.params and bind them here (bind), with the C table's
defaults and bounds.

Kept in step with: components/rms_norm/rms_norm_adapter.h (RMS_NORM_PARAMS),
components/attention/attention_adapter.h (ATTENTION_PARAMS) and
attention_cpu_adapter.c (isa), components/transformer_block/
transformer_block_adapter.h (tb_params); tests/integration/torch_peers.sh
compares them with `harness list --params`.
"""

import collections
import re
import sys

FLT_MIN, FLT_MAX = 1.1754943508222875e-38, 3.4028234663852886e38
DBL_MIN, DBL_MAX = sys.float_info.min, sys.float_info.max

# kind: int, float, bool or enum; lo/hi: bounds (None: none); choices: enum's.
Param = collections.namedtuple("Param", "name kind default lo hi choices help")


def _int(name, default, lo, help_text):
    return Param(name, "int", default, lo, None, None, help_text)


def _float(name, default, lo, hi, help_text):
    return Param(name, "float", default, lo, hi, None, help_text)


def _bool(name, default, help_text):
    return Param(name, "bool", default, None, None, None, help_text)


def _enum(name, default, choices, help_text):
    return Param(name, "enum", default, None, None, tuple(choices), help_text)


RMS_NORM = (
    _int("batch_size", 8, 1, "sequences per step"),
    _int("seq_len", 1024, 1, "tokens per sequence; rows normalized = batch_size x seq_len"),
    _int("hidden_size", 4096, 1, "elements per row: the dimension normalized over"),
    _float("eps", 1e-6, FLT_MIN, FLT_MAX, "added to mean(x^2) under the square root; > 0"),
    _enum("dtype", "fp32", ("fp32", "bf16"), "type of x, weight and y"),
)

ATTENTION = (
    _int("batch_size", 1, 1, "sequences per step"),
    _int("num_heads", 32, 1, "query heads"),
    _int("num_kv_heads", 0, 0, "key/value heads (grouped-query attention), a divisor of num_heads; 0: num_heads"),
    _int("seq_len", 1024, 1, "queries per sequence"),
    _int("kv_seq_len", 0, 0, "keys per sequence; 0: seq_len. Causal masks align bottom-right"),
    _int("head_dim", 128, 1, "elements per head"),
    _bool("causal", True, "mask out keys after the query"),
    _enum("dtype", "fp32", ("fp32", "bf16"), "type of q, k, v and o"),
    _float("scale", 0.0, 0.0, FLT_MAX, "multiplies Q K^T before the softmax; 0: 1/sqrt(head_dim)"),
    _enum("isa", "auto", ("auto", "amx", "avx512_bf16", "avx512", "avx2", "portable"),
          "attention/cpu's instruction set; the peer takes only auto: torch picks its own kernels"),
)

TRANSFORMER_BLOCK = (
    _int("batch_size", 1, 1, "sequences per step"),
    _int("seq_len", 256, 1, "tokens per sequence (positions 0..seq_len-1 for RoPE)"),
    _int("hidden_size", 1024, 1, "model width; must equal num_heads x head_dim with head_dim even"),
    _int("num_heads", 16, 1, "query heads"),
    _int("num_kv_heads", 0, 0, "key/value heads (grouped-query attention); 0 = num_heads; must divide num_heads"),
    _int("intermediate_size", 2816, 1, "width of the SwiGLU MLP"),
    _float("rope_theta", 10000.0, DBL_MIN, DBL_MAX, "RoPE base"),
    _float("eps", 1e-5, FLT_MIN, FLT_MAX, "RMSNorm's eps, added to mean(x^2) under the square root; > 0"),
    _bool("causal", True, "token i attends to tokens 0..i only"),
    _enum("dtype", "fp32", ("fp32", "bf16"), "storage of x, y and the weights; bf16: every tensor in bf16"),
    _bool("tensor_parallel", False, "the C variant's Megatron split; the peer runs one rank only"),
)

Peer = collections.namedtuple("Peer", "key family device callable params summary")

PEERS = {
    p.key: p for p in (
        Peer("rms_norm/torch", "rms_norm", "cpu", "rms_norm_torch:RmsNormTorch", RMS_NORM,
             "torch.nn.functional.rms_norm on the harness's buffers (PyTorch's peer of rms_norm/cpu)"),
        Peer("attention/torch", "attention", "cpu", "attention_torch:AttentionTorch", ATTENTION,
             "torch.nn.functional.scaled_dot_product_attention on [B,S,H,D] buffers seen as [B,H,S,D] "
             "(PyTorch's peer of attention/cpu)"),
        Peer("transformer_block/torch", "transformer_block", "cpu", "transformer_block_torch:TransformerBlockTorch",
             TRANSFORMER_BLOCK,
             "the Llama block in F.rms_norm, F.linear, SDPA, F.silu (PyTorch's peer of transformer_block/cpu)"),
    )
}


class ParamError(ValueError):
    """A parameter the C variant's table would refuse: its message names it."""


def _value(p, v):
    """v (from JSON or YAML) as p's kind, within p's bounds."""
    if p.kind == "bool":
        if isinstance(v, bool):
            return v
        if v in ("true", "false"):
            return v == "true"
        raise ParamError(f"{p.name}: expected true or false, got {v!r}")
    if p.kind == "enum":
        if v not in p.choices:
            raise ParamError(f"{p.name}: {v!r} is not one of {', '.join(p.choices)}")
        return v
    if p.kind == "int":
        if isinstance(v, bool) or not (isinstance(v, int) or re.fullmatch(r"\s*-?\d+\s*", str(v))):
            raise ParamError(f"{p.name}: expected an integer, got {v!r}")
        x = int(v)
    else:
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise ParamError(f"{p.name}: expected a number, got {v!r}") from None
    if (p.lo is not None and x < p.lo) or (p.hi is not None and x > p.hi):
        raise ParamError(f"{p.name}: {v!r} is out of range [{p.lo}, {p.hi if p.hi is not None else 'inf'}]")
    return x


def bind(table, given):
    """given (a dict of parameter values) against table: every name known,
    each value of its kind and within its bounds, defaults for the rest. A
    dict of every parameter, or ParamError naming the first wrong one."""
    known = {p.name: p for p in table}
    for name in given:
        if name not in known:
            raise ParamError(f"unknown parameter {name!r}; the C variant's are {', '.join(known)}")
    return {p.name: _value(p, given.get(p.name, p.default)) for p in table}
