"""Writer for kwsuggest's .kwv word-vector format (layout: Sources/KeywordVectors/NativeVectorFormat.swift)."""
import struct

import numpy as np

MAGIC = b"KWVECTRS"
VERSION = 1
HEADER = 64


def encode_kwv(vectors, groups, precision="float16"):
    """vectors: (R, D) array; groups[r]: the keys of row r, label first. Returns the file bytes."""
    vectors = np.asarray(vectors, dtype=np.float32)
    rows, dim = vectors.shape
    assert len(groups) == rows
    kind, dtype = (1, "<f2") if precision == "float16" else (2, "<f4")
    body = vectors.astype(dtype).tobytes()
    counts = struct.pack(f"<{rows}I", *[len(g) for g in groups])
    seen = set()
    parts = []
    for group in groups:
        for key in group:
            assert key and "\0" not in key and key not in seen, f"bad or duplicate key {key!r}"
            seen.add(key)
            parts.append(key.encode("utf-8") + b"\0")
    keys = b"".join(parts)
    counts_offset = HEADER + len(body)
    keys_offset = counts_offset + len(counts)
    header = MAGIC + struct.pack("<IIIIII QQQQ", VERSION, kind, dim, rows, len(seen), 0,
                                 HEADER, counts_offset, keys_offset, len(keys))
    assert len(header) == HEADER
    return header + body + counts + keys


def write_kwv(path, vectors, groups, precision="float16"):
    data = encode_kwv(vectors, groups, precision)
    with open(path, "wb") as f:
        f.write(data)
    return data
