#!/usr/bin/env bash
# Loads the admin page in headless Chromium (Debian package `chromium`), lets the page's self-test type a
# product name, wait for the five suggestion buttons, click the first and check the keyword field; then
# saves a screenshot of the page after the click.
#
# Usage: tools/browser/check_admin.sh [KWSUGGEST_BIN] [NAME]
#   KWSUGGEST_BIN  default .build/release/kwsuggest (falls back to .build/debug/kwsuggest)
#   NAME           product name to type (default 淡路島産 カラーにんじん 3本)
# Environment: MODEL (default models/default), OUT (screenshot, default tools/browser/admin.png)
# Exit 0 when the page reports SELFTEST PASS.
set -euo pipefail
cd "$(dirname "$0")/../.."

BIN=${1:-.build/release/kwsuggest}
[ -x "$BIN" ] || BIN=.build/debug/kwsuggest
NAME=${2:-淡路島産 カラーにんじん 3本}
MODEL=${MODEL:-models/default}
OUT=${OUT:-tools/browser/admin.png}
command -v chromium >/dev/null || { echo "chromium not found (apt-get install -y chromium)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kwsuggest-browser.XXXXXX")
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# Keyword changes from this check must not touch the model directory: use a scratch overlay.
"$BIN" serve --port 0 --model "$MODEL" --overlay "$WORK/overlay.json" > "$WORK/stdout" 2> "$WORK/stderr" &
SERVER_PID=$!
for _ in $(seq 100); do grep -q "listening on" "$WORK/stdout" 2>/dev/null && break; sleep 0.1; done
URL=$(head -1 "$WORK/stdout" | sed 's/^listening on //')
[ -n "$URL" ] || { echo "server did not start" >&2; cat "$WORK/stderr" >&2; exit 1; }
for _ in $(seq 100); do curl -sf "$URL/readyz" >/dev/null && break; sleep 0.1; done

ENCODED=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$NAME")
PAGE="$URL/?selftest=$ENCODED"
FLAGS=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --hide-scrollbars
       --user-data-dir="$WORK/profile" --virtual-time-budget=8000 --window-size=900,600)

# 1. The DOM after the self-test ran: the verdict is in <pre id="selftest"> and the title.
chromium "${FLAGS[@]}" --dump-dom "$PAGE" > "$WORK/dom.html" 2> "$WORK/chromium.log" || true
VERDICT=$(grep -o 'SELFTEST [A-Z]*: [^<]*' "$WORK/dom.html" | head -1 || true)
BUTTONS=$(grep -o '<button type="button" data-keyword="[^"]*"' "$WORK/dom.html" | wc -l)
KEYWORD_VALUE=$(grep -o "keyword field = '[^']*'" "$WORK/dom.html" | head -1 || true)

# 2. A screenshot of the same state.
chromium "${FLAGS[@]}" --screenshot="$PWD/$OUT" "$PAGE" >> "$WORK/chromium.log" 2>&1 || true

echo "page:       $PAGE"
echo "verdict:    ${VERDICT:-<none>}"
echo "buttons:    $BUTTONS"
echo "field:      ${KEYWORD_VALUE:-<none>}"
echo "screenshot: $OUT ($( [ -f "$OUT" ] && stat -c %s "$OUT" || echo missing) bytes)"
case "$VERDICT" in
    "SELFTEST PASS"*) [ "$BUTTONS" -eq 5 ] && exit 0 ;;
esac
echo "admin page check FAILED" >&2
tail -20 "$WORK/chromium.log" >&2
exit 1
