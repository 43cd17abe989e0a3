#!/usr/bin/env python3
"""CPU time of one GET /v1/labels/export against a `kwsuggest serve` on a file store holding N labels.

    tools/hardening/labels_export.py BIN MODEL_DIR N [N...]

For each N: a fresh store, N products posted to the queue 1,000 a request with --auto-accept-precision 0.5, so
the model labels the ones it is sure of, then one export; prints the labels exported and the server's CPU time
(user + system from /proc) during the export.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

BIN, MODEL, SIZES = sys.argv[1], sys.argv[2], [int(n) for n in sys.argv[3:]]
TICKS = os.sysconf("SC_CLK_TCK")


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as response:
        return json.load(response)


def cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


for size in SIZES:
    work = tempfile.mkdtemp(prefix="kwsuggest-export.")
    server = subprocess.Popen([BIN, "serve", "--port", "0", "--store", f"file:{work}/keywords.overlay.json", "--model", MODEL,
                               "--auto-accept-precision", "0.5", "--queue-overlap", "0", "--queue-audit", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = server.stdout.readline().strip().split(" ")[-1]
        while True:
            try:
                urllib.request.urlopen(url + "/readyz", timeout=5)
                break
            except Exception:
                pass
        for start in range(0, size, 1000):
            post(url + "/v1/queue/items", {"items": [{"id": f"p{i}", "name": f"国産 にんじん {i}本"} for i in range(start, min(size, start + 1000))]})
        before = cpu(server.pid)
        with urllib.request.urlopen(url + "/v1/labels/export", timeout=3600) as response:
            lines = sum(1 for _ in response)
        print(f"N={size}: {lines} labels exported, server CPU {cpu(server.pid) - before:.2f} s", flush=True)
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
