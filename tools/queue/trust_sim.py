#!/usr/bin/env python3
"""Auto-accept that earns its trust, measured through a real `kwsuggest serve`.

Streams labelled names the model was not trained on through the queue of one server (a fresh file store):
  1. the first half arrives in batches; after each batch an annotator leases every queued item (audits included)
     and labels it with the name's gold keywords, then the server's rule refreshes (it follows the store's
     evidence every 2 s);
  2. the second half arrives in batches, and nobody labels it;
  3. the labels export gives the model's own labels (`decided_by: "model"`): coverage and precision against the
     gold keywords in the second half, in the first half, and among the first --cold items (a new deployment),
     per category of the model's keyword;
  4. `GET /v1/queue/keywords` is read and its fields checked.
Run once with --rule evidence (the default) and once with --rule calibration (the calibration threshold alone)
to compare. Prints figures and a JSON summary on the last line.

Usage: tools/queue/trust_sim.py [--binary .build/release/kwsuggest] [--names data/dev-unseen.jsonl]
       [--rule evidence|calibration] [--seed 1] [--batch 50] [--audit 0.05] [--cold 500]
"""
import argparse
import collections
import json
import os
import random
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from queue_check import ROOT, Client, Serve  # noqa: E402

KEYWORD_FIELDS = {"keyword", "category", "queued", "auto_accepted", "audited", "audit_precision", "labelled",
                  "top1_precision", "auto_accept"}


def load(path, seed):
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    random.Random(seed).shuffle(rows)
    return [{"id": f"N-{index:05d}", "name": row["name"], "gold": row["keywords"]} for index, row in enumerate(rows)]


def label_everything(client, by_id, annotator):
    """Leases and labels every open item with its gold keywords; returns how many."""
    done = 0
    while True:
        lease = client.post("/v1/queue/lease", {"annotator": annotator, "n": 100, "order": "oldest"})
        if not lease["items"]:
            return done
        for item in lease["items"]:
            client.post("/v1/queue/decisions", {"lease": lease["lease"], "annotator": annotator, "id": item["id"],
                                                "keywords": by_id[item["id"]]["gold"][:10]})
            done += 1


