"""Candidate variety names from the chiVe vectors shipped in ja-ginza 5.3.0 (Apache-2.0).

spaCy pruned chiVe's vocabulary to 20,000 rows and pointed every dropped key at its nearest kept row,
so rare words (メークイン, キタアカリ) share the row of a common one (ジャガ芋). `candidates()` lists, for
a keyword and its Sudachi spellings, the other strings on the same rows. The rows are noisy (unrelated
strings share rows too), so candidates are only proposals: the accepted pairs were picked by eye into
data/src/varieties-chive.tsv, and `verify()` re-checks that each picked pair really shares a row.
"""
import collections
import json
import os
import re

VOCAB_GLOB = "ja_ginza/ja_ginza-5.3.0/vocab"
JP = re.compile(r"^[\u3041-\u309f\u30a0-\u30ff\u4e00-\u9fff々ー・]{2,}$")


def vocab_dir():
    try:
        import ja_ginza
    except ImportError:
        return None
    d = os.path.join(os.path.dirname(ja_ginza.__file__), "ja_ginza-5.3.0", "vocab")
    return d if os.path.isdir(d) else None


class Chive:
    def __init__(self, d):
        import msgpack
        from spacy.strings import hash_string
        self.hash = hash_string
        with open(os.path.join(d, "strings.json"), encoding="utf-8") as f:
            strings = json.load(f)
        with open(os.path.join(d, "key2row"), "rb") as f:
            self.k2r = msgpack.unpackb(f.read(), strict_map_key=False)
        self.rows = collections.defaultdict(list)
        for s in strings:
            r = self.k2r.get(hash_string(s))
            if r is not None:
                self.rows[r].append(s)

    def row(self, s):
        return self.k2r.get(self.hash(s))

    def candidates(self, surfaces):
        seen = []
        for s in surfaces:
            r = self.row(s)
            if r is None:
                continue
            for t in self.rows[r]:
                if JP.match(t) and t not in surfaces and t not in seen:
                    seen.append(t)
        return seen

    def share_row(self, a, surfaces):
        ra = self.row(a)
        return ra is not None and any(self.row(s) == ra for s in surfaces)
