"""The sub-word pieces of a token, as Sources/KeywordModel/Subwords.swift computes them (the NumPy reference
and tools/model/ties.py use this; keep the two in step).

A token is folded like LexicalText.fold (full-width ASCII to ASCII, katakana to hiragana, ASCII lower case,
separators dropped), wrapped in a start and an end mark; its pieces are the whole folded token and every
character 1-, 2- and 3-gram of the marked token except a lone mark. Each piece is hashed with 32-bit FNV-1a
over three bytes per scalar, from a basis mixed with the piece's kind (0 whole token, n an n-gram).
"""

SEPARATORS = {0x20, 0x09, 0x0A, 0x0D, 0x3000, 0x30FB, 0xFF65, 0xB7, 0x2F, 0x5F, 0x2D, 0x2010, 0x2011, 0x2012,
              0x2013, 0x2014, 0x2015, 0x2212, 0x3001, 0x3002, 0x2C, 0x2E}
START, END = 0xE000, 0xE001
BASIS, PRIME, MASK = 0x811C9DC5, 0x01000193, 0xFFFFFFFF
ORDERS = (1, 2, 3)


def fold(text):
    out = []
    for ch in text:
        v = ord(ch)
        if 0xFF01 <= v <= 0xFF5E:
            v -= 0xFEE0
        if 0x30A1 <= v <= 0x30F6:
            v -= 0x60
        if 0x41 <= v <= 0x5A:
            v += 0x20
        if v in SEPARATORS:
            continue
        out.append(v)
    return out


def piece_hash(kind, scalars):
    h = ((BASIS ^ kind) * PRIME) & MASK
    for s in scalars:
        h = ((h ^ (s & 0xFF)) * PRIME) & MASK
        h = ((h ^ ((s >> 8) & 0xFF)) * PRIME) & MASK
        h = ((h ^ (s >> 16)) * PRIME) & MASK
    return h


def token_pieces(surface):
    folded = fold(surface)
    if not folded:
        return []
    hashes = [piece_hash(0, folded)]
    marked = [START] + folded + [END]
    for n in ORDERS:
        if len(marked) < n:
            break
        for start in range(len(marked) - n + 1):
            piece = marked[start:start + n]
            if n == 1 and piece[0] in (START, END):
                continue
            hashes.append(piece_hash(n, piece))
    return hashes


def keyword_piece_surfaces(tokens):
    """PipelineAnalyzer.pieceSurfaces: a keyword's non-content tokens glued to the next content token (or the
    last one at the end). `tokens` are (surface, is_content) pairs; returns None when there is nothing to glue."""
    if not any(c for _, c in tokens) or all(c for _, c in tokens):
        return None
    result, pending = [], ""
    for surface, content in tokens:
        if content:
            result.append(pending + surface)
            pending = ""
        else:
            pending += surface
    if pending and result:
        result[-1] += pending
    return result
