#!/usr/bin/env python3
"""The feedback loop, end to end: annotators' decisions on half of dev-unseen go through the running service
into its store, the store's training export joins `kwsuggest train`, and the retrained model is evaluated on the
other half against the model it started from.

Usage: tools/model/feedback_loop.py KWSUGGEST_BIN BASE_MODEL OUT_DIR [train options ...]
  BASE_MODEL  the model the annotators work with (trained on data/train.jsonl, e.g. models/default)
  OUT_DIR     scratch directory: the halves, the export, the retrained model, the report
  The train options (default: --dev data/dev.jsonl --epochs 10 --seed 1) must be the base model's own.

Steps:
  1. dev-unseen is split in two halves by the SHA-256 of the name (even first byte: feedback half, odd: test half).
  2. `kwsuggest serve` runs the base model with a scratch file store and an admin token.
  3. For each feedback name the simulated annotator asks POST /v1/suggest (k 5) and records the first labelled
     keyword: an accept when it is among the five shown, else a correction; all go to POST /v1/feedback.
  4. GET /v1/feedback/export (the training-data format) is saved as feedback.jsonl.
  5. `kwsuggest train --data data/train.jsonl --data feedback.jsonl …` retrains.
  6. `kwsuggest eval --json` of both models on the test half (and, for reference, on the feedback half).
Prints a Markdown table and writes OUT_DIR/report.json.
"""
import hashlib
import json
import os
import subprocess
import sys
import time
import urllib.request

TOKEN = "feedback-loop-token"


def request(url, path, body=None, method=None):
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Authorization": "Bearer " + TOKEN}
    if data is not None:
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url + path, data=data, method=method or ("POST" if data else "GET"), headers=headers)
    with urllib.request.urlopen(req, timeout=120) as response:
        return response.status, response.read().decode()


def evaluate(binary, model, data):
    out = subprocess.run([binary, "eval", "--model", model, "--data", data, "--json", "--bootstrap", "200"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    binary, base, out = argv[1], argv[2], argv[3]
    train_options = argv[4:] or ["--dev", "data/dev.jsonl", "--epochs", "10", "--seed", "1"]
    os.makedirs(out, exist_ok=True)

    with open("data/dev-unseen.jsonl", encoding="utf-8") as file:
        rows = [json.loads(line) for line in file if line.strip()]
    feedback_half, test_half = [], []
    for row in rows:
        (feedback_half if hashlib.sha256(row["name"].encode()).digest()[0] % 2 == 0 else test_half).append(row)
    paths = {}
    for label, half in (("feedback-half", feedback_half), ("test-half", test_half)):
        paths[label] = os.path.join(out, label + ".jsonl")
        with open(paths[label], "w", encoding="utf-8") as file:
            for row in half:
                file.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"dev-unseen: {len(rows)} names; feedback half {len(feedback_half)}, test half {len(test_half)}", flush=True)

    store = os.path.join(out, "store", "keywords.overlay.json")
    os.makedirs(os.path.dirname(store), exist_ok=True)
    env = dict(os.environ, KWSUGGEST_ADMIN_TOKEN=TOKEN)
    server = subprocess.Popen([binary, "serve", "--port", "0", "--model", base, "--store", "file:" + store],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        url = server.stdout.readline().strip().replace("listening on ", "")
        for _ in range(300):
            try:
                if request(url, "/readyz")[0] == 200:
                    break
            except Exception:
                time.sleep(0.1)
        items, accepts = [], 0
        for row in feedback_half:
            _, text = request(url, "/v1/suggest", {"name": row["name"], "k": 5})
            answer = json.loads(text)
            shown = [s["keyword"] for s in answer["suggestions"]]
            keyword = row["keywords"][0]
            action = "accept" if keyword in shown else "correct"
            accepts += action == "accept"
            items.append({"id": "loop-" + hashlib.sha256(row["name"].encode()).hexdigest()[:16], "name": row["name"],
                          "keyword": keyword, "action": action, "shown": shown, "model": answer["model"],
                          "annotator": "feedback-loop"})
        for start in range(0, len(items), 1000):
            status, text = request(url, "/v1/feedback", {"items": items[start:start + 1000]})
            assert status == 201, (status, text)
        status, export = request(url, "/v1/feedback/export")
        assert status == 200, status
    finally:
        server.terminate()
        server.wait(timeout=30)
    feedback = os.path.join(out, "feedback.jsonl")
    with open(feedback, "w", encoding="utf-8") as file:
        file.write(export)
    lines = [line for line in export.splitlines() if line.strip()]
    print(f"feedback: {len(items)} decisions posted ({accepts} accepts, {len(items) - accepts} corrections); "
          f"export: {len(lines)} training lines", flush=True)

    retrained = os.path.join(out, "model")
    command = [binary, "train", "--model", base, "--data", "data/train.jsonl", "--data", feedback, "--out", retrained] + train_options
    print("$ " + " ".join(command), flush=True)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)

    report = {}
    for label in ("test-half", "feedback-half"):
        report[label] = {"base": evaluate(binary, base, paths[label]), "retrained": evaluate(binary, retrained, paths[label])}
    with open(os.path.join(out, "report.json"), "w", encoding="utf-8") as file:
        json.dump(report, file, indent=2)

    def cell(metrics):
        c = metrics.get("calibration") or {}
        coverage = {round(x["precision_target"], 2): x["coverage"] for x in c.get("coverage", [])}
        return (f"{metrics['accuracy_at_1']:.3f} / {metrics['accuracy_at_5']:.3f} / {metrics['mrr']:.3f}"
                f" | {coverage.get(0.98, float('nan')):.3f}")
    print("\n| half | n | model | Acc@1 / Acc@5 / MRR | auto-accepted at 98 % |")
    print("| --- | ---: | --- | --- | ---: |")
    for label in ("test-half", "feedback-half"):
        for which in ("base", "retrained"):
            metrics = report[label][which]
            print(f"| {label} | {metrics['n']} | {which} | {cell(metrics)} |")


if __name__ == "__main__":
    main(sys.argv)
