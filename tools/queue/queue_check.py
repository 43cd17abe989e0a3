#!/usr/bin/env python3
"""The annotation queue end to end, on real `kwsuggest serve` processes sharing one store.

Runs two serve processes on one file store (or, with --postgres-url, N replicas on one PostgreSQL) with
--queue-overlap and --queue-audit, then:
  1. imports labelled names (data/dev.jsonl by default) through one process, and again through the other:
     the second time every item is a duplicate; reports the share auto-accepted;
  2. leases the largest keyword group and labels it in bulk (review by keyword): items whose gold keywords hold
     the group's keyword in one decision, the exceptions one by one;
  3. has one simulated annotator per process work the queue at once, labelling each item with its gold
     keywords (a share of them wrong on purpose, --error-rate, so that overlap items can disagree), with one undo;
     then a third annotator takes the overlap items the two disagreed on;
  4. checks that only overlap items were held by two annotators (an item held by both must end with two labels),
     and that agreement is reported;
  5. checks that the labels export holds each imported id once;
  6. measures the precision of the model's auto-accepted labels against the gold keywords.
Prints one figure per line and a JSON summary on the last line; exits 1 when a check fails.

Usage: tools/queue/queue_check.py [--binary .build/release/kwsuggest] [--names data/dev.jsonl] [--count 300]
       [--overlap 0.1] [--audit 0.05] [--postgres-url URL --replicas 3]
"""
import argparse
import collections
import http.client
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []


def check(condition, message):
    print(("  ok    " if condition else "  FAIL  ") + message, flush=True)
    if not condition:
        failures.append(message)


class Client:
    """One keep-alive connection to a serve process."""

    def __init__(self, port):
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.requests = 0

    def call(self, method, path, body=None):
        headers = {"Content-Type": "application/json"} if body is not None else {}
        self.connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = self.connection.getresponse()
        text = response.read().decode("utf-8")
        self.requests += 1
        return response.status, text

    def post(self, path, body):
        status, text = self.call("POST", path, body)
        if status != 200:
            raise RuntimeError(f"POST {path} {json.dumps(body, ensure_ascii=False)[:200]} -> {status} {text[:300]}")
        return json.loads(text)

    def get(self, path):
        status, text = self.call("GET", path)
        if status != 200:
            raise RuntimeError(f"GET {path} -> {status} {text[:300]}")
        return text


class Serve:
    """One `kwsuggest serve` process; stderr to a log file."""

    def __init__(self, binary, model, store, log_dir, name, extra):
        self.log = open(os.path.join(log_dir, name + ".log"), "ab")
        self.process = subprocess.Popen([binary, "serve", "--port", "0", "--model", model, "--store", store] + extra,
                                        stdout=subprocess.PIPE, stderr=self.log)
        line = self.process.stdout.readline().decode()
        if not line.startswith("listening on http://127.0.0.1:"):
            raise RuntimeError(f"{name}: unexpected first line {line!r}")
        self.port = int(line.strip().rsplit(":", 1)[1])
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                status, _ = Client(self.port).call("GET", "/readyz")
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"{name}: not ready after 120 s")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def load_names(path, count, seed):
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    random.Random(seed).shuffle(rows)
    rows = rows[:count] if count else rows
    return [{"id": f"DEV-{index:05d}", "name": row["name"], "gold": row["keywords"]} for index, row in enumerate(rows)]


def import_items(client, items):
    totals = collections.Counter()
    for start in range(0, len(items), 1000):
        batch = [{"id": item["id"], "name": item["name"]} for item in items[start:start + 1000]]
        totals.update(client.post("/v1/queue/items", {"items": batch}))
    return totals


