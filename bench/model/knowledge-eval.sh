#!/usr/bin/env bash
# The knowledge figures of a model directory: Acc@1 / Acc@5 and tied top-5 scores on dev, dev-unseen, dev-general
# and the packaged-goods slice, split into names that state a gold keyword verbatim and names that need knowledge;
# the same with the sub-word table zeroed and with the extracted varieties rows removed (same encoder); and the
# keywords whose input equals another keyword's.
# Usage: bench/model/knowledge-eval.sh [MODEL_DIR] [KWSUGGEST_BINARY]   (from the repository root, release build)
set -euo pipefail
model="${1:-models/default}"
bin="${2:-.build/release/kwsuggest}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
grep -h '"source": "packaged"' data/dev.jsonl data/dev-unseen.jsonl > "$work/packaged.jsonl" || true
sets=(data/dev.jsonl data/dev-unseen.jsonl data/dev-general.jsonl "$work/packaged.jsonl")
echo "### $model"
python3 tools/model/split_eval.py "$bin" "$model" "${sets[@]}" | sed "s#$work/##"
python3 tools/model/ties.py "$bin" "$model" | head -n 1
if grep -q '"subwords"' "$model/encoder.json"; then
    python3 tools/model/ablate.py "$model" "$work/no-subwords" --zero-subwords
    echo
    echo "### same encoder, sub-word table zeroed"
    python3 tools/model/split_eval.py "$bin" "$work/no-subwords" "${sets[@]}" | sed "s#$work/##"
fi
python3 tools/model/ablate.py "$model" "$work/no-extracted" --drop-sources juman,juman-wikipedia,sudachi-form
echo
echo "### same encoder, without the extracted varieties rows (juman, juman-wikipedia, sudachi-form)"
python3 tools/model/split_eval.py "$bin" "$work/no-extracted" "${sets[@]}" | sed "s#$work/##"
