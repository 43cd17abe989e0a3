"""Spelling variants used by the generator: hiragana ↔ katakana, half-width katakana, full-width digits."""
import unicodedata

_HW = {}
for cp in range(0xFF61, 0xFFA0):
    ch = chr(cp)
    _HW.setdefault(unicodedata.normalize("NFKC", ch), ch)
for base in list(_HW):
    for mark in ("\uff9e", "\uff9f"):
        full = unicodedata.normalize("NFKC", _HW[base] + mark)
        if len(full) == 1 and full not in _HW:
            _HW[full] = _HW[base] + mark


def to_katakana(s):
    return "".join(chr(ord(c) + 0x60) if "\u3041" <= c <= "\u3096" else c for c in s)


def to_hiragana(s):
    return "".join(chr(ord(c) - 0x60) if "\u30a1" <= c <= "\u30f6" else c for c in s)


def to_halfwidth_katakana(s):
    return "".join(_HW.get(c, c) if "\u30a0" <= c <= "\u30ff" or c in "、。「」・" else c for c in s)


def to_fullwidth_ascii(s, digits_only=False):
    out = []
    for c in s:
        if "0" <= c <= "9" or (not digits_only and ("A" <= c <= "Z" or "a" <= c <= "z")):
            out.append(chr(ord(c) + 0xFEE0))
        else:
            out.append(c)
    return "".join(out)


def is_hiragana(s):
    return all("\u3041" <= c <= "\u309f" or c == "ー" for c in s)


def is_katakana(s):
    return all("\u30a0" <= c <= "\u30ff" for c in s)
