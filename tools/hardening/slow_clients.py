#!/usr/bin/env python3
"""Slow and idle clients next to a normal one. Usage: slow_clients.py PORT SERVER_PID [SECONDS] [SLOW] [IDLE]

1. Baseline: a normal client sends POST /v1/suggest every 10 ms for SECONDS/2; its latency is recorded.
2. Opens SLOW slowloris connections (each sends one header byte per second, never finishing) and IDLE
   keep-alive connections (each answered one request, then silent), then measures the normal client again
   for SECONDS while the slow ones drip.
3. Checks: p50, p99 and max under attack are within 50 ms of the baseline's; every idle connection still
   gets an answer at the end (workers were not exhausted); the server's thread count did not grow.
Exit status 1 if a check fails. Everything runs on loopback and stops by itself."""
import socket, statistics, sys, threading, time

port, pid = int(sys.argv[1]), int(sys.argv[2])
seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 15
slow_count = int(sys.argv[4]) if len(sys.argv) > 4 else 200
idle_count = int(sys.argv[5]) if len(sys.argv) > 5 else 1000
BODY = '{"name":"淡路島産 カラーにんじん 3本"}'.encode()
REQUEST = (b"POST /v1/suggest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
           + str(len(BODY)).encode() + b"\r\n\r\n" + BODY)


def status_of(path):
    with open(f"/proc/{pid}/status") as f:
        return {l.split(":")[0]: l.split(":")[1].strip() for l in f}


def read_response(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("connection closed")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int([l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")][0].split(b":")[1])
    while len(body) < length:
        body += sock.recv(65536)
    return head.split(b" ")[1]


def measure(duration):
    c = socket.create_connection(("127.0.0.1", port))
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    latencies, end = [], time.time() + duration
    while time.time() < end:
        t0 = time.perf_counter()
        c.sendall(REQUEST)
        status = read_response(c)
        latencies.append((time.perf_counter() - t0) * 1000)
        assert status == b"200", status
        time.sleep(0.01)
    c.close()
    latencies.sort()
    return {"n": len(latencies), "p50": statistics.median(latencies),
            "p99": latencies[max(0, int(len(latencies) * 0.99) - 1)], "max": latencies[-1]}


def show(label, m):
    print(f"{label}: {m['n']} requests, p50 {m['p50']:.2f} ms, p99 {m['p99']:.2f} ms, max {m['max']:.2f} ms")


threads_before = int(status_of(pid)["Threads"])
baseline = measure(seconds / 2)
show("baseline", baseline)

slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(slow_count)]
idle = []
for _ in range(idle_count):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    idle.append(s)
for s in idle:
    read_response(s)
print(f"opened {slow_count} slowloris and {idle_count} idle keep-alive connections")

payload = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000
stop = threading.Event()
dripped = [0]
reopened = [0]


def drip():
    i = 0
    while not stop.is_set():
        for index, s in enumerate(slow):
            try:
                s.send(payload[i % len(payload):i % len(payload) + 1])
                dripped[0] += 1
            except OSError:
                # The server closed it (408 after the 10 s header timeout): reconnect, so SLOW stay open.
                s.close()
                try:
                    slow[index] = socket.create_connection(("127.0.0.1", port))
                    reopened[0] += 1
                except OSError:
                    pass
        i += 1
        stop.wait(1)


dripper = threading.Thread(target=drip, daemon=True)
dripper.start()
attacked = measure(seconds)
stop.set()
dripper.join()
show(f"with {slow_count} slowloris + {idle_count} idle", attacked)
print(f"slowloris bytes sent: {dripped[0]}; connections closed by the server (408) and reopened: {reopened[0]}")

# Every idle connection must still be served (no worker was tied up by it).
answered = 0
for s in idle:
    try:
        s.settimeout(5)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        answered += read_response(s) == b"200"
    except (OSError, RuntimeError):
        pass
threads_after = int(status_of(pid)["Threads"])
print(f"idle connections answered afterwards: {answered}/{idle_count}; server threads {threads_before} -> {threads_after}")
for s in slow + idle:
    s.close()

failures = []
for key in ("p50", "p99", "max"):
    if attacked[key] - baseline[key] > 50:
        failures.append(f"{key} grew by {attacked[key] - baseline[key]:.1f} ms (> 50 ms)")
if answered != idle_count:
    failures.append(f"only {answered} of {idle_count} idle connections answered")
if threads_after > threads_before:
    failures.append("thread count grew")
print("FAIL: " + "; ".join(failures) if failures else "PASS: latency within 50 ms of baseline, idle connections served")
sys.exit(1 if failures else 0)
