"""Rules that turn a food composition table name into a recipe-site keyword.

A table name looks like `<魚類> (さけ･ます類) しろさけ イクラ` or `(にんじん類) にんじん 根 皮つき 生`.
`clean()` drops the `<…>` group and collapses spaces. `RULES` holds, per food group (`@N` lines of
`fc_rules.tsv`, beside this file), an ordered list of (regular expression, keywords): the first rule of the row's group whose expression
matches the cleaned name wins; keywords are written "primary|alternative|…". Each rule encodes the
generic name in `(…類)` or the head noun, converted to recipe-site spelling (ぶた … ばら → 豚バラ肉,
たまねぎ → 玉ねぎ). Every row of the table must be matched (the build fails otherwise).
"""
import os
import re

GROUP_CATEGORY = {
    "1": "穀物・麺・パン", "2": "いも・でんぷん", "3": "砂糖・甘味料", "4": "豆・大豆製品",
    "5": "ナッツ・種実", "6": "野菜", "7": "果物", "8": "きのこ", "9": "海藻", "10": "魚介",
    "11": "肉", "12": "卵", "13": "乳製品", "14": "油脂", "15": "菓子・デザート",
    "16": "飲料・酒", "17": "調味料", "18": "惣菜・加工食品",
}


def clean(name):
    s = re.sub(r"<[^>]*>", " ", name)
    s = s.replace("〕", "]")
    return re.sub(r"\s+", " ", s).strip()


RULES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fc_rules.tsv")


def load_rules(path=RULES_FILE):
    """{group: [(compiled expression, [keywords])]} from the rules file; errors name the file and line."""
    rules, group = {}, None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith("@"):
                group = line[1:].strip()
                continue
            parts = line.split("\t")
            if len(parts) != 2 or group is None:
                raise ValueError(f"{path}:{number}: expected '<expression>\\t<keywords>' after an @group line")
            try:
                rules.setdefault(group, []).append((re.compile(parts[0]), parts[1].split("|")))
            except re.error as error:
                raise ValueError(f"{path}:{number}: bad expression: {error}") from None
    return rules


RULES = load_rules()


def keywords_for(group_id, name):
    """Return (keywords, rule pattern) for one table row, or (None, None) when no rule of its group matches.

    Rules are scoped by the table's food group, so a head such as しょうが (vegetable) and しょうが
    (spice) get different rules.
    """
    s = clean(name)
    for rx, kws in RULES.get(str(int(group_id)), []):
        if rx.search(s):
            return kws, rx.pattern
    return None, None
