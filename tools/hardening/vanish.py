#!/usr/bin/env python3
"""Clients that vanish mid-request and mid-response, then the server's fd count is compared with before.
Usage: vanish.py PORT SERVER_PID [ROUNDS]   (each round = 8 kinds of vanishing client)

Kinds: connect and leave; half a request line; headers without the final CRLF; half a Content-Length body;
half a chunked body; each of those closed with FIN and with RST (SO_LINGER 0); and mid-response: 50 pipelined
requests for large answers (the admin page, the OpenAPI document, a 300-name batch) on a socket with a tiny
receive buffer, closed with RST without reading. Checks: fds and open connections (from /metrics) return to
their starting values, and the server still answers."""
import json, socket, struct, sys, time, urllib.request

port, pid = int(sys.argv[1]), int(sys.argv[2])
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 200
BASE = f"http://127.0.0.1:{port}"


def fds():
    import os
    return len(os.listdir(f"/proc/{pid}/fd"))


def open_connections():
    text = urllib.request.urlopen(BASE + "/metrics", timeout=5).read().decode()
    return sum(float(l.split()[-1]) for l in text.splitlines() if l.startswith("kwsuggest_http_connections_open"))


def connect(small_buffer=False):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if small_buffer:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    s.connect(("127.0.0.1", port))
    return s


def vanish(s, reset):
    if reset:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


batch = json.dumps({"names": [f"淡路島産 にんじん {i}本" for i in range(300)]}, ensure_ascii=False).encode()
BIG = [b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n",
       b"POST /v1/suggest/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
       + str(len(batch)).encode() + b"\r\n\r\n" + batch]
PARTIAL = [b"", b"GET /v1/sugg", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: b",
           b"POST /v1/suggest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"na",
           b"POST /v1/suggest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n{\"n"]

# Warm up every path once so lazily opened resources are counted in "before".
urllib.request.urlopen(BASE + "/healthz", timeout=5).read()
time.sleep(0.5)
before_fds, before_conns = fds(), open_connections()
print(f"before: {before_fds} fds, {before_conns:.0f} open connections (the /metrics probe itself)")
start = time.time()
made = 0
peak = before_fds
for r in range(rounds):
    for data in PARTIAL:
        s = connect()
        if data:
            s.sendall(data)
        vanish(s, reset=r % 2 == 1)
        made += 1
    s = connect(small_buffer=True)
    try:
        s.sendall(BIG[r % 3] * 50)
    except OSError:
        pass
    time.sleep(0.002)  # let the server start writing, then vanish with unread responses
    vanish(s, reset=True)
    made += 1
    if r % 20 == 0:
        peak = max(peak, fds())
print(f"{made} vanishing clients in {time.time() - start:.1f} s; peak server fds {peak}")
deadline = time.time() + 15
while time.time() < deadline:
    after_fds, after_conns = fds(), open_connections()
    if after_fds == before_fds and after_conns == before_conns:
        break
    time.sleep(0.25)
alive = urllib.request.urlopen(BASE + "/healthz", timeout=5).status == 200
print(f"after: {after_fds} fds, {after_conns:.0f} open connections; server answers: {alive}")
ok = after_fds == before_fds and after_conns == before_conns and alive
print("PASS: no descriptor leaked" if ok else "FAIL: descriptors or connections leaked")
sys.exit(0 if ok else 1)
