#!/usr/bin/env bash
# Checks that the served /openapi.json matches the server exactly, in both directions: schemathesis
# (`st run --checks all`) generates valid and invalid requests for every operation from the document and checks
# every answer against it. Runs twice against a live server on a scratch overlay: without an admin token, and
# with KWSUGGEST_ADMIN_TOKEN set (the requests then carry the token; schemathesis also checks that dropping it
# gives 401). tools/contract/schemathesis.toml lets a valid request get 412 (a stale If-Match).
#
# Usage: tools/contract/schemathesis.sh [KWSUGGEST_BIN]
#   KWSUGGEST_BIN  default .build/release/kwsuggest (falls back to .build/debug/kwsuggest)
# Environment: MODEL (default models/default), MAX_EXAMPLES (per operation, default 40), SEED (default 1),
#   ST (the st executable; default: a venv in .build/contract-venv with schemathesis==4.32.5 from PyPI).
# Prints one line per run and a closing "N passed, N failed" (a run passes with 0 failures and 0 errors);
# exits non-zero when a run failed.
set -euo pipefail
cd "$(dirname "$0")/../.."

VERSION=4.32.5
BIN=${1:-.build/release/kwsuggest}
[ -x "$BIN" ] || BIN=.build/debug/kwsuggest
MODEL=${MODEL:-models/default}
MAX_EXAMPLES=${MAX_EXAMPLES:-40}
SEED=${SEED:-1}
ST=${ST:-}
if [ -z "$ST" ]; then
    VENV=.build/contract-venv
    if ! "$VENV/bin/st" --version 2>/dev/null | grep -q "$VERSION"; then
        echo "schemathesis.sh: installing schemathesis==$VERSION into $VENV" >&2
        python3 -m venv "$VENV" >&2
        "$VENV/bin/pip" install -q "schemathesis==$VERSION" >&2
    fi
    ST=$VENV/bin/st
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kwsuggest-contract.XXXXXX")
SERVER_PID=""
stop_server() {
    if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    SERVER_PID=""
}
trap 'stop_server; rm -rf "$WORK"' EXIT

# start_server TOKEN: serves MODEL on a free port with a scratch overlay; sets URL.
start_server() {
    rm -f "$WORK/overlay.json" "$WORK/stdout"
    KWSUGGEST_ADMIN_TOKEN="$1" "$BIN" serve --port 0 --model "$MODEL" --overlay "$WORK/overlay.json" \
        > "$WORK/stdout" 2> "$WORK/stderr" &
    SERVER_PID=$!
    for _ in $(seq 100); do grep -q "listening on" "$WORK/stdout" 2>/dev/null && break; sleep 0.1; done
    URL=$(head -1 "$WORK/stdout" | sed 's/^listening on //')
    [ -n "$URL" ] || { echo "server did not start" >&2; cat "$WORK/stderr" >&2; exit 1; }
    for _ in $(seq 300); do curl -sf "$URL/readyz" >/dev/null && return 0; sleep 0.1; done
    echo "server never became ready" >&2
    exit 1
}

PASSED=0
FAILED=0
# run_st LABEL ARGS...: one schemathesis run against URL; counts it as passed or failed.
run_st() {
    local label=$1
    shift
    local log="$WORK/$label.log" status=0
    "$ST" --config-file tools/contract/schemathesis.toml run "$URL/openapi.json" --checks all --max-examples "$MAX_EXAMPLES" --seed "$SEED" \
        --generation-deterministic --no-color --workers 1 --report junit --report-junit-path "$WORK/$label.xml" \
        "$@" > "$log" 2>&1 || status=$?
    local summary
    summary=$(grep -E '^=+ .* in [0-9.]+s =+$' "$log" | tail -1 || true)
    local cases
    cases=$(grep -a -E '^ +[0-9]+ generated' "$log" | tail -1 | sed 's/^ *//' || true)
    if [ "$status" -eq 0 ]; then
        PASSED=$((PASSED + 1))
        echo "schemathesis $label: ok, ${cases:-? generated} (${summary:-no summary})"
    else
        FAILED=$((FAILED + 1))
        echo "schemathesis $label: FAILED, exit $status (${summary:-no summary})"
        sed -n '/=\+ \(FAILURES\|ERRORS\) =\+/,$p' "$log" | head -150
    fi
}

start_server ""
run_st without-token
stop_server

TOKEN=contract-test-token
start_server "$TOKEN"
run_st with-token -H "Authorization: Bearer $TOKEN"
stop_server

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
