#!/usr/bin/env python3
"""The learning loop through its commands, on a running server: annotators' decisions on half of dev-unseen go
into the store, `train --recipe … --feedback …` retrains, `model push` stores the candidate, `model promote`
gates and promotes it, the running `serve` swaps to it without a restart, and the other half measures it.

Usage: tools/model/learning_loop.py KWSUGGEST_BIN OUT_DIR [--store STORE] [--model DIR] [--force]
  STORE   file:PATH (default: OUT_DIR/store/keywords.overlay.json) or postgres://…
  --force promote with --force (the acceptance check does); by default the gate decides
Run from the repository root (the recipe's paths resolve against it).

Steps:
  1. dev-unseen is split in two halves by the SHA-256 of the name (even first byte: feedback half, odd: test half).
  2. `kwsuggest serve` runs --model with the store; the test half's Acc@1 is measured through POST /v1/suggest.
  3. For each feedback name the simulated annotator asks POST /v1/suggest (k 5): an accept when the labelled
     keyword is among the five shown, else a correction; all go to POST /v1/feedback.
  4. `nice kwsuggest train --recipe MODEL --feedback STORE --out OUT_DIR/candidate`, timed.
  5. `kwsuggest model push`, then `kwsuggest model promote` while 4 clients keep asking for suggestions; the time
     from promote's exit until /readyz names the new version, and the clients' failed requests, are reported.
  6. Acc@1 of both halves through the running server again; `kwsuggest model rollback` and the swap back.
Prints a Markdown table and writes OUT_DIR/report.json. Exits 1 when a check fails.
"""
import argparse
import hashlib
import http.client
import json
import os
import subprocess
import sys
import threading
import time

TOKEN = "learning-loop-token"


class Server:
    def __init__(self, binary, model, store, out):
        env = dict(os.environ, KWSUGGEST_ADMIN_TOKEN=TOKEN)
        self.log = open(os.path.join(out, "serve.log"), "w")
        self.process = subprocess.Popen([binary, "serve", "--port", "0", "--model", model, "--store", store,
                                         "--access-log", "off"],
                                        stdout=subprocess.PIPE, stderr=self.log, text=True, env=env)
        line = self.process.stdout.readline().strip()
        self.port = int(line.rsplit(":", 1)[1])

    def request(self, method, path, body=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        headers = {"Authorization": "Bearer " + TOKEN}
        if body is not None:
            headers["Content-Type"] = "application/json"
        connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = connection.getresponse()
        text = response.read().decode()
        connection.close()
        return response.status, text

    def ready_model(self):
        try:
            status, text = self.request("GET", "/readyz")
            return json.loads(text).get("model") if status == 200 else None
        except OSError:
            return None

    def wait_for(self, version, timeout):
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if self.ready_model() == version:
                return time.monotonic() - started
            time.sleep(0.05)
        return None

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()


def accuracy(server, rows):
    hits, models = 0, set()
    for row in rows:
        status, text = server.request("POST", "/v1/suggest", {"name": row["name"], "k": 1})
        answer = json.loads(text)
        models.add(answer["model"])
        top = answer["suggestions"][0]["keyword"] if answer["suggestions"] else None
        hits += top in row["keywords"]
    return hits / len(rows), sorted(models)


class Clients:
    """4 clients asking for suggestions in a loop, each on its own keep-alive connection; counts failures."""

    def __init__(self, port, names):
        self.port, self.names = port, names
        self.stop_flag = threading.Event()
        self.ok = self.failed = 0
        self.models = {}
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.run, args=(i,)) for i in range(4)]
        for thread in self.threads:
            thread.start()

    def run(self, index):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        i = index
        while not self.stop_flag.is_set():
            name = self.names[i % len(self.names)]
            i += 4
            try:
                connection.request("POST", "/v1/suggest", body=json.dumps({"name": name, "k": 5}),
                                   headers={"Content-Type": "application/json"})
                response = connection.getresponse()
                body = response.read()
                good = response.status == 200
                model = json.loads(body).get("model") if good else None
            except (OSError, http.client.HTTPException, ValueError):
                good, model = False, None
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            with self.lock:
                if good:
                    self.ok += 1
                    self.models[model] = self.models.get(model, 0) + 1
                else:
                    self.failed += 1

    def finish(self):
        self.stop_flag.set()
        for thread in self.threads:
            thread.join()


