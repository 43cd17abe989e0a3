"""Extract spelling → keyword pairs from JMdict's entries for keywords (CC BY-SA 4.0, via the PyPI package
jamdict-data).

Usage: python3 extract_jmdict_spellings.py /path/to/jamdict.db  (the SQLite file jamdict-data installs).
Writes data/src/varieties-jmdict-spelling.tsv (name, keyword, JMdict entry id), which build_varieties.py reads
as source `jmdict-spelling`. The rows are derived from JMdict, so the file is under CC BY-SA 4.0.

An entry is used when it is a common noun and exactly one keyword of the list is one of its spellings, written
the same way (ジン does not anchor the entry 壬 (じん), nor かます the verb 噛ます); every other spelling of the entry then names that keyword: 手羽先 gives てばさき and
テバサキ, so a receipt's 「ﾃﾊﾞｻｷ」 states 手羽先; 牛乳 gives ぎゅうにゅう; 香菜 and パクチー share an entry. Spellings
JMdict marks as out-dated, irregular or search-only are left out, as are spellings of two characters or fewer
(a variety name matches anywhere in a name, and short kana strings occur inside other words) and spellings that
two entries would map to different keywords. Two kanji are kept (焼売 → シュウマイ, 平目 → ひらめ) when no other
common noun of JMdict holds the keyword: いちご also spells the homophones 一期 and 一語, so its entries give none.
"""
import collections
import sqlite3
import sys
import unicodedata

import build_keywords
import common

BAD_INFO = ("out-dated", "irregular", "search-only", "rarely used", "obsolete")
# Two-kanji spellings that shop names mostly write inside other words (千枚漬, 八町味噌, 御田植え米, 花林糖).
INSIDE_WORDS = {"千枚", "八町", "御田", "花林"}
# Keywords whose JMdict entries are about another sense of the word (as in build_varieties.SUDACHI_SKIP_KEYWORDS).
SKIP_KEYWORDS = {"水", "かえる", "ライム", "レバー", "ハム"}


def fold(s):
    s = unicodedata.normalize("NFKC", s)
    return "".join(chr(ord(c) - 0x60) if "ァ" <= c <= "ヶ" else c for c in s).lower()


def is_kanji(c):
    return "\u4e00" <= c <= "\u9fff" or c == "\u3005"


def extract(db, keywords):
    con = sqlite3.connect(db)
    by_fold = collections.defaultdict(set)
    for k in keywords:
        if k not in SKIP_KEYWORDS:
            by_fold[fold(k)].add(k)
    bad_kanji = {kid for kid, text in con.execute("SELECT kid, text FROM KJI") if any(b in text for b in BAD_INFO)}
    bad_kana = {kid for kid, text in con.execute("SELECT kid, text FROM KNI") if any(b in text for b in BAD_INFO)}
    spellings = collections.defaultdict(list)
    for kid, idseq, text in con.execute("SELECT ID, idseq, text FROM Kanji"):
        spellings[idseq].append((text, kid not in bad_kanji))
    for kid, idseq, text in con.execute("SELECT ID, idseq, text FROM Kana"):
        spellings[idseq].append((text, kid not in bad_kana))
    nouns = {idseq for (idseq,) in con.execute(
        "SELECT DISTINCT s.idseq FROM Sense s JOIN pos p ON p.sid = s.ID WHERE p.text = 'noun (common) (futsuumeishi)'")}
    exact = set(keywords) - SKIP_KEYWORDS
    anchored = collections.Counter()  # keyword → how many common nouns of JMdict hold it
    for idseq, forms in spellings.items():
        if idseq in nouns:
            for a in {unicodedata.normalize("NFKC", text) for text, _ok in forms} & exact:
                anchored[a] += 1
    rows = collections.defaultdict(set)
    for idseq, forms in spellings.items():
        if idseq not in nouns:
            continue
        anchors = {unicodedata.normalize("NFKC", text) for text, _ok in forms} & exact
        if len(anchors) != 1:
            continue
        (keyword,) = anchors
        for text, ok in forms:
            if not ok or fold(text) in by_fold or len(fold(text)) < 2:
                continue
            if len(fold(text)) == 2 and not (all(is_kanji(c) for c in text) and anchored[keyword] == 1
                                             and text not in INSIDE_WORDS):
                continue
            rows[text].add((keyword, idseq))
    out = []
    for name in sorted(rows):
        kws = {k for k, _ in rows[name]}
        if len(kws) == 1:
            kw = next(iter(kws))
            out.append((name, kw, str(min(i for _, i in rows[name]))))
    return out


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    keywords = set(build_keywords.load())
    out = extract(sys.argv[1], keywords)
    header = ["# JMdict (EDRDG), CC BY-SA 4.0: spellings of the JMdict entry that holds a keyword → that keyword",
              "# (name, keyword, JMdict entry id). Written by tools/data/extract_jmdict_spellings.py; do not edit."]
    common.write_lines(common.path("data", "src", "varieties-jmdict-spelling.tsv"),
                       header + [f"{n}\t{k}\t{i}" for n, k, i in out])
    print(f"{len(out)} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
