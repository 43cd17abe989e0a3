#!/usr/bin/env bash
# 200 slowloris (one header byte per second) + 1000 idle keep-alive connections next to a normal client, on a
# release server; fd count before and after. Usage: tools/hardening/slow_clients.sh [SECONDS] [SLOW] [IDLE]
source "$(dirname "$0")/common.sh"
build_release
ulimit -n 65536 2>/dev/null || true
start_server
# Let the server see the readiness probe's connection close first, as the "after" count below does.
sleep 1
FD_BEFORE=$(fd_count "$SERVER_PID")
set +e
python3 "$ROOT/tools/hardening/slow_clients.py" "$PORT" "$SERVER_PID" "${1:-15}" "${2:-200}" "${3:-1000}"
STATUS=$?
set -e
sleep 1
FD_AFTER=$(fd_count "$SERVER_PID")
echo "server fds: $FD_BEFORE before, $FD_AFTER after"
[ "$FD_BEFORE" = "$FD_AFTER" ] || { echo "FAIL: fd count changed"; exit 1; }
exit $STATUS
