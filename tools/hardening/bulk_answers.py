#!/usr/bin/env python3
"""Answers whose size comes from stored data, against a running server; prints one JSON line per check.

Usage: bulk_answers.py PORT PID CHECK [ARGS]   (tools/hardening/bulk_answers.sh starts the server and runs them)

  keywords TARGET    fills the list to 50,000 keywords, then 6 client processes loop GET TARGET while one probe
                     sends about 80 GET /healthz over 5 s on a keep-alive connection: the probes' max and p50.
  exports            fills the feedback log with 5,000 records of the largest size the API takes, opens 40 exports
                     that never read, and reports the server's RSS before and 5 s after, and the statuses.
  batch              4 clients loop full exports while 40 two-name batches are timed: their p50 and max.
  labels             posts 10,000 feedback records naming 10,000 distinct models: the size and render time of
                     /metrics before and after.
"""
import http.client
import json
import multiprocessing
import socket
import statistics
import sys
import time

KEYWORDS = 50_000


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1])
    return -1


def request(port, method, path, body=None, timeout=120):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    connection.request(method, path, json.dumps(body, ensure_ascii=False).encode() if body is not None else None, headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def fill_keywords(port):
    status, data = request(port, "GET", "/v1/keywords?limit=1")
    count = json.loads(data)["count"]
    number = 0
    while count < KEYWORDS:
        batch = []
        while len(batch) < min(10_000, KEYWORDS - count):
            batch.append(f"負荷検査キーワード{number:05d}")
            number += 1
        status, data = request(port, "POST", "/v1/keywords", {"add": batch})
        assert status == 200, (status, data[:300])
        count = json.loads(data)["count"]
    return count


def loop_get(port, target, stop_at, counter):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    while time.monotonic() < stop_at:
        connection.request("GET", target)
        response = connection.getresponse()
        response.read()
        with counter.get_lock():
            counter.value += 1


def probe_healthz(port, seconds, count):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    times = []
    interval = seconds / count
    start = time.monotonic()
    for index in range(count):
        due = start + index * interval
        pause = due - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        began = time.perf_counter()
        connection.request("GET", "/healthz")
        response = connection.getresponse()
        response.read()
        times.append((time.perf_counter() - began) * 1000)
        assert response.status == 200
    return times


def check_keywords(port, pid, target):
    count = fill_keywords(port)
    status, data = request(port, "GET", target)
    answer_bytes = len(data)
    quiet = probe_healthz(port, 2, 20)
    counter = multiprocessing.Value("i", 0)
    stop_at = time.monotonic() + 7
    clients = [multiprocessing.Process(target=loop_get, args=(port, target, stop_at, counter)) for _ in range(6)]
    for client in clients:
        client.start()
    time.sleep(1)
    times = probe_healthz(port, 5, 80)
    for client in clients:
        client.join()
    print(json.dumps({"check": "healthz_while_6_clients_loop", "target": target, "keywords": count,
                      "answer_bytes": answer_bytes, "status": status, "answers_in_7s": counter.value,
                      "quiet_p50_ms": round(statistics.median(quiet), 2),
                      "probes": len(times), "p50_ms": round(statistics.median(times), 2),
                      "p99_ms": round(sorted(times)[int(len(times) * 0.99) - 1], 2), "max_ms": round(max(times), 2)}))


def fill_feedback(port, records):
    have = int(dict(http_headers(port, "/v1/feedback/export?limit=1")).get("feedback-last-id", "0"))
    name = "北海道産" + "じゃがいも男爵" * 142  # 998 code points
    shown = [f"{i:02d}" + "キーワード" * 19 + "あ" * 3 for i in range(50)]  # 50 keywords of 100 code points
    while have < records:
        items = [{"name": name, "keyword": shown[0], "action": "accept", "shown": shown, "model": "m",
                  "annotator": "負荷検査"} for _ in range(min(1000, records - have))]
        status, data = request(port, "POST", "/v1/feedback", {"items": items})
        assert status == 201, (status, data[:300])
        have += len(items)
    return have


def http_headers(port, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", path)
    response = connection.getresponse()
    response.read()
    connection.close()
    return [(k.lower(), v) for k, v in response.getheaders()]


def check_exports(port, pid):
    records = fill_feedback(port, 5_000)
    time.sleep(1)
    before = rss_kib(pid)
    sockets = []
    for _ in range(40):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(f"GET /v1/feedback/export?format=raw HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        sockets.append(s)
    time.sleep(5)
    after = rss_kib(pid)
    statuses = {}
    for s in sockets:
        s.settimeout(2)
        try:
            head = s.recv(64)
            code = head.split(b" ", 2)[1].decode() if head.startswith(b"HTTP/") else "none"
        except (socket.timeout, IndexError):
            code = "none"
        statuses[code] = statuses.get(code, 0) + 1
    for s in sockets:
        s.close()
    time.sleep(2)
    print(json.dumps({"check": "40_exports_that_never_read", "records": records, "rss_before_mib": round(before / 1024, 1),
                      "rss_after_5s_mib": round(after / 1024, 1), "rss_after_close_mib": round(rss_kib(pid) / 1024, 1),
                      "statuses": statuses}))


def loop_export(port, stop_at, counter):
    while time.monotonic() < stop_at:
        status, data = request(port, "GET", "/v1/feedback/export?format=raw")
        with counter.get_lock():
            counter.value += 1 if status == 200 else 0


def check_batch(port, pid):
    fill_feedback(port, 5_000)
    body = {"names": ["北海道産 じゃがいも 男爵 5kg", "新物 にんじん 3本"], "k": 5}
    quiet = []
    for _ in range(20):
        began = time.perf_counter()
        status, _ = request(port, "POST", "/v1/suggest/batch", body)
        quiet.append((time.perf_counter() - began) * 1000)
    counter = multiprocessing.Value("i", 0)
    stop_at = time.monotonic() + 12
    clients = [multiprocessing.Process(target=loop_export, args=(port, stop_at, counter)) for _ in range(4)]
    for client in clients:
        client.start()
    time.sleep(1)
    times = []
    for _ in range(40):
        began = time.perf_counter()
        status, _ = request(port, "POST", "/v1/suggest/batch", body)
        assert status == 200
        times.append((time.perf_counter() - began) * 1000)
        time.sleep(0.2)
    for client in clients:
        client.join()
    print(json.dumps({"check": "two_name_batch_with_4_exports", "quiet_p50_ms": round(statistics.median(quiet), 2),
                      "batches": len(times), "p50_ms": round(statistics.median(times), 2),
                      "max_ms": round(max(times), 2), "exports_completed": counter.value}))


def check_labels(port, pid):
    def metrics():
        began = time.perf_counter()
        status, data = request(port, "GET", "/metrics")
        return len(data), (time.perf_counter() - began) * 1000
    before, _ = metrics()
    for batch in range(10):
        items = [{"name": "n", "keyword": "にんじん", "action": "accept", "shown": ["にんじん"],
                  "model": f"client-model-{batch}-{index}"} for index in range(1000)]
        status, data = request(port, "POST", "/v1/feedback", {"items": items})
        assert status == 201, (status, data[:300])
    after, milliseconds = metrics()
    print(json.dumps({"check": "metrics_after_10000_feedback_models", "metrics_bytes_before": before,
                      "metrics_bytes_after": after, "render_ms": round(milliseconds, 2)}))


def main():
    port, pid, check = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    if check == "keywords":
        check_keywords(port, pid, sys.argv[4])
    elif check == "exports":
        check_exports(port, pid)
    elif check == "batch":
        check_batch(port, pid)
    elif check == "labels":
        check_labels(port, pid)
    else:
        sys.exit(f"unknown check {check}")


if __name__ == "__main__":
    main()
