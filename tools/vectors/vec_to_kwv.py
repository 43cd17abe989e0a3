#!/usr/bin/env python3
"""Write a fastText .vec file as .kwv with the reference writer (kwv.py), one row per word in file order.

    python3 tools/vectors/vec_to_kwv.py IN.vec OUT.kwv [--precision float16|float32]

`kwsuggest vectors convert IN.vec OUT.kwv` writes the same bytes; the test fixture
Tests/KeywordVectorsTests/Fixtures/fasttext/model.kwv was written by this script from model.vec there, and the
Swift tests check the converter against it.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kwv import write_kwv  # noqa: E402


def read_vec(path):
    with open(path, encoding="utf-8") as f:
        rows, dim = (int(x) for x in f.readline().split())
        words, values = [], []
        for line in f:
            fields = line.rstrip("\r\n").rstrip(" ").split(" ")
            if fields == [""]:
                continue
            words.append(" ".join(fields[:-dim]))
            values.append([np.float32(x) for x in fields[-dim:]])
    assert len(words) == rows, f"{path}: header says {rows} rows, found {len(words)}"
    return np.array(values, dtype=np.float32).reshape(rows, dim), [[w] for w in words]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--precision", choices=["float16", "float32"], default="float16")
    args = parser.parse_args()
    vectors, groups = read_vec(args.input)
    data = write_kwv(args.output, vectors, groups, args.precision)
    print(f"wrote {args.output}: {len(data)} bytes, {len(groups)} words x {vectors.shape[1]}, {args.precision}")


if __name__ == "__main__":
    main()
