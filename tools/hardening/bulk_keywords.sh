#!/usr/bin/env bash
# A large keyword change at the list's cap: fill the list to 50,000 keywords (the model's 1,920 plus 48,080 added
# in 10,000-keyword requests), then remove 8,000 of them in one request and add the same 8,000 back in another.
# Each request is timed from sending to the last byte of its answer (the whole list) parsed by the client.
# Passes when both take at most 2 s. Usage: tools/hardening/bulk_keywords.sh [ROUNDS=3] [CHANGE=8000]
source "$(dirname "$0")/common.sh"
build_release
ROUNDS=${1:-3}; CHANGE=${2:-8000}
start_server --overlay "$WORK/overlay.json"
python3 - "$PORT" "$ROUNDS" "$CHANGE" <<'PY'
import json, sys, time, urllib.request
port, rounds, size = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])


def change(body):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/keywords", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    started = time.monotonic()
    answer = json.load(urllib.request.urlopen(request, timeout=120))
    return answer, time.monotonic() - started


count = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/keywords?limit=1"))["count"]
added = []
while count < 50000:
    batch = [f"検査語{len(added) + i:06d}" for i in range(min(10000, 50000 - count))]
    answer, seconds = change({"add": batch})
    added += batch
    count = answer["count"]
    print(f"filled: {count} keywords ({seconds:.2f} s for {len(batch)})")
# Every sixth added keyword: spread over the list, as a clean-up of one source's keywords would be.
chosen = added[::max(1, len(added) // size)][:size]
worst = 0.0
for round in range(rounds):
    answer, removing = change({"remove": chosen})
    assert answer["count"] == count - len(chosen), answer["count"]
    answer, adding = change({"add": chosen})
    assert answer["count"] == count, answer["count"]
    worst = max(worst, removing, adding)
    print(f"round {round + 1}: remove {len(chosen)} at {count}: {removing:.2f} s; add them back: {adding:.2f} s")
print(f"slowest request: {worst:.2f} s (limit 2 s)")
sys.exit(0 if worst <= 2 else 1)
PY
