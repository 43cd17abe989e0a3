#!/usr/bin/env bash
# The cost of a shadow model for the live answers: wrk on POST /v1/suggest (32 connections) against one
# `kwsuggest serve`, alternating rounds with no shadow and with a candidate in shadow at --fraction 0.1
# (`kwsuggest model shadow`), medians of p50 and p99 per setting, and the shadow's own counters.
#
# Usage: bench/shadow.sh [KWSUGGEST_BIN] [CANDIDATE_DIR]
#   CANDIDATE_DIR  the version put in shadow (default: a copy of models/default under another version, which
#                  scores exactly as much as the live model)
# Environment: DURATION=10s, ROUNDS=3, FRACTION=0.1
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/kwsuggest}
DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-3}
FRACTION=${FRACTION:-0.1}
command -v wrk >/dev/null || { echo "shadow.sh: wrk not found (apt-get install -y wrk)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kwsuggest-shadow.XXXXXX")
SERVER=""
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

CANDIDATE=${2:-}
if [ -z "$CANDIDATE" ]; then
    CANDIDATE="$WORK/candidate"
    cp -r models/default "$CANDIDATE"
    python3 - "$CANDIDATE/manifest.json" <<'PY'
import json, sys
manifest = json.load(open(sys.argv[1]))
manifest["model_version"] += "-shadow"
json.dump(manifest, open(sys.argv[1], "w"), indent=2, ensure_ascii=False)
PY
fi
STORE="file:$WORK/store/keywords.overlay.json"
mkdir -p "$WORK/store"
VERSION=$("$BIN" model push "$CANDIDATE" --store "$STORE" | tail -n 1)
"$BIN" serve --port 0 --store "$STORE" --threads 2 --access-log off > "$WORK/out" 2> "$WORK/err" &
SERVER=$!
for _ in $(seq 200); do grep -q listening "$WORK/out" 2>/dev/null && break; sleep 0.05; done
PORT=$(grep -o '[0-9]*$' "$WORK/out" | head -1)
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$PORT/readyz" > /dev/null && break; sleep 0.1; done
URL="http://127.0.0.1:$PORT/v1/suggest"

# wait_shadow WANT: until /readyz shows the shadow (WANT=on) or none (WANT=off)
wait_shadow() {
    for _ in $(seq 200); do
        if curl -s "http://127.0.0.1:$PORT/readyz" | grep -q '"shadow"'; then [ "$1" = on ] && return 0
        else [ "$1" = off ] && return 0; fi
        sleep 0.05
    done
    echo "shadow.sh: the shadow did not turn $1" >&2; exit 1
}
ms() { awk -v v="$1" 'BEGIN { if (v ~ /us$/) printf "%.3f", v / 1000; else if (v ~ /ms$/) printf "%.3f", v + 0; else printf "%.3f", v * 1000 }'; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

wrk -t2 -c32 -d3s -s tools/hardening/post.lua "$URL" > /dev/null
for round in $(seq "$ROUNDS"); do
    for setting in off on; do
        if [ "$setting" = on ]; then
            "$BIN" model shadow "$VERSION" --store "$STORE" --fraction "$FRACTION" > /dev/null; wait_shadow on
        else
            "$BIN" model shadow --off --store "$STORE" > /dev/null; wait_shadow off
        fi
        wrk -t2 -c32 -d"$DURATION" --latency -s tools/hardening/post.lua "$URL" > "$WORK/$setting-$round.txt"
        echo "$(ms "$(awk '/^ +50%/ {print $2}' "$WORK/$setting-$round.txt")") $(ms "$(awk '/^ +99%/ {print $2}' "$WORK/$setting-$round.txt")") $(awk '/^Requests\/sec/ {print $2}' "$WORK/$setting-$round.txt")" >> "$WORK/$setting.txt"
        grep -q 'Non-2xx\|Socket errors' "$WORK/$setting-$round.txt" && { echo "shadow.sh: failed requests"; cat "$WORK/$setting-$round.txt"; exit 1; }
        echo "round $round, shadow $setting: p50 ms, p99 ms, requests/s: $(tail -1 "$WORK/$setting.txt")" >&2
    done
done
echo "| shadow | p50 ms | p99 ms | requests/s |"
echo "| --- | ---: | ---: | ---: |"
for setting in off on; do
    label=$([ "$setting" = on ] && echo "fraction $FRACTION" || echo "none")
    echo "| $label | $(cut -d' ' -f1 "$WORK/$setting.txt" | median) | $(cut -d' ' -f2 "$WORK/$setting.txt" | median) | $(cut -d' ' -f3 "$WORK/$setting.txt" | median) |"
done
echo
curl -s "http://127.0.0.1:$PORT/metrics" | grep -E '^kwsuggest_shadow_(requests|top1_agreements|dropped)_total'
