#!/usr/bin/env bash
# Builds the libFuzzer binary for the HTTP request parser and the JSON request decoding.
# The server sources it needs are compiled together with fuzz/FuzzTarget.swift into one module, outside
# the SwiftPM build. Output: .build-fuzz/http-fuzzer (override with OUT=path).
# Usage: bash fuzz/build.sh            then see fuzz/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-.build-fuzz/http-fuzzer}
mkdir -p "$(dirname "$OUT")"
S=Sources/KeywordServer
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name KeywordServerFuzz \
  -enable-upcoming-feature ExistentialAny \
  "$S/HTTP/HTTPTypes.swift" "$S/HTTP/RequestParser.swift" "$S/HTTP/ServerConfiguration.swift" \
  "$S/HTTP/Responder.swift" "$S/JSON/JSONParser.swift" "$S/JSON/JSONWriter.swift" \
  "$S/API/RequestDecoding.swift" "$S/API/APIError.swift" \
  fuzz/FuzzTarget.swift -o "$OUT" 2>&1 | { grep -v "Cannot export local symbol" || true; }
echo "built $OUT"