def figures(items, labels):
    """Coverage and precision of the model's labels over `items`."""
    model = [labels[item["id"]] for item in items if item["id"] in labels and labels[item["id"]]["decided_by"] == "model"]
    right = sum(1 for label, item in zip(model, [i for i in items if i["id"] in labels
                                                and labels[i["id"]]["decided_by"] == "model"])
                if label["keywords"][0] in item["gold"])
    wrong = [(item["name"], labels[item["id"]]["keywords"][0], item["gold"][0]) for item in items
             if item["id"] in labels and labels[item["id"]]["decided_by"] == "model"
             and labels[item["id"]]["keywords"][0] not in item["gold"]]
    return {"n": len(items), "model_labels": len(model), "right": right, "wrong": wrong,
            "coverage": round(len(model) / max(len(items), 1), 4),
            "precision": round(right / len(model), 4) if model else None}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/kwsuggest"))
    parser.add_argument("--model", default=os.path.join(ROOT, "models/default"))
    parser.add_argument("--names", default=os.path.join(ROOT, "data/dev-unseen.jsonl"))
    parser.add_argument("--rule", default="evidence", choices=["evidence", "calibration"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--audit", type=float, default=0.05)
    parser.add_argument("--cold", type=int, default=500)
    parser.add_argument("--refresh-wait", type=float, default=2.5, help="seconds after each labelled batch")
    parser.add_argument("--time-enqueue", type=int, default=0,
                        help="then time POST /v1/queue/items of this many new items, 5 times (median)")
    args = parser.parse_args()

    items = load(args.names, args.seed)
    by_id = {item["id"]: item for item in items}
    half = len(items) // 2
    categories = {}
    path = os.path.join(args.model, "keyword-categories.tsv")
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2:
                categories.setdefault(parts[0], parts[1])
    work = tempfile.mkdtemp(prefix="kwsuggest-trust-")
    serve = Serve(args.binary, args.model, "file:" + os.path.join(work, "keywords.overlay.json"), work, "serve",
                  ["--queue-overlap", "0", "--queue-audit", str(args.audit), "--auto-accept-rule", args.rule,
                   "--access-log", "off"])
    try:
        client = Client(serve.port)
        labelled = 0
        for start in range(0, half, args.batch):
            batch = items[start:min(start + args.batch, half)]
            client.post("/v1/queue/items", {"items": [{"id": i["id"], "name": i["name"]} for i in batch]})
            labelled += label_everything(client, by_id, "annotator")
            time.sleep(args.refresh_wait)
        for start in range(half, len(items), args.batch):
            batch = items[start:start + args.batch]
            client.post("/v1/queue/items", {"items": [{"id": i["id"], "name": i["name"]} for i in batch]})
        labels = {}
        for line in client.get("/v1/labels/export").splitlines():
            if line.strip():
                row = json.loads(line)
                labels[row["id"]] = row
        second = figures(items[half:], labels)
        first = figures(items[:half], labels)
        cold = figures(items[:min(args.cold, half)], labels)
        per_category = {}
        for category in sorted({categories.get(label["keywords"][0], "(none)") for label in labels.values()
                                if label["decided_by"] == "model"}):
            members = [i for i in items[half:] if i["id"] in labels and labels[i["id"]]["decided_by"] == "model"
                       and categories.get(labels[i["id"]]["keywords"][0], "(none)") == category]
            right = sum(1 for i in members if labels[i["id"]]["keywords"][0] in i["gold"])
            per_category[category] = {"model_labels": len(members), "right": right}
        keywords = json.loads(client.get("/v1/queue/keywords?limit=1000"))
        fields_ok = all(set(row) == KEYWORD_FIELDS for row in keywords["keywords"])
        ordered = all(a["queued"] >= b["queued"] for a, b in zip(keywords["keywords"], keywords["keywords"][1:]))
        states = collections.Counter(row["auto_accept"] for row in keywords["keywords"])
        stats = json.loads(client.get("/v1/queue/stats"))
        print(f"names {args.names}  rule {args.rule}  seed {args.seed}  first half {half}, labelled {labelled}")
        print(f"second half: model labels {second['model_labels']}/{second['n']} (coverage {second['coverage']}), "
              f"right {second['right']} (precision {second['precision']})")
        print(f"first half:  model labels {first['model_labels']}/{first['n']}, precision {first['precision']}")
        print(f"first {cold['n']} items: model labels {cold['model_labels']}, precision {cold['precision']}")
        for category, row in sorted(per_category.items(), key=lambda kv: -kv[1]["model_labels"]):
            print(f"  {category}: {row['right']}/{row['model_labels']}")
        print(f"/v1/queue/keywords: {keywords['count']} keywords, fields ok {fields_ok}, ordered by queued {ordered}, "
              f"states {dict(states)}; audits {stats['auto_accept']['audited']}")
        timing = None
        if args.time_enqueue:
            seconds = []
            for round_ in range(5):
                batch = [{"id": f"T{round_}-{index}", "name": items[index % len(items)]["name"]}
                         for index in range(args.time_enqueue)]
                started = time.perf_counter()
                client.post("/v1/queue/items", {"items": batch})
                seconds.append(time.perf_counter() - started)
            timing = sorted(seconds)[2]
            print(f"POST /v1/queue/items of {args.time_enqueue}: median {timing * 1000:.0f} ms "
                  f"(rounds {', '.join(f'{s * 1000:.0f}' for s in seconds)} ms)")
        print(json.dumps({"rule": args.rule, "enqueue_seconds": timing, "names": os.path.basename(args.names), "seed": args.seed,
                          "second_half": second, "first_half": first, "cold": cold, "per_category": per_category,
                          "keywords_fields_ok": fields_ok, "keywords_ordered": ordered, "states": dict(states)},
                         ensure_ascii=False))
        return 0 if fields_ok and ordered else 1
    finally:
        serve.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
