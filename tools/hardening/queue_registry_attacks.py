#!/usr/bin/env python3
"""The queue, the registry and /metrics under attack, against real `kwsuggest serve` processes on a file store.

    tools/hardening/queue_registry_attacks.py BIN MODEL_DIR [CHECK...]   (CHECK: queue, tokens, keywords,
                                                                      registry, metrics, loop; default all)

Each check prints one line: what was tried and what the server answered. The checks:
  feedback ids      item "x:y" labelled by "z", then item "x" by "y:z"; a client posting id
                    queue:p9:carol:0:にんじん before carol labels p9 (status of each answer)
  all or none       a label over two items whose second fails: feedback records left behind
  names             annotators " bob", "ｂｏｂ", ZWSP, RLO, U+2028, "   " (statuses); a skip's cool-down under a
                    full-width name; one name leasing 1,000 items in calls of 100
  tokens            with --annotators: undo of alice's decision with bob's token (status, lease id leaked?)
  U+2800            POST /v1/keywords {"add": ["\\u2800"]}
  import ids        store import of record id 2^53-1, then POST /v1/feedback
  registry          a damaged registry file at start: /readyz fields, kwsuggest_registry_failures_total
  shadow            a shadow version that fails to load: /readyz within 5 s, the shadow failure counter
  metrics           four /metrics scrapes while another process holds the queue lock: slowest /healthz
  loop              one client labels and undoes one item for 10 s: pairs accepted, queue log and feedback bytes
"""
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

BIN, MODEL = sys.argv[1], sys.argv[2]
ROOT = tempfile.mkdtemp(prefix="kwsuggest-attacks.")
WORK = OVERLAY = STORE = ""


def fresh_store(name):
    """Each check runs on a store of its own."""
    global WORK, OVERLAY, STORE
    WORK = os.path.join(ROOT, name)
    os.makedirs(WORK)
    OVERLAY = os.path.join(WORK, "keywords.overlay.json")
    STORE = "file:" + OVERLAY


def request(url, method="GET", body=None, token=None, timeout=60):
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except TimeoutError:
        return None, "no answer within %d s" % timeout


def code(answer):
    """`status code` of an answer: the status and the error code of a JSON error."""
    status, text = answer
    try:
        return f"{status} {json.loads(text)['error']['code']}"
    except Exception:
        return str(status)


