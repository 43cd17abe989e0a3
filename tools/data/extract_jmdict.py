"""Extract variety → keyword pairs from JMdict (CC BY-SA 4.0, via the PyPI package jamdict-data).

Usage: python3 extract_jmdict.py /path/to/jamdict.db  (the SQLite file inside jamdict-data, unpacked
from jamdict.db.xz). Writes data/src/varieties-jmdict.tsv, which build_varieties.py reads, so the rest of
the build does not need the 300 MB database. A sense is used when one of its English glosses says it is
a variety or cultivar of a food whose keyword GLOSS_RULES names; every headword (kanji and kana) of the
entry becomes a row. Wine grape varieties are skipped (they name wines, not ingredients).
"""
import re
import sqlite3
import sys

import common

# Headwords too ambiguous to use on their own (金時 is also a bean and a carrot; 太白 also a sesame oil).
SKIP = {"金時", "きんとき", "公時", "太白", "たいはく"}

GLOSS_RULES = [
    (r"sweet potato variety|variety of sweet potato|cultivars with red skin", "さつまいも"),
    (r"variety of potato|potato variety", "じゃがいも"),
    (r"\(variety of rice\)|hybrid variety of rice|italian variety|variety of rice\)", "米"),
    (r"cultivar of apple|apple cultivar|apple variety|variety of apple", "りんご"),
    (r"variety of (sweet|astringent) japanese persimmon", "柿"),
    (r"cultivar of pomelo", "文旦"),
    (r"variety of adzuki|adzuki bean variety", "小豆"),
    (r"taro variety|variety of taro", "里芋"),
    (r"strawberry cultivar|strawberry variety", "いちご"),
    (r"variety of pear|pear cultivar|pear variety", "梨"),
    (r"variety of eggplant|eggplant variety", "なす"),
    (r"variety of large white oriental radish|variety of radish", "大根"),
    (r"variety of small chinese cabbage", "白菜"),
    (r"mandarin variety|variety of mandarin", "みかん"),
    (r"variety of watermelon", "すいか"),
    (r"\(japanese grape variety\)|grape variety, like concord", "ぶどう"),
    (r"japanese plum cultivar", "すもも"),
    (r"chinese yam \(variety|japanese yam \(variety", "山芋"),
]


def extract(db):
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT s.idseq, g.text FROM SenseGloss g JOIN Sense s ON s.ID = g.sid "
        "WHERE g.lang = 'eng' AND (g.text LIKE '%variety%' OR g.text LIKE '%cultivar%')").fetchall()
    out = {}
    for idseq, text in rows:
        t = text.lower()
        if "wine grape" in t:
            continue
        for pat, kw in GLOSS_RULES:
            if re.search(pat, t):
                forms = [r[0] for r in con.execute("SELECT text FROM Kanji WHERE idseq = ?", (idseq,))]
                forms += [r[0] for r in con.execute("SELECT text FROM Kana WHERE idseq = ?", (idseq,))]
                for f in forms:
                    if f in SKIP:
                        continue
                    out.setdefault(f, (kw, text))
                break
    return out


if __name__ == "__main__":
    pairs = extract(sys.argv[1])
    lines = ["# name<TAB>keyword<TAB>JMdict gloss — extracted by tools/data/extract_jmdict.py from JMdict "
             "(EDRDG, CC BY-SA 4.0, PyPI jamdict-data 1.5)"]
    for name in sorted(pairs):
        kw, gloss = pairs[name]
        lines.append(f"{name}\t{kw}\t{gloss}")
    common.write_lines(common.path("data", "src", "varieties-jmdict.tsv"), lines)
    print(f"jmdict pairs: {len(pairs)}", file=sys.stderr)
