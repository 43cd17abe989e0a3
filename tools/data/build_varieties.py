"""Build data/varieties.tsv (and its copy models/default/varieties.tsv): name → keyword, with a source.

Sources, highest priority first (a name keeps the row of the first source that gives it):
  hand              data/src/varieties-hand.tsv, written and checked by eye
  food-composition  the head word of table rows in raw-food groups (まあじ → あじ, ブラックタイガー → えび,
                    たいせいようさけ → サーモン, うし [和牛肉] → 牛肉), keyword from fc_rules.py
  jmdict            data/src/varieties-jmdict.tsv (extract_jmdict.py: JMdict glosses "variety of …")
  chive             data/src/varieties-chive.tsv (picked by eye from chiVe row-sharing candidates)
  sudachi           Sudachi synonym groups that contain exactly one keyword: the other members → that keyword
  brand             data/src/brands.tsv: national brands and product lines → keyword, written by hand
  abbreviation      data/src/abbreviations.tsv: receipt and flyer abbreviations, katakana spellings, written by hand
  spelling          data/src/spellings.tsv: lexicon spellings of keywords that tokenize apart from them (SudachiDict)
  juman             data/src/varieties-juman.tsv, kind spelling (extract_juman.py: juman-dic's spellings of a
                    food word, 胡瓜 → きゅうり)
  juman-wikipedia   data/src/varieties-juman.tsv, kind hypernym (juman-dic's Wikipedia hypernyms that are a
                    keyword: ピルクル → 乳酸菌飲料)
  sudachi-form      data/src/spellings-sudachi.tsv (extract_sudachi_forms.py: SudachiDict's normalised form of
                    a keyword, 菠薐草 → ほうれん草)
  jmdict-spelling   data/src/varieties-jmdict-spelling.tsv (extract_jmdict_spellings.py: the other spellings of
                    JMdict's entry for a keyword, てばさき → 手羽先; CC BY-SA 4.0)
A row is dropped when its name is itself a keyword, is shorter than two characters, or (sudachi only)
is plain ASCII or would map to two different keywords.
"""
import collections
import re
import sys

import build_keywords
import common
import fc_rules

RAW_GROUPS = {"2", "4", "5", "6", "7", "8", "9", "10", "11", "12"}
GENERIC_HEADS = {"加工品", "缶詰", "漬物", "その他", "ゆで", "生", "乾", "つくだ煮", "きんとき"}
# Sudachi categories whose groups name foods (others hold companies, people, places, …).
SUDACHI_CATEGORIES = {"()", "(動植物)", "(料理)", "(食品)"}
# Sudachi members that are hypernyms or unrelated senses rather than names of the keyword's food.
SUDACHI_SKIP = {"肉", "魚", "野菜", "果物", "フルーツ", "卵", "玉", "たま", "タマ", "米国", "ライス",
                "ウィンナコーヒー", "ウインナコーヒー", "ソフト", "サンド", "スナック", "クラブ", "パオ", "フォア",
                "ペア", "ペアー", "ティー", "おかず", "御数", "副食", "副食物", "つくり", "作り", "造り", "あめ",
                "アメ", "乾物", "いちょう", "イチョウ", "公孫樹", "もち", "モチ", "あん", "揚げ", "あげ", "グレープ"}
# Keywords whose Sudachi groups are another sense of the word (水曜, 押韻, 梃子, ハム音, 変える).
SUDACHI_SKIP_KEYWORDS = {"水", "かえる", "ライム", "レバー", "ハム"}
ASCII = re.compile(r"^[\x00-\x7f]+$")


# Sources written by hand: a keyword missing from the list is an error, not a row to drop.
HAND_SOURCES = {"hand", "brand", "abbreviation", "spelling"}
# Sources the name generator does not draw on: brand names occur only in the hand-written packaged-goods names.
NOT_GENERATED = {"brand", "abbreviation", "spelling", "juman", "juman-wikipedia", "sudachi-form", "jmdict-spelling",
                 "sudachi-reading", "truncation"}
# Sources whose row is added next to an earlier source's row for the same name.
SECOND_ROW = {"spelling"}

HEAD_OVERRIDE = {"ながいも": "長芋"}


