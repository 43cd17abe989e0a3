"""Seeded generator of marketplace-style product names (source "generated").

Usage: python3 generate.py [--seed N] [--out FILE]  (build_all.py calls generate()).

For every keyword it writes a few names, and one more for every variety name that maps to it, drawing on:
- the keyword's spellings: the keyword, hiragana/katakana conversions, Sudachi and hand-listed spellings
  (varieties.tsv rows from sudachi), and variety/brand/regional names (the other varieties.tsv rows);
- data/src/areas.txt (47 prefectures and well-known producing areas) and data/src/phrases.txt
  (catch phrases, uses, shipping notes, sale tags);
- producers (surname + 農園/牧場/水産 …), grades and sizes, and units and counts by category;
- layout: several word orders, separators, bracket and symbol styles; half-width katakana and
  full-width digits on a share of names.
Labels: the keyword first, then its acceptable alternatives (relations.py).
"""
import argparse
import collections
import random
import re
import sys

import build_keywords
import build_varieties
import common
import relations
import textvariants as tv

SURNAMES = ["田中", "佐藤", "鈴木", "高橋", "伊藤", "渡辺", "山本", "中村", "小林", "加藤", "吉田", "山田",
            "佐々木", "山口", "松本", "井上", "木村", "林", "斎藤", "清水", "森", "池田", "橋本", "石川", "前田",
            "藤田", "後藤", "岡田", "長谷川", "村上", "近藤", "坂本", "遠藤", "青木", "藤井", "西村", "福田",
            "太田", "三浦", "岡本", "松田", "中川", "中島", "原田", "小野", "竹内", "金子", "和田", "中山", "石井"]
PRODUCER_SUFFIX = {
    "plant": ["農園", "農場", "ファーム", "さんちの", "さんの", "果樹園", "園", "農産", "グリーンファーム"],
    "animal": ["牧場", "畜産", "ファーム", "精肉店", "ミート", "養鶏場", "さんちの"],
    "sea": ["水産", "鮮魚店", "漁業", "商店", "丸", "海産", "さんちの"],
    "other": ["商店", "本舗", "食品", "醸造", "製麺所", "ベーカリー", "工房", "屋"],
}
KIND = {
    "野菜": "plant", "果物": "plant", "きのこ": "plant", "いも・でんぷん": "plant", "ナッツ・種実": "plant",
    "豆・大豆製品": "plant", "香辛料・ハーブ": "plant", "穀物・麺・パン": "other",
    "肉": "animal", "肉加工品": "animal", "卵": "animal", "乳製品": "animal",
    "魚介": "sea", "魚介加工品": "sea", "海藻": "sea",
}
CORE = {"野菜", "果物", "きのこ", "いも・でんぷん", "肉", "魚介", "海藻", "卵", "乳製品", "豆・大豆製品",
        "肉加工品", "魚介加工品", "穀物・麺・パン"}
UNITS = {
    "plant": [("本", 1, 10), ("個", 1, 20), ("玉", 1, 6), ("株", 1, 5), ("束", 1, 5), ("袋", 1, 5),
              ("パック", 1, 4), ("kg", 1, 10), ("g", 100, 900), ("箱", 1, 3), ("把", 1, 3), ("房", 1, 4),
              ("粒", 10, 40), ("ケース", 1, 2), ("ネット", 1, 3)],
    "animal": [("g", 100, 900), ("kg", 1, 5), ("パック", 1, 5), ("枚", 2, 12), ("本", 2, 20), ("個", 6, 30),
               ("切れ", 2, 10), ("人前", 2, 6), ("ブロック", 1, 2), ("袋", 1, 4)],
    "sea": [("尾", 1, 10), ("匹", 1, 20), ("切れ", 2, 10), ("切", 2, 10), ("枚", 2, 10), ("杯", 1, 5),
            ("g", 100, 900), ("kg", 1, 5), ("パック", 1, 4), ("袋", 1, 5), ("粒", 10, 50), ("個", 5, 30),
            ("ハイ", 1, 5)],
    "other": [("g", 50, 900), ("kg", 1, 10), ("ml", 100, 900), ("mL", 150, 1000), ("L", 1, 2), ("本", 1, 12),
              ("袋", 1, 10), ("個", 1, 12), ("缶", 1, 24), ("瓶", 1, 6), ("食", 2, 10), ("人前", 2, 6),
              ("枚", 4, 20), ("箱", 1, 6), ("パック", 1, 6)],
}
GRADES = ["L", "2L", "3L", "M", "S", "LL", "Lサイズ", "Mサイズ", "2Lサイズ", "S〜M", "M〜L", "L〜2L", "秀",
          "優", "良", "秀品", "特大", "大玉", "小玉", "大サイズ", "小ぶり", "大きめ", "不揃い", "サイズ混合", "A品",
          "B品", "訳あり品", "特選", "上", "並"]
BRACKETS = [("【", "】"), ("「", "」"), ("『", "』"), ("［", "］"), ("[", "]"), ("《", "》"), ("＜", "＞"),
            ("(", ")"), ("（", "）"), ("〈", "〉"), ("〔", "〕")]
