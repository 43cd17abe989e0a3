#!/usr/bin/env bash
# Keyword changes next to heavy feedback: 6 clients post 1,000-item feedback batches (names of 300 characters,
# 5 shown keywords each) in a loop while a seventh adds and removes one keyword 20 times; prints the keyword
# change's latencies. Usage: tools/hardening/write_lanes.sh [CHANGES=20] [FEEDBACK_CLIENTS=6]
source "$(dirname "$0")/common.sh"
build_release
start_server --overlay "$WORK/overlay.json"
python3 - "$PORT" "${1:-20}" "${2:-6}" <<'PY'
import http.client, json, statistics, sys, threading, time
port, changes, clients = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
item = {"name": "国産" + "にんじん" * 74 + "1kg", "keyword": "にんじん", "action": "accept",
        "shown": ["にんじん", "たまねぎ", "じゃがいも", "豚肉", "キャベツ"]}
feedback = json.dumps({"items": [item] * 1000}).encode()
stop = threading.Event()
posted = [0]


def post(connection, path, body):
    connection.request("POST", path, body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    return response.status


def flood():
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    while not stop.is_set():
        assert post(connection, "/v1/feedback", feedback) == 201
        posted[0] += 1


threads = [threading.Thread(target=flood) for _ in range(clients)]
for thread in threads:
    thread.start()
time.sleep(2)
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
times = []
for i in range(changes):
    body = json.dumps({"add": ["書込試験"]} if i % 2 == 0 else {"remove": ["書込試験"]}).encode()
    started = time.monotonic()
    assert post(connection, "/v1/keywords", body) == 200
    times.append(time.monotonic() - started)
stop.set()
for thread in threads:
    thread.join()
times.sort()
print(f"{changes} keyword changes next to {clients} feedback clients ({posted[0]} batches of 1,000 posted, "
      f"{len(feedback) / 1e6:.2f} MB each): median {statistics.median(times) * 1000:.0f} ms, "
      f"max {times[-1] * 1000:.0f} ms")
PY
