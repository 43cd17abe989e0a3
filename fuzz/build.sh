#!/usr/bin/env bash
# Builds the libFuzzer binary for the HTTP request parser and the JSON request decoding with swiftc directly,
# outside the SwiftPM build (Package.swift declares no fuzz target and builds nothing with sanitizers).
#
# The modules the request decoding stands on (the strict JSON reader, the HTTP core, the socket layer and what
# they import, the store contract that holds the keyword and name rules, and APICore, the API's request decoding
# and errors) are compiled as they are, each from its whole directory under Sources/, with the fuzzer's coverage
# and AddressSanitizer, and with testing enabled, so fuzz/FuzzTarget.swift reaches their internal types through
# `@testable import`, as the tests do.
# Output: .build-tools/fuzz/http-fuzzer (override with OUT=path).
# Usage: bash fuzz/build.sh            then see fuzz/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-.build-tools/fuzz/http-fuzzer}
# In dependency order (each as Package.swift declares it); CSystem is the C shim the system-call wrappers use.
modules=(Platform StrictJSON EventLog Locking Sockets HTTPCore StoreInterface TeamQueue APICore)
# The C shims they import: CSystem (system calls) and CDigest (SHA-256), each one C file and one header.
shims=(CSystem:CSystem.c CDigest:sha256.c)
for file in Sources/CSystem/CSystem.c Sources/CSystem/include/CSystem.h Sources/CDigest/sha256.c Sources/CDigest/include/CDigest.h; do
  [[ -f $file ]] || { echo "fuzz/build.sh: $file is missing; update the file list in fuzz/build.sh" >&2; exit 1; }
done
for module in "${modules[@]}"; do
  [[ -n $(find "Sources/$module" -name '*.swift' 2>/dev/null) ]] ||
    { echo "fuzz/build.sh: no Swift files in Sources/$module; update the module list in fuzz/build.sh" >&2; exit 1; }
done
mkdir -p "$(dirname "$OUT")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# -package-name: the sources use the `package` access level; -enable-testing: the target reaches the HTTP core's
# internal parser through `@testable import`, as the tests do.
swift_flags=(-sanitize=fuzzer,address -O -g -parse-as-library -package-name kwsuggest -enable-testing
  -enable-upcoming-feature ExistentialAny -I "$work")

objects=()
for shim in "${shims[@]}"; do
  name=${shim%%:*} source=${shim#*:}
  mkdir -p "$work/$name"
  printf 'module %s {\n  header "%s"\n  export *\n}\n' "$name" "$PWD/Sources/$name/include/$name.h" > "$work/$name/module.modulemap"
  clang -c -O1 -g -fsanitize=fuzzer-no-link,address -I "Sources/$name/include" "Sources/$name/$source" -o "$work/$name.o"
  objects+=("$work/$name.o")
done

for module in "${modules[@]}"; do
  mapfile -t files < <(find "Sources/$module" -name '*.swift' | sort)
  swiftc "${swift_flags[@]}" -module-name "$module" -wmo -emit-module -emit-module-path "$work/$module.swiftmodule" \
    -c "${files[@]}" -o "$work/$module.o"
  objects+=("$work/$module.o")
done

swiftc "${swift_flags[@]}" -module-name KeywordServerFuzz \
  fuzz/FuzzTarget.swift "${objects[@]}" -o "$OUT" 2>&1 | { grep -v "Cannot export local symbol" || true; }
echo "built $OUT"
