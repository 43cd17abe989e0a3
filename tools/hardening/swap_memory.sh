#!/usr/bin/env bash
# Resident memory across model swaps: one `kwsuggest serve` on a file store whose registry holds two versions
# (copies of models/default under two names), promoted in turn SWAPS times (`model promote --force`); after each
# swap is served (/readyz names the version) and a few suggestions ran, prints the server's RSS. The bound:
# the RSS after the last swap stays within 1.5x of the RSS after the first.
# Usage: tools/hardening/swap_memory.sh [SWAPS]   (default 16; KWSUGGEST_BIN to measure another build)
source "$(dirname "$0")/common.sh"
SWAPS=${1:-16}
build_release
STORE="file:$WORK/store/keywords.overlay.json"
mkdir -p "$WORK/store"
for version in swap-a swap-b; do
    cp -r "$ROOT/models/default" "$WORK/$version"
    python3 - "$WORK/$version/manifest.json" "$version" <<'PY'
import json, sys
path, version = sys.argv[1], sys.argv[2]
manifest = json.load(open(path))
manifest["model_version"] = version
json.dump(manifest, open(path, "w"))
PY
    "$BIN" model push --store "$STORE" "$WORK/$version" > /dev/null
done
start_server --store "$STORE" --model "$ROOT/models/default"
URL="http://127.0.0.1:$PORT"
suggest() { for name in "淡路島産 カラーにんじん 3本" "国産 豚バラ肉 500g" "北海道 じゃがいも 1kg"; do
    curl -s -o /dev/null -X POST "$URL/v1/suggest" -H 'Content-Type: application/json' -d "{\"name\": \"$name\"}"; done; }
suggest
START=$(rss_kib "$SERVER_PID")
echo "start: $((START / 1024)) MB"
FIRST=0
for swap in $(seq "$SWAPS"); do
    version=$([ $((swap % 2)) = 1 ] && echo swap-a || echo swap-b)
    "$BIN" model promote --store "$STORE" --force "$version" > /dev/null 2>&1
    for _ in $(seq 600); do curl -s "$URL/readyz" | grep -q "\"model\":\"$version\"" && break; sleep 0.1; done
    suggest
    sleep 1
    RSS=$(rss_kib "$SERVER_PID")
    [ "$swap" = 1 ] && FIRST=$RSS
    echo "after swap $swap ($version): $((RSS / 1024)) MB"
done
python3 -c "import sys; f, l = int(sys.argv[1]), int(sys.argv[2]); print(f'last / first swap: {l / f:.2f}x (bound 1.5x)'); sys.exit(0 if l <= 1.5 * f else 1)" "$FIRST" "$RSS"
