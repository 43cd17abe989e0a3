#!/usr/bin/env bash
# Load time and peak memory of the word-vector loaders, through the release CLI.
#
#   bash bench/vectors/run.sh [path/to/kwsuggest]
#
# Each case runs `kwsuggest print-word-vectors FILE` with one query word on stdin, so the time is
# process start + load + one lookup; `/usr/bin/time -v` gives wall time and peak RSS. Best of 3
# runs by wall time; CPU (user + sys) of that run is shown too, as wall time suffers on a busy machine. `kwsuggest --version` is the baseline (process start, no vectors).
# Cases: a generated 100,000 × 300 .vec (in /tmp, not committed), the fastText .bin/.vec parity
# fixture, and the shipped models/default/vectors.kwv.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${1:-}"
if [ -z "$BIN" ]; then
    swift build -c release --product kwsuggest >/dev/null
    BIN="$(swift build -c release --show-bin-path)/kwsuggest"
fi
BIG=/tmp/kwsuggest-bench-100k-300.vec
if [ ! -f "$BIG" ]; then
    python3 - "$BIG" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(0)
rows, dim = 100_000, 300
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write(f"{rows} {dim}\n")
    for i in range(rows):
        values = rng.standard_normal(dim).astype(np.float32) * 0.1
        f.write(f"語{i} " + "".join("%.5g " % v for v in values) + "\n")
PY
fi

measure() { # label, then the command's arguments
    local label="$1"; shift
    local best_wall="" best_rss="" best_cpu=""
    for _ in 1 2 3; do
        local log; log="$(mktemp)"
        echo "語1" | /usr/bin/time -v "$BIN" "$@" >/dev/null 2>"$log"
        local wall rss cpu
        wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
        rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
        cpu=$(awk -F': ' '/User time|System time/ {sum += $2} END {print sum}' "$log")
        rm -f "$log"
        if [ -z "$best_wall" ] || awk "BEGIN { exit !($wall < $best_wall) }"; then best_wall=$wall; best_rss=$rss; best_cpu=$cpu; fi
    done
    printf '| %-44s | %8.2f s | %8.2f s | %7.1f MB |\n' "$label" "$best_wall" "$best_cpu" "$(awk "BEGIN { print $best_rss / 1024 }")"
}

echo "| case | wall (best of 3) | CPU user+sys | peak RSS |"
echo "|---|---|---|---|"
measure "baseline: kwsuggest --version" --version
measure "100k × 300 .vec ($(du -m "$BIG" | cut -f1) MB, generated)" print-word-vectors "$BIG"
measure "fixture model.bin (dim 16, 2611 words + 2000 buckets)" print-word-vectors Tests/KeywordVectorsTests/Fixtures/fasttext/model.bin
measure "fixture model.vec" print-word-vectors Tests/KeywordVectorsTests/Fixtures/fasttext/model.vec
measure "models/default/vectors.kwv (20k × 300 f16, 480k keys)" print-word-vectors models/default/vectors.kwv
if [ -n "${EXTRA_BIN:-}" ]; then measure "extra: $EXTRA_BIN" print-word-vectors "$EXTRA_BIN"; fi
