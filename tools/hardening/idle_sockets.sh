#!/usr/bin/env bash
# 4,200 sockets that never send a byte (more than the 4,096-connection table), reopened whenever the server
# closes one, while a probe asks /healthz every 0.25 s on a new connection; fd count before and after.
# Usage: tools/hardening/idle_sockets.sh [SOCKETS] [SECONDS]
source "$(dirname "$0")/common.sh"
build_release
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
start_server
sleep 1
FD_BEFORE=$(fd_count "$SERVER_PID")
set +e
python3 "$ROOT/tools/hardening/idle_sockets.py" "$PORT" "${1:-4200}" "${2:-20}"
STATUS=$?
set -e
# Closed sockets leave the server's table at its next read; give the loops a moment.
sleep 2
FD_AFTER=$(fd_count "$SERVER_PID")
echo "server fds: $FD_BEFORE before, $FD_AFTER after"
[ "$FD_BEFORE" = "$FD_AFTER" ] || { echo "FAIL: fd count changed"; exit 1; }
exit $STATUS