def review_largest_group(client, items_by_id, annotator, gold_label):
    """Review by keyword: lease the items whose top suggestion is the commonest top keyword, accept them in one
    bulk decision, label the exceptions one by one. Returns (keyword, items, requests, seconds)."""
    names = [item for item in items_by_id.values()]
    tops = collections.Counter()
    for start in range(0, len(names), 1000):
        batch = names[start:start + 1000]
        answer = client.post("/v1/suggest/batch", {"names": [item["name"] for item in batch], "k": 1})
        tops.update(result["suggestions"][0]["keyword"] for result in answer["results"]
                    if result["suggestions"] and not result["auto_accept"])
    if not tops:
        return None, 0, 0, 0.0, 0
    keyword = tops.most_common(1)[0][0]
    started = time.perf_counter()
    before = client.requests
    lease = client.post("/v1/queue/lease", {"annotator": annotator, "n": 100, "keyword": keyword})
    agree = [item["id"] for item in lease["items"] if keyword in items_by_id[item["id"]]["gold"]]
    exceptions = [item["id"] for item in lease["items"] if item["id"] not in agree]
    if agree:
        client.post("/v1/queue/decisions", {"lease": lease["lease"], "annotator": annotator, "ids": agree, "keywords": [keyword]})
    for item_id in exceptions:
        client.post("/v1/queue/decisions", {"lease": lease["lease"], "annotator": annotator, "id": item_id,
                                            "keywords": gold_label(item_id)})
    return keyword, len(lease["items"]), client.requests - before, time.perf_counter() - started, len(exceptions)


