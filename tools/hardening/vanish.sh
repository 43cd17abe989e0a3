#!/usr/bin/env bash
# Clients vanishing mid-request and mid-response against a release server; fd count before/after.
# Usage: tools/hardening/vanish.sh [ROUNDS]
source "$(dirname "$0")/common.sh"
build_release
start_server
python3 "$ROOT/tools/hardening/vanish.py" "$PORT" "$SERVER_PID" "${1:-500}"
