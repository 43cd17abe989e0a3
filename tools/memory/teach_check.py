#!/usr/bin/env python3
"""The decision memory measured on real `kwsuggest serve` replicas sharing one store.

Starts two serve processes on one fresh file store (or on a PostgreSQL database with --postgres-url), then:
  0. adds the set's gold keywords that the served list lacks (POST /v1/keywords on replica A), since the memory only
     suggests served keywords (dev-unseen's keywords are not in the model's list);
  1. asks replica B for every name of the set (before);
  2. teaches half of the names (chosen by a seeded shuffle) through POST /v1/feedback on replica A, each with its
     first gold keyword, as annotator "teacher";
  3. polls replica B until it answers the last taught name from memory, and reports that delay;
  4. asks replica B again for: the taught names; the taught names with shop decorations (【まとめ買い】 … ×2); the
     names not taught;
  5. reports Acc@1 of each part before and after, split into names that state a gold keyword verbatim and names that
     need knowledge.
Prints one figure per line and a JSON summary on the last line.

Usage: tools/memory/teach_check.py [--binary .build/release/kwsuggest] [--names data/dev-general.jsonl]
       [--seed 7] [--postgres-url URL]
"""
import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
import unicodedata

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "queue"))
from queue_check import ROOT, Client, Serve  # noqa: E402

DECORATIONS = ("【まとめ買い】{name} ×2", "【送料無料】{name} x3", "★お買い得★ {name} 2個セット")


def fold(text):
    return unicodedata.normalize("NFKC", text).lower().replace(" ", "")


def verbatim(row):
    """Whether a gold keyword is written in the name (after NFKC, case and spaces)."""
    name = fold(row["name"])
    return any(fold(keyword) in name for keyword in row["keywords"])


def top(client, name):
    answer = client.post("/v1/suggest", {"name": name, "k": 5})
    first = answer["suggestions"][0] if answer["suggestions"] else None
    return (first["keyword"], first.get("source")) if first else (None, None)


def accuracy(client, rows, render=lambda name: name):
    hits = {"verbatim": [0, 0], "knowledge": [0, 0], "all": [0, 0]}
    memory = 0
    for row in rows:
        keyword, source = top(client, render(row["name"]))
        hit = keyword in row["keywords"]
        memory += source == "memory"
        for part in ("verbatim" if verbatim(row) else "knowledge", "all"):
            hits[part][0] += hit
            hits[part][1] += 1
    return {part: (round(h / n, 4) if n else None, n) for part, (h, n) in hits.items()} | {"from_memory": memory}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/kwsuggest"))
    parser.add_argument("--model", default=os.path.join(ROOT, "models/default"))
    parser.add_argument("--names", default=os.path.join(ROOT, "data/dev-general.jsonl"))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--postgres-url")
    args = parser.parse_args()

    rows = [json.loads(line) for line in open(args.names, encoding="utf-8") if line.strip()]
    random.Random(args.seed).shuffle(rows)
    taught, untaught = rows[: len(rows) // 2], rows[len(rows) // 2:]
    work = tempfile.mkdtemp(prefix="kwsuggest-memory-")
    store = args.postgres_url or "file:" + os.path.join(work, "keywords.overlay.json")
    replicas = []
    try:
        replicas = [Serve(args.binary, args.model, store, work, name, []) for name in ("a", "b")]
        a, b = Client(replicas[0].port), Client(replicas[1].port)
        parts = {
            "taught": (taught, lambda name: name),
            "taught_decorated": (taught, lambda name: DECORATIONS[len(name) % len(DECORATIONS)].format(name=name)),
            "untaught": (untaught, lambda name: name),
        }
        gold = sorted({keyword for row in rows for keyword in row["keywords"]})
        for start in range(0, len(gold), 1000):
            status, text = a.call("POST", "/v1/keywords", {"add": gold[start:start + 1000]})
            if status != 200:
                raise RuntimeError(f"POST /v1/keywords -> {status} {text[:300]}")
        listed_at = time.monotonic()
        while json.loads(b.get("/v1/keywords?limit=1"))["count"] != json.loads(a.get("/v1/keywords?limit=1"))["count"]:
            if time.monotonic() - listed_at > 30:
                raise RuntimeError("replica B did not serve the added keywords within 30 s")
            time.sleep(0.05)
        before = {part: accuracy(b, part_rows, render) for part, (part_rows, render) in parts.items()}
        for start in range(0, len(taught), 500):
            items = [{"name": row["name"], "keyword": row["keywords"][0], "action": "correct", "annotator": "teacher"}
                     for row in taught[start:start + 500]]
            status, text = a.call("POST", "/v1/feedback", {"items": items})
            if status != 201:
                raise RuntimeError(f"POST /v1/feedback -> {status} {text[:300]}")
        last = taught[-1]
        taught_at = time.monotonic()
        while top(b, last["name"]) != (last["keywords"][0], "memory"):
            if time.monotonic() - taught_at > 30:
                raise RuntimeError("replica B did not answer with the taught keyword within 30 s")
            time.sleep(0.05)
        delay = time.monotonic() - taught_at
        after = {part: accuracy(b, part_rows, render) for part, (part_rows, render) in parts.items()}
        print(f"names: {len(rows)} from {os.path.relpath(args.names, ROOT)}; taught {len(taught)}, untaught {len(untaught)}")
        print(f"replica B answered the last taught name after {delay:.2f} s")
        for part in parts:
            for split in ("all", "verbatim", "knowledge"):
                (b_acc, n), (a_acc, _) = before[part][split], after[part][split]
                print(f"{part:17s} {split:9s} n={n:4d}  Acc@1 before {b_acc}  after {a_acc}")
            print(f"{part:17s} answered from memory after: {after[part]['from_memory']}")
        print(json.dumps({"names": args.names, "delay_s": round(delay, 3), "before": before, "after": after},
                         ensure_ascii=False))
    finally:
        for replica in replicas:
            replica.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
