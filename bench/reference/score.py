#!/usr/bin/env python3
"""NumPy reference scorer for kwsuggest (benchmark peer; not shipped, not needed by the CLI or tests).

Reads the same files as the Swift engine (models/<dir>/encoder.json + encoder.bin, vectors.kwv,
keywords.txt, varieties.tsv) and takes token rows from `kwsuggest tokenize --json` (names) and
`kwsuggest tokenize --json --keyword` (keywords, variety names and their targets), so the tokenizer is
not re-implemented. It re-implements the scoring of Sources/KeywordIndex + Sources/KeywordModel:

  encoder     x_t = W v_t + b (learned OOV state for rows without a vector);
              h_t = x_t + tanh(c + sum_{tap=-1..1} K_tap x_{t+tap})
  keyword     m_k = mean_j h_j/|h_j| (attention query), d_k = mean_j h_j / |mean_j h_j|
  name        H (n x h), U = rows of H normalised, G = H H^T
  score       a = softmax(tau U m_k); cos = (a . H d_k) / sqrt(a^T G a)
  evidence    + sum_f w_f feature_f (exact-match features of LexicalMatcher; w = trained / scale);
              text matches are checked against the name's token boundaries, which come from the
              surfaces of all its tokens (content or not) when those spell exactly its folded text;
              a variety maps to the keywords spelled like its target, else to those with its rows;
              a keyword whose every text match lies inside another keyword's variety match is flagged;
              a keyword has more than one spelling: where the tokenizer splits it, the row of its whole
              text as one lexicon word (`whole_word_row` of `tokenize --json --keyword`) also matches by
              rows, and its text without an interior の also matches by text, unless either is another
              keyword's own rows or text
  brands      one-token brand names of varieties.tsv (source `brand`) whose row is none of their
              keyword's rows read as unknown (row -1) in names; a match through a brand row gives the
              variety feature the value `brand_evidence_scale` of manifest.json (1 when absent)
  hubness     off by default in ScoringOptions, so not applied

Then compares its top-5 (ties: lower keyword index first) with `kwsuggest suggest --json -k 5` and
times per-name scoring next to `kwsuggest bench` (Swift) in the same run.

Usage: python3 bench/reference/score.py [--binary PATH] [--model DIR] [--names FILE] [--rounds R]
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import time

import numpy as np

# The features this scorer computes, by the names encoder.json uses (LexicalFeature.name in
# Sources/KeywordModel/LexicalFeature.swift); weights are mapped by name, never by position.
FEATURES = ["rows", "text", "maximal", "variety", "overlap", "length", "bigrams", "sharedRowsOnly",
            "textWholeTokens", "textEndsToken", "textInsideVariety"]
F = {name: i for i, name in enumerate(FEATURES)}
LEGACY_ORDER = ["rows", "text", "maximal", "variety", "overlap", "length", "bigrams", "sharedRowsOnly",
                "textWholeTokens", "textEndsToken", "textInsideVariety"]
MAX_NAME_TOKENS = 64
TIE_TOLERANCE = 1e-5


def run(binary, args, stdin_lines=None):
    text = None if stdin_lines is None else "".join(line + "\n" for line in stdin_lines)
    done = subprocess.run([binary] + args, input=text, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{binary} {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


# ---------------------------------------------------------------- model files

def read_vectors(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"KWVECTRS":
        sys.exit(f"{path}: not a .kwv file")
    version, kind, dim, rows = struct.unpack_from("<IIII", data, 8)
    rows_offset = struct.unpack_from("<Q", data, 32)[0]
    dtype = {1: np.float16, 2: np.float32}[kind]
    matrix = np.frombuffer(data, dtype=np.dtype(dtype).newbyteorder("<"), count=rows * dim, offset=rows_offset)
    return matrix.reshape(rows, dim).astype(np.float32)


def read_encoder(model):
    header = json.load(open(os.path.join(model, "encoder.json"), encoding="utf-8"))
    values = np.fromfile(os.path.join(model, "encoder.bin"), dtype="<f4")
    if len(values) != header["parameterCount"]:
        sys.exit("encoder.bin does not match encoder.json")
    config, blocks = header["config"], header["blocks"]
    d, h = config["inputDimension"], config["hiddenDimension"]

    def block(name):
        lo, hi = blocks[name]
        return values[lo:hi].astype(np.float32)

    def side(prefix):
        return {
            "W": block(prefix + ".projection").reshape(h, d),
            "b": block(prefix + ".projectionBias"),
            "oov": block(prefix + ".oov"),
            "K": block(prefix + ".convolution").reshape(3, h, h),
            "c": block(prefix + ".convolutionBias"),
        }

    name = side("name")
    keyword = name if config["sharedEncoder"] else side("keyword")
    tau = np.float32(block("temperature")[0])
    trained = block("features").astype(np.float64) / config["scale"]
    # Files written before feature names were stored hold the weights in this frozen order
    # (LexicalFeature.legacyOrder).
    names = header.get("features") or LEGACY_ORDER[: len(trained)]
    if len(names) != len(trained):
        sys.exit(f"encoder.json: {len(names)} feature names for {len(trained)} feature weights")
    weights = np.zeros(len(FEATURES), dtype=np.float32)
    for position, feature in enumerate(names):
        if feature not in F:
            sys.exit(f"encoder.json: unknown evidence feature '{feature}'")
        weights[F[feature]] = trained[position]
    for feature in FEATURES:
        if feature not in names:
            print(f"note: encoder.json has no weight for '{feature}'; it gets weight 0", file=sys.stderr)
    return name, keyword, tau, weights


def read_lines(path):
    with open(path, "rb") as f:
        for raw in f.read().split(b"\n"):
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            yield raw.decode("utf-8")


def read_keywords(path):
    seen, result = set(), []
    for line in read_lines(path):
        keyword = line.strip(" \t\u3000")
        if not keyword or keyword.startswith("#") or keyword in seen:
            continue
        seen.add(keyword)
        result.append(keyword)
    return result


def read_varieties(path):
    if not os.path.exists(path):
        return []
    result = []
    for line in read_lines(path):
        if not line or line.startswith("#"):
            continue
        columns = line.split("\t")
        variety, keyword = columns[0].strip(" \t\u3000"), columns[1].strip(" \t\u3000")
        if variety in ("variety", "name"):
            continue
        source = columns[2].strip(" \t\u3000") if len(columns) >= 3 else ""
        result.append((variety, keyword, source))
    return result


# ---------------------------------------------------------------- text side (from kwsuggest tokenize)

def fold(text):
    """LexicalText.fold: katakana -> hiragana, full-width ASCII -> ASCII, lower case, separators dropped."""
    dropped = {0x20, 0x09, 0x0A, 0x0D, 0x3000, 0x30FB, 0xFF65, 0xB7, 0x2F, 0x5F, 0x2D, 0x2010, 0x2011, 0x2012,
               0x2013, 0x2014, 0x2015, 0x2212, 0x3001, 0x3002, 0x2C, 0x2E}
    out = []
    for ch in text:
        v = ord(ch)
        if 0xFF01 <= v <= 0xFF5E:
            v -= 0xFEE0
        if 0x30A1 <= v <= 0x30F6:
            v -= 0x60
        if 0x41 <= v <= 0x5A:
            v += 0x20
        if v not in dropped:
            out.append(v)
    return tuple(out)


def boundaries(surfaces, folded):
    """LexicalText(tokens:) + AnalyzedText.lexical: True at each folded offset where a token starts or ends,
    from every token surface in order (surfaces that fold to nothing are skipped); None (every offset counts
    as a boundary) when the tokens do not spell exactly `folded`."""
    spelled, marks = [], [True]
    for surface in surfaces:
        piece = fold(surface)
        if not piece:
            continue
        spelled.extend(piece)
        marks.extend([False] * (len(piece) - 1))
        marks.append(True)
    return tuple(marks) if tuple(spelled) == folded else None


def analyze(binary, model, lines, keyword, unknown=frozenset()):
    args = ["tokenize", "--json", "--model", model] + (["--keyword"] if keyword else [])
    out = run(binary, args, lines).splitlines()
    if len(out) != len(lines):
        sys.exit(f"tokenize returned {len(out)} lines for {len(lines)} inputs")
    result = []
    for line in out:
        obj = json.loads(line)
        tokens = obj["tokens"]
        content = [t for t in tokens if t["content"]]
        if keyword:
            used = content if content else tokens
            text = "".join(t["surface"] for t in tokens)
        else:
            used = content
            text = obj["normalized"]
        rows = tuple(-1 if t["row"] is None else int(t["row"]) for t in used)
        if not keyword and unknown:
            # Brand words whose row belongs to an unrelated word read as unknown in names (see unknown_in_names).
            rows = tuple(-1 if t["surface"] in unknown else r for t, r in zip(used, rows))
        folded = fold(text)
        # Keywords carry no token surfaces in the Swift analyzer (AnalyzedText.tokenSurfaces is empty), so no
        # boundaries; names carry the surfaces of all their tokens.
        marks = None if keyword else boundaries([t["surface"] for t in tokens], folded)
        item = {"folded": folded, "rows": rows, "surfaces": [t["surface"] for t in used], "boundaries": marks}
        if keyword:
            # Every token's row (content or not), and other row sequences of the same word: where the lattice
            # splits the keyword (more than one token) but the lexicon knows its text as one word with a row
            # other than the keyword's own rows, that one row (しめさば: しめ / さば, and 締め鯖's row).
            item["all_rows"] = tuple(int(t["row"]) for t in tokens if t["row"] is not None)
            item["content"] = [(t["surface"], t["row"]) for t in content]
            whole = obj.get("whole_word_row")
            item["alternatives"] = [(int(whole),)] if len(tokens) > 1 and whole is not None and (int(whole),) != rows else []
        result.append(item)
    return result


def unknown_in_names(brands):
    """The one-token brand names (source `brand` of varieties.tsv) whose row is none of their keyword's rows: in
    names these tokens read as unknown (row -1), since chiVe's row for them is an unrelated word's.
    `brands` holds (brand, keyword) pairs as analyzed keywords."""
    result = set()
    for brand, target in brands:
        if len(brand["content"]) != 1:
            continue
        surface, row = brand["content"][0]
        if row is not None and int(row) in target["all_rows"]:
            continue
        result.add(surface)
    return result


# ---------------------------------------------------------------- encoder and keyword matrices

def encode(enc, vectors, rows):
    n = len(rows)
    h = enc["b"].shape[0]
    x = np.empty((n, h), dtype=np.float32)
    valid = np.array([0 <= r < vectors.shape[0] for r in rows], dtype=bool)
    if valid.any():
        idx = np.array([r for r in rows if 0 <= r < vectors.shape[0]], dtype=np.int64)
        x[valid] = vectors[idx] @ enc["W"].T + enc["b"]
    x[~valid] = enc["oov"]
    padded = np.zeros((n + 2, h), dtype=np.float32)
    padded[1:-1] = x
    conv = enc["c"] + padded[:-2] @ enc["K"][0].T + padded[1:-1] @ enc["K"][1].T + padded[2:] @ enc["K"][2].T
    return x + np.tanh(conv)


def keyword_matrices(enc, vectors, keywords):
    h = enc["b"].shape[0]
    means = np.zeros((len(keywords), h), dtype=np.float32)
    directions = np.zeros((len(keywords), h), dtype=np.float32)
    for k, kw in enumerate(keywords):
        if not kw["rows"]:
            continue
        states = encode(enc, vectors, kw["rows"])
        norms = np.sqrt((states * states).sum(axis=1) + np.float32(1e-12))
        means[k] = (states / norms[:, None]).mean(axis=0)
        mean = states.mean(axis=0)
        directions[k] = mean / np.sqrt((mean * mean).sum() + np.float32(1e-12))
    return means, directions


# ---------------------------------------------------------------- exact-match evidence (LexicalMatcher)

NO = ord("の")


def without_particle(folded):
    """The folded text with one interior の removed, for each の with at least two characters on each side."""
    return [folded[:i] + folded[i + 1:] for i in range(2, len(folded) - 2) if folded[i] == NO]


class Matcher:
    def __init__(self, keywords, varieties, variety_weights=None):
        self.count = len(keywords)
        self.texts, self.row_seqs, self.single, self.bigrams = {}, {}, {}, {}
        by_text, by_rows = {}, {}
        self.distinct, self.bigram_count = [], []
        for k, kw in enumerate(keywords):
            self.texts.setdefault(kw["folded"], []).append(k)
            by_text.setdefault(kw["folded"], []).append(k)
            if kw["rows"] and all(r >= 0 for r in kw["rows"]):
                self.row_seqs.setdefault(kw["rows"], []).append(k)
                by_rows.setdefault(kw["rows"], []).append(k)
            seen = []
            for r in kw["rows"]:
                if r >= 0 and r not in seen:
                    seen.append(r)
                    self.single.setdefault(r, []).append(k)
            self.distinct.append(len(seen))
            f, grams = kw["folded"], set()
            for i in range(len(f) - 1):
                if (f[i], f[i + 1]) not in grams:
                    grams.add((f[i], f[i + 1]))
                    self.bigrams.setdefault((f[i], f[i + 1]), []).append(k)
            self.bigram_count.append(len(grams))
        # Other row sequences of the same word (the whole keyword as one lexicon word), unless they are another
        # keyword's own rows; they count as the keyword's row matches (with the specificity of its own rows).
        for k, kw in enumerate(keywords):
            for alternative in kw["alternatives"]:
                if alternative and all(r >= 0 for r in alternative) and alternative not in by_rows:
                    self.row_seqs.setdefault(alternative, []).append(k)
        # A keyword spelled with an interior の (two or more characters on each side) also matches without it,
        # unless that spelling is another keyword's own text: いかの塩辛 in 「いか塩辛」.
        for k, kw in enumerate(keywords):
            for variant in without_particle(kw["folded"]):
                if variant not in by_text:
                    self.texts.setdefault(variant, []).append(k)
        self.specificity = [0.0] * self.count
        for ids in by_rows.values():
            for k in ids:
                self.specificity[k] = 1.0 / len(ids)
        self.varieties = {}
        self.variety_weight = {}  # (folded variety, keyword) -> the variety feature's value (the largest)
        weights = variety_weights or [1.0] * len(varieties)
        for (variety, target), weight in zip(varieties, weights):
            # The keywords spelled like the target; only when there are none, those with the target's rows.
            targets = list(by_text.get(target["folded"], []))
            if not targets and target["rows"] and all(r >= 0 for r in target["rows"]):
                targets = list(by_rows.get(target["rows"], []))
            for k in targets:
                self.varieties.setdefault(variety["folded"], []).append(k)
                key = (variety["folded"], k)
                self.variety_weight[key] = max(self.variety_weight.get(key, 0.0), weight)
        self.max_text = max((len(key) for key in self.texts), default=0)
        self.max_rows = max((len(key) for key in self.row_seqs), default=0)
        self.max_variety = max((len(key) for key in self.varieties), default=0)

    @staticmethod
    def scan(seq, table, longest):
        for start in range(len(seq)):
            for length in range(1, min(longest, len(seq) - start) + 1):
                for k in table.get(seq[start:start + length], ()):
                    yield k, start, length

    def features(self, name):
        """{keyword index: float32 feature vector} for every keyword with evidence."""
        feats, text_span, row_span, overlap, hits = {}, {}, {}, {}, {}

        def put(k, f, v):
            vec = feats.setdefault(k, np.zeros(len(FEATURES), dtype=np.float32))
            vec[f] = max(vec[f], v)

        folded, rows, marks = name["folded"], name["rows"], name.get("boundaries")

        def boundary(offset):
            return marks is None or marks[offset]

        variety_spans = []  # (start, end, keyword) of every variety match, as LexicalScratch.varietySpans
        for k, start, length in self.scan(folded, self.varieties, self.max_variety):
            put(k, F["variety"], np.float32(self.variety_weight[(folded[start:start + length], k)]))
            variety_spans.append((start, start + length, k))

        def inside_other_variety(k, start, end):
            # Strictly inside a variety match whose variety name (same span) does not also map to k.
            for vs, ve, _ in variety_spans:
                if vs <= start and ve >= end and ve - vs > end - start:
                    if not any(us == vs and ue == ve and uk == k for us, ue, uk in variety_spans):
                        return True
            return False

        inside = {}  # keyword -> 1 while every text match so far lies inside another keyword's variety, 2 once one does not
        for k, start, length in self.scan(folded, self.texts, self.max_text):
            inside[k] = max(inside.get(k, 0), 1) if inside_other_variety(k, start, start + length) else 2
            put(k, F["text"], 1.0)
            put(k, F["length"], np.float32(min(length, 6)) / np.float32(6))
            ends = boundary(start + length)
            if ends:
                put(k, F["textEndsToken"], 1.0)
                if boundary(start):
                    put(k, F["textWholeTokens"], 1.0)
            text_span[k] = (start, start + length)
        for k, start, length in self.scan(rows, self.row_seqs, self.max_rows):
            put(k, F["rows"], self.specificity[k])
            row_span[k] = (start, start + length)
        for i, r in enumerate(rows):
            if r < 0 or r in rows[:i]:
                continue
            for k in self.single.get(r, ()):
                feats.setdefault(k, np.zeros(len(FEATURES), dtype=np.float32))
                overlap[k] = overlap.get(k, 0) + 1
        grams = [(folded[i], folded[i + 1]) for i in range(len(folded) - 1)]
        for i, g in enumerate(grams):
            if g in grams[:i]:
                continue
            for k in self.bigrams.get(g, ()):
                feats.setdefault(k, np.zeros(len(FEATURES), dtype=np.float32))
                hits[k] = hits.get(k, 0) + 1

        def covers(outer, inner):
            return outer[0] <= inner[0] and outer[1] >= inner[1] and (outer[1] - outer[0]) > (inner[1] - inner[0])

        for k, vec in feats.items():
            if overlap.get(k, 0) > 0 and self.distinct[k] > 0:
                vec[F["overlap"]] = np.float32(overlap[k]) / np.float32(self.distinct[k])
            if hits.get(k, 0) > 0 and self.bigram_count[k] > 0:
                vec[F["bigrams"]] = np.float32(hits[k]) / np.float32(self.bigram_count[k])
            if inside.get(k) == 1:
                vec[F["textInsideVariety"]] = 1.0
            if k in row_span and k not in text_span and self.specificity[k] < 1:
                vec[F["sharedRowsOnly"]] = np.float32(1) - np.float32(self.specificity[k])
            if k not in text_span and k not in row_span:
                continue
            covered = any(o != k and k in text_span and covers(s, text_span[k]) for o, s in text_span.items()) or \
                any(o != k and k in row_span and covers(s, row_span[k]) for o, s in row_span.items())
            if not covered:
                vec[F["maximal"]] = 1.0
        return feats


# ---------------------------------------------------------------- scoring

class Scorer:
    def __init__(self, model, binary):
        self.name_enc, keyword_enc, self.tau, self.weights = read_encoder(model)
        self.vectors = read_vectors(os.path.join(model, "vectors.kwv"))
        self.keywords = read_keywords(os.path.join(model, "keywords.txt"))
        self.index_of = {k: i for i, k in enumerate(self.keywords)}
        analyzed = analyze(binary, model, self.keywords, keyword=True)
        pairs = read_varieties(os.path.join(model, "varieties.tsv"))
        texts = analyze(binary, model, [p[0] for p in pairs] + [p[1] for p in pairs], keyword=True)
        varieties = list(zip(texts[: len(pairs)], texts[len(pairs):]))
        self.unknown = unknown_in_names([v for v, p in zip(varieties, pairs) if p[2] == "brand"])
        manifest_path = os.path.join(model, "manifest.json")
        manifest = json.load(open(manifest_path, encoding="utf-8")) if os.path.exists(manifest_path) else {}
        brand_scale = float(manifest.get("brand_evidence_scale") or 1.0)
        weights = [brand_scale if p[2] == "brand" else 1.0 for p in pairs]
        self.matcher = Matcher(analyzed, varieties, weights)
        self.means, self.directions = keyword_matrices(keyword_enc, self.vectors, analyzed)

    def scores(self, name):
        scores = self.dense(name)
        for k, vec in self.matcher.features(name).items():
            scores[k] += np.float32(vec @ self.weights)
        return scores

    def dense(self, name):
        """The learned part alone: attention-pooled cosine for every keyword (no evidence)."""
        rows = name["rows"][:MAX_NAME_TOKENS]
        if rows:
            H = encode(self.name_enc, self.vectors, rows)
            U = H / np.sqrt((H * H).sum(axis=1) + np.float32(1e-12))[:, None]
            G = H @ H.T
            S = self.tau * (U @ self.means.T)                    # n x K
            A = np.exp(S - S.max(axis=0))
            A /= A.sum(axis=0)
            P = H @ self.directions.T                            # n x K
            numerator = (A * P).sum(axis=0)
            quadratic = ((G @ A) * A).sum(axis=0) + np.float32(1e-12)
            scores = numerator / np.sqrt(quadratic)
        else:
            scores = np.zeros(len(self.keywords), dtype=np.float32)
        return scores

    @staticmethod
    def top(scores, k=5):
        order = np.lexsort((np.arange(len(scores)), -scores))   # score desc, then lower index
        return [(int(i), float(scores[i])) for i in order[:k]]


def swift_timings(binary, model, names_file, rounds):
    out = run(binary, ["bench", "--model", model, "--names", names_file, "--rounds", str(rounds), "--loads", "1"])
    values = {}
    for line in out.splitlines():
        m = re.match(r"^(.*?)\s{2,}([0-9.]+) ms", line)
        if m:
            values[m.group(1).strip()] = float(m.group(2))
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=".build-tools/release/release/kwsuggest")
    parser.add_argument("--model", default="models/default")
    parser.add_argument("--names", default="bench/names.txt")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    names = [n.strip() for n in read_lines(args.names) if n.strip() and not n.strip().startswith("#")]
    scorer = Scorer(args.model, args.binary)
    analyzed = analyze(args.binary, args.model, names, keyword=False, unknown=scorer.unknown)

    swift = [json.loads(line) for line in run(args.binary, ["suggest", "--json", "-k", "5", "--model", args.model],
                                              names).splitlines()]
    exact = top1 = tie_aware = 0
    max_diff = 0.0
    mismatches = []
    for name, text, theirs in zip(names, analyzed, swift):
        scores = scorer.scores(text)
        ours = Scorer.top(scores)
        our_words = [scorer.keywords[i] for i, _ in ours]
        their_words = [s["keyword"] for s in theirs["suggestions"]]
        exact += our_words == their_words
        # Up to ties: at each rank, our score of Swift's keyword equals our score at that rank within
        # TIE_TOLERANCE (keywords sharing one vector row score equal to ~1e-7; float rounding orders them).
        index_of = scorer.index_of
        tie_aware += len(their_words) == len(ours) and all(
            abs(float(scores[index_of[w]]) - score) <= TIE_TOLERANCE for w, (_, score) in zip(their_words, ours))
        top1 += our_words[:1] == their_words[:1]
        if our_words != their_words:
            mismatches.append((name, our_words, their_words))
        for (i, score), s in zip(ours, theirs["suggestions"]):
            if scorer.keywords[i] == s["keyword"]:
                max_diff = max(max_diff, abs(score - s["score"]))

    # Timing: per-name scoring from token rows (no tokenizer), median over rounds of the mean per name.
    per_round = []
    for _ in range(args.rounds):
        start = time.perf_counter()
        for text in analyzed:
            Scorer.top(scorer.scores(text))
        per_round.append((time.perf_counter() - start) / len(analyzed) * 1000)
    numpy_ms = float(np.median(per_round))
    dense_round = []
    for _ in range(args.rounds):
        start = time.perf_counter()
        for text in analyzed:
            scorer.dense(text)
        dense_round.append((time.perf_counter() - start) / len(analyzed) * 1000)
    dense_ms = float(np.median(dense_round))
    swift_ms = swift_timings(args.binary, args.model, args.names, args.rounds)

    print(f"names: {len(names)}, keywords: {len(scorer.keywords)}")
    print(f"top-5 identical (order included): {exact}/{len(names)} ({exact / len(names):.3f}); top-1: {top1}/{len(names)}")
    print(f"top-5 identical up to ties (|score difference| <= {TIE_TOLERANCE}): {tie_aware}/{len(names)}")
    print(f"max |score difference| on shared top-5 entries: {max_diff:.2e} (Swift prints 6 significant digits)")
    for name, ours, theirs in mismatches[:10]:
        print(f"  mismatch {name}: numpy {ours} swift {theirs}")
    print(f"numpy per-name scoring (mean, median of {args.rounds} rounds): {numpy_ms:.4f} ms"
          f" (of which encoder + attention + cosine in NumPy: {dense_ms:.4f} ms; the rest is the Python evidence matcher)")
    env = {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS") if k in os.environ}
    print(f"numpy {np.__version__}; OpenBLAS environment: {env or 'none set'}")
    score_only = swift_ms.get("score only mean (median)")
    suggest_mean = swift_ms.get("suggest mean (median)")
    if score_only:
        print(f"swift per-name scoring (mean, same names, pre-tokenized): {score_only:.4f} ms -> numpy/swift = {numpy_ms / score_only:.1f}x")
    if suggest_mean:
        print(f"swift whole suggest incl. tokenizer (mean): {suggest_mean:.4f} ms -> numpy scoring/swift suggest = {numpy_ms / suggest_mean:.1f}x")
    print(json.dumps({"names": len(names), "top5_match": exact / len(names), "top1_match": top1 / len(names), "top5_match_up_to_ties": tie_aware / len(names),
                      "max_score_diff": max_diff, "numpy_ms": numpy_ms, "numpy_dense_ms": dense_ms, "swift_score_ms": score_only,
                      "swift_suggest_ms": suggest_mean}))


if __name__ == "__main__":
    main()
