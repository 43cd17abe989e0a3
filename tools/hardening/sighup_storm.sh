#!/usr/bin/env bash
# 200 SIGHUPs at a server holding about 50k keywords, then SIGTERM: how many reloads ran, and how long SIGTERM
# took to end the process. Usage: tools/hardening/sighup_storm.sh [KEYWORDS] [SIGNALS]
source "$(dirname "$0")/common.sh"
build_release
KEYWORDS=${1:-50000}; SIGNALS=${2:-200}
start_server --overlay "$WORK/overlay.json"
python3 - "$PORT" "$KEYWORDS" <<'PY'
import json, sys, time, urllib.request
port, total = int(sys.argv[1]), int(sys.argv[2])
added = 0
while added < total:
    batch = [f"検査語{added + i:06d}" for i in range(min(10000, total - added))]
    body = json.dumps({"add": batch}).encode()
    started = time.monotonic()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/keywords", body, {"Content-Type": "application/json"})
    answer = json.load(urllib.request.urlopen(request))
    added += len(batch)
    print(f"added {len(batch)}: {answer['count']} keywords, {time.monotonic() - started:.2f} s")
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
