#!/usr/bin/env bash
# The first POST /v1/feedback after a start, on a large file-store feedback log: its time and the server's peak
# memory (VmHWM) before and after it. The log is written directly (one record per line, as any release reads),
# SIZE_MB megabytes, a tenth of the records with client ids. Usage: tools/hardening/first_post.sh [SIZE_MB]
source "$(dirname "$0")/common.sh"
build_release
SIZE_MB=${1:-400}
OVERLAY="$WORK/keywords.overlay.json"
LOG="$WORK/keywords.overlay.feedback.jsonl"
python3 - "$LOG" "$SIZE_MB" <<'PY'
import json, sys
path, size = sys.argv[1], int(sys.argv[2]) * 1_000_000
pad = "x" * 200
with open(path, "w") as f:
    written, i = 0, 0
    while written < size:
        i += 1
        rec = {"action": "accept"}
        if i % 10 == 0:
            rec["client_id"] = f"c-{i}"
        rec.update({"id": i, "keyword": "にんじん", "name": f"名前 {i} {pad}", "received_at": "2026-01-02T03:04:05.678Z",
                    "shown": ["にんじん", "たまねぎ"]})
        line = json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n"
        f.write(line)
        written += len(line.encode())
print(f"log: {written / 1e6:.0f} MB, {i} records")
PY
start_server --overlay "$OVERLAY"
echo "before the first post: VmRSS $(rss_kib "$SERVER_PID") KiB, VmHWM $(awk '/^VmHWM/ {print $2}' "/proc/$SERVER_PID/status") KiB"
seconds=$(curl -s -o "$WORK/answer" -w '%{time_total}' -H 'Content-Type: application/json' \
    -d '{"name": "カラーにんじん 3本", "keyword": "にんじん", "action": "accept", "id": "after-start"}' \
    "http://127.0.0.1:$PORT/v1/feedback")
echo "first post: $(cat "$WORK/answer") in ${seconds} s"
echo "after it: VmRSS $(rss_kib "$SERVER_PID") KiB, VmHWM $(awk '/^VmHWM/ {print $2}' "/proc/$SERVER_PID/status") KiB"
seconds=$(curl -s -o "$WORK/answer" -w '%{time_total}' -H 'Content-Type: application/json' \
    -d '{"name": "メークイン 1kg", "keyword": "じゃがいも", "action": "accept", "id": "c-50"}' \
    "http://127.0.0.1:$PORT/v1/feedback")
echo "second post (an id stored in the log, another decision): $(cat "$WORK/answer") in ${seconds} s"
kill -TERM "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true
