#!/usr/bin/env python3
"""Turn the chiVe vectors shipped in the PyPI wheel ja-ginza==5.3.0 into models/default/vectors.kwv.

    pip install ja-ginza==5.3.0 --no-deps msgpack numpy
    python3 tools/vectors/extract_chive.py [--out models/default/vectors.kwv] [--precision float16]

Input (inside the wheel): ja_ginza/ja_ginza-5.3.0/vocab/
    vectors      NumPy .npy float32, 20000 x 300 (chiVe rows, pruned by spaCy)
    key2row      msgpack map: uint64 key -> row
    strings.json list of strings; key = MurmurHash64A(utf-8, seed=1), spaCy's string hash

Output: every row in its original order (row ids stay chiVe's row ids; other parts of kwsuggest
refer to them), and every string whose key is in key2row as a key of its row. Within a row the
first key is its display label: the row's own chiVe word. spaCy's prune_vectors writes the kept
words first, in row order, so the first 20,000 entries of key2row (in file order) are rows
0 … 19,999's own words; the keys remapped onto a row follow later. The other keys of a row
follow its own word: keys with non-ASCII characters first, then shorter, then by code point. The byte layout is documented in Sources/KeywordVectors/NativeVectorFormat.swift.
"""
import argparse
import importlib.util
import json
import os
import struct
import sys

import msgpack
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from murmur import spacy_key  # noqa: E402
from kwv import write_kwv  # noqa: E402


def vocab_dir():
    spec = importlib.util.find_spec("ja_ginza")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("ja_ginza is not installed: pip install ja-ginza==5.3.0 --no-deps")
    base = list(spec.submodule_search_locations)[0]
    path = os.path.join(base, "ja_ginza-5.3.0", "vocab")
    if not os.path.isdir(path):
        sys.exit(f"{path} not found: this script expects ja-ginza 5.3.0")
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="models/default/vectors.kwv")
    parser.add_argument("--precision", choices=["float16", "float32"], default="float16")
    args = parser.parse_args()

    vocab = vocab_dir()
    vectors = np.load(os.path.join(vocab, "vectors"))
    with open(os.path.join(vocab, "key2row"), "rb") as f:
        key2row = msgpack.unpackb(f.read(), strict_map_key=False)
    with open(os.path.join(vocab, "strings.json"), encoding="utf-8") as f:
        strings = json.load(f)
    print(f"vectors {vectors.shape} {vectors.dtype}; key2row {len(key2row)} keys; strings.json {len(strings)} strings")

    # Self-check of the hash: the known key of "人参" must be present.
    assert spacy_key("人参") in key2row, "MurmurHash64A does not reproduce spaCy's keys"

    rows, dim = vectors.shape
    groups = [[] for _ in range(rows)]
    found = set()
    for text in strings:
        key = spacy_key(text)
        row = key2row.get(key)
        if row is None or key in found:
            continue
        found.add(key)
        groups[row].append(text)
    missing = len(key2row) - len(found)
    empty_rows = sum(1 for g in groups if not g)
    # The row's own word: key2row's first `rows` entries are rows 0 … rows-1 in order.
    entries = list(key2row.items())
    own = {}
    for row in range(rows):
        key, value = entries[row]
        if value == row:
            own[row] = key
    for row, g in enumerate(groups):
        g.sort(key=lambda t: (spacy_key(t) != own.get(row), t.isascii(), len(t), t))
    labelled = sum(1 for row, g in enumerate(groups) if g and spacy_key(g[0]) == own.get(row))
    print(f"rows labelled by their own chiVe word: {labelled} of {rows}")
    keys = sum(len(g) for g in groups)
    print(f"keys with a known string: {keys}; keys in key2row without a string: {missing}; rows without a key: {empty_rows}")

    data = write_kwv(args.out, vectors, groups, args.precision)
    print(f"wrote {args.out}: {len(data)} bytes ({len(data) / 1e6:.1f} MB), {rows} rows x {dim}, {keys} keys, {args.precision}")
    if args.precision == "float16":
        err = np.abs(vectors.astype(np.float16).astype(np.float32) - vectors).max()
        print(f"max |float16 - float32| = {err:.3g}")


if __name__ == "__main__":
    main()
