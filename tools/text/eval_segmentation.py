#!/usr/bin/env python3
"""Token-boundary F1 of `kwsuggest tokenize` against SudachiPy (split mode C), and vector coverage.

    swift build -c release
    python3 tools/text/eval_segmentation.py --binary .build/release/kwsuggest --model models/default \
        tools/text/product_names_dev.txt foods:/work/shared/data/food-composition-2020/foods.tsv

For every name, kwsuggest prints the normalised, cleaned text (kept segments joined by a space)
and its tokens. Sudachi (mode C, sudachidict_core) tokenizes each of those segments; both sides
are compared on the same characters, so the score measures segmentation only, not cleaning.

Reported: span F1 (a token counts when both its start and end match), boundary F1 (over the
inner cut points), and the share of content tokens (kwsuggest's `content` flag: not symbols,
numbers, particles or auxiliaries) that have a vector row. `--show N` prints N disagreements.
"""
import argparse
import json
import subprocess
import sys

import sudachipy


def read_names(spec):
    if spec.startswith("foods:"):
        path = spec[len("foods:"):]
        names = []
        with open(path, encoding="utf-8") as f:
            next(f)
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) >= 4:
                    names.append(cols[3])
        return path, names
    with open(spec, encoding="utf-8") as f:
        return spec, [line.rstrip("\n") for line in f if line.strip()]


def spans(lengths_per_segment):
    """(start, end) spans over the concatenated segments."""
    out = []
    position = 0
    for lengths in lengths_per_segment:
        for n in lengths:
            out.append((position, position + n))
            position += n
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=".build/release/kwsuggest")
    ap.add_argument("--model", default="models/default")
    ap.add_argument("--keyword", action="store_true", help="use the keyword path (no cleaning)")
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("inputs", nargs="+", help="a names file (one per line) or foods:PATH for foods.tsv")
    args = ap.parse_args()

    tokenizer = sudachipy.Dictionary(dict="core").create(mode=sudachipy.SplitMode.C)
    for spec in args.inputs:
        path, names = read_names(spec)
        command = [args.binary, "tokenize", "--json", "--model", args.model] + (["--keyword"] if args.keyword else [])
        done = subprocess.run(command, input="\n".join(names) + "\n", capture_output=True, text=True, check=True)
        results = [json.loads(line) for line in done.stdout.splitlines()]
        assert len(results) == len(names), (len(results), len(names))
        tp = n_ours = n_gold = 0
        btp = b_ours = b_gold = 0
        content = with_row = 0
        shown = 0
        for name, result in zip(names, results):
            segments = [s for s in result["normalized"].split(" ") if s]
            ours = spans([[len(t["surface"]) for t in result["tokens"]]])
            gold_lengths = []
            for segment in segments:
                gold_lengths.append([len(m.surface()) for m in tokenizer.tokenize(segment)
                                     if m.part_of_speech()[0] != "空白"])
            gold = spans(gold_lengths)
            total = sum(len(s) for s in segments)
            if ours and ours[-1][1] != total:
                print(f"warning: token lengths do not cover the text: {name!r}", file=sys.stderr)
            set_ours, set_gold = set(ours), set(gold)
            tp += len(set_ours & set_gold)
            n_ours += len(set_ours)
            n_gold += len(set_gold)
            cuts_ours = {e for _, e in ours} - {total}
            cuts_gold = {e for _, e in gold} - {total}
            btp += len(cuts_ours & cuts_gold)
            b_ours += len(cuts_ours)
            b_gold += len(cuts_gold)
            for token in result["tokens"]:
                if token.get("content"):
                    content += 1
                    with_row += token["row"] is not None
            if set_ours != set_gold and shown < args.show:
                shown += 1
                text = "".join(segments)
                print("  ours: " + " ".join(text[a:b] for a, b in ours) + "\n  gold: " + " ".join(text[a:b] for a, b in gold))

        def f1(hit, a, b):
            p = hit / a if a else 1.0
            r = hit / b if b else 1.0
            return 2 * p * r / (p + r) if p + r else 0.0

        print(f"{path}: {len(names)} names, span F1 {f1(tp, n_ours, n_gold):.4f} "
              f"(P {tp / max(n_ours, 1):.4f} R {tp / max(n_gold, 1):.4f}), boundary F1 {f1(btp, b_ours, b_gold):.4f}, "
              f"content tokens with a row {with_row}/{content} = {with_row / max(content, 1):.4f}")


if __name__ == "__main__":
    main()
