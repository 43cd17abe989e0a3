#!/usr/bin/env bash
# kill -9 at random moments during a stream of POST /v1/keywords updates; after each kill the overlay file must
# be the old or the new version (valid JSON overlay, every acknowledged keyword in it except possibly the last
# one in flight), and a restarted server must serve it. Usage: tools/hardening/kill9.sh [ROUNDS]
source "$(dirname "$0")/common.sh"
build_release
ROUNDS=${1:-20}
OVERLAY="$WORK/keywords.overlay.json"
ACKED="$WORK/acked.txt"
: > "$ACKED"
FAIL=0
for round in $(seq "$ROUNDS"); do
    start_server --overlay "$OVERLAY"
    # A stream of updates; each keyword acknowledged with 200 is appended to ACKED.
    python3 - "$PORT" "$round" "$ACKED" > "$WORK/writer.out" 2>&1 <<'PY' &
import http.client, json, sys
port, round_, acked = int(sys.argv[1]), sys.argv[2], sys.argv[3]
i = 0
while True:
    i += 1
    keyword = f"kw-{round_}-{i}"
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        c.request("POST", "/v1/keywords", json.dumps({"add": [keyword]}), {"Content-Type": "application/json"})
        if c.getresponse().status == 200:
            with open(acked, "a") as f:
                f.write(keyword + "\n")
        c.close()
    except OSError:
        break
PY
    WRITER=$!; PIDS+=("$WRITER")
    sleep "$(python3 -c "import random; print(round(random.uniform(0.2, 1.5), 3))")"
    kill -9 "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true
    wait "$WRITER" 2>/dev/null || true
    # Valid overlay, containing every acknowledged keyword (old-or-new: an unacknowledged one may or may not be in).
    if python3 - "$OVERLAY" "$ACKED" "$round" <<'PY'
import json, os, sys
path, acked, round_ = sys.argv[1], sys.argv[2], sys.argv[3]
data = json.load(open(path))
assert set(data) == {"added", "removed"}, data.keys()
added = set(data["added"])
wanted = [k for k in open(acked).read().split()]
missing = [k for k in wanted if k not in added]
temps = [f for f in os.listdir(os.path.dirname(path)) if ".tmp" in f]
print(f"round {round_}: overlay valid, {len(added)} keywords, {len(wanted)} acknowledged, missing {len(missing)}, temp files left {len(temps)}")
sys.exit(1 if missing else 0)
PY
    then :; else echo "FAIL: overlay corrupt or lost an acknowledged keyword"; cat "$OVERLAY" | head -c 500; FAIL=1; fi
done
# Restart on the final overlay: every overlay keyword must be served.
start_server --overlay "$OVERLAY"
python3 - "$PORT" "$OVERLAY" <<'PY' || FAIL=1
import json, sys, urllib.request
port, path = sys.argv[1], sys.argv[2]
served, offset, matched = set(), 0, 1
while offset < matched:
    page = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/keywords?offset={offset}&limit=10000"))
    served.update(page["keywords"])
    offset, matched = offset + page["limit"], page["matched"]
added = json.load(open(path))["added"]
missing = [k for k in added if k not in served]
print(f"after restart: {len(added)} overlay keywords, {len(added) - len(missing)} served")
sys.exit(1 if missing else 0)
PY
kill -TERM "$SERVER_PID"; wait "$SERVER_PID" && echo "final server exit 0"
[ "$FAIL" = 0 ] && echo "PASS: overlay always old-or-new, every acknowledged keyword kept, served after restart"
exit $FAIL
