#!/usr/bin/env bash
# A model swap under load, and a swap that fails, on one `serve` with a file store:
#   1. 20 s of wrk (32 connections, POST /v1/suggest) on the --model fallback: p99 before;
#   2. 20 s more, with `model promote --force` of CANDIDATE 5 s in: the time until /readyz names it, p99 during,
#      non-2xx answers and socket errors (must be none), and the process's resident memory sampled every 50 ms
#      (peak during the swap);
#   3. a version whose files lose keywords.txt in the registry (a disk fault after the push) is promoted under
#      the same load: the old model keeps serving, /readyz and /metrics report the failed load, no request fails.
# Usage: tools/model/swap_under_load.sh CANDIDATE_DIR [MODEL_DIR]
# KWSUGGEST_BIN names the binary (default: the release build of tools/hardening/common.sh).
source "$(dirname "$0")/../hardening/common.sh"
build_release
CANDIDATE=$(cd "$1" && pwd)
MODEL=${2:-$ROOT/models/default}
STORE="file:$WORK/store/keywords.overlay.json"
mkdir -p "$WORK/store"
start_server --model "$MODEL" --store "$STORE" --threads 2 --access-log off
URL="http://127.0.0.1:$PORT"
VERSION=$("$BIN" model push "$CANDIDATE" --store "$STORE" | tail -n 1)
echo "serving $(curl -s "$URL/readyz"); candidate $VERSION"

p99() { awk '/^ +99%/ {print $2}' "$1"; }
failures() {   # non-2xx answers and socket errors in a wrk report
    local non2xx errors
    non2xx=$(grep -o 'Non-2xx or 3xx responses: [0-9]*' "$1" | grep -o '[0-9]*$' || echo 0)
    errors=$(grep -o 'Socket errors: .*' "$1" || echo "Socket errors: none")
    echo "non-2xx $non2xx; $errors"
}
sample_rss() {   # sample_rss SECONDS OUT: VmRSS in KiB every 50 ms
    local end=$((SECONDS + $1))
    while [ $SECONDS -lt $end ]; do rss_kib "$SERVER_PID" >> "$2"; sleep 0.05; done
}
wait_for_model() {   # wait_for_model VERSION: seconds until /readyz names it (up to 30 s)
    local started now
    started=$(date +%s.%N)
    for _ in $(seq 600); do
        if curl -s "$URL/readyz" | grep -q "\"model\":\"$1\""; then
            now=$(date +%s.%N); awk -v a="$now" -v b="$started" 'BEGIN { printf "%.2f\n", a - b }'; return 0
        fi
        sleep 0.05
    done
    echo "never"
}

wrk -t2 -c32 -d5s -s "$ROOT/tools/hardening/post.lua" "$URL/v1/suggest" > /dev/null   # warm-up
wrk -t2 -c32 -d20s --latency -s "$ROOT/tools/hardening/post.lua" "$URL/v1/suggest" > "$WORK/before.txt"
echo "before: p99 $(p99 "$WORK/before.txt"); $(failures "$WORK/before.txt"); $(grep Requests/sec "$WORK/before.txt")"
RSS_STEADY=$(rss_kib "$SERVER_PID")

wrk -t2 -c32 -d20s --latency -s "$ROOT/tools/hardening/post.lua" "$URL/v1/suggest" > "$WORK/during.txt" &
WRK=$!; PIDS+=("$WRK")
sample_rss 19 "$WORK/rss.txt" &
SAMPLER=$!; PIDS+=("$SAMPLER")
sleep 5
"$BIN" model promote "$VERSION" --store "$STORE" --force > /dev/null 2>&1
SWAP=$(wait_for_model "$VERSION")
wait "$WRK"; wait "$SAMPLER" || true
PEAK=$(sort -n "$WORK/rss.txt" | tail -1)
echo "during: p99 $(p99 "$WORK/during.txt"); $(failures "$WORK/during.txt"); $(grep Requests/sec "$WORK/during.txt")"
echo "swap: /readyz named $VERSION ${SWAP} s after promote returned"
echo "memory: VmRSS $RSS_STEADY KiB under load before the swap, peak $PEAK KiB during it, $(rss_kib "$SERVER_PID") KiB after"
grep '"model_swapped"' "$SERVER_LOG" | tail -1

# The failed swap: a second version whose stored files lose one.
BROKEN="$WORK/broken"
cp -r "$MODEL" "$BROKEN"
python3 - "$BROKEN/manifest.json" <<'PY'
import json, sys
manifest = json.load(open(sys.argv[1]))
manifest["model_version"] += "-broken"
json.dump(manifest, open(sys.argv[1], "w"), indent=2, ensure_ascii=False)
PY
BROKEN_VERSION=$("$BIN" model push "$BROKEN" --store "$STORE" | tail -n 1)
rm "$WORK/store/keywords.overlay.registry/versions/$BROKEN_VERSION/keywords.txt"
wrk -t2 -c32 -d12s --latency -s "$ROOT/tools/hardening/post.lua" "$URL/v1/suggest" > "$WORK/failed.txt" &
WRK=$!; PIDS+=("$WRK")
sleep 3
"$BIN" model promote "$BROKEN_VERSION" --store "$STORE" --force > /dev/null 2>&1
sleep 6
READY=$(curl -s "$URL/readyz")
wait "$WRK"
echo "failed swap: $(failures "$WORK/failed.txt"); p99 $(p99 "$WORK/failed.txt")"
echo "  /readyz: $READY"
echo "  metrics: $(curl -s "$URL/metrics" | grep -E '^kwsuggest_model_(load_failed|load_failures_total)' | tr '\n' ' ')"
grep '"model_load_failed"' "$SERVER_LOG" | tail -1
FAIL=0
grep -q 'Non-2xx\|Socket errors' "$WORK/during.txt" "$WORK/failed.txt" && { echo "FAIL: failed requests"; FAIL=1; }
echo "$READY" | grep -q "\"model\":\"$VERSION\"" || { echo "FAIL: the old model is not serving"; FAIL=1; }
echo "$READY" | grep -q '"model_load_error"' || { echo "FAIL: /readyz does not report the failed load"; FAIL=1; }
[ "$FAIL" = 0 ] && echo "PASS: 0 failed requests; swapped in ${SWAP} s; the failed load left $VERSION serving"
exit $FAIL
