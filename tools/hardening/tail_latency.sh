#!/usr/bin/env bash
# Where the tail of POST /v1/suggest at 32 connections comes from: wrk's latency percentiles next to the
# server's own histograms for the handler time and for the time a complete request waited on its event loop
# behind the other ready connections. Usage: tools/hardening/tail_latency.sh [SECONDS] [CONNECTIONS] [ROUNDS] [SERVE ARGS...]
source "$(dirname "$0")/common.sh"
build_release
SECONDS_EACH=${1:-10}; CONNS=${2:-32}; ROUNDS=${3:-3}
shift 3 2>/dev/null || shift $#
start_server --overlay "$WORK/overlay.json" --access-log off "$@"
wrk -t2 -c"$CONNS" -d2s -s "$ROOT/tools/hardening/post.lua" "http://127.0.0.1:$PORT/v1/suggest" > /dev/null
for round in $(seq "$ROUNDS"); do
    curl -s "http://127.0.0.1:$PORT/metrics" > "$WORK/before"
    wrk -t2 -c"$CONNS" -d"${SECONDS_EACH}s" --latency -s "$ROOT/tools/hardening/post.lua" \
        "http://127.0.0.1:$PORT/v1/suggest" > "$WORK/wrk"
    curl -s "http://127.0.0.1:$PORT/metrics" > "$WORK/after"
    python3 - "$WORK/before" "$WORK/after" "$WORK/wrk" "$round" <<'PY'
import re, sys
def histogram(path, name):
    rows = {}
    for line in open(path):
        m = re.match(name + r'_bucket\{le="([^"]+)"\} (\d+)', line)
        if m:
            rows[float("inf") if m.group(1) == "+Inf" else float(m.group(1))] = int(m.group(2))
    return rows
def quantile(before, after, q):
    bounds = sorted(after)
    counts = [after[b] - before.get(b, 0) for b in bounds]
    total = counts[-1]
    target = q * total
    for bound, cumulative in zip(bounds, counts):
        if cumulative >= target:
            return bound
    return float("inf")
wrk = open(sys.argv[3]).read()
rps = re.search(r"Requests/sec:\s+([\d.]+)", wrk).group(1)
pct = dict(re.findall(r"^\s+(50|90|99)%\s+(\S+)", wrk, re.M))
out = [f"round {sys.argv[4]}: {float(rps):,.0f} req/s; wrk p50 {pct.get('50')} p90 {pct.get('90')} p99 {pct.get('99')}"]
for name, label in (("kwsuggest_http_request_duration_seconds", "handler"), ("kwsuggest_http_request_queue_seconds", "queued on loop")):
    b, a = histogram(sys.argv[1], name), histogram(sys.argv[2], name)
    out.append(f"{label} p50 ≤ {quantile(b, a, 0.5) * 1000:g} ms, p99 ≤ {quantile(b, a, 0.99) * 1000:g} ms")
print("; ".join(out))
PY
done
