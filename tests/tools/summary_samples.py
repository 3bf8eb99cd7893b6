"""A summary's per-step samples, wherever the run put them: inline in
timing.samples, or in the binary side file timing.samples_file names
(harness/util/sample_file.h: a 32-byte header, then little-endian doubles).
For the sh tests' Python checks: `sys.path.insert(0, TOOLS); import summary_samples`."""
import hashlib
import os
import struct


def read_file(path, expect_count=None, expect_sha256=None):
    data = open(path, "rb").read()
    magic, version, header, count, unit = struct.unpack_from("<8sIIQ8s", data)
    assert magic == b"HSAMPLES" and version == 1, (path, magic, version)
    assert len(data) == header + 8 * count, (path, len(data), header, count)
    assert expect_count is None or count == expect_count, (path, count, expect_count)
    assert expect_sha256 is None or hashlib.sha256(data).hexdigest() == expect_sha256, path
    assert unit.rstrip(b"\0") == b"ns", unit
    return list(struct.unpack_from("<%dd" % count, data, header))


def samples(summary_path, key=("timing",)):
    """The samples of the summary at summary_path; key: the object holding
    them (("timing",) or ("timing", "host_launch"))."""
    import json
    obj = json.load(open(summary_path))
    for k in key:
        obj = obj[k]
    if "samples_file" in obj:
        ref = obj["samples_file"]
        assert "samples" not in obj, summary_path
        path = os.path.join(os.path.dirname(summary_path), ref["name"])
        return read_file(path, ref["count"], ref["sha256"])
    return obj["samples"]
