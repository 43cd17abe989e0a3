#!/usr/bin/env python3
"""Counts representation ties of a model directory (offline tool; the CLI and tests do not need it).

1. Keywords whose model input equals another keyword's: the row sequence of `kwsuggest tokenize --keyword`
   (what a word-row-only model reads), and, for a model with a sub-word table (`subwordBuckets` in
   encoder.json), the rows together with every token's sub-word buckets (bench/reference/score.py computes the
   pieces exactly as Sources/KeywordModel/Subwords.swift does).
2. The share of names with tied top-5 scores: two of the five `score` values of `kwsuggest suggest --json -k 5`
   equal after rounding to 5 decimals.

Usage: python3 tools/model/ties.py BINARY MODEL_DIR [DATA.jsonl ...]
"""
import collections
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "reference"))
from subwords import keyword_piece_surfaces, token_pieces  # noqa: E402


def run(binary, args, lines):
    done = subprocess.run([binary] + args, input="".join(x + "\n" for x in lines), capture_output=True,
                          text=True, check=True)
    return done.stdout.splitlines()


def main():
    binary, model = sys.argv[1], sys.argv[2]
    data = sys.argv[3:]
    keywords = [x.strip() for x in open(os.path.join(model, "keywords.txt"), encoding="utf-8") if x.strip()]
    header = json.load(open(os.path.join(model, "encoder.json"), encoding="utf-8"))
    buckets = header["config"].get("subwordBuckets", 0)
    out = run(binary, ["tokenize", "--keyword", "--json", "--model", model], keywords)
    by_rows = collections.defaultdict(list)
    by_input = collections.defaultdict(list)
    for keyword, line in zip(keywords, out):
        tokens = json.loads(line)["tokens"]
        content = [t for t in tokens if t["content"]] or tokens
        rows = tuple(-1 if t["row"] is None else t["row"] for t in content)
        by_rows[rows].append(keyword)
        surfaces = keyword_piece_surfaces([(t["surface"], t["content"]) for t in tokens]) or [t["surface"] for t in content]
        pieces = tuple(tuple(sorted(h % buckets for h in token_pieces(s))) for s in surfaces) if buckets else ()
        by_input[(rows, pieces)].append(keyword)
    shared_rows = sum(len(v) for v in by_rows.values() if len(v) > 1)
    shared_input = sum(len(v) for v in by_input.values() if len(v) > 1)
    print(f"{model}: {len(keywords)} keywords; sharing their row sequence with another: {shared_rows}; "
          f"sharing their whole input (rows{' and sub-word buckets' if buckets else ''}): {shared_input}")
    for group in sorted((v for v in by_input.values() if len(v) > 1), key=len, reverse=True)[:5]:
        print("  tied input:", " = ".join(group[:8]))
    for path in data:
        names = [json.loads(x)["name"] for x in open(path, encoding="utf-8") if x.strip()]
        tied = 0
        for line in run(binary, ["suggest", "--json", "-k", "5", "--model", model], names):
            scores = [round(s["score"], 5) for s in json.loads(line)["suggestions"]]
            tied += len(set(scores)) < len(scores)
        print(f"{path}: {tied} of {len(names)} names have tied top-5 scores ({tied / max(1, len(names)):.3%})")


if __name__ == "__main__":
    main()