MARKS = ["★", "☆", "◆", "◇", "■", "□", "●", "○", "◎", "♪", "！", "!!", "※", "▼", "▲", "✨", "🍀", "◉"]
SEPARATORS = [" ", " ", " ", "　", "", "・", "/", " / ", "｜", "、", "　", " "]


# Phrases that fit only some kinds of food (a cheese is not sold 刺身用); others fit any kind.
PHRASE_KINDS = {
    "sea animal": ["刺身用", "お刺身用", "生食用", "加熱用", "骨取り", "骨なし", "骨付き", "切り身", "皮付き", "皮なし",
                   "唐揚げ用", "煮込み用", "BBQに", "バーベキュー用", "活〆", "朝締め", "養殖", "天然"],
    "sea": ["むき身", "殻付き", "ボイル", "港直送", "漁師直送", "生食可"],
    "animal": ["焼肉用", "しゃぶしゃぶ用", "すき焼き用", "ステーキ用", "カレー用", "牧場直送", "肉の日限定10%オフ！"],
    "plant": ["皮むき済み", "糖度13度以上", "糖度保証", "蜜入り", "完熟", "樹上完熟", "無農薬", "農薬不使用", "減農薬",
              "特別栽培", "自然栽培", "露地栽培", "露地もの", "ハウス", "朝どれ", "朝採れ", "採れたて", "JA直送",
              "シャキシャキ", "ほくほく", "みずみずしい", "大粒", "小粒", "規格外", "秀品", "初物", "はしり"],
    "other": ["蔵元直送", "保存料不使用", "化学調味料不使用", "着色料不使用", "無着色", "レンジで簡単", "湯せん",
              "甘口", "辛口", "中辛", "大辛", "無塩", "減塩"],
}


def phrase_fits(phrase, kind):
    for kinds, phrases in PHRASE_KINDS.items():
        if phrase in phrases:
            return kind in kinds.split()
    return True


def load_phrases():
    pre, post = [], []
    for tag, phrase in common.read_tsv(common.path("data", "src", "phrases.txt"), 2):
        if tag in ("pre", "any"):
            pre.append(phrase)
        if tag in ("post", "any"):
            post.append(phrase)
    return pre, post


