#!/usr/bin/env bash
# Text-pipeline benchmark: normalise + clean + tokenize throughput (one core) and model load time.
#
#   bash bench/text/run.sh [path/to/kwsuggest]       (default: builds and uses .build/release/kwsuggest)
#
# Inputs are generated here, deterministically: 200,000 lines drawn (seeded) from the 244
# marketplace-style names in tools/text/product_names_dev.txt, and 200,000 from the 2,478 food
# composition table names (shared data, when present). Each set runs 5 times; the median is
# reported, both per wall-clock second and per CPU second of the tokenizing thread (the machine is
# shared, so CPU time is the steadier figure). Loading is excluded from the throughput.
set -euo pipefail
cd "$(dirname "$0")/../.."
binary="${1:-}"
if [[ -z "$binary" ]]; then
    swift build -c release --product kwsuggest >&2
    binary=.build/release/kwsuggest
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

awk 'BEGIN { srand(7) } { names[NR] = $0 } END { for (i = 0; i < 200000; i++) print names[int(rand() * NR) + 1] }' \
    tools/text/product_names_dev.txt > "$work/products.txt"
foods=/work/shared/data/food-composition-2020/foods.tsv
sets=(products)
if [[ -f "$foods" ]]; then
    awk -F'\t' 'NR > 1 { names[++n] = $4 } END { srand(7); for (i = 0; i < 200000; i++) print names[int(rand() * n) + 1] }' \
        "$foods" > "$work/foods.txt"
    sets+=(foods)
fi

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for set in "${sets[@]}"; do
    : > "$work/wall" ; : > "$work/cpu"
    for run in 1 2 3 4 5; do
        out="$("$binary" tokenize --stats < "$work/$set.txt")"
        echo "$out" | sed -n 's/^lines per second: \([0-9]*\) (per CPU second: \([0-9]*\))$/\1/p' >> "$work/wall"
        echo "$out" | sed -n 's/^lines per second: \([0-9]*\) (per CPU second: \([0-9]*\))$/\2/p' >> "$work/cpu"
    done
    echo "$set: 200000 names, median $(median < "$work/wall") names/s wall, $(median < "$work/cpu") names per CPU second (5 runs)"
    echo "$out" | sed -n '3,5p' | sed 's/^/  /'
done

: > "$work/load"
for run in 1 2 3 4 5; do
    start=$(date +%s%N)
    "$binary" tokenize x > /dev/null
    end=$(date +%s%N)
    echo $(( (end - start) / 1000000 )) >> "$work/load"
done
echo "load + one name (process start to exit): median $(median < "$work/load") ms (5 runs)"