def run(command, **kwargs):
    started = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    return result, time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("out")
    parser.add_argument("--store")
    parser.add_argument("--model", default="models/default")
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    store = args.store or "file:" + os.path.join(os.path.abspath(args.out), "store", "keywords.overlay.json")
    if store.startswith("file:"):
        os.makedirs(os.path.dirname(store[5:]), exist_ok=True)
    failures = []

    def check(ok, what):
        print(("  ok    " if ok else "  FAIL  ") + what, flush=True)
        if not ok:
            failures.append(what)

    with open("data/dev-unseen.jsonl", encoding="utf-8") as file:
        rows = [json.loads(line) for line in file if line.strip()]
    feedback_half = [r for r in rows if hashlib.sha256(r["name"].encode()).digest()[0] % 2 == 0]
    test_half = [r for r in rows if hashlib.sha256(r["name"].encode()).digest()[0] % 2 == 1]
    print(f"dev-unseen: {len(rows)} names; feedback half {len(feedback_half)}, test half {len(test_half)}", flush=True)

    server = Server(args.binary, args.model, store, args.out)
    report = {}
    try:
        started = time.monotonic()
        while server.ready_model() is None and time.monotonic() - started < 120:
            time.sleep(0.1)
        base_version = server.ready_model()
        report["base"] = base_version
        report["before"] = {"test": accuracy(server, test_half)[0], "feedback": accuracy(server, feedback_half)[0]}
        loop_started = time.monotonic()
        accepted = corrected = 0
        for i, row in enumerate(feedback_half):
            _, text = server.request("POST", "/v1/suggest", {"name": row["name"], "k": 5})
            answer = json.loads(text)
            shown = [s["keyword"] for s in answer["suggestions"]]
            keyword = row["keywords"][0]
            action = "accept" if keyword in shown else "correct"
            accepted += action == "accept"
            corrected += action == "correct"
            status, _ = server.request("POST", "/v1/feedback", {
                "id": f"loop-{i}", "name": row["name"], "keyword": keyword, "action": action, "shown": shown,
                "model": answer["model"], "annotator": "loop"})
            if status != 201:
                check(False, f"feedback {i} stored (status {status})")
        report["decisions"] = {"accept": accepted, "correct": corrected}
        print(f"decisions: {accepted} accepts, {corrected} corrections", flush=True)

        candidate = os.path.join(args.out, "candidate")
        subprocess.run(["rm", "-rf", candidate])
        trained, train_seconds = run(["nice", args.binary, "train", "--recipe", args.model, "--feedback", store,
                                      "--out", candidate])
        open(os.path.join(args.out, "train.log"), "w").write(trained.stdout + trained.stderr)
        check(trained.returncode == 0, f"train --recipe --feedback ({train_seconds:.0f} s)")
        report["train_seconds"] = round(train_seconds, 1)
        pushed, _ = run([args.binary, "model", "push", candidate, "--store", store])
        check(pushed.returncode == 0, "model push: " + (pushed.stderr.strip() or "ok"))
        version = pushed.stdout.strip().splitlines()[-1]
        report["candidate"] = version
        manifest = json.load(open(os.path.join(candidate, "manifest.json"), encoding="utf-8"))
        check(manifest.get("lineage", {}).get("parent") == base_version, "the new manifest names its parent " + str(base_version))

        clients = Clients(server.port, [r["name"] for r in test_half])
        time.sleep(2)
        promote = [args.binary, "model", "promote", version, "--store", store] + (["--force"] if args.force else [])
        promoted, promote_seconds = run(promote)
        print(promoted.stdout + promoted.stderr, flush=True)
        report["gate"] = promoted.stdout.strip().splitlines()
        check(promoted.returncode == 0, f"model promote ({promote_seconds:.1f} s)")
        swap = server.wait_for(version, 30)
        time.sleep(2)
        clients.finish()
        check(swap is not None and swap < 10, f"the server serves {version} {swap if swap is None else round(swap, 2)} s after promote")
        check(clients.failed == 0, f"4 clients during the swap: {clients.ok} answers, {clients.failed} failed; models {clients.models}")
        report["swap_seconds_after_promote"] = swap
        report["loop_seconds"] = round(time.monotonic() - loop_started, 1)
        report["clients"] = {"ok": clients.ok, "failed": clients.failed, "models": clients.models}

        after_test, models = accuracy(server, test_half)
        report["after"] = {"test": after_test, "feedback": accuracy(server, feedback_half)[0]}
        check(models == [version], f"test half answered by {models}")
        check(after_test > report["before"]["test"],
              f"test half Acc@1 {report['before']['test']:.4f} → {after_test:.4f}")

        rolled, _ = run([args.binary, "model", "rollback", "--store", store])
        back = server.wait_for(base_version, 30)
        check(rolled.returncode == 0 and back is not None, f"model rollback: {rolled.stdout.strip()} (serving {base_version} after {back} s)")
    finally:
        server.stop()

    print("\n| half | n | " + str(report.get("base")) + " | retrained " + str(report.get("candidate")) + " |")
    print("| --- | ---: | ---: | ---: |")
    for half, n in (("test", len(test_half)), ("feedback", len(feedback_half))):
        if "after" in report:
            print(f"| {half} | {n} | {report['before'][half]:.4f} | {report['after'][half]:.4f} |")
    print(f"\nloop (decisions → train → push → promote → swap): {report.get('loop_seconds')} s; "
          f"train {report.get('train_seconds')} s; swap {report.get('swap_seconds_after_promote')} s after promote")
    json.dump(report, open(os.path.join(args.out, "report.json"), "w"), indent=2, ensure_ascii=False)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
