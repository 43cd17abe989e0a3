#!/usr/bin/env bash
# Real-browser tests of the workbench (the admin page): headless Chromium driven through WebDriver by Debian's
# chromedriver and python3-selenium, against a live server with an admin token and a scratch store.
#
# Usage: tools/browser/run.sh [KWSUGGEST_BIN]
#   KWSUGGEST_BIN  default .build/release/kwsuggest (falls back to .build/debug/kwsuggest)
# Environment: MODEL (default models/default); SCREENSHOTS=DIR saves a screenshot of each state there
#   (docs/images holds the ones the docs show).
# Needs the Debian packages chromium, chromium-driver and python3-selenium (tools/test.sh installs them).
# Prints one line per test and a closing "N passed, N failed"; exits non-zero when a test failed.
set -euo pipefail
cd "$(dirname "$0")/../.."

BIN=${1:-.build/release/kwsuggest}
[ -x "$BIN" ] || BIN=.build/debug/kwsuggest
MODEL=${MODEL:-models/default}
TOKEN=browser-test-token
for program in /usr/bin/chromium /usr/bin/chromedriver; do
    [ -x "$program" ] || { echo "$program not found (apt-get install chromium chromium-driver python3-selenium)" >&2; exit 1; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kwsuggest-browser.XXXXXX")
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# Keyword changes and feedback from these tests go to a scratch store, never to the model directory.
# No overlap share: the queue tests check that two sessions never see the same item.
KWSUGGEST_ADMIN_TOKEN=$TOKEN "$BIN" serve --port 0 --model "$MODEL" --overlay "$WORK/overlay.json" \
    --queue-overlap 0 --queue-audit 0 \
    > "$WORK/stdout" 2> "$WORK/stderr" &
SERVER_PID=$!
for _ in $(seq 100); do grep -q "listening on" "$WORK/stdout" 2>/dev/null && break; sleep 0.1; done
URL=$(head -1 "$WORK/stdout" | sed 's/^listening on //')
[ -n "$URL" ] || { echo "server did not start" >&2; cat "$WORK/stderr" >&2; exit 1; }
for _ in $(seq 300); do curl -sf "$URL/readyz" >/dev/null && break; sleep 0.1; done

# Debian's python3 (where python3-selenium lives), never a pyenv or venv python.
status=0
SE_AVOID_STATS=true KWSUGGEST_URL=$URL KWSUGGEST_TOKEN=$TOKEN DOWNLOADS="$WORK/downloads" \
    /usr/bin/python3 tools/browser/workbench_test.py || status=$?
if [ "$status" -ne 0 ]; then
    echo "--- the server's last log lines:" >&2
    tail -20 "$WORK/stderr" >&2
fi
exit "$status"
