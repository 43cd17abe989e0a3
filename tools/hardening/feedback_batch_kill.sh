#!/usr/bin/env bash
# kill -9 of a file-store server in the middle of writing a 1,000-item feedback batch (the driver polls the log
# and kills as soon as the write has started), ROUNDS times on one log. After each kill a restarted server must
# export every acknowledged batch whole and none of the interrupted one's records (all or none: the batch was
# never acknowledged), however many of its lines the kill left in the file; ids continue after the last whole
# batch. Usage: tools/hardening/feedback_batch_kill.sh [ROUNDS]
source "$(dirname "$0")/common.sh"
build_release
ROUNDS=${1:-3}
OVERLAY="$WORK/keywords.overlay.json"
LOG="$WORK/keywords.overlay.feedback.jsonl"
ACKED="$WORK/acked.txt"
: > "$ACKED"
FAIL=0
for round in $(seq "$ROUNDS"); do
    start_server --overlay "$OVERLAY"
    python3 "$(dirname "$0")/feedback_batch_kill.py" "$PORT" "$SERVER_PID" "$LOG" "$round" "$ACKED" || FAIL=1
    wait "$SERVER_PID" 2>/dev/null || true
    start_server --overlay "$OVERLAY"
    # One more acknowledged batch after the restart: its ids must follow the last whole batch.
    python3 - "$PORT" "$round" "$ACKED" <<'PY' || FAIL=1
import http.client, json, sys
port, round_, acked = int(sys.argv[1]), sys.argv[2], sys.argv[3]
tag = f"r{round_}-after"
c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
c.request("POST", "/v1/feedback", json.dumps({"items": [
    {"name": f"{tag} item {i}", "keyword": "にんじん", "action": "accept"} for i in range(1000)]}),
    {"Content-Type": "application/json"})
r = c.getresponse()
body = json.loads(r.read())
assert r.status == 201, body
open(acked, "a").write(tag + "\n")
PY
    python3 - "$PORT" "$round" "$ACKED" <<'PY' || FAIL=1
import collections, http.client, json, sys
port, round_, acked = int(sys.argv[1]), sys.argv[2], sys.argv[3]
c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
c.request("GET", "/v1/feedback/export?format=raw")
r = c.getresponse()
records = [json.loads(line) for line in r.read().decode().splitlines() if line]
per_batch = collections.Counter(rec["name"].split(" item ")[0] for rec in records)
wanted = open(acked).read().split()
bad = {tag: n for tag, n in per_batch.items() if n != 1000}
missing = [tag for tag in wanted if per_batch.get(tag) != 1000]
killed = sum(n for tag, n in per_batch.items() if tag.endswith("-killed"))
ids = [rec["id"] for rec in records]
print(json.dumps({"round": round_, "exported": len(records), "batches": len(per_batch),
                  "acknowledged": len(wanted), "partial_batches": bad, "missing": missing,
                  "killed_batch_records_exported": killed, "ids_contiguous": ids == list(range(1, len(ids) + 1))}))
sys.exit(1 if bad or missing or ids != list(range(1, len(ids) + 1)) else 0)
PY
    kill -TERM "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true
done
[ "$FAIL" = 0 ] && echo "PASS: every acknowledged batch whole, no record of an interrupted batch exported, in $ROUNDS kill rounds"
exit $FAIL