def work_queue(client, annotator, gold_label, held, undo_once, results):
    """Leases 10 at a time until nothing is left; labels each item. Records every id it was handed."""
    decisions, started, undone = 0, time.perf_counter(), None
    while True:
        lease = client.post("/v1/queue/lease", {"annotator": annotator, "n": 10})
        if not lease["items"]:
            break
        for item in lease["items"]:
            held[annotator].add(item["id"])
            client.post("/v1/queue/decisions", {"lease": lease["lease"], "annotator": annotator, "id": item["id"],
                                                "keywords": gold_label(item["id"], annotator)})
            decisions += 1
            if undo_once and undone is None and decisions == 5:
                undone = client.post("/v1/queue/undo", {"annotator": annotator})
                # The item is back in the lease: label it again.
                client.post("/v1/queue/decisions", {"lease": undone["lease"], "annotator": annotator, "id": undone["id"],
                                                    "keywords": gold_label(undone["id"], annotator)})
                decisions += 1
    results[annotator] = {"decisions": decisions, "seconds": time.perf_counter() - started, "undone": undone}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_binary = os.path.join(ROOT, ".build/release/kwsuggest")
    if not os.path.exists(default_binary):
        default_binary = os.path.join(ROOT, ".build/debug/kwsuggest")
    parser.add_argument("--binary", default=default_binary)
    parser.add_argument("--model", default=os.path.join(ROOT, "models/default"))
    parser.add_argument("--names", default=os.path.join(ROOT, "data/dev.jsonl"))
    parser.add_argument("--count", type=int, default=300, help="names to import (0: all)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--overlap", type=float, default=0.1)
    parser.add_argument("--audit", type=float, default=0.05)
    parser.add_argument("--error-rate", type=float, default=0.1,
                        help="share of labels a simulated annotator gets wrong (a near miss: the item's second suggestion)")
    parser.add_argument("--postgres-url", help="run replicas on this PostgreSQL instead of one file store")
    parser.add_argument("--replicas", type=int, default=2)
    arguments = parser.parse_args()

    work = tempfile.mkdtemp(prefix="kwsuggest-queue.")
    store = arguments.postgres_url or "file:" + os.path.join(work, "keywords.overlay.json")
    extra = ["--queue-overlap", str(arguments.overlap), "--queue-audit", str(arguments.audit)]
    items = load_names(arguments.names, arguments.count, arguments.seed)
    by_id = {item["id"]: item for item in items}
    rng = random.Random(arguments.seed)
    wrong = {}

    def gold_label(item_id, annotator="reviewer"):
        # A deterministic simulated annotator: right, except for a fixed share of (annotator, item) pairs.
        key = (annotator, item_id)
        if key not in wrong:
            wrong[key] = rng.random() < arguments.error_rate
        return ["(wrong) " + by_id[item_id]["gold"][0]] if wrong[key] else [by_id[item_id]["gold"][0]]

    processes = []
    summary = {"store": "postgres" if arguments.postgres_url else "file", "items": len(items)}
    try:
        processes = [Serve(arguments.binary, arguments.model, store, work, f"serve-{i}", extra) for i in range(arguments.replicas)]
        clients = [Client(process.port) for process in processes]
        print(f"{len(processes)} serve processes on {summary['store']} store; logs in {work}", flush=True)

        print("1. Import, then import again through another process", flush=True)
        started = time.perf_counter()
        first = import_items(clients[0], items)
        import_seconds = time.perf_counter() - started
        second = import_items(clients[1], items)
        check(first["queued"] + first["auto_accepted"] == len(items), f"first import: {dict(first)} in {import_seconds:.2f} s")
        check(second["duplicates"] == len(items) and second["queued"] == 0, f"second import: {dict(second)}")
        summary["auto_accepted"] = first["auto_accepted"]
        summary["auto_accepted_share"] = round(first["auto_accepted"] / len(items), 4)
        print(f"  auto-accepted {first['auto_accepted']}/{len(items)} = {summary['auto_accepted_share']:.3f}", flush=True)

        print("2. Review by keyword: the largest group in bulk", flush=True)
        keyword, grouped, requests, seconds, exceptions = review_largest_group(clients[0], by_id, "reviewer", gold_label)
        check(grouped > 0, f"group {keyword!r}: {grouped} items, {exceptions} exceptions, {requests} requests, {seconds * 1000:.0f} ms")
        summary["review"] = {"keyword": keyword, "items": grouped, "exceptions": exceptions, "requests": requests,
                             "keys_per_item": round((1 + exceptions) / grouped, 3) if grouped else None,
                             "api_decisions_per_minute": round(grouped / seconds * 60) if seconds else None}

        print(f"3. {len(clients)} annotators at once, one per process, one undo", flush=True)
        held = collections.defaultdict(set)
        results = {}
        threads = [threading.Thread(target=work_queue, args=(clients[i], f"annotator-{i}", gold_label, held, i == 0, results))
                   for i in range(len(clients))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for name, result in sorted(results.items()):
            rate = result["decisions"] / result["seconds"] * 60 if result["seconds"] else 0
            print(f"  {name}: {result['decisions']} decisions in {result['seconds']:.2f} s ({rate:.0f}/min through the API)", flush=True)
        check(results.get("annotator-0", {}).get("undone") is not None, "annotator-0 undid one decision and labelled it again")
        # Overlap items the two labelled differently go to a third annotator.
        third = {}
        work_queue(clients[0], "annotator-third", gold_label, held, False, third)
        print(f"  annotator-third: {third['annotator-third']['decisions']} decisions (disagreements)", flush=True)
        summary["queue_mode"] = {name: {"decisions": r["decisions"], "api_decisions_per_minute": round(r["decisions"] / r["seconds"] * 60)}
                                 for name, r in results.items()}

        print("4. Only overlap items held by two annotators; agreement reported", flush=True)
        stats = json.loads(clients[1].get("/v1/queue/stats"))
        names = sorted(held)
        twice = set()
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                if "third" not in a + b:
                    twice |= held[a] & held[b]
        overlap_items = stats["agreement"]["overlap_items"]
        check(len(twice) <= overlap_items, f"{len(twice)} items held by two annotators; {overlap_items} overlap items labelled twice")
        check(stats["items"]["queued"] == 0 and stats["items"]["leased"] == 0, f"queue drained: {stats['items']}")
        print(f"  stats: {json.dumps(stats, ensure_ascii=False)}", flush=True)
        summary["held_twice"] = len(twice)
        summary["stats"] = stats

        print("5. The labels export holds each id once", flush=True)
        lines = [json.loads(line) for line in clients[0].get("/v1/labels/export").splitlines() if line]
        ids = [line["id"] for line in lines]
        check(len(ids) == len(set(ids)) and set(ids) == set(by_id), f"{len(ids)} lines, {len(set(ids))} distinct ids of {len(by_id)}")

        print("6. Precision of the model's auto-accepted labels against the gold keywords", flush=True)
        model = [line for line in lines if line["decided_by"] == "model"]
        right = sum(1 for line in model if line["keywords"][0] in by_id[line["id"]]["gold"])
        precision = right / len(model) if model else None
        summary["auto_accept_precision"] = round(precision, 4) if precision is not None else None
        # The model labelled every auto-accepted item; audited ones now carry the annotator's label instead.
        audited = stats["auto_accept"]["audited"]
        check(len(model) + audited == first["auto_accepted"], f"{len(model)} model labels in the export + {audited} audited")
        if precision is not None:
            check(precision >= 0.95, f"auto-accept precision {right}/{len(model)} = {precision:.3f}")
    finally:
        for process in processes:
            process.stop()
    print(f"{'PASS' if not failures else 'FAIL'}: {len(failures)} failed checks; logs in {work}")
    print(json.dumps(summary, ensure_ascii=False))
    if not failures:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
