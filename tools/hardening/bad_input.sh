#!/usr/bin/env bash
# The bad-input matrix (bad_input.py) against a fresh release server. Usage: tools/hardening/bad_input.sh
source "$(dirname "$0")/common.sh"
build_release
start_server
python3 "$ROOT/tools/hardening/bad_input.py" "$PORT"
kill -0 "$SERVER_PID" && echo "server still running (pid $SERVER_PID)"
