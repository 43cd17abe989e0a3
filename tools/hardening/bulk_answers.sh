#!/usr/bin/env bash
# Answers whose size comes from stored data, on a release server with its own file store: /healthz while 6 clients
# loop the largest keyword answer at 50,000 keywords, the RSS of 40 feedback exports that never read, and a
# two-name batch's latency while 4 exports stream, and /metrics after 10,000 distinct feedback model names. Usage: tools/hardening/bulk_answers.sh [KEYWORD-TARGET]
# KEYWORD-TARGET defaults to /v1/keywords?limit=10000, the largest page; a build that still answers the whole list
# without parameters is measured with /v1/keywords.
source "$(dirname "$0")/common.sh"
build_release
TARGET="${1:-/v1/keywords?limit=10000}"
STORE="file:$WORK/keywords.overlay.json"
start_server --store "$STORE" --access-log off
python3 "$ROOT/tools/hardening/bulk_answers.py" "$PORT" "$SERVER_PID" keywords "$TARGET"
python3 "$ROOT/tools/hardening/bulk_answers.py" "$PORT" "$SERVER_PID" exports
# A fresh server, so the exports above hold nothing of its memory or workers.
kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true
start_server --store "$STORE" --access-log off
python3 "$ROOT/tools/hardening/bulk_answers.py" "$PORT" "$SERVER_PID" batch
python3 "$ROOT/tools/hardening/bulk_answers.py" "$PORT" "$SERVER_PID" labels
