"""Build models/default/keywords.txt and keyword-categories.tsv.

Keywords = every keyword the food composition rules (fc_rules.py) produce, primary or alternative,
plus data/src/keywords-extra.tsv (common recipe ingredients the table lacks). A keyword's category is
the one given in keywords-extra.tsv, else the category of the food group of the first table row that
produced it. Output is sorted (Unicode code point order) so the build is deterministic.
"""
import sys

import common
import fc_rules


def table_keywords():
    """{keyword: category} from the food composition table; fails if any row has no rule."""
    cats = {}
    for g, _gn, fid, name in common.read_foods():
        kws, _ = fc_rules.keywords_for(g, name)
        if kws is None:
            raise SystemExit(f"foods.tsv: no rule for {fid} {name}")
        for k in kws:
            cats.setdefault(k, fc_rules.GROUP_CATEGORY[str(int(g))])
    return cats


def build():
    cats = table_keywords()
    for kw, cat in common.read_tsv(common.path("data", "src", "keywords-extra.tsv"), 2):
        cats[kw] = cat
    keywords = sorted(cats)
    common.write_lines(common.path("models", "default", "keywords.txt"), keywords)
    common.write_lines(common.path("models", "default", "keyword-categories.tsv"),
                       [f"{k}\t{cats[k]}" for k in keywords])
    return cats


def load():
    """{keyword: category} as last built."""
    return dict(common.read_tsv(common.path("models", "default", "keyword-categories.tsv"), 2))


if __name__ == "__main__":
    c = build()
    print(f"keywords: {len(c)}", file=sys.stderr)
