"""Check data/ and the keyword files: splits, licences, sources, and that no dev-unseen keyword reaches training.

    python3 tools/data/check.py      # exit status 0 when every check passes; prints one line per check
"""
import json
import os
import sys

import common
import specificity

FAILURES = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILURES.append(what)


def read_jsonl(p):
    """Records of a JSON-lines file; a bad line is reported with file:line."""
    out = []
    with open(p, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                check(False, f"{p}:{n}: not JSON ({e})")
                continue
            good = (isinstance(r, dict) and isinstance(r.get("name"), str) and r["name"].strip() != ""
                    and isinstance(r.get("keywords"), list) and len(r["keywords"]) > 0
                    and all(isinstance(k, str) and k.strip() for k in r["keywords"])
                    and isinstance(r.get("source"), str) and r["source"])
            if not good:
                check(False, f"{p}:{n}: needs a non-empty name, a non-empty keyword list and a source")
                continue
            out.append(r)
    return out, n if out else 0


def main():
    kpath = common.path("models", "default", "keywords.txt")
    with open(kpath, encoding="utf-8") as f:
        klines = f.read().split("\n")
    if klines and klines[-1] == "":
        klines.pop()
    keywords = set(klines)
    check(all(k.strip() == k and k for k in klines), "keywords.txt: no empty or padded lines")
    check(len(keywords) == len(klines), f"keywords.txt: lines are unique ({len(klines)} lines, {len(keywords)} unique)")
    check(len(keywords) >= 1300, f"keywords.txt: ≥ 1,300 unique keywords ({len(keywords)})")
    cats = dict(common.read_tsv(common.path("models", "default", "keyword-categories.tsv"), 2))
    check(set(cats) == keywords, f"keyword-categories.tsv: one category for every keyword ({len(cats)})")

    splits = {}
    for name in ("train", "dev", "dev-unseen"):
        p = common.path("data", f"{name}.jsonl")
        check(os.path.exists(p), f"data/{name}.jsonl exists")
        recs, total = read_jsonl(p) if os.path.exists(p) else ([], 0)
        check(len(recs) == total, f"data/{name}.jsonl: every line parses with a non-empty name and keywords "
                                  f"({len(recs)} of {total})")
        splits[name] = recs
    check(len(splits["train"]) >= 6000, f"train.jsonl: ≥ 6,000 valid lines ({len(splits['train'])})")
    check(len(splits["dev"]) > 0 and len(splits["dev-unseen"]) > 0, "dev and dev-unseen are not empty")
    names = {s: [r["name"] for r in rs] for s, rs in splits.items()}
    for s, ns in names.items():
        check(len(ns) == len(set(ns)), f"{s}: no name twice")
    for a, b in (("train", "dev"), ("train", "dev-unseen"), ("dev", "dev-unseen")):
        shared = set(names[a]) & set(names[b])
        check(not shared, f"{a} and {b} share no name ({len(shared)} shared)")
    train_kw = {k for r in splits["train"] for k in r["keywords"]}
    unseen_kw = {k for r in splits["dev-unseen"] for k in r["keywords"]}
    check(not (train_kw & unseen_kw), f"dev-unseen shares no keyword with train ({len(unseen_kw)} dev-unseen "
                                      f"keywords, {len(train_kw & unseen_kw)} shared)")
    convention = specificity.Convention(sorted(keywords))
    for s, rs in splits.items():
        bad = [(r["name"], r["keywords"], convention.violation(r["name"], r["keywords"])) for r in rs
               if convention.violation(r["name"], r["keywords"]) is not None]
        for name, ks, k in bad[:5]:
            print(f"     {s}: {name!r} {ks}: {k} is stated and more specific than {ks[0]}")
        check(not bad, f"{s}: the most specific keyword the name states comes first ({len(bad)} labels do not)")
    used = {k for rs in splits.values() for r in rs for k in r["keywords"]}
    check(used <= keywords, f"every labelled keyword is in keywords.txt ({len(used - keywords)} missing)")
    for s, rs in splits.items():
        by = {}
        for r in rs:
            by[r["source"]] = by.get(r["source"], 0) + 1
        print(f"     {s}: {len(rs)} lines, by source {dict(sorted(by.items()))}")
    every = [r for rs in splits.values() for r in rs]
    count = lambda src: sum(r["source"] == src for r in every)
    n_foods = len(common.read_foods())
    srcs = {}
    for src in ("food-composition", "generated", "handwritten"):
        recs, total = read_jsonl(common.path("data", "sources", f"{src}.jsonl"))
        srcs[src] = recs
    check(len(srcs["food-composition"]) == n_foods,
          f"every food composition table name is labelled ({len(srcs['food-composition'])} of {n_foods})")
    check(len(srcs["generated"]) >= 5000, f"≥ 5,000 generated names ({len(srcs['generated'])})")
    check(len(srcs["handwritten"]) >= 500, f"≥ 500 hand-written names ({len(srcs['handwritten'])})")
    check(count("handwritten") == len(srcs["handwritten"]), "every hand-written name is in a split")
    dev_hand = sum(r["source"] == "handwritten" for r in splits["dev"])
    check(dev_hand >= 200, f"dev holds a good share of hand-written names ({dev_hand})")

    vpath = common.path("data", "varieties.tsv")
    with open(vpath, encoding="utf-8") as f:
        vlines = f.read().rstrip("\n").split("\n")
    check(vlines[0] == "name\tkeyword\tsource", "varieties.tsv: header name/keyword/source")
    rows = [line.split("\t") for line in vlines[1:]]
    check(len(rows) >= 400, f"varieties.tsv: ≥ 400 lines ({len(rows)})")
    check(all(len(r) == 3 and all(x.strip() for x in r) for r in rows), "varieties.tsv: a source on every line")
    check(all(r[1] in keywords for r in rows if len(r) == 3), "varieties.tsv: every keyword is in keywords.txt")
    vsources = sorted({r[2] for r in rows if len(r) == 3})
    # A place never says what a product is: no variety or brand name is one of the generator's place names
    # (a brand 知多 would make 「知多産 らっきょう」 name whisky).
    areas = common.place_names()
    placed = sorted(r[0] for r in rows if len(r) == 3 and r[0] in areas)
    check(not placed, f"varieties.tsv: no name is a place of src/areas.txt ({', '.join(placed[:5])})")
    with open(common.path("models", "default", "varieties.tsv"), encoding="utf-8") as f:
        check(f.read().rstrip("\n").split("\n") == vlines, "models/default/varieties.tsv is a copy of data/varieties.tsv")

    with open(common.path("data", "README.md"), encoding="utf-8") as f:
        readme = f.read()
    licences = {
        "food composition table (MEXT)": ["文部科学省", "Government of Japan Standard Terms of Use", "CC BY 4.0"],
        "SudachiDict synonyms": ["SudachiDict", "Apache License 2.0"],
        "chiVe": ["chiVe", "Apache License 2.0"],
        "JMdict": ["JMdict", "CC BY-SA 4.0"],
        "hand-written": ["hand-written", "project's own"],
    }
    for src, needles in licences.items():
        check(all(n in readme for n in needles), f"README names the licence of {src}")
    for tag in vsources + ["food-composition", "generated", "handwritten"]:
        check(f"`{tag}`" in readme or f"source `{tag}`" in readme or tag in readme, f"README mentions source {tag}")
    print(f"{len(FAILURES)} failure(s)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
