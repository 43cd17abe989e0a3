#!/usr/bin/env bash
# Time and peak memory of parsing bodies of tiny JSON values as large as the batch and feedback byte caps, with
# the StrictJSON parser of a commit (default HEAD), under the route's value cap when that parser has one.
# Usage: bench/json/parse_memory.sh [COMMIT]
set -euo pipefail
cd "$(dirname "$0")/../.."
REF=${1:-HEAD}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kwsuggest-parse.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
for file in $(git ls-tree --name-only "$REF" Sources/StrictJSON/); do git show "$REF:$file" > "$WORK/$(basename "$file")"; done
FLAGS=()
grep -q "maxValues" "$WORK/JSONParser.swift" && FLAGS=(-D VALUE_CAP)
cp bench/json/parse_memory.swift "$WORK/main.swift"  # top-level code must be main.swift
swiftc -O "${FLAGS[@]}" -o "$WORK/parse" "$WORK"/*.swift 2>&1 | { grep -v "warning" || true; }
echo "StrictJSON of $(git rev-parse --short "$REF")${FLAGS:+, with the value cap}"
for shape in batch-objects batch-numbers feedback-objects; do "$WORK/parse" "$shape"; done
