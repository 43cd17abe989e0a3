#!/usr/bin/env python3
"""Checks the field set (data/field/*.jsonl): every line is {"name", "keywords", "source"}, every keyword is in
models/default/keywords.txt, there are at least 300 names, and no field name occurs in a training file
(data/train*.jsonl) or a source file (data/sources/*.jsonl), compared after NFKC with the spaces folded.
The Swift test FieldSetTests checks the same in `swift test`. Prints the count per source.

Usage: python3 tools/data/check_field.py
"""
import collections
import glob
import json
import os
import sys
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def folded(name):
    return " ".join(unicodedata.normalize("NFKC", name).split())


def main():
    keywords = set(open(os.path.join(ROOT, "models/default/keywords.txt"), encoding="utf-8").read().split("\n")) - {""}
    failures = []
    field = {}
    per_source = collections.Counter()
    for path in sorted(glob.glob(os.path.join(ROOT, "data/field/*.jsonl"))):
        for number, line in enumerate(open(path, encoding="utf-8"), 1):
            item = json.loads(line)
            where = f"{os.path.relpath(path, ROOT)}:{number}"
            if set(item) != {"name", "keywords", "source"} or not item["source"] or not item["keywords"]:
                failures.append(f"{where}: needs exactly name, keywords and source")
            failures += [f"{where}: {k} is not in keywords.txt" for k in item["keywords"] if k not in keywords]
            if folded(item["name"]) in field:
                failures.append(f"{where}: the name is also at {field[folded(item['name'])]}")
            field[folded(item["name"])] = where
            per_source[item["source"]] += 1
    training = sorted(glob.glob(os.path.join(ROOT, "data/train*.jsonl")) + glob.glob(os.path.join(ROOT, "data/sources/*.jsonl")))
    for path in training:
        for number, line in enumerate(open(path, encoding="utf-8"), 1):
            name = folded(json.loads(line)["name"])
            if name in field:
                failures.append(f"{field[name]}: the field name is also at {os.path.relpath(path, ROOT)}:{number}")
    if len(field) < 300:
        failures.append(f"the field set holds {len(field)} names, fewer than 300")
    for source, n in sorted(per_source.items()):
        print(f"{n:5d}  {source}")
    print(f"{len(field):5d}  all")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
