#!/usr/bin/env python3
"""Draws the reliability diagram of a calibrated model from `kwsuggest eval --json` output.

Usage:
  kwsuggest eval --data data/dev-unseen.jsonl --json > dev-unseen.json
  kwsuggest eval --data data/dev.jsonl --json > dev.json
  tools/model/reliability_diagram.py OUT.png dev-unseen.json:dev-unseen [dev.json:dev ...]

Each input is a file whose last line is eval's JSON object (with "calibration"); the label after the colon names
it in the legend. Left: accuracy of the top suggestion per confidence bin (10 equal-width bins) against the
bin's mean confidence, with the diagonal of perfect calibration; right: how many names fall in each bin.
Needs matplotlib (pinned in tools/requirements.txt).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path, encoding="utf-8") as file:
        last = [line for line in file if line.strip()][-1]
    result = json.loads(last)
    if not result.get("calibration"):
        sys.exit(f"{path}: no calibration in the eval output (the model has no calibration.json)")
    return result


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    out = argv[1]
    figure, (left, right) = plt.subplots(1, 2, figsize=(9, 4.2), dpi=100, gridspec_kw={"width_ratios": [1.2, 1]})
    left.plot([0, 1], [0, 1], color="#8c8f94", linestyle="--", linewidth=1, label="perfect calibration")
    markers = ["o", "s", "^", "D"]
    width = 0.1 / max(1, len(argv) - 2)
    for i, spec in enumerate(argv[2:]):
        path, _, label = spec.partition(":")
        result = load(path)
        calibration = result["calibration"]
        bins = [b for b in calibration["bins"] if b["count"] > 0]
        low, high = calibration["ece_top1_interval"]
        left.plot([b["mean_confidence"] for b in bins], [b["accuracy"] for b in bins], marker=markers[i % len(markers)],
                  linewidth=1.5, label=f"{label or path}: ECE {calibration['ece_top1']:.3f} [{low:.3f}, {high:.3f}], "
                                       f"n {calibration['names']}")
        right.bar([b["lower"] + width * (i + 0.5) for b in calibration["bins"]], [b["count"] for b in calibration["bins"]],
                  width=width, label=label or path)
    left.set_xlim(0, 1)
    left.set_ylim(0, 1.02)
    left.set_xlabel("confidence of the top suggestion (bin mean)")
    left.set_ylabel("share of names whose top suggestion is acceptable")
    left.set_title("Reliability (top-1, 10 bins)")
    left.legend(loc="upper left", fontsize=7.5)
    left.grid(alpha=0.3)
    right.set_yscale("log")
    right.set_xlim(0, 1)
    right.set_xlabel("confidence bin")
    right.set_ylabel("names (log scale)")
    right.set_title("Names per bin")
    right.legend(fontsize=7.5)
    right.grid(alpha=0.3, axis="y")
    figure.tight_layout()
    figure.savefig(out, metadata={"Software": None})
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv)