class Server:
    def __init__(self, *args):
        # The model labels nothing itself and no item needs two annotators: every posted item is queued for one.
        self.process = subprocess.Popen([BIN, "serve", "--port", "0", "--store", STORE, "--model", MODEL,
                                         "--auto-accept-precision", "1", "--queue-overlap", "0", "--queue-audit", "0", *args],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        self.url = line.strip().split(" ")[-1]
        for _ in range(1200):
            if request(self.url + "/readyz")[0] == 200:
                return
            time.sleep(0.1)
        raise SystemExit("server not ready")

    def post(self, path, body, token=None):
        return request(self.url + path, "POST", body, token)

    def stop(self):
        self.process.kill()
        self.process.wait()


def report(name, text):
    print(f"{name:<18} {text}", flush=True)


def lease(server, annotator, n=10, token=None):
    status, text = server.post("/v1/queue/lease", {"annotator": annotator, "n": n, "order": "oldest"}, token)
    return status, (json.loads(text) if status == 200 else {"lease": None, "items": []})


def label(server, annotator, item):
    """Leases `item` alone for `annotator` (the only item queued) and labels it にんじん."""
    _, held = lease(server, annotator, 1)
    return code(server.post("/v1/queue/decisions", {"lease": held["lease"], "annotator": annotator, "id": item, "keywords": ["にんじん"]}))


def queue_checks():
    fresh_store("ids")
    server = Server()
    try:
        # Feedback ids.
        server.post("/v1/queue/items", {"items": [{"id": "x:y", "name": "ぞぞ 1"}]})
        a = label(server, "z", "x:y")
        server.post("/v1/queue/items", {"items": [{"id": "x", "name": "ぞぞ 2"}]})
        b = label(server, "y:z", "x")
        report("feedback ids", f"x:y labelled by z: {a}; then x labelled by y:z: {b}")
        squat = code(server.post("/v1/feedback", {"id": "queue:p9:carol:0:にんじん", "name": "にんじん", "keyword": "にんじん", "action": "accept"}))
        server.post("/v1/queue/items", {"items": [{"id": "p9", "name": "ぞぞ 9"}]})
        c = label(server, "carol", "p9")
        report("feedback ids", f"POST /v1/feedback id queue:p9:carol:0:にんじん: {squat}; then carol's label of p9: {c}")
    finally:
        server.stop()

    # All or none: the second item's feedback id is taken by a record posted before (once clients cannot write
    # it, the post is refused and both items are labelled).
    fresh_store("all-or-none")
    server = Server()
    try:
        server.post("/v1/queue/items", {"items": [{"id": "aa", "name": "ぞぞ a"}, {"id": "bb", "name": "ぞぞ b"}]})
        squat = code(server.post("/v1/feedback", {"id": "queue:bb:dora:0:にんじん", "name": "other", "keyword": "にんじん", "action": "accept"}))
        _, dora = lease(server, "dora", 2)
        before = len(request(server.url + "/v1/feedback/export?format=raw")[1].splitlines())
        d = code(server.post("/v1/queue/decisions", {"lease": dora["lease"], "annotator": "dora", "ids": ["aa", "bb"], "keywords": ["にんじん"]}))
        after = len(request(server.url + "/v1/feedback/export?format=raw")[1].splitlines())
        labelled = json.loads(request(server.url + "/v1/queue/stats")[1])["items"]["labelled"]
        report("all or none", f"post of bb's id: {squat}; label of [aa, bb]: {d}; feedback records it left: {after - before}; items labelled: {labelled}")
    finally:
        server.stop()

    fresh_store("names")
    server = Server()
    try:

        # Names.
        statuses = []
        for name in [" bob", "ｂｏｂ", "b\u200bob", "\u202ebob", "bo\u2028b", "   "]:
            statuses.append(str(lease(server, name, 1)[0]))
        report("names", "lease as ' bob', ｂｏｂ, ZWSP, RLO, U+2028, '   ': " + ", ".join(statuses))
        server.post("/v1/queue/items", {"items": [{"id": "cool", "name": "ぞぞ cool"}]})
        _, eve = lease(server, "eve", 10)
        server.post("/v1/queue/decisions", {"lease": eve["lease"], "annotator": "eve", "id": "cool", "action": "skip"})
        _, again = lease(server, "ｅｖｅ", 10)
        report("names", f"eve skipped 'cool'; leased again as ｅｖｅ: {'cool' in [i['id'] for i in again['items']]}")
        server.post("/v1/queue/items", {"items": [{"id": f"bulk-{i}", "name": f"ぞぞ {i}"} for i in range(1000)]})
        held = 0
        for _ in range(11):
            held += len(lease(server, "mallory", 100)[1]["items"])
        queued = json.loads(request(server.url + "/v1/queue/stats")[1])["items"]
        report("names", f"mallory, 11 leases of 100 from {queued['queued'] + queued['leased']} open items: holds {held}")
    finally:
        server.stop()


def token_checks():
    fresh_store("tokens")
    path = os.path.join(WORK, "annotators.tsv")
    with open(path, "w") as file:
        for name in ["alice", "bob"]:
            file.write(f"{name}\t{hashlib.sha256((name + '-token').encode()).hexdigest()}\n")
    try:
        server = Server("--annotators", path)
    except Exception:
        report("tokens", "serve refused --annotators (not supported)")
        return
    try:
        server.post("/v1/queue/items", {"items": [{"id": "t1", "name": "にんじん t"}]}, "alice-token")
        _, alice = lease(server, "alice", 1, "alice-token")
        server.post("/v1/queue/decisions", {"lease": alice["lease"], "annotator": "alice", "id": "t1", "keywords": ["にんじん"]}, "alice-token")
        status, text = server.post("/v1/queue/undo", {"annotator": "alice"}, "bob-token")
        report("tokens", f"undo of alice's decision with bob's token: {code((status, text))}; her lease id in the answer: {str(alice['lease']) in text}")
    finally:
        server.stop()


def keyword_and_import_checks():
    fresh_store("keywords")
    server = Server()
    try:
        status = server.post("/v1/keywords", {"add": ["\u2800"]})[0]
        report("U+2800", f'POST /v1/keywords {{"add": ["\\u2800"]}}: {status}')
    finally:
        server.stop()
    archive = json.dumps({"type": "keywords", "added": [], "removed": []}) + "\n" + json.dumps(
        {"type": "feedback", "id": 2**53 - 1, "received_at": "2026-01-02T03:04:05.678Z", "name": "n", "keyword": "k",
         "action": "accept", "shown": []}) + "\n"
    imported = subprocess.run([BIN, "store", "import", "--store", STORE], input=archive, text=True, capture_output=True)
    server = Server()
    try:
        status = code(server.post("/v1/feedback", {"name": "にんじん", "keyword": "にんじん", "action": "accept"}))
        report("import ids", f"store import of id 2^53-1: exit {imported.returncode}; then POST /v1/feedback: {status}")
    finally:
        server.stop()


def registry_checks():
    fresh_store("registry")
    for version in ["att-live", "att-shadow"]:
        directory = os.path.join(WORK, version)
        shutil.copytree(MODEL, directory)
        manifest_path = os.path.join(directory, "manifest.json")
        manifest = json.load(open(manifest_path))
        manifest["model_version"] = version
        json.dump(manifest, open(manifest_path, "w"))
        subprocess.run([BIN, "model", "push", "--store", STORE, directory], check=True, capture_output=True)
    subprocess.run([BIN, "model", "promote", "--store", STORE, "--force", "att-live"], check=True, capture_output=True)
    catalog = os.path.join(WORK, "keywords.overlay.registry", "registry.json")
    good = open(catalog).read()
    with open(catalog, "w") as file:
        file.write("{\"damaged")
    server = Server()
    try:
        ready = json.loads(request(server.url + "/readyz")[1])
        metrics = request(server.url + "/metrics")[1]
        counter = [l for l in metrics.splitlines() if l.startswith("kwsuggest_registry_failures_total")]
        report("registry", f"damaged at start: /readyz model {ready.get('model')}, registry field: {'registry' in ready}; "
                           f"{counter[0] if counter else 'kwsuggest_registry_failures_total absent'}")
        with open(catalog, "w") as file:
            file.write(good)
        # A shadow whose stored directory lost a file after the push: its load fails.
        for root, _, files in os.walk(os.path.join(WORK, "keywords.overlay.registry")):
            if "manifest.json" in files and json.load(open(os.path.join(root, "manifest.json"))).get("model_version") == "att-shadow":
                os.remove(os.path.join(root, "keywords.txt"))
        subprocess.run([BIN, "model", "shadow", "--store", STORE, "--fraction", "0.1", "att-shadow"], capture_output=True)
        started = time.time()
        seen = None
        while time.time() - started < 10:
            ready = json.loads(request(server.url + "/readyz")[1])
            shadow = ready.get("shadow") or {}
            if "error" in shadow or shadow.get("model") == "att-shadow":
                seen = shadow
                break
            time.sleep(0.2)
        metrics = request(server.url + "/metrics")[1]
        counter = [l for l in metrics.splitlines() if l.startswith("kwsuggest_shadow_load_failures_total")]
        report("shadow", f"/readyz shadow after {time.time() - started:.1f} s: {json.dumps(seen, ensure_ascii=False)}; "
                         f"{counter[0] if counter else 'kwsuggest_shadow_load_failures_total absent'}")
    finally:
        server.stop()


def metrics_checks():
    fresh_store("metrics")
    server = Server()
    try:
        server.post("/v1/queue/items", {"items": [{"id": "m1", "name": "にんじん m"}]})
        request(server.url + "/metrics")
        lock = open(os.path.join(WORK, "keywords.overlay.queue.lock"), "a")
        fcntl.flock(lock, fcntl.LOCK_EX)
        scrapes = [threading.Thread(target=request, args=(server.url + "/metrics",), kwargs={"timeout": 30}) for _ in range(4)]
        for scrape in scrapes:
            scrape.start()
        time.sleep(6)  # let any cached figures go stale, so each scrape wants a fresh read
        scrapes += [threading.Thread(target=request, args=(server.url + "/metrics",), kwargs={"timeout": 30}) for _ in range(4)]
        for scrape in scrapes[4:]:
            scrape.start()
        slowest = 0.0
        end = time.time() + 4
        while time.time() < end:
            started = time.time()
            request(server.url + "/healthz", timeout=20)
            slowest = max(slowest, time.time() - started)
            time.sleep(0.1)
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()
        for scrape in scrapes:
            scrape.join()
        report("metrics", f"/healthz while 8 scrapes wait on another process's queue lock: slowest {slowest * 1000:.0f} ms"
                          + (" (no answer: the 20 s timeout)" if slowest >= 20 else ""))
    finally:
        server.stop()


def loop_checks():
    fresh_store("loop")
    server = Server()
    try:
        server.post("/v1/queue/items", {"items": [{"id": "loop", "name": "ぞぞ loop"}]})
        _, held = lease(server, "looper", 1)
        pairs, refused = 0, ""
        end = time.time() + 10
        while time.time() < end:
            answer = server.post("/v1/queue/decisions", {"lease": held["lease"], "annotator": "looper", "id": "loop", "keywords": ["にんじん"]})
            if answer[0] != 200:
                refused = code(answer)
                break
            server.post("/v1/queue/undo", {"annotator": "looper"})
            pairs += 1
        sizes = {name: os.path.getsize(os.path.join(WORK, name)) for name in os.listdir(WORK) if name.endswith(".jsonl")}
        report("loop", f"label/undo pairs in 10 s: {pairs}{'; then ' + refused if refused else ''}; "
                       + ", ".join(f"{name} {size} bytes" for name, size in sorted(sizes.items())))
    finally:
        server.stop()


try:
    every = {"queue": queue_checks, "tokens": token_checks, "keywords": keyword_and_import_checks,
             "registry": registry_checks, "metrics": metrics_checks, "loop": loop_checks}
    for checks in [every[name] for name in (sys.argv[3:] or every)]:
        try:
            checks()
        except Exception as error:  # one broken check must not hide the others
            report(checks.__name__, f"failed to run: {error!r}")
finally:
    shutil.rmtree(ROOT, ignore_errors=True)
