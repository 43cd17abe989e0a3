#!/usr/bin/env bash
# Builds the libFuzzer binary for the HTTP request parser and the JSON request decoding.
# The sources it needs (StrictJSON, the HTTP core's parser and types, the API's request decoding) are
# compiled together with fuzz/FuzzTarget.swift into one module, outside the SwiftPM build, so the target
# reaches internal types such as RequestParser directly; their imports of each other are dropped in the
# copies compiled here. Output: .build-tools/fuzz/http-fuzzer (override with OUT=path).
# Usage: bash fuzz/build.sh            then see fuzz/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-.build-tools/fuzz/http-fuzzer}
mkdir -p "$(dirname "$OUT")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sources=(
  Sources/StrictJSON/*.swift Sources/Platform/*.swift
  Sources/HTTPCore/HTTP/HTTPTypes.swift Sources/HTTPCore/HTTP/RequestParser.swift Sources/HTTPCore/HTTP/BodyFraming.swift
  Sources/HTTPCore/HTTP/HTTPParseError.swift
  Sources/HTTPCore/HTTP/ChunkedBody.swift Sources/HTTPCore/HTTP/HTTPGrammar.swift
  Sources/HTTPCore/HTTP/ServerConfiguration.swift Sources/HTTPCore/HTTP/Responder.swift
  Sources/HTTPCore/HTTP/ErrorCode.swift Sources/HTTPCore/HTTP/ResponseStream.swift Sources/Sockets/Syscalls.swift
  Sources/APICore/RequestDecoding.swift Sources/APICore/APIError.swift
  Sources/APICore/APIErrorCode.swift Sources/StoreInterface/KeywordRules.swift
)
copies=()
for source in "${sources[@]}"; do
  copy="$work/$(basename "$(dirname "$source")")-$(basename "$source")"
  sed -E '/^import (StrictJSON|HTTPCore|Locking|StoreInterface|Sockets|APICore|Platform)$/d' "$source" > "$copy"
  copies+=("$copy")
done
# The C shim the system-call wrappers use, as a module of its own.
mkdir -p "$work/CSystem"
printf 'module CSystem {\n  header "%s"\n  export *\n}\n' "$PWD/Sources/CSystem/include/CSystem.h" > "$work/CSystem/module.modulemap"
clang -c -O1 -g -fsanitize=fuzzer-no-link,address -I Sources/CSystem/include Sources/CSystem/CSystem.c -o "$work/CSystem.o"
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name KeywordServerFuzz -package-name kwsuggest \
  -enable-upcoming-feature ExistentialAny -I "$work/CSystem" \
  "${copies[@]}" fuzz/FuzzTarget.swift "$work/CSystem.o" -o "$OUT" 2>&1 | { grep -v "Cannot export local symbol" || true; }
echo "built $OUT"
