#!/usr/bin/env python3
"""Train a small fastText model with the reference implementation and write a parity fixture.

    pip install fasttext-numpy2-wheel numpy
    python3 tools/vectors/make_fasttext_fixture.py                      # the committed fixture
    python3 tools/vectors/make_fasttext_fixture.py --out /tmp/ft2 --dim 24 --minn 2 --maxn 5 \
        --bucket 3000 --model cbow                                      # a second model, by hand
    python3 tools/vectors/make_fasttext_fixture.py --model supervised --dim 20 --minn 2 --maxn 3 \
        --bucket 500 --word-ngrams 2 --epoch 3 --lr 0.05 --min-count 1 --repeat 3 --no-vec \
        --out Tests/KeywordVectorsTests/Fixtures/fasttext-supervised   # labels in the dictionary

A supervised model labels each line with the first two characters of its first word
(`__label__魚類`); the label queries check fastText's treatment of labels in getWordVector.

Corpus: the food names of the Standard Tables of Food Composition in Japan 2020
(/work/shared/data/food-composition-2020/foods.tsv, split at white space, brackets loosened) plus the
SudachiDict synonym groups that share a word with them (one group per line).

Writes into --out:
    model.bin      the fastText binary model (input and output matrices)
    model.vec      the input word vectors in fastText's text format (5 significant digits, as
                   fastText's own saveVectors writes them)
    queries.txt    the query words: in-vocabulary words, out-of-vocabulary Japanese words,
                   half-width katakana, emoji, ASCII
    expected.txt   fastText's get_word_vector for each query: `word<TAB>v1 … vD` with 9
                   significant digits (enough to round-trip float32)
    params.txt     the training parameters
"""
import argparse
import json
import os
import subprocess
import sys
import random
import re
import tempfile

import fasttext
import numpy as np

TRAIN = """
import json, sys, fasttext
kind, corpus, settings, out = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
train = fasttext.train_supervised if kind == "supervised" else fasttext.train_unsupervised
train(corpus, **settings).save_model(out)
"""

FOODS = "/work/shared/data/food-composition-2020/foods.tsv"
SYNONYMS = "/work/shared/data/sudachi-synonyms/synonyms.txt"

OOV_QUERIES = [
    # Japanese words that are not in the corpus vocabulary
    "北海道産じゃがいも", "冷凍ブロッコリー", "人参スティック", "国産豚バラ肉", "有機栽培", "ミニトマト詰め合わせ",
    "淡路島産", "カラーにんじん", "あまおう", "紅はるか", "ぶなしめじ", "骨なし", "業務用", "たっぷり",
    "の", "肉", "ん", "ー",
    # half-width katakana
    "ﾆﾝｼﾞﾝ", "ｷｬﾍﾞﾂ", "ｼﾞｬｶﾞｲﾓ", "ｱ", "ﾄﾏﾄｹﾁｬｯﾌﾟ",
    # emoji, including a ZWJ sequence, a flag and a variation selector
    "🥕", "🍅🍆", "👨‍👩‍👧", "🇯🇵", "❤️", "🍣寿司",
    # ASCII and mixed
    "carrot", "a", "ABC123", "100g", "x", "Tomato-Juice", "DHA配合", "2kg箱",
    # fastText specials
    "</s>", "<", ">", "<>",
]


