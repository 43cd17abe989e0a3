#!/usr/bin/env python3
"""Copies a model directory with one part taken out, for same-encoder ablations (offline tool).

  --zero-subwords          the encoder's sub-word table set to zero (every token reads its word row only)
  --drop-sources a,b,…     the rows of those sources removed from varieties.tsv
  --zero-feature a,b,…     the weights of those exact-match evidence features set to zero (by name, as
                           encoder.json lists them)

The copy has no calibration.json (its encoder hash would no longer match; scores do not depend on it) and its
manifest's checksums are recomputed.

Usage: python3 tools/model/ablate.py SRC_DIR OUT_DIR [--zero-subwords] [--drop-sources LIST] [--zero-feature LIST]
"""
import argparse
import hashlib
import json
import os
import shutil

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--zero-subwords", action="store_true")
    ap.add_argument("--drop-sources", default="")
    ap.add_argument("--zero-feature", default="")
    a = ap.parse_args()
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    shutil.copytree(a.src, a.out)
    if a.zero_subwords:
        header = json.load(open(os.path.join(a.out, "encoder.json"), encoding="utf-8"))
        lo, hi = header["blocks"]["subwords"]
        values = np.fromfile(os.path.join(a.out, "encoder.bin"), dtype="<f4")
        values[lo:hi] = 0
        values.astype("<f4").tofile(os.path.join(a.out, "encoder.bin"))
    zero = [s for s in a.zero_feature.split(",") if s]
    if zero:
        header = json.load(open(os.path.join(a.out, "encoder.json"), encoding="utf-8"))
        lo, _hi = header["blocks"]["features"]
        values = np.fromfile(os.path.join(a.out, "encoder.bin"), dtype="<f4")
        for name in zero:
            values[lo + header["features"].index(name)] = 0
        values.astype("<f4").tofile(os.path.join(a.out, "encoder.bin"))
    drop = {s for s in a.drop_sources.split(",") if s}
    if drop:
        path = os.path.join(a.out, "varieties.tsv")
        lines = open(path, encoding="utf-8").read().splitlines()
        kept = [x for x in lines if x.split("\t")[-1] not in drop]
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(kept) + "\n")
    manifest_path = os.path.join(a.out, "manifest.json")
    manifest = json.load(open(manifest_path, encoding="utf-8"))
    calibration = os.path.join(a.out, "calibration.json")
    if os.path.exists(calibration):
        os.remove(calibration)
    manifest.pop("calibration", None)
    sums = manifest.get("file_sha256", {})
    sums.pop("calibration.json", None)
    for name in sums:
        sums[name] = hashlib.sha256(open(os.path.join(a.out, name), "rb").read()).hexdigest()
    with open(manifest_path, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
