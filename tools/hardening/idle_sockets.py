#!/usr/bin/env python3
"""Idle sockets against the connection table. Usage: idle_sockets.py PORT [SOCKETS] [SECONDS]

Opens SOCKETS connections (default 4,200, more than the server's 4,096-connection table) that never send a byte,
as fast as connect() allows, and reopens every one the server closes, so the table stays full for SECONDS
(default 20). Meanwhile a probe opens a fresh connection for GET /healthz every 0.25 s (1 s timeout each).
Prints how long the sockets took to open, the time from the first socket to the first 200 after all were open,
and how many probes got 200, 503 or nothing. Exit status 1 unless a probe got 200 within 12 s of the sockets
opening. Loopback only; stops by itself and closes every socket it opened."""
import resource, select, socket, sys, time

port = int(sys.argv[1])
count = int(sys.argv[2]) if len(sys.argv) > 2 else 4200
seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 20
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
if hard < count + 64:
    sys.exit(f"open-file limit {hard} is below {count + 64}")


def open_idle():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    s.connect_ex(("127.0.0.1", port))
    return s


def probe():
    """Status of one GET /healthz on a new connection, or None (no answer within 1 s, reset, refused)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            data = b""
            while b"\r\n" not in data:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            return int(data.split(b" ")[1]) if data.startswith(b"HTTP/1.1 ") else None
    except OSError:
        return None


poller = select.epoll()
idle = {}


def add_idle():
    s = open_idle()
    idle[s.fileno()] = s
    poller.register(s.fileno(), select.EPOLLIN | select.EPOLLRDHUP)


started = time.monotonic()
for _ in range(count):
    add_idle()
opened = time.monotonic() - started
print(f"{count} idle sockets opened in {opened:.2f} s")
statuses = {}
first_ok = None
reopened = 0
next_probe = time.monotonic()
while time.monotonic() - started < seconds:
    # Reopen whatever the server closed, so the table stays full.
    for fd, _ in poller.poll(0):
        s = idle.get(fd)
        if s is None:
            continue
        try:
            gone = s.recv(1) == b""
        except BlockingIOError:
            gone = False
        except OSError:
            gone = True
        if gone:
            poller.unregister(fd)
            del idle[fd]
            s.close()
            add_idle()
            reopened += 1
    if time.monotonic() >= next_probe:
        at = time.monotonic() - started
        status = probe()
        statuses[status] = statuses.get(status, 0) + 1
        if status == 200 and first_ok is None:
            first_ok = at
        next_probe += 0.25
    time.sleep(0.01)
for s in idle.values():
    s.close()
summary = ", ".join(f"{k if k is not None else 'no answer'}: {v}" for k, v in sorted(statuses.items(), key=str))
print(f"probes: {summary}; idle sockets the server closed and the script reopened: {reopened}")
if first_ok is None:
    print(f"FAIL: no /healthz 200 in {seconds:.0f} s")
    sys.exit(1)
print(f"first /healthz 200 at {first_ok:.2f} s after the first idle socket")
sys.exit(0 if first_ok <= 12 else 1)
