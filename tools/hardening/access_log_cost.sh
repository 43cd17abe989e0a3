#!/usr/bin/env bash
# Cost of the access log: wrk against GET /healthz and POST /v1/suggest with --access-log on (lines to a file),
# errors and off, in alternating rounds. Prints req/s and p99 per mode and the log bytes written.
# Usage: tools/hardening/access_log_cost.sh [ROUNDS] [SECONDS] [CONNECTIONS]
source "$(dirname "$0")/common.sh"
build_release
ROUNDS=${1:-3}; SECONDS_EACH=${2:-5}; CONNS=${3:-32}
for mode in on errors off; do
    "$BIN" serve --port 0 --overlay "$WORK/overlay.json" --access-log "$mode" > "$WORK/$mode.out" 2> "$WORK/$mode.log" &
    PIDS+=("$!")
    eval "PID_$mode=$!"
done
port_of() { for _ in $(seq 200); do grep -q listening "$WORK/$1.out" 2>/dev/null && break; sleep 0.05; done; grep -o '[0-9]*$' "$WORK/$1.out" | head -1; }
for mode in on errors off; do
    eval "PORT_$mode=$(port_of $mode)"
    p=$(eval echo "\$PORT_$mode")
    for _ in $(seq 600); do curl -sf "http://127.0.0.1:$p/readyz" > /dev/null && break; sleep 0.1; done
done
for round in $(seq "$ROUNDS"); do
    for route in healthz suggest; do
        for mode in on errors off; do
            p=$(eval echo "\$PORT_$mode")
            before=$(stat -c %s "$WORK/$mode.log")
            if [ "$route" = healthz ]; then
                out=$(wrk -t2 -c"$CONNS" -d"${SECONDS_EACH}s" --latency "http://127.0.0.1:$p/healthz")
            else
                out=$(wrk -t2 -c"$CONNS" -d"${SECONDS_EACH}s" --latency -s "$ROOT/tools/hardening/post.lua" "http://127.0.0.1:$p/v1/suggest")
            fi
            after=$(stat -c %s "$WORK/$mode.log")
            rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
            p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
            echo "round $round $route access-log=$mode: $rps req/s, p99 $p99, log $(( (after - before) / 1024 )) KiB"
        done
    done
done
