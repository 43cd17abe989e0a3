#!/usr/bin/env python3
"""Acc@1 / Acc@5 of a model on labelled files, split by one question: does the name contain one of its gold
keywords verbatim after NFKC ("verbatim") or not ("knowledge")? Also the share of names with tied top-5
scores (two of the five `score` values equal after rounding to 5 decimals). Offline tool; reads only
`kwsuggest suggest --json -k 5` output, so it measures what the CLI serves.

Usage: python3 tools/model/split_eval.py BINARY MODEL_DIR FILE.jsonl [FILE.jsonl ...] [--source SOURCE]
Prints one Markdown row per file and part.
"""
import json
import subprocess
import sys
import unicodedata


def nfkc(s):
    return unicodedata.normalize("NFKC", s)


def evaluate(binary, model, path, source=None):
    items = [json.loads(x) for x in open(path, encoding="utf-8") if x.strip()]
    if source:
        items = [x for x in items if x.get("source", "").startswith(source)]
    names = [x["name"] for x in items]
    out = subprocess.run([binary, "suggest", "--json", "-k", "5", "--model", model],
                         input="".join(n + "\n" for n in names), capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert len(lines) == len(items), (len(lines), len(items))
    parts = {"all": [0, 0, 0, 0], "verbatim": [0, 0, 0, 0], "knowledge": [0, 0, 0, 0]}
    for item, line in zip(items, lines):
        suggestions = json.loads(line)["suggestions"]
        got = [s["keyword"] for s in suggestions]
        scores = [round(s["score"], 5) for s in suggestions]
        gold = set(item["keywords"])
        verbatim = any(nfkc(k) in nfkc(item["name"]) for k in item["keywords"])
        hit1 = bool(got) and got[0] in gold
        hit5 = any(k in gold for k in got[:5])
        tied = len(set(scores)) < len(scores)
        for part in ("all", "verbatim" if verbatim else "knowledge"):
            p = parts[part]
            p[0] += 1
            p[1] += hit1
            p[2] += hit5
            p[3] += tied
    return parts


def main():
    args = sys.argv[1:]
    source = None
    if "--source" in args:
        i = args.index("--source")
        source = args[i + 1]
        del args[i:i + 2]
    binary, model, files = args[0], args[1], args[2:]
    print("| set | part | n | Acc@1 | Acc@5 | tied top-5 |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for path in files:
        parts = evaluate(binary, model, path, source)
        for part, (n, a1, a5, tied) in parts.items():
            if n:
                print(f"| {path}{' (' + source + ')' if source else ''} | {part} | {n} | {a1 / n:.3f} | {a5 / n:.3f} | {tied / n:.1%} |")


if __name__ == "__main__":
    main()
