"""The labelling convention "the most specific keyword the name states comes first", as a rule and a check.

A keyword is *stated* in a name when its text occurs in the name (NFKC, lower case, katakana folded to hiragana,
separators other than spaces dropped) starting at a word start: the beginning of the name or after a character
that is neither kana nor kanji (so しまあじ is not stated in にしまあじ, 生そば not in 半生そば). A keyword K is more
specific than the primary P when K's text contains P's and is longer (白ごま ⊃ ごま, 焼きのり ⊃ のり).

A label follows the convention when, its primary occurring in the name, no keyword more specific than its primary is stated in the name, listed or
not. `apply` rewrites a label to follow it: the longest such keyword becomes the primary and the old primary
stays as the first alternative (at most three keywords in all, as elsewhere).
"""
import unicodedata

DROP = set("・･/／_＿")


def fold(text):
    s = unicodedata.normalize("NFKC", text).lower()
    out = []
    for c in s:
        if c in DROP:
            continue
        if "ァ" <= c <= "ヶ":
            c = chr(ord(c) - 0x60)
        out.append(c)
    return "".join(out)


def _wordish(c):
    return ("\u3041" <= c <= "\u309f") or ("\u30a0" <= c <= "\u30ff") or ("\u4e00" <= c <= "\u9fff") or c == "ー"


def stated(keyword_folded, name_folded):
    start = name_folded.find(keyword_folded)
    while start >= 0:
        if start == 0 or not _wordish(name_folded[start - 1]):
            return True
        start = name_folded.find(keyword_folded, start + 1)
    return False


class Convention:
    def __init__(self, keywords):
        self.folded = {k: fold(k) for k in keywords}
        # keyword → the keywords more specific than it (containing its text, longer)
        self.more_specific = {}
        ks = sorted(self.folded, key=lambda k: -len(self.folded[k]))
        for p in self.folded:
            fp = self.folded[p]
            self.more_specific[p] = [k for k in ks if len(self.folded[k]) > len(fp) and fp in self.folded[k]]

    def violation(self, name, keywords, allowed=None):
        """The most specific keyword stated in `name` that should come before the primary, or None."""
        n = fold(name)
        primary = keywords[0]
        if primary not in self.folded or self.folded[primary] not in n:
            return None
        for k in self.more_specific[primary]:
            if (allowed is None or k in allowed or k in keywords) and stated(self.folded[k], n):
                return k
        return None

    def apply(self, name, keywords, allowed=None):
        """The label rewritten to follow the convention (unchanged when it does); `allowed` limits the keywords
        that may be added (a split never gains a keyword held out of it)."""
        ks = list(keywords)
        for _ in range(4):
            k = self.violation(name, ks, allowed)
            if k is None:
                break
            ks = [k] + [x for x in ks if x != k]
        if ks != list(keywords):
            ks = ks[:max(3, len(keywords))]
        return ks
