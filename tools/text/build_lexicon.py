#!/usr/bin/env python3
"""Builds models/default/lexicon.kwlex from SudachiDict-core and the chiVe vocabulary of ja-ginza 5.3.0.

    pip install ja-ginza==5.3.0 sudachipy sudachidict_core msgpack numpy
    python3 tools/text/build_lexicon.py --out models/default/lexicon.kwlex

Every kept Sudachi entry points at the chiVe row (0..<20000, original chiVe row order) of its
normalised form; spelling variants (にんじん, ニンジン, 人参) therefore share a row. The byte layout is
documented in models/default/TEXT.md and read by Sources/KeywordText/Lexicon.swift.
"""
import argparse
import collections
import json
import os
import struct
import sys
import unicodedata

import msgpack
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sudachi_dic import SystemDic  # noqa: E402

MAGIC = b"KWLEX\x00\x00\x00"
VERSION = 1
NO_ROW = 0xFFFF
SAME_AS_SURFACE = 0xFFFFFFFF
ROW_ONLY_CLASS = 0xFFFF

# Unknown-word categories, in the order the Swift CharClass enum uses.
CATEGORIES = ["DEFAULT", "SPACE", "KANJI", "SYMBOL", "NUMERIC", "ALPHA", "HIRAGANA", "KATAKANA",
              "KANJINUMERIC", "GREEK", "CYRILLIC"]


def site_packages_file(*parts):
    import sudachipy  # noqa: F401
    base = os.path.dirname(os.path.dirname(sudachipy.__file__))
    return os.path.join(base, *parts)


def kata_to_hira(s):
    return "".join(chr(ord(c) - 0x60) if 0x30A1 <= ord(c) <= 0x30F6 else c for c in s)


def hira_to_kata(s):
    return "".join(chr(ord(c) + 0x60) if 0x3041 <= ord(c) <= 0x3096 else c for c in s)


def load_chive(vocab_dir):
    from spacy.strings import hash_string
    with open(os.path.join(vocab_dir, "key2row"), "rb") as f:
        key2row = msgpack.unpackb(f.read(), strict_map_key=False)
    with open(os.path.join(vocab_dir, "strings.json"), encoding="utf-8") as f:
        strings = json.load(f)
    rows = {}
    for s in strings:
        r = key2row.get(hash_string(s))
        if r is not None:
            rows[s] = int(r)
    return rows