def from_food_composition():
    """Head word → the keyword found in most of that head's rows (so うし → 牛肉, だいこん → 大根)."""
    lists = collections.defaultdict(list)
    for head, kws in _heads():
        lists[head].append(kws)
    out = []
    for head, ls in lists.items():
        if head in HEAD_OVERRIDE:
            out.append((head, HEAD_OVERRIDE[head]))
            continue
        count = collections.Counter(k for kws in ls for k in kws)
        order = {k: i for i, k in enumerate(k for kws in ls for k in kws)}
        best = max(count, key=lambda k: (count[k], -order[k]))
        out.append((head, best))
    return out


def _heads():
    out = []
    for g, _gn, _fid, name in common.read_foods():
        g = str(int(g))
        if g not in RAW_GROUPS:
            continue
        kws, _ = fc_rules.keywords_for(g, name)
        s = fc_rules.clean(name)
        m = re.match(r"^\([^)]*\)\s*(.*)$", s)
        rest = m.group(1) if m else s
        toks = rest.split()
        if not toks:
            continue
        head = toks[0]
        # Two-letter hiragana heads (あさ, しい, はと, こい) are everyday words more often than foods.
        short_kana = len(head) <= 2 and all("\u3041" <= c <= "\u309f" for c in head)
        if head not in GENERIC_HEADS and "、" not in head and not short_kana:
            out.append((head, kws))
        q = re.search(r"\[([^\]]+牛肉)\]", s)
        if q:
            out.append((q.group(1), ["牛肉"]))
    return out


def from_sudachi(keywords):
    groups = collections.defaultdict(list)
    with open(common.SYNONYMS_TXT, encoding="utf-8") as f:
        for line in f:
            p = line.rstrip("\n").split(",")
            if len(p) < 9:
                continue
            groups[p[0]].append((p[7], p[8]))
    targets = collections.defaultdict(set)
    for members in groups.values():
        if not any(cat in SUDACHI_CATEGORIES for cat, _ in members):
            continue
        kws = {s for _, s in members if s in keywords}
        if len(kws) != 1:
            continue
        kw = next(iter(kws))
        if kw in SUDACHI_SKIP_KEYWORDS:
            continue
        for cat, s in members:
            if cat in SUDACHI_CATEGORIES and s != kw and not ASCII.match(s) and s not in SUDACHI_SKIP:
                targets[s].add(kw)
    return [(s, next(iter(k))) for s, k in sorted(targets.items()) if len(k) == 1]


def from_chive():
    rows = common.read_tsv(common.path("data", "src", "varieties-chive.tsv"), 3)
    import chive
    d = chive.vocab_dir()
    if d is None:
        print("chive: ja-ginza not installed; using the picked pairs without re-checking", file=sys.stderr)
        return [(n, k) for n, k, _ in rows]
    c = chive.Chive(d)
    surfaces = sudachi_surfaces()
    out = []
    for n, k, anchor in rows:
        if not c.share_row(n, {anchor} | surfaces.get(anchor, set())):
            raise SystemExit(f"varieties-chive.tsv: {n} does not share a chiVe row with {anchor}")
        out.append((n, k))
    return out


def sudachi_surfaces():
    groups = collections.defaultdict(list)
    with open(common.SYNONYMS_TXT, encoding="utf-8") as f:
        for line in f:
            p = line.rstrip("\n").split(",")
            if len(p) >= 9:
                groups[p[0]].append(p[8])
    out = collections.defaultdict(set)
    for ms in groups.values():
        for m in ms:
            out[m].update(ms)
    return out


