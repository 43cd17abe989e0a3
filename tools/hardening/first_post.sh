#!/usr/bin/env bash
# The first POST /v1/feedback after a start, on a large file-store feedback log: its time and the server's peak
# memory (VmHWM) before and after it. The log is written directly (one record per line, as any release reads),
# SIZE_MB megabytes, a tenth of the records with client ids. Fails when the first post raises the peak by more than
# 64 MiB (the log read into one buffer), or when a reused client id with another decision is not refused with 409.
# Usage: tools/hardening/first_post.sh [SIZE_MB]
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
peak_before=$(awk '/^VmHWM/ {print $2}' "/proc/$SERVER_PID/status")
echo "before the first post: VmRSS $(rss_kib "$SERVER_PID") KiB, VmHWM $peak_before KiB"
seconds=$(curl -s -o "$WORK/answer" -w '%{time_total}' -H 'Content-Type: application/json' \
    -d '{"name": "カラーにんじん 3本", "keyword": "にんじん", "action": "accept", "id": "after-start"}' \
    "http://127.0.0.1:$PORT/v1/feedback")
echo "first post: $(cat "$WORK/answer") in ${seconds} s"
peak_after=$(awk '/^VmHWM/ {print $2}' "/proc/$SERVER_PID/status")
echo "after it: VmRSS $(rss_kib "$SERVER_PID") KiB, VmHWM $peak_after KiB"
FAIL=0
[ $((peak_after - peak_before)) -le 65536 ] || { echo "FAIL: the first post raised the peak by $((peak_after - peak_before)) KiB"; FAIL=1; }
seconds=$(curl -s -o "$WORK/answer" -w '%{time_total}' -H 'Content-Type: application/json' \
    -d '{"name": "メークイン 1kg", "keyword": "じゃがいも", "action": "accept", "id": "c-50"}' \
    "http://127.0.0.1:$PORT/v1/feedback")
echo "second post (an id stored in the log, another decision): $(cat "$WORK/answer") in ${seconds} s"
grep -q '"id_conflict"' "$WORK/answer" || { echo "FAIL: a reused client id with another decision was not refused"; FAIL=1; }
kill -TERM "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true
[ "$FAIL" = 0 ] && echo "PASS: the first post streamed the log; the reused id was refused"
exit $FAIL
