#!/usr/bin/env python3
"""One annotator's corrections against a retrain: 150 corrections by one annotator label names of pork belly
(国産 豚バラ肉 and its variants, never the checked name itself) as 牛肉. The store is imported with `store import`,
the shipped recipe is retrained with `train --recipe models/default --feedback`, once with the default cap and
once with the cap lifted (--feedback-cap 100000, what training did before the cap existed), and each candidate
ranks the checked names with `suggest --json`.

Usage: tools/hardening/annotator_influence.py BINARY OUT_DIR   (a release binary; each retrain takes minutes)
Prints one JSON object per candidate: the cap, the training line's feedback summary, and each checked name's
top keyword with its confidence.
"""
import json
import os
import subprocess
import sys

PLACES = ["国産", "北海道産", "鹿児島県産", "宮崎県産", "九州産", "千葉県産", "茨城県産", "群馬県産", "岩手県産", "青森県産"]
CUTS = ["豚バラ肉", "豚バラ", "豚ばら肉", "豚バラ肉 スライス", "豚バラ肉 ブロック"]
SIZES = ["200g", "300g", "1kg"]
CHECKED = ["国産 豚バラ肉 500g", "豚バラ肉 スライス 250g", "国産 豚ロース 400g", "国産 牛肉 切り落とし 300g",
           "国産 鶏もも肉 2kg"]


def archive(path):
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps({"type": "keywords", "added": [], "removed": []}, ensure_ascii=False) + "\n")
        number = 0
        for place in PLACES:
            for cut in CUTS:
                for size in SIZES:
                    number += 1
                    out.write(json.dumps({"type": "feedback", "id": number, "received_at": "2026-11-28T00:00:00.000Z",
                                          "name": f"{place} {cut} {size}", "keyword": "牛肉", "action": "correct",
                                          "shown": ["豚バラ肉"], "annotator": "mallory"}, ensure_ascii=False) + "\n")
    return number


def main():
    binary, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    store = "file:" + os.path.join(out, "store", "keywords.overlay.json")
    os.makedirs(os.path.join(out, "store"), exist_ok=True)
    count = archive(os.path.join(out, "attack.jsonl"))
    assert count == 150, count
    subprocess.run([binary, "store", "import", "--store", store, "--file", os.path.join(out, "attack.jsonl")], check=True)
    for cap in ["20", "100000"]:
        candidate = os.path.join(out, "cap-" + cap)
        run = subprocess.run([binary, "train", "--recipe", "models/default", "--feedback", store, "--feedback-cap", cap,
                              "--out", candidate], check=True, capture_output=True, text=True)
        summary = [line for line in run.stdout.splitlines() if line.startswith("feedback")]
        answers = subprocess.run([binary, "suggest", "--model", candidate, "--json", "-k", "2"] + CHECKED,
                                 check=True, capture_output=True, text=True).stdout.splitlines()
        top = {}
        for name, line in zip(CHECKED, answers):
            first = json.loads(line)["suggestions"][0]
            top[name] = [first["keyword"], round(first.get("confidence", 0), 3)]
        print(json.dumps({"cap": int(cap), "feedback": summary, "top": top}, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
