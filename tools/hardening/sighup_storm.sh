#!/usr/bin/env bash
# 200 SIGHUPs at a server holding about 50k keywords (the cap: the model's 1.9k plus 48k added), then SIGTERM: how many reloads ran, and how long SIGTERM
# took to end the process. Usage: tools/hardening/sighup_storm.sh [KEYWORDS] [SIGNALS]
source "$(dirname "$0")/common.sh"
build_release
KEYWORDS=${1:-48000}; SIGNALS=${2:-200}
start_server --overlay "$WORK/overlay.json"
python3 - "$PORT" "$KEYWORDS" <<'PY'
import json, sys, time, urllib.request
port, total = int(sys.argv[1]), int(sys.argv[2])


def change(body):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/keywords", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    started = time.monotonic()
    answer = json.load(urllib.request.urlopen(request))
    return answer, time.monotonic() - started


def one_add(label):
    times = []
    for i in range(5):
        answer, seconds = change({"add": [f"単独追加{label}{i}"]})
        times.append(seconds)
        change({"remove": [f"単独追加{label}{i}"]})
    times.sort()
    print(f"one-keyword add at {answer['count'] - 1} keywords: median {times[2] * 1000:.1f} ms of 5")


one_add("small")
added = 0
while added < total:
    batch = [f"検査語{added + i:06d}" for i in range(min(10000, total - added))]
    answer, seconds = change({"add": batch})
    added += len(batch)
    print(f"added {len(batch)}: {answer['count']} keywords, {seconds:.2f} s")
one_add("large")
PY
for _ in $(seq "$SIGNALS"); do kill -HUP "$SERVER_PID"; done
sleep 0.2
STARTED=$(date +%s.%N)
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" || true
ENDED=$(date +%s.%N)
RELOADS=$(grep -c '"keywords_reloaded"' "$SERVER_LOG" || true)
echo "$SIGNALS SIGHUPs: $RELOADS reloads; SIGTERM to exit: $(python3 -c "print(f'{$ENDED - $STARTED:.2f}')") s"
grep '"keywords_reloaded"' "$SERVER_LOG" | head -3