def load_synonyms(path):
    """group id -> list of (lexeme_id, form_type, surface) in file order."""
    groups = collections.defaultdict(list)
    with open(path, encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split(",")
            if len(cols) < 9 or not cols[0]:
                continue
            groups[cols[0]].append((cols[3], cols[4], cols[8]))
    return groups


def kmeans(data, k, iters=12, seed=0):
    """Plain k-means (squared Euclidean) on rows of data; returns labels."""
    n = data.shape[0]
    if n <= k:
        return np.arange(n)
    rng = np.random.default_rng(seed)
    # k-means++ style seeding, deterministic.
    centers = [data[rng.integers(n)]]
    d2 = ((data - centers[0]) ** 2).sum(1)
    for _ in range(1, k):
        idx = int(np.argmax(d2)) if d2.sum() == 0 else int(rng.choice(n, p=d2 / d2.sum()))
        centers.append(data[idx])
        d2 = np.minimum(d2, ((data - data[idx]) ** 2).sum(1))
    c = np.array(centers)
    sq = (data ** 2).sum(1)
    for _ in range(iters):
        dist = sq[:, None] - 2 * data @ c.T + (c ** 2).sum(1)[None, :]
        labels = dist.argmin(1)
        for j in range(k):
            m = labels == j
            if m.any():
                c[j] = data[m].mean(0)
    return labels


def cluster(data, usage, k, exact):
    """Labels for the rows of data: the `exact` most used rows keep a class each, the rest are
    grouped by k-means into k - exact classes."""
    order = sorted(range(len(usage)), key=lambda i: -usage[i])
    labels = np.zeros(len(usage), dtype=np.int64)
    singles = order[:exact]
    for label, i in enumerate(singles):
        labels[i] = label
    rest = order[exact:]
    if rest:
        sub = kmeans(data[rest], k - len(singles))
        for i, label in zip(rest, sub):
            labels[i] = len(singles) + int(label)
    return labels


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="models/default/lexicon.kwlex")
    ap.add_argument("--dic", default=None, help="Sudachi system.dic (default: sudachidict_core's)")
    ap.add_argument("--chive", default=None, help="ja_ginza vocab dir (default: ja_ginza 5.3.0's)")
    ap.add_argument("--synonyms", default="/work/shared/data/sudachi-synonyms/synonyms.txt")
    ap.add_argument("--left-classes", type=int, default=512)
    ap.add_argument("--right-classes", type=int, default=512)
    ap.add_argument("--exact-classes", type=int, default=256, help="most used connection ids kept exact")
    ap.add_argument("--kana-words", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "kana_food_words.txt"))
    ap.add_argument("--kana-boost", type=int, default=3000, help="cost taken off the noun entries of --kana-words")
    ap.add_argument("--person-cost", type=int, default=10500, help="keep 人名 entries with a row below this cost")
    ap.add_argument("--place-cost", type=int, default=9000, help="keep 地名 entries without a row up to this cost")
    args = ap.parse_args()

    dic_path = args.dic or site_packages_file("sudachidict_core", "resources", "system.dic")
    chive_dir = args.chive or site_packages_file("ja_ginza", "ja_ginza-5.3.0", "vocab")
    unk_path = site_packages_file("sudachipy", "resources", "unk.def")

    print("reading", dic_path, file=sys.stderr)
    dic = SystemDic(dic_path)
    chive = load_chive(chive_dir)
    print(f"{dic.n_words} Sudachi entries, {len(chive)} chiVe keys", file=sys.stderr)

    # Synonym groups: every member spelling -> best row in its group (same lexeme first).
    syn_row = {}
    for members in load_synonyms(args.synonyms).values():
        by_lexeme = collections.defaultdict(list)
        for lex, form, surface in members:
            by_lexeme[lex].append(surface)
        group_row = None
        for lex, form, surface in members:
            if surface in chive:
                group_row = chive[surface]
                break
        for lex, surfaces in by_lexeme.items():
            lex_row = next((chive[s] for s in surfaces if s in chive), None)
            for s in surfaces:
                row = lex_row if lex_row is not None else group_row
                if row is not None and s not in syn_row:
                    syn_row[s] = row

    def row_for(*forms):
        for f in forms:
            if f in chive:
                return chive[f]
        for f in forms:
            if f in syn_row:
                return syn_row[f]
        for f in forms:
            for g in (kata_to_hira(f), hira_to_kata(f)):
                if g in chive:
                    return chive[g]
        return None

    kana_words = set()
    with open(args.kana_words, encoding="utf-8") as f:
        for line in f:
            line = line.split("#")[0].strip()
            if line:
                kana_words.add(line)

    # ---- choose entries
    kept = []  # (surface, pos_id, left, right, cost, row, normalized)
    for wid in range(dic.n_words):
        surface, pos_id, norm, _ = dic.word_info(wid)
        pos = dic.pos[pos_id]
        row = row_for(norm, surface)
        cost = int(dic.params[wid][2])
        if pos[0] == "名詞" and pos[1] == "固有名詞":
            # Proper nouns are many (addresses, people); keep the ones a product name may contain.
            if pos[2] == "人名":
                if row is None or cost >= args.person_cost:
                    continue
            elif pos[2] == "地名":
                if row is None and cost > args.place_cost:
                    continue
            elif row is None and cost >= 10000:
                continue
        elif pos[0] == "動詞":
            if row is None or pos[5] not in ("連用形-一般", "終止形-一般", "連体形-一般"):
                continue
        elif pos[0] == "空白":
            continue
        if len(surface) > 16 or len(surface.encode()) > 127:
            continue
        left, right, cost = (int(x) for x in dic.params[wid])
        if left < 0 or right < 0:
            continue  # entries that only serve as split parts; Sudachi never puts them in the lattice
        if surface in kana_words and pos[0] == "名詞":
            cost = max(-32768, cost - args.kana_boost)
        kept.append((surface, pos_id, left, right, cost, row, norm))
    print(f"kept {len(kept)} entries", file=sys.stderr)

    # ---- unknown-word definitions (unk.def)
    unk = []
    with open(unk_path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#")[0].strip()
            if not line:
                continue
            cols = line.split(",")
            pos = tuple(cols[4:10])
            pos_id = dic.pos.index(pos)
            unk.append((CATEGORIES.index(cols[0]), pos_id, int(cols[1]), int(cols[2]), int(cols[3])))

    # ---- connection classes: cluster left ids and right ids by their matrix rows/columns.
    lefts = sorted({e[2] for e in kept} | {u[2] for u in unk} | {0})
    rights = sorted({e[3] for e in kept} | {u[3] for u in unk} | {0})
    sub = dic.matrix[np.ix_(lefts, rights)].astype(np.float64)  # [next_left, prev_right]
    sub = np.clip(sub, -20000, 20000)
    left_use = collections.Counter(e[2] for e in kept)
    right_use = collections.Counter(e[3] for e in kept)
    for u in unk:
        left_use[u[2]] += 10 ** 6
        right_use[u[3]] += 10 ** 6
    left_labels = cluster(sub, [left_use[i] for i in lefts], args.left_classes, args.exact_classes)
    right_labels = cluster(sub.T.copy(), [right_use[i] for i in rights], args.right_classes, args.exact_classes)
    # BOS/EOS id 0 keeps a class of its own so sentence boundaries stay exact.
    left_of = {lid: int(left_labels[i]) + 1 for i, lid in enumerate(lefts)}
    right_of = {rid: int(right_labels[i]) + 1 for i, rid in enumerate(rights)}
    left_of[0] = 0
    right_of[0] = 0
    n_lc = max(left_of.values()) + 1
    n_rc = max(right_of.values()) + 1
    lmap = np.array([left_of[l] for l in lefts])
    rmap = np.array([right_of[r] for r in rights])
    lone = np.zeros((len(lefts), n_lc))
    lone[np.arange(len(lefts)), lmap] = 1
    rone = np.zeros((n_rc, len(rights)))
    rone[rmap, np.arange(len(rights))] = 1
    matrix = rone @ sub.T @ lone
    counts = rone.sum(1)[:, None] * lone.sum(0)[None, :]
    matrix = np.round(matrix / np.maximum(counts, 1)).clip(-32768, 32767).astype("<i2")
    err = np.abs(sub - matrix[[right_of[r] for r in rights]][:, [left_of[l] for l in lefts]].T).mean()
    print(f"connection classes {n_lc}x{n_rc}, mean abs error {err:.1f}", file=sys.stderr)

    # ---- parameter classes (left class, right class, pos)
    classes = {}

    def class_of(left, right, pos_id):
        key = (left_of[left], right_of[right], pos_id)
        if key not in classes:
            classes[key] = len(classes)
        return classes[key]

    # ---- keys: lattice surfaces (at most 3 readings each, cheapest first) and row-only words
    # (normalised forms and synonym spellings that are not surfaces; looked up for OOV words only).
    by_surface = collections.defaultdict(list)
    for surface, pos_id, left, right, cost, row, norm in kept:
        by_surface[surface].append((class_of(left, right, pos_id), cost, row, norm))
    for s in list(by_surface):
        # Entries of one surface with the same class differ only in cost: the lattice never takes
        # the dearer one, so keep the cheapest per class, then the 3 cheapest classes.
        best = {}
        for e in sorted(by_surface[s], key=lambda e: e[1]):
            best.setdefault(e[0], e)
        by_surface[s] = sorted(best.values(), key=lambda e: e[1])[:3]
    for s in [s for s in by_surface if any(ord(c) > 0xFFFF for c in s)]:
        del by_surface[s]  # keys are stored as UTF-16 code units of the Basic Multilingual Plane
    lattice_surfaces = set(by_surface)
    row_only = {}
    for entries in list(by_surface.values()):
        for cls, cost, row, norm in entries:
            if norm not in by_surface and norm not in row_only and len(norm) <= 127 and max(map(ord, norm)) <= 0xFFFF:
                row_only[norm] = row_for(norm)
    for s, r in syn_row.items():
        if s not in by_surface and s not in row_only and len(s) <= 127 and max(map(ord, s)) <= 0xFFFF:
            row_only[s] = r
    for s, r in row_only.items():
        by_surface[s].append((ROW_ONLY_CLASS, 0, r, s))

    keys = sorted(by_surface)
    index_of = {s: i for i, s in enumerate(keys)}
    pool = b"".join(s.encode("utf-16-le") for s in keys)
    key_len = np.array([len(s) for s in keys], dtype="u1")
    entry_count = np.array([len(by_surface[s]) for s in keys], dtype="u1")
    e_class, e_cost, e_row, e_norm = [], [], [], []
    for s in keys:
        for cls, cost, row, norm in by_surface[s]:
            e_class.append(cls)
            e_cost.append(cost)
            e_row.append(NO_ROW if row is None else row)
            e_norm.append(SAME_AS_SURFACE if norm == s else index_of[norm])

    cls_list = sorted(classes.items(), key=lambda kv: kv[1])
    pos_text = "".join(",".join(p) + "\n" for p in dic.pos).encode()
    non_content = {"補助記号", "記号", "空白", "助詞", "助動詞", "BOS/EOS"}
    pos_flags = bytes(0 if (p[0] in non_content or p[1] == "数詞") else 1 for p in dic.pos)
    unk_classes = [class_of(l, r, pos_id) for c, pos_id, l, r, cost in unk]
    unk_bytes = b"".join(struct.pack("<BHh", c, cls, cost) for (c, pos_id, l, r, cost), cls in zip(unk, unk_classes))
    cls_list = sorted(classes.items(), key=lambda kv: kv[1])
    class_arr = np.array([[k[0], k[1], k[2]] for k, _ in cls_list], dtype="<u2")

    header = MAGIC + struct.pack(
        "<IIIIIHHIII20x", VERSION, len(keys), len(e_class), len(pool) // 2, len(cls_list),
        n_lc, n_rc, len(dic.pos), len(pos_text), len(unk))
    assert len(header) == 64, len(header)
    body = [
        pool,
        key_len.tobytes(),
        entry_count.tobytes(),
        np.array(e_class, dtype="<u2").tobytes(),
        np.array(e_cost, dtype="<i2").tobytes(),
        np.array(e_row, dtype="<u2").tobytes(),
        np.array(e_norm, dtype="<u4").tobytes(),
        class_arr[:, 0].tobytes(), class_arr[:, 1].tobytes(), class_arr[:, 2].tobytes(),
        matrix.tobytes(),
        pos_text,
        pos_flags,
        unk_bytes,
    ]
    data = header + b"".join(body)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "wb") as f:
        f.write(data)
    print(f"wrote {args.out}: {len(data)} bytes; keys {len(keys)} (lattice {len(lattice_surfaces)}, row-only "
          f"{len(row_only)}), entries {len(e_class)}, classes {len(cls_list)}, "
          f"pool {len(pool)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
