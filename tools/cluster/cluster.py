#!/usr/bin/env python3
"""Replicas that agree: 3 `kwsuggest serve` replicas and 1 throwaway PostgreSQL on loopback, under faults.

Steps (each bounded in time; the script exits non-zero when any check fails):
  1. 50 concurrent writers spread over the replicas: every acknowledged change is on every replica within
     1 s; nothing unacknowledged is half-applied (a keyword is on all replicas or on none); convergence
     p50/p99 is reported.
  2. kill -9 of a replica during the writes: nothing acknowledged is lost; the restarted replica has the full list.
  3. PostgreSQL stopped for 3 s and started again under suggest load: 0 failed suggestions, writes 503
     store_unavailable during the outage and 200 after it, /readyz says the store is unavailable meanwhile,
     and the lists converge.
  4. A model promotion under suggest load (4 clients per replica): `model push` of a candidate into the database,
     `model promote --force`; every replica serves it within 5 s with 0 failed suggestions, and `model rollback`
     returns all three (the time from promote's exit until the last replica's /readyz names it is reported).
  5. The file store: 3 processes on one file, 50 concurrent writers: nothing lost, on any process.
With --throughput, also measures suggest throughput with the file store and with PostgreSQL side by side
(wrk on loopback, alternating runs, medians). With --queue, also runs the annotation queue on 3 replicas of the
same PostgreSQL (tools/queue/queue_check.py: one annotator per replica at once; no item held by two annotators
apart from overlap items, each id once in the labels export).

Usage: tools/cluster/cluster.py [--binary .build/release/kwsuggest] [--model models/default] [--candidate DIR]
                                [--throughput [--runs 3]] [--queue [--queue-count 600]]
  --candidate  the model directory step 4 promotes (default: a copy of --model under another version)
Needs Debian's postgresql (and wrk for --throughput). Run from the repository root.
"""
import argparse
import collections
import http.client
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
THROWAWAY = os.path.join(ROOT, "tools/postgres/throwaway.sh")
failures = []


def check(condition, message):
    print(("  ok    " if condition else "  FAIL  ") + message, flush=True)
    if not condition:
        failures.append(message)


def request(port, method, path, body=None, timeout=5.0):
    """One request on a fresh connection: (status, body text); status 0 when the connection failed."""
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        headers = {"Content-Type": "application/json"} if body is not None else {}
        connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = connection.getresponse()
        text = response.read().decode("utf-8")
        connection.close()
        return response.status, text
    except (OSError, http.client.HTTPException):
        return 0, ""


def keywords(port):
    """The whole list, read page by page (GET /v1/keywords answers one page at a time)."""
    served, offset = set(), 0
    while True:
        status, text = request(port, "GET", f"/v1/keywords?offset={offset}&limit=10000")
        if status != 200:
            return None
        page = json.loads(text)
        served.update(page["keywords"])
        offset += page["limit"]
        if offset >= page["matched"]:
            return served