def corpus_lines():
    lines = []
    words = set()
    with open(FOODS, encoding="utf-8") as f:
        next(f)
        for row in f:
            name = row.rstrip("\n").split("\t")[3]
            name = re.sub(r"[()\[\]<>（）［］＜＞]", " ", name)
            tokens = name.split()
            words.update(tokens)
            lines.append(" ".join(tokens))
    groups = {}
    with open(SYNONYMS, encoding="utf-8") as f:
        for row in f:
            parts = row.rstrip("\n").split(",")
            if len(parts) > 8 and parts[8]:
                groups.setdefault(parts[0], []).append(parts[8])
    for members in groups.values():
        if words.intersection(members):
            lines.append(" ".join(m for m in members if " " not in m))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="Tests/KeywordVectorsTests/Fixtures/fasttext")
    parser.add_argument("--model", default="skipgram", choices=["skipgram", "cbow", "supervised"])
    parser.add_argument("--dim", type=int, default=16)
    parser.add_argument("--minn", type=int, default=1)
    parser.add_argument("--maxn", type=int, default=4)
    parser.add_argument("--bucket", type=int, default=2000)
    parser.add_argument("--min-count", type=int, default=2)
    parser.add_argument("--epoch", type=int, default=5)
    parser.add_argument("--lr", type=float, default=0.02, help="the default 0.05 hits 'Encountered NaN' on this small corpus")
    parser.add_argument("--word-ngrams", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1, help="more than 1 dodges 'Encountered NaN' but is not reproducible")
    parser.add_argument("--repeat", type=int, default=5, help="copies of the corpus to train on")
    parser.add_argument("--no-vec", action="store_true", help="skip model.vec")
    parser.add_argument("--in-vocab", type=int, default=60, help="in-vocabulary query words")
    args = parser.parse_args()

    os.makedirs(args.out, exist_ok=True)
    lines = corpus_lines() * args.repeat
    if args.model == "supervised":
        lines = [f"__label__{line.split()[0][:2]} {line}" for line in lines if line.strip()]
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        corpus = f.name
    # This build of fastText sometimes diverges (values of 1e13, or "Encountered NaN"), not
    # reproducibly even with one thread, and far more often inside a process that has already done
    # other work (it seems to read memory it never initialised). So each attempt trains in a fresh
    # interpreter; attempts repeat until the input matrix is sane.
    settings = dict(dim=args.dim, minn=args.minn, maxn=args.maxn, bucket=args.bucket, minCount=args.min_count,
                    epoch=args.epoch, lr=args.lr, thread=args.threads, verbose=0)
    if args.model == "supervised":
        settings["wordNgrams"] = args.word_ngrams
    else:
        settings["model"] = args.model
    model_path = os.path.join(args.out, "model.bin")
    for attempt in range(50):
        trained = subprocess.run([sys.executable, "-c", TRAIN, args.model, corpus, json.dumps(settings), model_path],
                                 capture_output=True, text=True)
        if trained.returncode != 0:
            print(f"attempt {attempt + 1}: {trained.stderr.strip().splitlines()[-1] if trained.stderr.strip() else 'failed'}")
            continue
        model = fasttext.load_model(model_path)
        largest = float(np.abs(model.get_input_matrix()).max())
        if np.isfinite(largest) and largest < 10:
            break
        print(f"attempt {attempt + 1}: diverged (max |input| = {largest:.3g})")
    else:
        raise SystemExit("fastText training failed 50 times")
    os.unlink(corpus)

    words = model.get_words(include_freq=False, on_unicode_error="strict")
    if not args.no_vec:
        with open(os.path.join(args.out, "model.vec"), "w", encoding="utf-8") as f:
            f.write(f"{len(words)} {model.get_dimension()}\n")
            for word in words:
                vector = model.get_word_vector(word)
                f.write(word + " " + "".join("%.5g " % float(v) for v in vector) + "\n")

    rng = random.Random(11)
    in_vocab = words[:10] + rng.sample(words[10:], min(args.in_vocab - 10, len(words) - 10))
    vocab = set(words)
    queries = in_vocab + [q for q in OOV_QUERIES if q not in vocab]
    if args.model == "supervised":
        queries += list(model.get_labels()[:5])
    with open(os.path.join(args.out, "queries.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(queries) + "\n")
    with open(os.path.join(args.out, "expected.txt"), "w", encoding="utf-8") as f:
        for word in queries:
            vector = model.get_word_vector(word).astype(np.float32)
            f.write(word + "\t" + " ".join("%.9g" % float(v) for v in vector) + "\n")
    with open(os.path.join(args.out, "params.txt"), "w", encoding="utf-8") as f:
        f.write(f"model={args.model} dim={args.dim} minn={args.minn} maxn={args.maxn} bucket={args.bucket} "
                f"minCount={args.min_count} epoch={args.epoch} lr={args.lr} wordNgrams={args.word_ngrams} repeat={args.repeat} thread={args.threads} package=fasttext-numpy2-wheel\n"
                f"words={len(words)} in_vocab_queries={len(in_vocab)} other_queries={len(queries) - len(in_vocab)}\n")
    sizes = {name: os.path.getsize(os.path.join(args.out, name)) for name in os.listdir(args.out)}
    print(f"{len(words)} words; {len(queries)} queries; sizes {sizes}")


if __name__ == "__main__":
    main()
