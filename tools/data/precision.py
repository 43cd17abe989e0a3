"""Precision of each extracted source on its hand-labelled sample (data/src/precision/<source>.tsv)."""
import glob
import os

import common

for path in sorted(glob.glob(common.path("data", "src", "precision", "*.tsv"))):
    rows = [r for r in common.read_tsv(path, 4) if r[0] != "name"]
    right = sum(r[2] == "1" for r in rows)
    print(f"{os.path.basename(path)[:-4]}: {right}/{len(rows)} = {right / len(rows):.3f}")
