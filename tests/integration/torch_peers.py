"""The PyTorch peers (components/python/torch) outside the harness: each on
small shapes, on a stand-in for harness.Context whose fill draws numpy's
normal numbers, checked against its float64 reference; then each made wrong
in one way (the check must catch it), and bad parameters refused by name.

    usage: python torch_peers.py PEERS_DIR     (a python with torch and numpy)
Prints one line per case, 'N passed, N failed' last; exit 1 on a failure."""

import contextlib
import sys

import numpy

sys.path.insert(0, sys.argv[1])
import attention_torch  # noqa: E402
import peers  # noqa: E402
import rms_norm_torch  # noqa: E402
import transformer_block_torch  # noqa: E402


class FakeContext:
    """alloc, fill, input, output, region as harness.Context offers them."""
    num_threads, world_size, rank, device, stream = 2, 1, 0, "cpu", 0

    def __init__(self, seed):
        self.rng = numpy.random.default_rng(seed)
        self.kinds = {}

    def alloc(self, shape, dtype="float32", tag="python"):
        a = numpy.zeros(shape, dtype=numpy.uint16 if dtype == "bfloat16" else dtype)
        self.kinds[id(a)] = dtype
        return a

    def fill(self, buf, dtype=None):
        v = self.rng.standard_normal(buf.shape).astype(numpy.float32)
        buf[...] = transformer_block_torch.f32_to_bf16(v) if buf.dtype == numpy.uint16 else v
        return buf

    input = fill

    def output(self, buf, dtype=None):
        return buf

    def region(self, name):
        return contextlib.nullcontext()


results = []


def case(name, ok, detail=""):
    results.append(ok)
    print(f"{'ok' if ok else 'FAIL'}: {name}{'' if ok else ': ' + detail}")


def run(cls, params, name, seed=1):
    peer = cls(params, FakeContext(seed))
    v = peer.check()
    case(f"{name} validates", v["passed"] and v["checked"] > 0, str(v))
    return peer


def must_fail(peer, name, spoil):
    """spoil(peer) after every step: the check must fail."""
    step = peer.step

    def spoiled():
        step()
        spoil(peer)
    peer.step = spoiled
    v = peer.check()
    case(f"{name}: a wrong output fails the check", not v["passed"] and v["mismatches"] > 0, str(v))


for dt in ("fp32", "bf16"):
    p = run(rms_norm_torch.RmsNormTorch, dict(batch_size=2, seq_len=3, hidden_size=37, dtype=dt), f"rms_norm {dt}")
    must_fail(p, f"rms_norm {dt}", lambda s: setattr(s, "y", s.y * 1.02))
    p = rms_norm_torch.RmsNormTorch(dict(batch_size=2, seq_len=3, hidden_size=37, dtype=dt), FakeContext(1))
    must_fail(p, f"rms_norm {dt} without its weight",
              lambda s: setattr(s, "y", s.F.rms_norm(s.x, (s.hidden,), None, s.eps)))

    for causal in (True, False):
        for sq, sk in ((6, 6), (5, 9), (7, 4)):
            for kv in (4, 2):
                name = f"attention {dt} sq {sq} sk {sk} heads 4/{kv} {'causal' if causal else 'full'}"
                a = run(attention_torch.AttentionTorch, dict(batch_size=2, num_heads=4, num_kv_heads=kv, seq_len=sq,
                                                             kv_seq_len=sk, head_dim=16, causal=causal, dtype=dt),
                        name)
    a = attention_torch.AttentionTorch(dict(batch_size=1, num_heads=2, seq_len=5, kv_seq_len=9, head_dim=8,
                                            dtype=dt), FakeContext(2))
    # the top-left mask (is_causal with Sq != Sk) is not attention/cpu's
    must_fail(a, f"attention {dt} top-left causal", lambda s: setattr(s, "o", s.F.scaled_dot_product_attention(
        s.q, s.k, s.v, is_causal=True, scale=s.scale)))

    for causal in (True, False):
        blk = dict(batch_size=2, seq_len=5, hidden_size=32, num_heads=4, num_kv_heads=2, intermediate_size=48,
                   causal=causal, dtype=dt)
        b = run(transformer_block_torch.TransformerBlockTorch, blk, f"transformer_block {dt} "
                f"{'causal' if causal else 'full'}")
    must_fail(b, f"transformer_block {dt}", lambda s: s.y.mul_(1.05))
    b = transformer_block_torch.TransformerBlockTorch(blk, FakeContext(3))
    b.sin = -b.sin                       # RoPE turning the other way
    v = b.check()
    case(f"transformer_block {dt}: RoPE the other way fails the check", not v["passed"], str(v))

for table, params, want in ((peers.RMS_NORM, {"hidden": 4}, "unknown parameter 'hidden'"),
                            (peers.RMS_NORM, {"eps": 0}, "eps: 0 is out of range"),
                            (peers.ATTENTION, {"dtype": "fp16"}, "dtype: 'fp16' is not one of fp32, bf16"),
                            (peers.ATTENTION, {"num_heads": 2.5}, "num_heads: expected an integer"),
                            (peers.TRANSFORMER_BLOCK, {"causal": "yes"}, "causal: expected true or false")):
    try:
        peers.bind(table, params)
        case(f"{params} refused", False, "accepted")
    except peers.ParamError as e:
        case(f"{params} refused: {e}", want in str(e), str(e))
for cls, params, want in ((attention_torch.AttentionTorch, {"num_heads": 6, "num_kv_heads": 4}, "multiple of"),
                          (attention_torch.AttentionTorch, {"isa": "avx2"}, "choose auto"),
                          (transformer_block_torch.TransformerBlockTorch, {"hidden_size": 30, "num_heads": 4},
                           "even head_dim")):
    try:
        cls(params, FakeContext(1))
        case(f"{params} refused", False, "accepted")
    except ValueError as e:
        case(f"{params} refused: {e}", want in str(e), str(e))

print(f"{results.count(True)} passed, {results.count(False)} failed")
sys.exit(0 if all(results) else 1)