def load_areas():
    areas = []
    with open(common.path("data", "src", "areas.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                areas.append(line.split("|"))
    return areas


class Generator:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.cats = build_keywords.load()
        self.keywords = sorted(self.cats)
        self.alts = relations.build_alternatives(set(self.keywords))
        self.pre, self.post = load_phrases()
        self.areas = load_areas()
        self.spellings = collections.defaultdict(list)
        self.varieties = collections.defaultdict(list)
        for name, kw, src in build_varieties.load():
            if src in build_varieties.NOT_GENERATED:
                continue
            (self.spellings if src == "sudachi" else self.varieties)[kw].append(name)

    # -- pieces -------------------------------------------------------------------------------------
    def kind(self, kw):
        return KIND.get(self.cats[kw], "other")

    def surface(self, kw):
        r = self.rng
        forms = [kw] * 4 + self.spellings.get(kw, [])
        s = r.choice(forms)
        x = r.random()
        if tv.is_hiragana(s) and x < 0.25:
            s = tv.to_katakana(s)
        elif tv.is_katakana(s) and x < 0.08:
            s = tv.to_hiragana(s)
        return s

    def area(self):
        r = self.rng
        forms = r.choice(self.areas)
        a = r.choice(forms)
        if r.random() < 0.12 and len(self.areas) > 1:
            # prefecture + area, e.g. 北海道十勝
            b = r.choice(self.areas)[0]
            if b != a and not b.endswith(("県", "府", "都")):
                a = r.choice([a, forms[-1]]) + b
        style = r.random()
        if a in ("国産", "九州", "四国", "東北", "北陸", "山陰", "関西", "道産"):
            return a if a in ("国産", "道産") or style < 0.5 else a + "産"
        if style < 0.55:
            return a + "産"
        if style < 0.70:
            return a
        if style < 0.78:
            return forms[0] + "産" if len(forms) == 2 and a == forms[1] else a + "産"
        if style < 0.86:
            return "産地：" + a
        if style < 0.93:
            return a + "の"
        return a + "から"

    def producer(self, kw):
        r = self.rng
        suf = r.choice(PRODUCER_SUFFIX[self.kind(kw)])
        name = r.choice(SURNAMES)
        if suf in ("さんちの", "さんの"):
            return name + suf
        if suf == "丸":
            return r.choice(["第一", "第三", "第八", "幸", "大漁", "恵比寿"]) + r.choice(["丸", "丸水産"])
        return name + suf if r.random() < 0.7 else r.choice(["ひだまり", "みどり", "さくら", "あおぞら", "まるやま",
                                                              "やまなか", "かねこ", "ひかり", "いろどり"]) + suf

    def quantity(self, kw):
        r = self.rng
        unit, lo, hi = r.choice(UNITS[self.kind(kw)])
        if unit in ("g", "ml", "mL"):
            n = r.randrange(lo, hi + 1, 50) if hi - lo >= 50 else r.randint(lo, hi)
            n = max(n, lo)
        elif unit == "kg" and r.random() < 0.3:
            n = r.choice(["1.5", "2.5", "0.5", "1.2", "3.5"])
        else:
            n = r.randint(lo, hi)
        q = f"{n}{unit}"
        x = r.random()
        if x < 0.15:
            q = "約" + q
        elif x < 0.22:
            q = q + r.choice(["前後", "程度", "以上", "入り", "入"])
        elif x < 0.34:
            q = q + r.choice(["×", "x", "✕", "*"]) + str(r.randint(2, 6)) + r.choice(["", "", "袋", "パック", "個"])
        elif x < 0.40:
            q = f"{n}〜{int(n) + r.randint(1, 5) if str(n).isdigit() else n}{unit}" if str(n).isdigit() else q
        elif x < 0.46:
            q = r.choice(["1箱", "1袋", "1パック", "1ケース", "1セット"]) + "(" + q + ")"
        elif x < 0.52:
            q = q + r.choice(["セット", "箱", "入り箱"])
        if r.random() < 0.1:
            q = r.choice(["内容量", "容量", "数量", "重量"]) + r.choice(["：", ":", " "]) + q
        return q

    def item(self, kw):
        """The words that name the food: spelling, variety, or both."""
        r = self.rng
        vs = self.varieties.get(kw, [])
        x = r.random()
        if vs and x < 0.35:
            return [r.choice(vs)]
        if vs and x < 0.6:
            v, s = r.choice(vs), self.surface(kw)
            y = r.random()
            if y < 0.4:
                return [v, s]
            if y < 0.6:
                return [s, v]
            if y < 0.8:
                o, c = r.choice(BRACKETS)
                return [s + o + v + c]
            o, c = r.choice(BRACKETS)
            return [v + o + s + c]
        return [self.surface(kw)]

    # -- a name -------------------------------------------------------------------------------------
    def name(self, kw, item=None):
        r = self.rng
        item = item or self.item(kw)
        head, tail = [], []
        if r.random() < 0.5:
            head.append(self.area())
        if r.random() < 0.12:
            head.insert(0, self.producer(kw)) if r.random() < 0.5 else tail.append(self.producer(kw))
        kind = self.kind(kw)
        for _ in range(r.choice([0, 0, 1, 1, 1, 2, 2, 3])):
            pool, side = (self.pre, head) if r.random() < 0.5 else (self.post, tail)
            for _try in range(8):
                p = r.choice(pool)
                if phrase_fits(p, kind):
                    side.append(p)
                    break
        if r.random() < 0.18 and self.kind(kw) in ("plant", "sea"):
            tail.insert(0, r.choice(GRADES))
        if r.random() < 0.6:
            tail.append(self.quantity(kw))
        if r.random() < 0.15:
            r.shuffle(head)
        if r.random() < 0.2:
            r.shuffle(tail)
        if r.random() < 0.1 and tail:
            # item at the end: "朝どれ 3本 にんじん"
            parts = head + tail + item
        else:
            parts = head + item + tail
        parts = [p for p in parts if p]
        # bracket one or two chunks
        for _ in range(r.choice([0, 0, 1, 1, 2])):
            i = r.randrange(len(parts))
            if not re.search(r"[【「『［\[《＜(（〈〔]", parts[i]):
                o, c = r.choice(BRACKETS)
                parts[i] = o + parts[i] + c
        sep = r.choice(SEPARATORS)
        s = sep.join(parts) if r.random() < 0.8 else "".join(p + r.choice(SEPARATORS) for p in parts).strip()
        if r.random() < 0.2:
            m = r.choice(MARKS)
            s = m + s if r.random() < 0.6 else s + m
            if r.random() < 0.3:
                s = m + s + m
        x = r.random()
        if x < 0.08:
            s = tv.to_halfwidth_katakana(s)
        elif x < 0.2:
            s = tv.to_fullwidth_ascii(s, digits_only=r.random() < 0.5)
        return re.sub(r"\s+", lambda m: m.group(0)[0], s).strip()

    def label(self, kw):
        return [kw] + [a for a in self.alts.get(kw, []) if a != kw]


def generate(seed=20260422):
    g = Generator(seed)
    out = []
    seen = set()

    def add(name, kw):
        if name and name not in seen:
            seen.add(name)
            out.append({"name": name, "keywords": g.label(kw), "source": "generated"})

    for kw in g.keywords:
        n = 4 if g.cats[kw] in CORE else 2
        for _ in range(n):
            add(g.name(kw), kw)
        for v in g.varieties.get(kw, []):
            add(g.name(kw, [v] if g.rng.random() < 0.7 else [v, g.surface(kw)]), kw)
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=20260422)
    ap.add_argument("--out")
    a = ap.parse_args()
    recs = generate(a.seed)
    if a.out:
        common.write_jsonl(a.out, recs)
    else:
        for rec in recs:
            print(rec["name"], "→", " ".join(rec["keywords"]))
    print(f"generated: {len(recs)}", file=sys.stderr)
