#!/usr/bin/env bash
# 60 s of wrk at saturation on POST /v1/suggest (valid requests): zero non-2xx, zero socket errors, and
# VmRSS flat (sampled every 5 s; the end must be within 10% + 8 MiB of the value after warm-up).
# Usage: tools/hardening/load.sh [SECONDS] [CONNECTIONS]
source "$(dirname "$0")/common.sh"
build_release
DURATION=${1:-60}
CONNS=${2:-64}
start_server
URL="http://127.0.0.1:$PORT/v1/suggest"
wrk -t2 -c"$CONNS" -d5s -s "$ROOT/tools/hardening/post.lua" "$URL" > "$WORK/warm.txt"   # warm-up: caches, buffers
RSS_START=$(rss_kib "$SERVER_PID"); FD_START=$(fd_count "$SERVER_PID")
echo "after 5 s warm-up: VmRSS $RSS_START KiB, $FD_START fds"
wrk -t2 -c"$CONNS" -d"${DURATION}s" --latency -s "$ROOT/tools/hardening/post.lua" "$URL" > "$WORK/wrk.txt" &
WRK=$!; PIDS+=("$WRK")
SAMPLES=()
for _ in $(seq $((DURATION / 5))); do sleep 5; SAMPLES+=("$(rss_kib "$SERVER_PID")"); done
wait "$WRK"
sleep 1
RSS_END=$(rss_kib "$SERVER_PID"); FD_END=$(fd_count "$SERVER_PID")
cat "$WORK/wrk.txt"
echo "VmRSS KiB every 5 s: ${SAMPLES[*]}"
echo "VmRSS: $RSS_START KiB after warm-up, $RSS_END KiB at the end; fds $FD_START -> $FD_END"
NON2XX=$(grep -o 'Non-2xx or 3xx responses: [0-9]*' "$WORK/wrk.txt" | grep -o '[0-9]*$' || echo 0)
ERRORS=$(grep -o 'Socket errors: .*' "$WORK/wrk.txt" || echo "Socket errors: none")
echo "non-2xx: $NON2XX; $ERRORS"
LIMIT=$((RSS_START + RSS_START / 10 + 8192))
FAIL=0
[ "$NON2XX" = 0 ] || { echo "FAIL: non-2xx answers"; FAIL=1; }
grep -q 'Socket errors' "$WORK/wrk.txt" && { echo "FAIL: socket errors"; FAIL=1; }
[ "$RSS_END" -le "$LIMIT" ] || { echo "FAIL: RSS grew beyond $LIMIT KiB"; FAIL=1; }
[ "$FAIL" = 0 ] && echo "PASS: all answers 2xx, RSS flat"
exit $FAIL
