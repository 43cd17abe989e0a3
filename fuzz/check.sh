#!/usr/bin/env bash
# A short fuzzing run for the test command: builds the libFuzzer target (so it cannot silently stop compiling)
# and runs a bounded number of inputs from the seeds and the regression corpus. Prints "1 passed, 0 failed"
# when it builds and finds no crash, else "0 passed, 1 failed". Long runs: fuzz/run.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-20000}
if bash fuzz/run.sh "$RUNS" 60; then
  echo "1 passed, 0 failed"
else
  echo "0 passed, 1 failed"
  exit 1
fi
