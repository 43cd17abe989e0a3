"""Rebuild all of data/ and the keyword files in models/default/ from the sources. Seeded, deterministic.

    python3 tools/data/build_all.py [--seed 20260422]

Steps: keywords (build_keywords) → varieties (build_varieties) → labelled names from the food composition
table, the generator and data/handwritten.tsv → hold out ~130 keywords for dev-unseen → random dev split →
data/train.jsonl, data/dev.jsonl, data/dev-unseen.jsonl, data/sources/*.jsonl, data/README.md (rendered
from data/src/README.template.md with the counts and 20 examples).
"""
import argparse
import collections
import json
import random
import sys

import build_keywords
import build_knowledge
import build_varieties
import common
import fc_rules
import generate
import relations
import specificity

HOLDOUT = 130
RELABELLED = 0
DEV_SHARE = {"handwritten": 0.35, "food-composition": 0.10, "generated": 0.10, "packaged": 0.40}


def food_composition_records():
    out = []
    for g, _gn, _fid, name in common.read_foods():
        kws, _ = fc_rules.keywords_for(g, name)
        out.append({"name": fc_rules.clean(name), "keywords": list(kws), "source": "food-composition"})
    return out


def handwritten_records(keywords):
    out = []
    p = common.path("data", "handwritten.tsv")
    for n, (name, kws) in enumerate(common.read_tsv(p, 2), 1):
        ks = kws.split("|")
        for k in ks:
            if k not in keywords:
                raise SystemExit(f"{p}: keyword {k!r} of {name!r} is not in keywords.txt")
        out.append({"name": name.strip(), "keywords": ks, "source": "handwritten"})
    return out


def packaged_records(keywords):
    out = []
    p = common.path("data", "packaged.tsv")
    for name, kws in common.read_tsv(p, 2):
        ks = kws.split("|")
        for k in ks:
            if k not in keywords:
                raise SystemExit(f"{p}: keyword {k!r} of {name!r} is not in keywords.txt")
        out.append({"name": name.strip(), "keywords": ks, "source": "packaged"})
    return out


def split_packaged(records, seen, holdout, seed):
    """The packaged-goods names, split after (and apart from) the other sources with their own seeded RNG, so
    the earlier sources' splits and the held-out keywords stay exactly as they were."""
    rng = random.Random(seed + 1)
    train, dev, unseen, dropped = [], [], [], 0
    for r in records:
        if r["name"] in seen:
            continue
        seen.add(r["name"])
        ks = set(r["keywords"])
        if ks & holdout:
            if ks <= holdout:
                unseen.append(r)
            else:
                dropped += 1
            continue
        (dev if rng.random() < DEV_SHARE["packaged"] else train).append(r)
    return train, dev, unseen, dropped


def most_specific_first(splits, keywords, holdout):
    """Rewrites labels to put the most specific stated keyword first (specificity.py); a split only gains keywords
    it may hold (train and dev never a held-out one, dev-unseen only held-out ones)."""
    convention = specificity.Convention(keywords)
    others = set(keywords) - holdout
    changed = 0
    for name, rs in splits.items():
        allowed = holdout if name == "dev-unseen" else others
        for r in rs:
            ks = convention.apply(r["name"], r["keywords"], allowed)
            if ks != r["keywords"]:
                r["keywords"] = ks
                changed += 1
    return changed


def dedupe(records):
    seen, out = set(), []
    for r in records:
        if r["name"] not in seen:
            seen.add(r["name"])
            out.append(r)
    return out


def choose_holdout(records, keywords, rng):
    alts = relations.build_alternatives(set(keywords))
    related = set(alts) | {a for v in alts.values() for a in v}
    count = collections.Counter(k for r in records for k in r["keywords"])
    single = collections.Counter(r["keywords"][0] for r in records if len(r["keywords"]) == 1)
    cands = sorted(k for k in keywords if k not in related and single[k] >= 3 and single[k] == count[k])
    return set(rng.sample(cands, min(HOLDOUT, len(cands))))


