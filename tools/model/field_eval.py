#!/usr/bin/env python3
"""Accuracy, confidence and failure classes of a model on labelled files, each split into names that state a gold
keyword verbatim (after NFKC) and names that need knowledge. Offline tool; reads only `kwsuggest suggest --json
-k 50`, so it measures what the CLI serves.

Per file and part: n, Acc@1, Acc@5, MRR (over the top 50; a gold keyword below rank 50 counts 0), the share of
names with tied top-5 scores (two of the five `score` values equal after rounding to 5 decimals), and the coverage
at 98 % top-1 precision two ways: auto-accepted at the model's shipped threshold (`auto_accept` in the answer),
with the precision reached, and at the best threshold any cut of the confidence gives on that file itself (an
upper bound: the largest share of names above a confidence whose top-1 precision is at least 0.98).

With --failures, the top-1 misses of each file are sorted into classes by rules over the name, the top keyword
and the gold keywords (`classify`), and the counts are printed.

Usage: python3 tools/model/field_eval.py BINARY MODEL_DIR FILE.jsonl [FILE.jsonl ...] [--failures] [--json OUT]
"""
import json
import os
import re
import subprocess
import sys
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def nfkc(s):
    return unicodedata.normalize("NFKC", s)


def fold(s):
    """NFKC, katakana as hiragana, lower case: how the exact-match evidence compares text."""
    s = nfkc(s)
    return "".join(chr(ord(c) - 0x60) if "ァ" <= c <= "ヶ" else c for c in s).lower()


def load_places():
    places = set()
    path = os.path.join(ROOT, "data", "src", "areas.txt")
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            line = line.strip()
            if line and not line.startswith("#"):
                places.update(x for x in line.split("\t")[0].split("|") if x)
    return places


PLACES = load_places()
PLACE_SUFFIXES = ("県", "府", "都", "道", "市", "町", "村", "産")


def classify(item, got):
    """The failure class of a top-1 miss:
    - `modifier`: the top keyword's text occurs in the name beside the gold kind (a flavour, ingredient, use or
      part that describes the product: いちご in いちごミルク, カレー in カレーうどん), or lies inside the gold
      keyword's text as written in the name (りんご for りんご酢);
    - `place`: the top keyword contains a place name that the name also contains (a regional dish pulled by the
      place of origin), or its whole text is a place;
    - `alias`: the gold keyword is not written in the name, and the top keyword is not written there either
      (a spelling, reading or variety name the model did not connect);
    - `brand`: the name states no gold keyword and its top keyword is written in it only as part of a longer
      katakana or Latin word (a brand or product-line word pulled a keyword);
    - `other`: any other miss (label granularity, several products in one name).
    """
    name = fold(item["name"])
    top = fold(got[0]) if got else ""
    golds = [fold(k) for k in item["keywords"]]
    gold_written = any(g in name for g in golds)
    for place in PLACES:
        p = fold(place)
        if len(p) >= 2 and p in top and p in name:
            return "place"
    if top and top in name:
        if gold_written or any(top in g for g in golds):
            return "modifier"
        m = re.search(r"[ぁ-ゖー]*" + re.escape(top) + r"[ぁ-ゖー]*", name)
        if m and len(m.group(0)) > len(top) + 1 and all("ぁ" <= c <= "ゖ" or c == "ー" for c in top):
            return "brand"
        return "modifier"
    if not gold_written:
        return "alias"
    return "other"


