#!/usr/bin/env bash
# The resource-limit reproductions of tools/hardening/attacks.py against a release server, one JSON line each.
# Usage: tools/hardening/attacks.sh [ATTACK ...]   (no arguments: all of them)
source "$(dirname "$0")/common.sh"
build_release
start_server --overlay "$WORK/overlay.json"
python3 "$ROOT/tools/hardening/attacks.py" "$PORT" "$SERVER_PID" "$@"