def build():
    keywords = build_keywords.load()
    sources = [
        ("hand", [tuple(r) for r in common.read_tsv(common.path("data", "src", "varieties-hand.tsv"), 2)]),
        ("food-composition", from_food_composition()),
        ("jmdict", [(n, k) for n, k, _ in common.read_tsv(common.path("data", "src", "varieties-jmdict.tsv"), 3)]),
        ("chive", from_chive()),
        ("sudachi", from_sudachi(keywords)),
        # Last, so that they only add names: the rows of the sources above (and the names generated from them)
        # stay as they were.
        ("brand", [tuple(r) for r in common.read_tsv(common.path("data", "src", "brands.tsv"), 2)]),
        ("abbreviation", [tuple(r) for r in common.read_tsv(common.path("data", "src", "abbreviations.tsv"), 2)]),
        ("spelling", [tuple(r) for r in common.read_tsv(common.path("data", "src", "spellings.tsv"), 2)]),
        # Extracted by script from licensed dictionaries (extract_juman.py, extract_sudachi_forms.py); they only
        # add names, and the generator does not draw on them.
        ("sudachi-form", [tuple(r) for r in common.read_tsv(common.path("data", "src", "spellings-sudachi.tsv"), 2)]),
        ("juman", [(n, k) for n, k, kind in common.read_tsv(common.path("data", "src", "varieties-juman.tsv"), 3)
                   if kind == "spelling"]),
        ("juman-wikipedia", [(n, k) for n, k, kind in common.read_tsv(common.path("data", "src", "varieties-juman.tsv"), 3)
                             if kind == "hypernym"]),
        # The other spellings of JMdict's entry for a keyword (extract_jmdict_spellings.py): kana readings of
        # kanji keywords (てばさき → 手羽先), kanji and older spellings. CC BY-SA 4.0, like the jmdict rows.
        ("jmdict-spelling", [(n, k) for n, k, _ in
                             common.read_tsv(common.path("data", "src", "varieties-jmdict-spelling.tsv"), 3)]),
        # SudachiDict's kana readings of the names above that hold a kanji (extract_sudachi_readings.py): how
        # receipts write them (ﾁｮｳｼﾞｭｸ for 超熟).
        ("sudachi-reading", [(n, k) for n, k, _ in
                             common.read_tsv(common.path("data", "src", "varieties-sudachi-reading.tsv"), 3)]),
        # Receipt truncations of long katakana keywords (extract_truncations.py): ﾐｯｸｽﾍﾞｼﾞ for ミックスベジタブル.
        ("truncation", [tuple(r) for r in common.read_tsv(common.path("data", "src", "varieties-truncation.tsv"), 2)]),
    ]
    chosen = {}
    extra = {}
    dropped = collections.Counter()
    places = common.place_names()
    for src, pairs in sources:
        for name, kw in pairs:
            if kw not in keywords:
                if src in HAND_SOURCES:
                    raise SystemExit(f"{src}: keyword {kw!r} (for {name}) is not in keywords.txt")
                dropped[src + ": keyword not in list"] += 1
                continue
            if name in keywords or len(name) < 2:
                dropped[src + ": name is a keyword or too short"] += 1
                continue
            if name in places:
                # A place never says what a product is (鳴門 is JMdict's spelling of なると and a town).
                if src in HAND_SOURCES:
                    raise SystemExit(f"{src}: {name!r} is a place of src/areas.txt")
                dropped[src + ": name is a place"] += 1
                continue
            if name not in chosen:
                chosen[name] = (kw, src)
            elif src in SECOND_ROW and chosen[name][0] != kw and (name, kw) not in extra:
                # A lexicon spelling of a keyword that an earlier source maps elsewhere (サクラマス → 鮭 by hand,
                # yet a spelling of the keyword 桜ます) gets a second row; the earlier row stays as it was.
                extra[(name, kw)] = src
    rows = sorted(list(chosen.items()) + [(n, (k, s)) for (n, k), s in extra.items()])
    lines = ["name\tkeyword\tsource"] + [f"{n}\t{k}\t{s}" for n, (k, s) in rows]
    common.write_lines(common.path("data", "varieties.tsv"), lines)
    common.write_lines(common.path("models", "default", "varieties.tsv"), lines)
    counts = collections.Counter(s for _, (_, s) in rows)
    return rows, counts, dropped


def load():
    """[(name, keyword, source)] as last built."""
    return [tuple(r) for r in common.read_tsv(common.path("data", "varieties.tsv"), 3)[1:]]


if __name__ == "__main__":
    rows, counts, dropped = build()
    print(f"varieties: {len(rows)} {dict(counts)}", file=sys.stderr)
    print(f"dropped: {dict(dropped)}", file=sys.stderr)
