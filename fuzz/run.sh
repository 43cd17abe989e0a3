#!/usr/bin/env bash
# Builds (fuzz/build.sh) and runs the libFuzzer target, bounded by a run count and a time limit.
# Usage: bash fuzz/run.sh [RUNS] [SECONDS]      (defaults 1000000 runs, 600 s)
# The working corpus grows in .build-tools/fuzz/corpus (seeded from fuzz/seeds and the regression corpus);
# crashes, if any, are written to .build-tools/fuzz/crash-* and make the script exit non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-1000000}
SECONDS_MAX=${2:-600}
bash fuzz/build.sh
mkdir -p .build-tools/fuzz/corpus
# SWIFT_BACKTRACE off: libFuzzer prints the stack itself, and the Swift backtracer is slow on a crash.
SWIFT_BACKTRACE=enable=no .build-tools/fuzz/http-fuzzer -runs="$RUNS" -max_total_time="$SECONDS_MAX" -timeout=5 \
  -max_len=4096 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=.build-tools/fuzz/ \
  .build-tools/fuzz/corpus fuzz/seeds Tests/KeywordHTTPTests/Fixtures/fuzz
