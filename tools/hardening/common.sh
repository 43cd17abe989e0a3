# Shared by the hardening scripts: release build, start/stop a server on a free loopback port, /proc figures.
# Source it; it sets a trap that kills every process the script started.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# KWSUGGEST_BIN runs the scripts against another build (for side-by-side comparisons); it skips the build.
BIN="${KWSUGGEST_BIN:-$ROOT/.build-tools/release/release/kwsuggest}"
WORK=$(mktemp -d /tmp/kwsuggest-hard.XXXXXX)
PIDS=()

cleanup() {
    for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && wait "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Builds the release binary unless SKIP_BUILD=1.
build_release() {
    if [ -z "${KWSUGGEST_BIN:-}" ] && { [ "${SKIP_BUILD:-0}" != 1 ] || [ ! -x "$BIN" ]; }; then
        (cd "$ROOT" && swift build -c release --scratch-path .build-tools/release --product kwsuggest >&2)
    fi
}

# start_server [extra serve args...]: starts kwsuggest serve on port 0; sets SERVER_PID, PORT, SERVER_LOG.
start_server() {
    SERVER_LOG="$WORK/serve.$RANDOM.err"
    local out="$WORK/serve.$RANDOM.out"
    "$BIN" serve --port 0 "$@" > "$out" 2> "$SERVER_LOG" &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    for _ in $(seq 200); do grep -q listening "$out" 2>/dev/null && break; sleep 0.05; done
    PORT=$(grep -o '[0-9]*$' "$out" | head -1)
    [ -n "$PORT" ] || { echo "server did not start"; cat "$SERVER_LOG"; exit 1; }
    for _ in $(seq 600); do curl -sf "http://127.0.0.1:$PORT/readyz" > /dev/null && return 0; sleep 0.1; done
    echo "server not ready after 60 s"; cat "$SERVER_LOG"; exit 1
}

fd_count() { ls "/proc/$1/fd" | wc -l; }
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
thread_count() { awk '/^Threads/ {print $2}' "/proc/$1/status"; }
