#!/usr/bin/env python3
"""Memory and time of the largest requests and of a full feedback export, against a running `kwsuggest serve`.

    bench/large_bodies.py batches URL PID [CLIENTS]   CLIENTS (default 8) post a maximal batch at once: 1,000 names
                                                      of 1,000 astral code points and 100 white-space ones, every
                                                      code point a JSON \\u escape (the largest body the schema
                                                      allows); prints statuses, wall time and the server's RSS
    bench/large_bodies.py export URL PID [RECORDS]    stores RECORDS (default 100,000) feedback records when fewer
                                                      are stored, then times GET /v1/feedback/export?format=raw and
                                                      samples the server's RSS while it streams

PID is the server's process id; its RSS is read from /proc/PID/status every 5 ms (peak and before). Standard
library only. Numbers are what this machine measured; see docs/server.md for the ones reported.
"""
import json
import sys
import threading
import time
import urllib.request


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Sampler(threading.Thread):
    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.peak, self.running = pid, rss_kib(pid), True

    def run(self):
        while self.running:
            self.peak = max(self.peak, rss_kib(self.pid))
            time.sleep(0.005)

    def stop(self):
        self.running = False
        self.join()
        return self.peak


def maximal_batch():
    gap = " " * 32
    space, carrot = "\\u3000", "\\uD83E\\uDD55"
    name = '"' + space * 50 + carrot * 1000 + space * 50 + '"'
    key = lambda text: '"' + "".join(f"\\u{ord(c):04x}" for c in text) + '"'
    names = gap + "[" + ",".join(gap + name + gap for _ in range(1000)) + "]" + gap
    return (gap + "{" + gap + key("names") + gap + ":" + names + "," + gap + key("k") + gap + ":" + gap
            + "10." + "0" * 29 + gap + "," + gap + key("explain") + gap + ":" + gap + "false" + gap + "}" + gap).encode()


def post(url, body, results, index):
    request = urllib.request.Request(url + "/v1/suggest/batch", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            response.read()
            results[index] = (response.status, time.monotonic() - started)
    except urllib.error.HTTPError as error:
        results[index] = (error.code, time.monotonic() - started)


def batches(url, pid, clients):
    body = maximal_batch()
    before = rss_kib(pid)
    sampler = Sampler(pid)
    sampler.start()
    results = [None] * clients
    threads = [threading.Thread(target=post, args=(url, body, results, i)) for i in range(clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - started
    peak = sampler.stop()
    print(f"{clients} clients x {len(body)} bytes: statuses {sorted(r[0] for r in results)}, "
          f"wall {wall:.2f} s, slowest {max(r[1] for r in results):.2f} s; "
          f"server RSS before {before / 1024:.0f} MiB, peak {peak / 1024:.0f} MiB, after {rss_kib(pid) / 1024:.0f} MiB")


def export(url, pid, records):
    with urllib.request.urlopen(url + "/v1/feedback/export?format=raw") as response:
        stored = int(response.headers["Feedback-Last-Id"])
    while stored < records:
        count = min(1000, records - stored)
        items = [{"name": f"淡路島産 カラーにんじん {stored + i} 本", "keyword": "にんじん", "action": "accept",
                  "shown": ["にんじん", "たまねぎ", "じゃがいも"], "model": "bench", "annotator": "bench"} for i in range(count)]
        request = urllib.request.Request(url + "/v1/feedback", data=json.dumps({"items": items}).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request).read()
        stored += count
    before = rss_kib(pid)
    sampler = Sampler(pid)
    sampler.start()
    started = time.monotonic()
    lines = 0
    size = 0
    with urllib.request.urlopen(url + "/v1/feedback/export?format=raw", timeout=600) as response:
        final = response.headers["Feedback-Last-Id"]
        encoding = response.headers["Transfer-Encoding"]
        while True:
            block = response.read(1 << 16)
            if not block:
                break
            size += len(block)
            lines += block.count(b"\n")
    wall = time.monotonic() - started
    peak = sampler.stop()
    print(f"export of {lines} records ({size / 1e6:.1f} MB, Transfer-Encoding {encoding}, Feedback-Last-Id {final}): "
          f"{wall:.2f} s; server RSS before {before / 1024:.0f} MiB, peak {peak / 1024:.0f} MiB")


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] not in ("batches", "export"):
        sys.exit(__doc__)
    mode, url, pid = sys.argv[1], sys.argv[2].rstrip("/"), int(sys.argv[3])
    extra = int(sys.argv[4]) if len(sys.argv) > 4 else None
    if mode == "batches":
        batches(url, pid, extra or 8)
    else:
        export(url, pid, extra or 100_000)
