#!/usr/bin/env bash
# Evaluates a model directory on dev and dev-unseen under every ablation and prints a Markdown table.
# Usage: bench/model/eval-all.sh [MODEL_DIR] [KWSUGGEST_BINARY]
# Run from the repository root after `swift build -c release`.
set -euo pipefail
model="${1:-models/default}"
bin="${2:-.build/release/kwsuggest}"
row() { # label, extra args…
    local label="$1"; shift
    local json
    json=$("$bin" eval --model "$model" --json "$@" | tail -n 1)
    python3 -c 'import json,sys; o=json.loads(sys.argv[2]); print("| %s | %d | %.3f | %.3f | %.3f |" % (sys.argv[1], o["n"], o["accuracy_at_1"], o["accuracy_at_5"], o["mrr"]))' "$label" "$json"
}
for data in data/dev.jsonl data/dev-unseen.jsonl; do
    echo
    echo "### $data (candidates: $model/keywords.txt)"
    echo
    echo "| model | n | Acc@1 | Acc@5 | MRR |"
    echo "| --- | ---: | ---: | ---: | ---: |"
    row "untrained vectors (article attention, no evidence)" --data "$data" --ablation untrained
    row "lexical rule (contained keyword, longest first)" --data "$data" --ablation lexical
    row "trained, no attention" --data "$data" --ablation no-attention
    row "full model" --data "$data"
    row "full model + hubness 0.5" --data "$data" --hubness 0.5
done
