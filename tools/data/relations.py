"""Acceptable alternative keywords for a primary keyword (豚バラ肉 → 豚肉, 新玉ねぎ → 玉ねぎ).

Two sources:
- the keyword lists of the food composition rules ("豚バラ肉|豚肉"): an alternative is kept when it is
  listed in at least half of the table rows whose primary keyword is the head (so a list used for one odd
  row, like かつお節|佃煮 for 削り節つくだ煮, does not become an alternative of every かつお節);
- the suffix rule: a keyword that ends with another keyword accepts it (紫玉ねぎ → 玉ねぎ, 紅鮭 → 鮭),
  except for the pairs in SUFFIX_BLOCK, which are different foods.
At most two alternatives are kept, rule ones first.
"""
import collections

import common
import fc_rules

SUFFIX_BLOCK = {
    ("海ぶどう", "ぶどう"), ("ポン酢", "酢"), ("すし酢", "酢"), ("金目鯛", "鯛"), ("洋梨", "梨"), ("炭酸水", "水"),
    ("ミネラルウォーター", "水"), ("ぶなしめじ", "しめじ"), ("甘えび", "えび"), 
    ("ぽん酢ジュレ", "ジュレ"), ("合わせ酢", "酢"),
    ("もろみ酢", "酢"), ("飲む酢", "酢"), ("甘酢", "酢"), ("ワインビネガー", "ビネガー"),
    ("白ワインビネガー", "ワインビネガー"), ("かぼちゃの種", "種"), ("トマトジュース", "ジュース"),
    ("豆乳", "乳"), ("練乳", "乳"), ("ココナッツミルク", "ミルク"), ("粉ミルク", "ミルク"),
    ("スキムミルク", "ミルク"), ("アーモンドミルク", "ミルク"), ("オーツミルク", "ミルク"), ("ピーマン", "マン"),
    ("すいか", "いか"), ("きくらげ", "くらげ"), ("かます", "ます"), ("たかさご", "かさご"), ("とんぶり", "ぶり"),
    ("なます", "ます"), ("めかぶ", "かぶ"), ("スコーン", "コーン"), ("ソーセージ", "セージ"), ("しまあじ", "あじ"),
    ("とうもろこし", "もろこし"), ("マルメロ", "メロ"), ("ホースラディッシュ", "ラディッシュ"),
    ("ポップコーン", "コーン"), ("ヤングコーン", "コーン"), ("ピーナッツバター", "バター"), ("杏仁豆腐", "豆腐"),
    ("柚子こしょう", "こしょう"), ("ごま豆腐", "豆腐"), ("卵豆腐", "豆腐"), ("塩こしょう", "こしょう"),
    ("鶏せせり", "せり"), ("甘納豆", "納豆"), ("牛乳寒天", "寒天"), ("麻婆豆腐", "豆腐"), ("焼きそば", "そば"),
    ("玉ねぎ", "ねぎ"), ("えごま", "ごま"), ("えごま油", "ごま油"), ("おかひじき", "ひじき"), ("海藻サラダ", "サラダ"),
    ("肉団子", "団子"), ("豚トロ", "トロ"), ("柳松茸", "松茸"), ("もずく酢", "酢"), ("玉子豆腐", "豆腐"),
}


def build_alternatives(keywords):
    rows_per_head = collections.Counter()
    alt_rows = collections.Counter()
    for g, _gn, _fid, name in common.read_foods():
        if int(g) == 18:  # prepared dishes: their lists name an ingredient, not a broader keyword
            continue
        kws, _ = fc_rules.keywords_for(g, name)
        rows_per_head[kws[0]] += 1
        for k in kws[1:]:
            alt_rows[(kws[0], k)] += 1
    alts = collections.defaultdict(list)
    for (head, k), n in sorted(alt_rows.items(), key=lambda x: (-x[1], x[0])):
        if k in keywords and k != head and 2 * n >= rows_per_head[head]:
            alts[head].append(k)
    by_len = sorted(keywords, key=lambda s: (-len(s), s))
    for k in sorted(keywords):
        for j in by_len:
            if len(j) < len(k) and k.endswith(j) and (k, j) not in SUFFIX_BLOCK:
                if j not in alts[k]:
                    alts[k].append(j)
                break
    return {k: v[:2] for k, v in alts.items() if v}


if __name__ == "__main__":
    import build_keywords
    a = build_alternatives(set(build_keywords.load()))
    for k in sorted(a):
        print(k, "→", " ".join(a[k]))
