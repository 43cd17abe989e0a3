"""Paths and small helpers shared by the data tools."""
import json
import os
import unicodedata

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# The shared data directory beside the repository (a git worktree one level deeper also finds it), or
# $KWSUGGEST_SHARED_DATA.
SHARED = os.environ.get("KWSUGGEST_SHARED_DATA") or next(
    (p for p in (os.path.abspath(os.path.join(ROOT, *[".."] * up, "shared", "data")) for up in (1, 2))
     if os.path.isdir(p)), os.path.abspath(os.path.join(ROOT, "..", "shared", "data")))
FOODS_TSV = os.path.join(SHARED, "food-composition-2020", "foods.tsv")
SYNONYMS_TXT = os.path.join(SHARED, "sudachi-synonyms", "synonyms.txt")
DATA = os.path.join(ROOT, "data")
SRC = os.path.join(DATA, "src")
MODEL = os.path.join(ROOT, "models", "default")


def path(*parts):
    return os.path.join(ROOT, *parts)


def place_names():
    """Every form of every place in data/src/areas.txt (青森県 and 青森 both)."""
    with open(path("data", "src", "areas.txt"), encoding="utf-8") as f:
        return {form for line in f if line.strip() and not line.startswith("#") for form in line.strip().split("|")}


def read_foods():
    """Rows of the food composition table: (group_id, group_name, food_id, food_name)."""
    rows = []
    with open(FOODS_TSV, encoding="utf-8") as f:
        next(f)
        for line in f:
            g, gn, fid, name = line.rstrip("\n").split("\t")
            rows.append((g, gn, fid, name))
    return rows


def read_tsv(p, columns):
    """Non-comment, non-empty lines of a TSV file split into `columns` fields (error names file:line)."""
    out = []
    with open(p, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != columns:
                raise SystemExit(f"{p}:{n}: expected {columns} tab-separated fields, got {len(parts)}: {line!r}")
            out.append(parts)
    return out


def write_lines(p, lines):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(line + "\n")


def write_jsonl(p, records):
    write_lines(p, [json.dumps(r, ensure_ascii=False) for r in records])


def nfkc(s):
    return unicodedata.normalize("NFKC", s)


def fold_kana(s):
    """NFKC, katakana folded to hiragana, lower case: how two spellings of a name are compared."""
    return "".join(chr(ord(c) - 0x60) if "ァ" <= c <= "ヶ" else c for c in nfkc(s)).lower()


def sudachi_tokenizer():
    """SudachiDict core's tokenizer in its longest split mode (PyPI sudachipy and sudachidict_core)."""
    from sudachipy import dictionary, tokenizer
    return dictionary.Dictionary(dict="core").create(), tokenizer.Tokenizer.SplitMode.C


def taken_names(keywords, leaving_out):
    """The folded keywords and variety names of data/varieties.tsv, without the rows of source `leaving_out`, and
    those rows (name, keyword, source): a generated name that is already one of them adds nothing."""
    rows = [r for r in read_tsv(path("data", "varieties.tsv"), 3)[1:] if r[2] != leaving_out]
    return {fold_kana(k) for k in keywords} | {fold_kana(n) for n, _, _ in rows}, rows


def read_jsonl(p):
    with open(p, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
