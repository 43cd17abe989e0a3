"""kill -9 of a file-store server while it writes a 1,000-item feedback batch; checks that the batch is all or none.

Driven by feedback_batch_kill.sh, which starts the server and passes: port, server pid, feedback log path, round,
and the file that collects the acknowledged batches. The writer posts 1,000-item batches (long names and shown
lists, so one batch is about 17 MB and its write() takes milliseconds) and, for the batch it means to interrupt, polls the log's
size from the moment the request is sent: as soon as the file grows (the write has started) it sends SIGKILL.
Then it counts the records of that batch the log holds as bytes (the torn write), and prints one JSON line.
"""
import http.client
import json
import os
import signal
import sys
import time

port, pid, log, round_, acked_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
ITEMS = 1000


def batch(tag):
    # As large as the API allows, so the write takes long enough to be interrupted: names of about 900 code
    # points and 50 shown keywords of 90, three UTF-8 bytes each (about 17 MB of log per batch).
    pad = "に" * 900
    shown = [f"{k:02d}" + "ん" * 88 for k in range(50)]
    return json.dumps({"items": [
        {"name": f"{tag} item {i} {pad}", "keyword": "にんじん", "action": "accept", "shown": shown}
        for i in range(ITEMS)]}, ensure_ascii=False).encode()


def size():
    try:
        return os.stat(log).st_size
    except FileNotFoundError:
        return 0


# A few acknowledged batches first, so the log has complete batches before the torn one.
for number in range(2):
    tag = f"r{round_}-b{number}"
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", "/v1/feedback", batch(tag), {"Content-Type": "application/json"})
    response = connection.getresponse()
    body = response.read()
    assert response.status == 201, (response.status, body)
    with open(acked_path, "a") as handle:
        handle.write(tag + "\n")
    connection.close()

tag = f"r{round_}-killed"
body = batch(tag)
before = size()
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
connection.request("POST", "/v1/feedback", body, {"Content-Type": "application/json"})
deadline = time.monotonic() + 20
while size() == before and time.monotonic() < deadline:
    pass
grown = size()
os.kill(pid, signal.SIGKILL)
after = size()
text = open(log, "rb").read().decode("utf-8", "replace")
in_file = text.count(f'"name":"{tag} item ')
print(json.dumps({"round": round_, "size_when_killed": grown - before, "size_after_kill": after - before,
                  "killed_batch_records_in_log": in_file}))
