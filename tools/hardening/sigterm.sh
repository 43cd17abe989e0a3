#!/usr/bin/env bash
# SIGTERM while wrk saturates the server: exit status 0, and every request the server read was answered
# (responses wrk received = requests the server logged; no request logged without a status).
# Usage: tools/hardening/sigterm.sh [ROUNDS]
source "$(dirname "$0")/common.sh"
build_release
FAIL=0
for round in $(seq "${1:-3}"); do
    start_server
    wrk -t2 -c64 -d8s -s "$ROOT/tools/hardening/post.lua" "http://127.0.0.1:$PORT/v1/suggest" > "$WORK/wrk.txt" 2>&1 &
    WRK=$!; PIDS+=("$WRK")
    sleep "$(python3 -c "import random; print(round(random.uniform(1.5, 4), 2))")"
    kill -TERM "$SERVER_PID"
    set +e; wait "$SERVER_PID"; STATUS=$?; set -e
    wait "$WRK" || true
    RECEIVED=$(grep -o '^ *[0-9]* requests in' "$WORK/wrk.txt" | grep -o '[0-9]*')
    LOGGED=$(grep -c '"path":"/v1/suggest"' "$SERVER_LOG" || true)
    OK200=$(grep -c '"path":"/v1/suggest","status":200' "$SERVER_LOG" || true)
    NON2XX=$(grep -o 'Non-2xx or 3xx responses: [0-9]*' "$WORK/wrk.txt" | grep -o '[0-9]*$' || echo 0)
    echo "round $round: exit $STATUS; wrk received $RECEIVED responses ($NON2XX non-2xx); server logged $LOGGED ($OK200 with 200); $(grep -o 'Socket errors: .*' "$WORK/wrk.txt" || echo 'no socket errors')"
    grep '"event"' "$SERVER_LOG" | tail -2 | sed 's/^/    /'
    [ "$STATUS" = 0 ] && [ "$RECEIVED" = "$LOGGED" ] && [ "$LOGGED" = "$OK200" ] || { echo "FAIL in round $round"; FAIL=1; }
done
[ "$FAIL" = 0 ] && echo "PASS: exit 0 each time, every logged request answered and received"
exit $FAIL
