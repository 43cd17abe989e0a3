#!/usr/bin/env bash
# Start-to-ready: wall time from launching `kwsuggest serve` to its first 200 on /readyz (model loaded,
# keywords encoded), and to the "listening on" line. RUNS launches, one at a time; prints each run and the medians.
# Usage: bench/startup.sh [KWSUGGEST_BIN]      (default .build/release/kwsuggest; env RUNS=7, KWSUGGEST_ARGS="")
# The poll is curl in a tight loop (each try costs a few ms), so the ready time is an upper bound by that much.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/kwsuggest}
RUNS=${RUNS:-7}
KWSUGGEST_ARGS=${KWSUGGEST_ARGS:-}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kwsuggest-startup.XXXXXX")
PID=
cleanup() { [ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

listening=(); ready=()
for run in $(seq "$RUNS"); do
    start=$(now_ms)
    # shellcheck disable=SC2086
    "$BIN" serve --host 127.0.0.1 --port 0 $KWSUGGEST_ARGS > "$WORK/out" 2> "$WORK/err" &
    PID=$!
    addr=
    until [ -n "$addr" ]; do
        addr=$(sed -n 's/^listening on http:\/\///p' "$WORK/out")
        kill -0 "$PID" 2>/dev/null || { cat "$WORK/err" >&2; echo "startup.sh: server exited" >&2; exit 1; }
    done
    heard=$(now_ms)
    until [ "$(curl -s -o /dev/null -m 1 -w '%{http_code}' "http://$addr/readyz" || true)" = 200 ]; do
        [ $(( $(now_ms) - start )) -lt 30000 ] || { echo "startup.sh: not ready after 30 s" >&2; exit 1; }
    done
    done_ms=$(now_ms)
    kill -TERM "$PID"; wait "$PID" 2>/dev/null || true; PID=
    listening+=($(( heard - start ))); ready+=($(( done_ms - start )))
    echo "run $run: listening after $(( heard - start )) ms, /readyz 200 after $(( done_ms - start )) ms"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "median of $RUNS: listening $(median "${listening[@]}") ms, ready $(median "${ready[@]}") ms (load average $(cut -d' ' -f1-3 /proc/loadavg))"
