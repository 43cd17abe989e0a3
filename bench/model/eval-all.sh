#!/usr/bin/env bash
# Evaluates a model directory on dev, dev-unseen and the packaged-goods slice under every ablation and prints
# Markdown tables (Acc@1 / Acc@5 / MRR count a name's best-ranked keyword; primary Acc@1 only its first one).
# Usage: bench/model/eval-all.sh [MODEL_DIR] [KWSUGGEST_BINARY]
# Run from the repository root after `swift build -c release`.
set -euo pipefail
model="${1:-models/default}"
bin="${2:-.build/release/kwsuggest}"
row() { # label, extra args…
    local label="$1"; shift
    local json
    json=$("$bin" eval --model "$model" --json "$@" | tail -n 1)
    python3 -c 'import json,sys; o=json.loads(sys.argv[2]); print("| %s | %d | %.3f | %.3f | %.3f | %.3f |" % (sys.argv[1], o["n"], o["accuracy_at_1"], o["accuracy_at_5"], o["mrr"], o["primary_accuracy_at_1"]))' "$label" "$json"
}
packaged=$(mktemp)
trap 'rm -f "$packaged"' EXIT
grep -h '"source": "packaged"' data/dev.jsonl data/dev-unseen.jsonl > "$packaged" || true
for data in data/dev.jsonl data/dev-unseen.jsonl "$packaged"; do
    echo
    if [ "$data" = "$packaged" ]; then
        echo "### packaged goods (source \`packaged\` of dev and dev-unseen; candidates: $model/keywords.txt)"
    else
        echo "### $data (candidates: $model/keywords.txt)"
    fi
    echo
    echo "| model | n | Acc@1 | Acc@5 | MRR | primary Acc@1 |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: |"
    row "untrained vectors (article attention, no evidence)" --data "$data" --ablation untrained
    row "lexical rule (contained keyword, longest first)" --data "$data" --ablation lexical
    row "trained, no attention" --data "$data" --ablation no-attention
    row "full model" --data "$data"
    row "full model + hubness 0.5" --data "$data" --hubness 0.5
done
