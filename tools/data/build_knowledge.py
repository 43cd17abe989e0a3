"""Labelled names that carry knowledge the hand-written data lacks, and the generalisation dev split.

Writes (seeded, deterministic; offline):
  data/train-knowledge.jsonl   joined to train.jsonl by `kwsuggest train --data data/train.jsonl --data …`
  data/dev-general.jsonl       the generalisation split: its brands, product lines, variety names and
                               spellings occur in no training name and in no hand-written table

Two sources of names:

  knowledge  one name per row of the varieties sources extracted by script from licensed dictionaries
             (sudachi-form: SudachiDict normalised forms; juman: juman-dic spellings; juman-wikipedia:
             juman-dic's Wikipedia hypernyms), dressed by the marketplace generator (generate.py: areas,
             phrases, quantities, layout) and labelled with the row's keyword (source "knowledge-<source>").
  flavoured  names of a product kind with a flavour or purpose beside it, in the shapes 〈kind〉〈flavour〉味,
             〈flavour〉風味〈kind〉, 〈flavour〉入り〈kind〉, 〈use〉用〈kind〉 and 〈flavour〉仕立て〈kind〉, labelled with
             the kind (source "flavoured"). Kinds, flavours and uses are keywords of the list, chosen by their
             category (keyword-categories.tsv, from the food composition table and keywords-extra.tsv), so the
             encoder learns from the data that a flavour word beside a kind does not name the product.

The split is by a hash (SHA-256) of the row's name (knowledge) or of the kind (flavoured): a quarter goes to
dev-general. A dev-general knowledge name is kept only when its name occurs (folded) in no train.jsonl name,
no train-knowledge name and no hand-written table (varieties-hand, brands, abbreviations, spellings).
Nothing in dev-general is used to choose anything: dev.jsonl alone is used for tuning.
"""
import hashlib
import sys

import build_varieties
import common
import generate

SEED = 20261126
SOURCES = ("sudachi-form", "juman", "juman-wikipedia")
HAND_TABLES = ("varieties-hand.tsv", "brands.tsv", "abbreviations.tsv", "spellings.tsv")
KIND_CATEGORIES = {"菓子・デザート", "飲料・酒", "乳製品", "加工食品", "冷凍食品", "穀物・麺・パン"}
FLAVOUR_CATEGORIES = {"果物", "香辛料・ハーブ", "調味料", "乳製品", "ナッツ・種実", "海藻"}
USE_CATEGORIES = {"惣菜・加工食品"}
USE_KIND_CATEGORIES = {"肉", "魚介", "野菜"}
# Shares of the kinds that get a name: the flavoured names stay a small part of training.
KIND_SHARE, USE_SHARE = 0.6, 0.25


def fold(text):
    return "".join(chr(c) for c in _fold(common.nfkc(text)))


def _fold(text):
    out = []
    for ch in text:
        v = ord(ch)
        if 0x30A1 <= v <= 0x30F6:
            v -= 0x60
        out.append(v)
    return out


def held_out(key):
    return hashlib.sha256(key.encode("utf-8")).digest()[0] < 64


def flavoured_name(g, r, kind, flavours, uses):
    shape = r.random()
    f = r.choice(flavours)
    if shape < 0.3:
        return [kind, f + "味"] if r.random() < 0.7 else [f + "味", kind]
    if shape < 0.5:
        return [f + "風味" + r.choice(["", "の", " "]) + kind] if r.random() < 0.6 else [kind, "(" + f + "風味)"]
    if shape < 0.7:
        return [f + "入り" + r.choice(["", " "]) + kind] if r.random() < 0.6 else [kind, f + "入り"]
    if shape < 0.85:
        return [r.choice(uses) + "用" + r.choice(["", " "]) + kind]
    return [f + "仕立て" + r.choice(["", "の", " "]) + kind]


def build():
    g = generate.Generator(SEED)
    r = g.rng
    train_names = [rec["name"] for rec in common.read_jsonl(common.path("data", "train.jsonl"))]
    train_text = "\n".join(fold(n) for n in train_names)
    hand = set()
    for table in HAND_TABLES:
        for row in common.read_tsv(common.path("data", "src", table), 2):
            hand.add(fold(row[0]))
    train, dev = [], []
    seen = set()

    def add(out, name, kws, source):
        if name and name not in seen:
            seen.add(name)
            out.append({"name": name, "keywords": kws, "source": source})

    rows = [(n, k, s) for n, k, s in build_varieties.load() if s in SOURCES]
    held = []
    for name, kw, src in rows:
        if held_out(name):
            held.append((name, kw, src))
        else:
            add(train, g.name(kw, [name] if r.random() < 0.8 else [name, g.surface(kw)]), g.label(kw),
                "knowledge-" + src)
    train_knowledge_text = "\n".join(fold(x["name"]) for x in train)
    for name, kw, src in held:
        f = fold(name)
        if f in train_text or f in train_knowledge_text or any(f in h or h in f for h in hand if len(h) >= 2):
            continue
        add(dev, g.name(kw, [name]), g.label(kw), "knowledge-" + src)

    cats = g.cats
    kinds = sorted(k for k in g.keywords if cats[k] in KIND_CATEGORIES)
    flavours = sorted(k for k in g.keywords if cats[k] in FLAVOUR_CATEGORIES and len(k) >= 2)
    uses = sorted(k for k in g.keywords if cats[k] in USE_CATEGORIES)
    use_kinds = sorted(k for k in g.keywords if cats[k] in USE_KIND_CATEGORIES)
    for kind in kinds + use_kinds:
        if r.random() >= (KIND_SHARE if kind in kinds else USE_SHARE):
            continue
        parts = flavoured_name(g, r, kind, flavours, uses) if kind in kinds else \
            [r.choice(uses) + "用" + r.choice(["", " "]) + kind]
        name = g.name(kind, parts)
        # The kind labels the name; a flavour that happens to be one of its alternatives is not added.
        add(dev if held_out("flavoured:" + kind) else train, name, g.label(kind), "flavoured")
    common.write_jsonl(common.path("data", "train-knowledge.jsonl"), train)
    common.write_jsonl(common.path("data", "dev-general.jsonl"), dev)
    return train, dev


if __name__ == "__main__":
    train, dev = build()
    import collections
    print("train-knowledge:", len(train), dict(collections.Counter(x["source"] for x in train)), file=sys.stderr)
    print("dev-general:", len(dev), dict(collections.Counter(x["source"] for x in dev)), file=sys.stderr)
