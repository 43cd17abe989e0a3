#!/usr/bin/env bash
# In-process suggestion benchmark: `kwsuggest bench` at the default keywords, +10,000 and +100,000 (RUNS runs
# each, medians), with the default scoring kernel (AVX2 + FMA where the CPU has it) and with the portable one,
# interleaved; then the NumPy reference scorer side by side. Prints a Markdown report on stdout.
# Usage: bench/suggest.sh            (env: SCRATCH=.build-tools/release RUNS=3 ROUNDS=7 SWIFTFLAGS="")
#        SWIFTFLAGS="-Xswiftc -target-cpu -Xswiftc haswell" SCRATCH=.build-tools/release-v3 bench/suggest.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH=${SCRATCH:-.build-tools/release}
RUNS=${RUNS:-3}
ROUNDS=${ROUNDS:-7}
# shellcheck disable=SC2086
swift build -c release --scratch-path "$SCRATCH" ${SWIFTFLAGS:-} >&2
BIN=$SCRATCH/release/kwsuggest
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

echo "## Machine"
echo
echo "- $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -m | awk '/^Mem:/{print $2}') MiB memory"
echo "- commit $(git rev-parse --short HEAD)$(git diff --quiet -- Sources || echo ' (+ uncommitted changes under Sources/)'), build flags: -c release ${SWIFTFLAGS:-}"
echo "- OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE-unset} OPENBLAS_L2_SIZE=${OPENBLAS_L2_SIZE-unset} (unset for the NumPy run below)"
echo
for extra in 0 10000 100000; do
    for run in $(seq "$RUNS"); do
        for kernel in default portable; do
            args=(bench --keywords "$extra" --rounds "$ROUNDS" --json)
            [ "$kernel" = default ] || args+=(--kernel "$kernel")
            before=$(cut -d' ' -f1 /proc/loadavg)
            "$BIN" "${args[@]}" > "$OUT/run.txt"
            after=$(cut -d' ' -f1 /proc/loadavg)
            echo "{\"extra\": $extra, \"kernel\": \"$kernel\", \"load_before\": $before, \"load_after\": $after, \"table\": $(python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))' < "$OUT/run.txt"), \"json\": $(tail -n 1 "$OUT/run.txt")}" >> "$OUT/runs.jsonl"
        done
    done
done
python3 - "$OUT/runs.jsonl" <<'PY'
import json, re, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
def extra_value(run, label):
    m = re.search(re.escape(label) + r"\s+([0-9.]+)", run["table"])
    return float(m.group(1)) if m else float("nan")
print("## Suggest (medians of %d runs per row; each run = median over rounds)" % (len(runs) // 6))
print()
print("| keywords | kernel | suggest p50 ms | suggest p99 ms | score-only p50 ms | score CPU ms/name | tokenize names/s | load ms | index build ms | RSS MiB | load avg (1 min) |")
print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
medians = {}
for extra in (0, 10000, 100000):
    for kernel in ("default", "portable"):
        group = [r for r in runs if r["extra"] == extra and r["kernel"] == kernel]
        med = lambda key: statistics.median(r["json"][key] for r in group)
        name = re.search(r"scoring kernel\s+(\S+)", group[0]["table"]).group(1)
        build = statistics.median(extra_value(r, "index build with extras") for r in group) if extra else 0
        loads = ", ".join("%.1f→%.1f" % (r["load_before"], r["load_after"]) for r in group)
        score = statistics.median(extra_value(r, "score only p50 (median)") for r in group)
        medians[(extra, kernel)] = (med("suggest_p50_ms"), score)
        print("| %d (+%d) | %s | %.3f | %.3f | %.3f | %.3f | %.0f | %.0f | %s | %.1f | %s |" % (
            group[0]["json"]["keywords"], extra, name, med("suggest_p50_ms"), med("suggest_p99_ms"), score,
            statistics.median(extra_value(r, "score only CPU/name (median)") for r in group), med("tokenize_per_s"),
            med("load_ms"), "%.0f" % build if extra else "–", med("rss_mb"), loads))
print()
print("Portable ÷ default kernel (medians above): " + "; ".join(
    "+%d: suggest p50 %.2f×, score-only p50 %.2f×" % (extra, medians[(extra, "portable")][0] / medians[(extra, "default")][0],
                                                      medians[(extra, "portable")][1] / medians[(extra, "default")][1])
    for extra in (0, 10000, 100000)))
print()
print("Raw `--json` lines:")
print()
for r in runs:
    print("    " + json.dumps(r["json"]))
PY
echo
echo "## Reference scorer (NumPy)"
echo
# One BLAS thread: Swift scores the default list on one thread, and OpenBLAS threads stall when the other core is busy.
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=1 python3 bench/reference/score.py --binary "$BIN" --rounds "$ROUNDS" | sed 's/^/    /'
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