class Replica:
    """One `kwsuggest serve` process; its stderr goes to a log file."""

    def __init__(self, binary, model, store, log_dir, name, port=0):
        self.binary, self.model, self.store, self.name = binary, model, store, name
        self.log = open(os.path.join(log_dir, name + ".log"), "ab")
        self.port = port
        self.start()

    def start(self):
        self.process = subprocess.Popen(
            [self.binary, "serve", "--port", str(self.port), "--model", self.model, "--store", self.store],
            stdout=subprocess.PIPE, stderr=self.log)
        line = self.process.stdout.readline().decode()
        if not line.startswith("listening on http://127.0.0.1:"):
            raise RuntimeError(f"{self.name}: unexpected first line {line!r}")
        self.port = int(line.strip().rsplit(":", 1)[1])
        deadline = time.time() + 30
        while time.time() < deadline:
            if request(self.port, "GET", "/readyz", timeout=1)[0] == 200:
                return
            time.sleep(0.05)
        raise RuntimeError(f"{self.name} never became ready")

    def kill9(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()


class Watcher:
    """Polls every replica's keyword list and records when each keyword was first seen on each replica."""

    def __init__(self, replicas):
        self.replicas = replicas
        self.first_seen = {}  # (replica index, keyword) -> time
        self.stop_flag = threading.Event()
        self.threads = [threading.Thread(target=self.poll, args=(i,), daemon=True) for i in range(len(replicas))]
        for thread in self.threads:
            thread.start()

    def poll(self, index):
        while not self.stop_flag.is_set():
            listed = keywords(self.replicas[index].port)
            now = time.time()
            for keyword in listed or ():
                self.first_seen.setdefault((index, keyword), now)
            time.sleep(0.01)

    def stop(self):
        self.stop_flag.set()
        for thread in self.threads:
            thread.join()


def write_storm(replicas, prefix, writers=50, each=4, pause=0.0, alive=None):
    """`writers` threads, each adding `each` distinct keywords through replica (writer mod n).
    Returns {keyword: (status, acknowledged at)}."""
    results = {}
    lock = threading.Lock()

    def writer(index):
        for number in range(each):
            keyword = f"{prefix}-{index}-{number}"
            replica = replicas[index % len(replicas)]
            status, _ = request(replica.port, "POST", "/v1/keywords", {"add": [keyword]}, timeout=30)
            with lock:
                results[keyword] = (status, time.time())
            if pause:
                time.sleep(pause)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def wait_converged(replicas, expected, timeout=5.0):
    """Waits until every replica lists every keyword of `expected`; returns the lists."""
    deadline = time.time() + timeout
    while True:
        lists = [keywords(replica.port) or set() for replica in replicas]
        if all(expected <= listed for listed in lists) or time.time() > deadline:
            return lists
        time.sleep(0.05)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def step_writers(replicas):
    print("1. 50 concurrent writers over 3 replicas (PostgreSQL store)", flush=True)
    watcher = Watcher(replicas)
    results = write_storm(replicas, "storm")
    acknowledged = {k for k, (status, _) in results.items() if status == 200}
    lists = wait_converged(replicas, acknowledged)
    time.sleep(0.3)
    watcher.stop()
    statuses = sorted(collections.Counter(status for status, _ in results.values()).items())
    check(len(acknowledged) == len(results), f"{len(acknowledged)}/{len(results)} writes acknowledged (statuses {statuses})")
    delays = []
    missing = 0
    for keyword in acknowledged:
        acked_at = results[keyword][1]
        seen = [watcher.first_seen.get((i, keyword)) for i in range(len(replicas))]
        if any(s is None for s in seen):
            missing += 1
            continue
        delays.append(max(0.0, max(seen) - acked_at))
    check(missing == 0, f"every acknowledged change reached every replica ({missing} missing)")
    unacknowledged = set(results) - acknowledged
    half = [k for k in unacknowledged if 0 < sum(k in listed for listed in lists) < len(replicas)]
    check(not half, f"nothing unacknowledged is half-applied ({len(unacknowledged)} unacknowledged, {len(half)} on some replicas only)")
    check(all(listed == lists[0] for listed in lists), "the replicas' lists are identical")
    if delays:
        p50, p99 = percentile(delays, 0.5), percentile(delays, 0.99)
        print(f"  convergence over {len(delays)} changes: p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, "
              f"max {max(delays) * 1000:.0f} ms (poll interval 10 ms per replica)", flush=True)
        check(p99 <= 1.0, "convergence p99 <= 1 s")
    return delays


def step_kill9(replicas):
    print("2. kill -9 of a replica during the writes", flush=True)
    victim = replicas[2]
    killer = threading.Timer(0.3, victim.kill9)
    killer.start()
    results = write_storm(replicas, "kill", writers=50, each=6, pause=0.02)
    killer.join()
    victim.start()
    acknowledged = {k for k, (status, _) in results.items() if status == 200}
    failed = len(results) - len(acknowledged)
    lists = wait_converged(replicas, acknowledged)
    check(all(acknowledged <= listed for listed in lists),
          f"all {len(acknowledged)} acknowledged writes are on every replica ({failed} failed against the killed one)")
    check(acknowledged <= lists[2], "the restarted replica has the full list")
    time.sleep(1.2)
    lists = [keywords(r.port) for r in replicas]
    check(all(listed == lists[0] for listed in lists), "the replicas' lists are identical")


def step_postgres_restart(replicas, cluster_dir):
    print("3. PostgreSQL stopped for 3 s and started again, under suggest load", flush=True)
    stop = threading.Event()
    suggest = {"ok": 0, "failed": 0}
    lock = threading.Lock()
    names = ["新物 にんじん 3本", "国産豚バラ肉 500g", "淡路島産 たまねぎ", "北海道 じゃがいも 5kg"]

    def load(index):
        connection = http.client.HTTPConnection("127.0.0.1", replicas[index % 3].port, timeout=5)
        number = 0
        while not stop.is_set():
            name = names[number % len(names)]
            number += 1
            try:
                connection.request("GET", "/v1/suggest?name=" + urllib.parse.quote(name))
                response = connection.getresponse()
                response.read()
                good = response.status == 200
            except (OSError, http.client.HTTPException):
                good = False
                connection = http.client.HTTPConnection("127.0.0.1", replicas[index % 3].port, timeout=5)
            with lock:
                suggest["ok" if good else "failed"] += 1

    writes = []  # (time sent, status, code, keyword)

    def writer():
        number = 0
        while not stop.is_set():
            keyword = f"outage-{number}"
            sent = time.time()
            status, text = request(replicas[number % 3].port, "POST", "/v1/keywords", {"add": [keyword]})
            code = json.loads(text).get("error", {}).get("code") if status not in (0, 200) and text else None
            writes.append((sent, status, code, keyword))
            number += 1
            time.sleep(0.05)

    loaders = [threading.Thread(target=load, args=(i,)) for i in range(6)]
    write_thread = threading.Thread(target=writer)
    for thread in loaders + [write_thread]:
        thread.start()
    time.sleep(1.0)
    down_at = time.time()
    subprocess.run([THROWAWAY, "down", cluster_dir], check=True)
    time.sleep(1.5)
    ready = [json.loads(request(r.port, "GET", "/readyz")[1] or "{}") for r in replicas]
    time.sleep(1.5)
    up_started = time.time()
    subprocess.run([THROWAWAY, "up", cluster_dir], check=True)
    up_at = time.time()
    time.sleep(4.0)
    stop.set()
    for thread in loaders + [write_thread]:
        thread.join()
    check(suggest["failed"] == 0, f"0 failed suggestions ({suggest['ok']} answered 200, {suggest['failed']} failed)")
    check(all(r.get("status") == "ready" and r.get("store") == "unavailable" for r in ready),
          f"/readyz is 200 with store 'unavailable' during the outage: {[r.get('store') for r in ready]}")
    during = [w for w in writes if down_at + 0.5 < w[0] < up_started]
    check(during and all(w[1] == 503 and w[2] == "store_unavailable" for w in during),
          f"writes sent during the outage answer 503 store_unavailable ({len(during)} writes: "
          f"{sorted(set((w[1], w[2]) for w in during))})")
    after = [w for w in writes if w[0] > up_at + 2.0]
    check(after and all(w[1] == 200 for w in after), f"writes sent 2 s after the restart answer 200 ({len(after)} writes)")
    first_ok = next((w[0] for w in writes if w[0] > up_at and w[1] == 200), None)
    if first_ok:
        print(f"  first successful write {1000 * (first_ok - up_at):.0f} ms after PostgreSQL was up again", flush=True)
    acknowledged = {w[3] for w in writes if w[1] == 200}
    lists = wait_converged(replicas, acknowledged)
    check(all(acknowledged <= listed for listed in lists), f"all {len(acknowledged)} acknowledged writes are on every replica")
    time.sleep(1.2)
    lists = [keywords(r.port) for r in replicas]
    check(all(listed == lists[0] for listed in lists), "the lists converge")


def ready_model(port):
    status, text = request(port, "GET", "/readyz", timeout=2)
    return json.loads(text).get("model") if status == 200 else None


def step_promotion(binary, model, candidate, url, replicas, work):
    print("4. A model promotion and a rollback under suggest load, through the database", flush=True)
    if candidate is None:
        candidate = os.path.join(work, "candidate")
        shutil.copytree(model, candidate)
        path = os.path.join(candidate, "manifest.json")
        manifest = json.load(open(path, encoding="utf-8"))
        manifest["model_version"] += "-cluster"
        json.dump(manifest, open(path, "w", encoding="utf-8"), indent=2, ensure_ascii=False)
    pushed = subprocess.run([binary, "model", "push", candidate, "--store", url], capture_output=True, text=True)
    check(pushed.returncode == 0, "model push into PostgreSQL " + pushed.stderr.strip())
    version = pushed.stdout.strip().splitlines()[-1] if pushed.stdout.strip() else ""
    before = ready_model(replicas[0].port)
    stop = threading.Event()
    counts = {"ok": 0, "failed": 0}
    lock = threading.Lock()

    def load(index):
        port = replicas[index % 3].port
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        while not stop.is_set():
            try:
                connection.request("POST", "/v1/suggest", body=json.dumps({"name": "新物 にんじん 3本", "k": 5}),
                                   headers={"Content-Type": "application/json"})
                response = connection.getresponse()
                response.read()
                good = response.status == 200
            except (OSError, http.client.HTTPException):
                good = False
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            with lock:
                counts["ok" if good else "failed"] += 1

    def until_all(target, timeout=30.0):
        started = time.time()
        pending = set(range(3))
        while pending and time.time() - started < timeout:
            pending = {i for i in pending if ready_model(replicas[i].port) != target}
            time.sleep(0.02)
        return None if pending else time.time() - started

    threads = [threading.Thread(target=load, args=(i,), daemon=True) for i in range(12)]
    for thread in threads:
        thread.start()
    time.sleep(2)
    promoted = subprocess.run([binary, "model", "promote", version, "--store", url, "--force"], capture_output=True, text=True)
    check(promoted.returncode == 0, "model promote --force: " + (promoted.stdout + promoted.stderr).strip().splitlines()[-1])
    swapped = until_all(version)
    check(swapped is not None and swapped < 5, f"all 3 replicas serve {version} {swapped and round(swapped, 2)} s after promote returned")
    rolled = subprocess.run([binary, "model", "rollback", "--store", url], capture_output=True, text=True)
    back = until_all(before)
    check(rolled.returncode == 0 and back is not None and back < 5,
          f"model rollback: all 3 replicas serve {before} again {back and round(back, 2)} s after it returned")
    time.sleep(1)
    stop.set()
    for thread in threads:
        thread.join()
    check(counts["failed"] == 0, f"suggestions during both swaps: {counts['ok']} answered, {counts['failed']} failed")


def step_file_store(binary, model, work):
    print("5. File store: 3 processes on one file, 50 concurrent writers", flush=True)
    store = "file:" + os.path.join(work, "shared", "keywords.overlay.json")
    os.makedirs(os.path.join(work, "shared"))
    replicas = [Replica(binary, model, store, work, f"file-{i}") for i in range(3)]
    try:
        results = write_storm(replicas, "file")
        acknowledged = {k for k, (status, _) in results.items() if status == 200}
        check(len(acknowledged) == len(results), f"{len(acknowledged)}/{len(results)} writes acknowledged")
        with open(os.path.join(work, "shared", "keywords.overlay.json"), encoding="utf-8") as handle:
            in_file = set(json.load(handle)["added"])
        lost = acknowledged - in_file
        check(not lost, f"lost writes in the file: {len(lost)}")
        started = time.time()
        lists = wait_converged(replicas, acknowledged, timeout=5)
        lost_on = [len(acknowledged - listed) for listed in lists]
        check(lost_on == [0, 0, 0], f"lost writes per process: {lost_on} (converged in {time.time() - started:.2f} s)")
    finally:
        for replica in replicas:
            replica.stop()


def wrk(port, seconds, connections):
    path = "/v1/suggest?name=" + urllib.parse.quote("国産豚バラ肉 500g") + "&k=5"
    output = subprocess.run(["wrk", "-t", "2", "-c", str(connections), "-d", f"{seconds}s", f"http://127.0.0.1:{port}{path}"],
                            capture_output=True, text=True, check=True).stdout
    for line in output.splitlines():
        if line.startswith("Requests/sec:"):
            return float(line.split()[1])
    raise RuntimeError(output)


def step_throughput(binary, model, url, work, runs=3, seconds=8, connections=32):
    print(f"5. Suggest throughput, file store vs PostgreSQL store (wrk -t2 -c{connections} -d{seconds}s, {runs} alternating runs)", flush=True)
    os.makedirs(os.path.join(work, "bench"))
    stores = {"file": "file:" + os.path.join(work, "bench", "keywords.overlay.json"), "postgres": url}
    rates = {name: [] for name in stores}
    for run in range(runs):
        for name, store in stores.items():
            replica = Replica(binary, model, store, work, f"bench-{name}")
            try:
                wrk(replica.port, 2, connections)  # warm-up
                rates[name].append(wrk(replica.port, seconds, connections))
            finally:
                replica.stop()
    medians = {name: statistics.median(values) for name, values in rates.items()}
    for name in stores:
        print(f"  {name:8s} median {medians[name]:9.0f} req/s  runs {[round(v) for v in rates[name]]}", flush=True)
    print(f"  postgres / file = {medians['postgres'] / medians['file']:.3f}", flush=True)


def step_queue(binary, model, url, count):
    print(f"6. Annotation queue: 3 replicas on PostgreSQL, {count} names, one annotator per replica", flush=True)
    script = os.path.join(ROOT, "tools/queue/queue_check.py")
    result = subprocess.run([sys.executable, script, "--binary", binary, "--model", model, "--postgres-url", url,
                             "--replicas", "3", "--count", str(count)], capture_output=True, text=True)
    for line in result.stdout.splitlines():
        print("  | " + line, flush=True)
    check(result.returncode == 0, f"queue_check.py on 3 replicas exited {result.returncode}" + (": " + result.stderr[-500:] if result.returncode else ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_binary = os.path.join(ROOT, ".build/release/kwsuggest")
    if not os.path.exists(default_binary):
        default_binary = os.path.join(ROOT, ".build/debug/kwsuggest")
    parser.add_argument("--binary", default=default_binary)
    parser.add_argument("--model", default=os.path.join(ROOT, "models/default"))
    parser.add_argument("--candidate")
    parser.add_argument("--throughput", action="store_true")
    parser.add_argument("--runs", type=int, default=3, help="alternating wrk runs per store for --throughput")
    parser.add_argument("--queue", action="store_true", help="also run the annotation queue on 3 replicas")
    parser.add_argument("--queue-count", type=int, default=600, help="names the queue step imports")
    arguments = parser.parse_args()
    started = time.time()
    work = tempfile.mkdtemp(prefix="kwsuggest-cluster.")
    output = subprocess.run([THROWAWAY, "start"], capture_output=True, text=True, check=True).stdout.split("\n")
    url, cluster_dir = output[0], output[1]
    print(f"binary {arguments.binary}; PostgreSQL {cluster_dir}; logs in {work}", flush=True)
    replicas = []
    try:
        replicas = [Replica(arguments.binary, arguments.model, url, work, f"replica-{i}") for i in range(3)]
        step_writers(replicas)
        step_kill9(replicas)
        step_postgres_restart(replicas, cluster_dir)
        step_promotion(arguments.binary, arguments.model, arguments.candidate, url, replicas, work)
        for replica in replicas:
            replica.stop()
        replicas = []
        step_file_store(arguments.binary, arguments.model, work)
        if arguments.throughput:
            step_throughput(arguments.binary, arguments.model, url, work, runs=arguments.runs)
        if arguments.queue:
            step_queue(arguments.binary, arguments.model, url, arguments.queue_count)
    finally:
        for replica in replicas:
            replica.stop()
        subprocess.run([THROWAWAY, "stop", cluster_dir])
    print(f"{'PASS' if not failures else 'FAIL'}: {len(failures)} failed checks in {time.time() - started:.0f} s; logs in {work}")
    if not failures:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