def evaluate(binary, model, path):
    items = [json.loads(x) for x in open(path, encoding="utf-8") if x.strip()]
    out = subprocess.run([binary, "suggest", "--json", "-k", "50", "--model", model],
                         input="".join(x["name"].replace("\n", " ") + "\n" for x in items),
                         capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert len(lines) == len(items), (len(lines), len(items))
    rows = []
    for item, line in zip(items, lines):
        answer = json.loads(line)
        suggestions = answer["suggestions"]
        got = [s["keyword"] for s in suggestions]
        gold = set(item["keywords"])
        rank = next((i + 1 for i, k in enumerate(got) if k in gold), None)
        scores = [round(s["score"], 5) for s in suggestions[:5]]
        rows.append({
            "name": item["name"], "keywords": item["keywords"], "source": item.get("source", ""), "got": got[:5],
            "verbatim": any(nfkc(k) in nfkc(item["name"]) for k in item["keywords"]),
            "rank": rank, "tied": len(set(scores)) < len(scores),
            "confidence": suggestions[0].get("confidence") if suggestions else None,
            "auto": bool(answer.get("auto_accept")),
        })
    return rows


def coverage_best(rows, precision=0.98):
    scored = sorted((r for r in rows if r["confidence"] is not None), key=lambda r: -r["confidence"])
    best, right = 0, 0
    for i, r in enumerate(scored, 1):
        right += r["rank"] == 1
        last = i == len(scored) or scored[i]["confidence"] != r["confidence"]
        if last and right / i >= precision:
            best = i
    return best / len(rows) if rows else 0.0


def metrics(rows):
    n = len(rows)
    if not n:
        return None
    auto = [r for r in rows if r["auto"]]
    return {
        "n": n,
        "acc1": sum(r["rank"] == 1 for r in rows) / n,
        "acc5": sum(r["rank"] is not None and r["rank"] <= 5 for r in rows) / n,
        "mrr": sum(1 / r["rank"] for r in rows if r["rank"]) / n,
        "tied": sum(r["tied"] for r in rows) / n,
        "auto_coverage": len(auto) / n,
        "auto_precision": (sum(r["rank"] == 1 for r in auto) / len(auto)) if auto else None,
        "best_coverage_98": coverage_best(rows),
    }


def main():
    args = sys.argv[1:]
    failures = "--failures" in args
    if failures:
        args.remove("--failures")
    json_out = None
    if "--json" in args:
        i = args.index("--json")
        json_out = args[i + 1]
        del args[i:i + 2]
    binary, model, files = args[0], args[1], args[2:]
    print("| set | part | n | Acc@1 | Acc@5 | MRR | tied top-5 | auto-accepted (precision) | best coverage at 98 % |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    report = {}
    classes_all = {}
    for path in files:
        rows = evaluate(binary, model, path)
        label = os.path.relpath(path, ROOT) if path.startswith(ROOT) else path
        report[label] = {}
        for part, subset in (("all", rows), ("verbatim", [r for r in rows if r["verbatim"]]),
                             ("knowledge", [r for r in rows if not r["verbatim"]])):
            m = metrics(subset)
            if not m:
                continue
            report[label][part] = m
            prec = "–" if m["auto_precision"] is None else f"{m['auto_precision']:.3f}"
            print(f"| {label} | {part} | {m['n']} | {m['acc1']:.3f} | {m['acc5']:.3f} | {m['mrr']:.3f} | "
                  f"{m['tied']:.1%} | {m['auto_coverage']:.3f} ({prec}) | {m['best_coverage_98']:.3f} |")
        if failures:
            counts = {}
            for r in rows:
                if r["rank"] != 1:
                    c = classify(r, r["got"])
                    counts[c] = counts.get(c, 0) + 1
                    r["class"] = c
            classes_all[label] = (counts, [r for r in rows if r["rank"] != 1])
            report[label]["failure_classes"] = counts
    if failures:
        print()
        print("| set | misses | modifier | place | alias | brand | other |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for label, (counts, misses) in classes_all.items():
            print(f"| {label} | {len(misses)} | " + " | ".join(str(counts.get(c, 0)) for c in
                                                             ("modifier", "place", "alias", "brand", "other")) + " |")
    if json_out:
        with open(json_out, "w", encoding="utf-8") as f:
            json.dump({"report": report, "misses": {k: v[1] for k, v in classes_all.items()}}, f, ensure_ascii=False,
                      indent=1)


if __name__ == "__main__":
    main()