def build(seed):
    cats = build_keywords.build()
    keywords = set(cats)
    build_varieties.build()
    fc = food_composition_records()
    gen = generate.generate(seed)
    hand = handwritten_records(keywords)
    records = dedupe(hand + fc + gen)
    rng = random.Random(seed)
    holdout = choose_holdout(records, sorted(keywords), rng)
    train, dev, unseen, dropped = [], [], [], 0
    for r in records:
        ks = set(r["keywords"])
        if ks & holdout:
            if ks <= holdout:
                unseen.append(r)
            else:
                dropped += 1
            continue
        (dev if rng.random() < DEV_SHARE[r["source"]] else train).append(r)
    packaged = packaged_records(keywords)
    p_train, p_dev, p_unseen, p_dropped = split_packaged(packaged, {r["name"] for r in records}, holdout, seed)
    train += p_train
    dev += p_dev
    unseen += p_unseen
    dropped += p_dropped
    global RELABELLED
    relabelled = RELABELLED = most_specific_first({"train": train, "dev": dev, "dev-unseen": unseen}, sorted(keywords), holdout)
    print(f"most specific keyword first: {relabelled} labels rewritten", file=sys.stderr)
    records = records + p_train + p_dev + p_unseen
    by_source = collections.defaultdict(list)
    for r in records:
        by_source[r["source"]].append(r)
    for src, rs in by_source.items():
        common.write_jsonl(common.path("data", "sources", f"{src}.jsonl"), rs)
    common.write_jsonl(common.path("data", "train.jsonl"), train)
    common.write_jsonl(common.path("data", "dev.jsonl"), dev)
    common.write_jsonl(common.path("data", "dev-unseen.jsonl"), unseen)
    common.write_lines(common.path("data", "dev-unseen-keywords.txt"), sorted(holdout))
    # Last: the knowledge names read train.jsonl (a dev-general name must occur in no training name).
    global KNOWLEDGE
    KNOWLEDGE = build_knowledge.build()
    render_readme(cats, records, {"train": train, "dev": dev, "dev-unseen": unseen}, dropped, holdout, rng)
    return train, dev, unseen, dropped


def render_readme(cats, records, splits, dropped, holdout, rng):
    lines = ["| split | lines | food-composition | generated | handwritten | packaged |", "|---|---:|---:|---:|---:|---:|"]
    for name, rs in splits.items():
        c = collections.Counter(r["source"] for r in rs)
        lines.append(f"| {name} | {len(rs)} | {c['food-composition']} | {c['generated']} | {c['handwritten']} "
                     f"| {c['packaged']} |")
    total = collections.Counter(r["source"] for r in records)
    lines.append(f"| all (before the split) | {len(records)} | {total['food-composition']} | {total['generated']} "
                 f"| {total['handwritten']} | {total['packaged']} |")
    split_table = "\n".join(lines)
    kc = collections.Counter(cats.values())
    rc = collections.Counter(cats.get(r["keywords"][0], "?") for r in records)
    cat_lines = ["| category | keywords | labelled names (by primary keyword) |", "|---|---:|---:|"]
    for c in sorted(kc, key=lambda c: -kc[c]):
        cat_lines.append(f"| {c} | {kc[c]} | {rc[c]} |")
    var = build_varieties.load()
    vc = collections.Counter(s for _, _, s in var)
    var_table = "\n".join(["| source | rows |", "|---|---:|"] + [f"| {s} | {n} |" for s, n in vc.most_common()])
    ex = []
    for src, n in (("food-composition", 5), ("generated", 8), ("handwritten", 7)):
        pool = [r for r in records if r["source"] == src]
        for r in rng.sample(pool, n):
            ex.append("    " + json.dumps(r, ensure_ascii=False))
    k_train, k_dev = KNOWLEDGE
    k_sources = sorted({r["source"] for r in k_train + k_dev})
    k_lines = ["| file | " + " | ".join(k_sources) + " | all |", "|---|" + "---:|" * (len(k_sources) + 1)]
    for name, rs in (("train-knowledge.jsonl", k_train), ("dev-general.jsonl", k_dev)):
        c = collections.Counter(r["source"] for r in rs)
        k_lines.append(f"| {name} | " + " | ".join(str(c[s]) for s in k_sources) + f" | {len(rs)} |")
    with open(common.path("data", "src", "README.template.md"), encoding="utf-8") as f:
        t = f.read()
    t = (t.replace("{{KEYWORDS}}", str(len(cats))).replace("{{VARIETIES}}", str(len(var)))
         .replace("{{VARIETY_TABLE}}", var_table).replace("{{SPLIT_TABLE}}", split_table)
         .replace("{{CATEGORY_TABLE}}", "\n".join(cat_lines)).replace("{{DROPPED}}", str(dropped))
         .replace("{{HOLDOUT}}", str(len(holdout))).replace("{{RELABELLED}}", str(RELABELLED)).replace("{{EXAMPLES}}", "\n".join(ex))
         .replace("{{KNOWLEDGE_TABLE}}", "\n".join(k_lines)))
    with open(common.path("data", "README.md"), "w", encoding="utf-8", newline="\n") as f:
        f.write(t)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=20260422)
    a = ap.parse_args()
    train, dev, unseen, dropped = build(a.seed)
    print(f"train {len(train)}, dev {len(dev)}, dev-unseen {len(unseen)}, dropped (mixed held-out) {dropped}",
          file=sys.stderr)
