#!/usr/bin/env python3
"""The promote gate's calibration check, through the real commands.

In a fresh file store: pushes a copy of the shipped model whose calibration bias was set to 50 (same weights,
same ranking, every confidence near 1) and an unchanged copy; `model promote` must refuse the first and promote
the second. Prints each gate's figures and a JSON summary on the last line; exits 1 when either answer is wrong.

Usage: tools/queue/gate_check.py [--binary .build/release/kwsuggest] [--model models/default] [--bias 50]
       [--gate data/dev.jsonl ...]   (run from the repository root: the recipe's dev file resolves against it)
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(binary, *arguments):
    result = subprocess.run([binary, *arguments], cwd=ROOT, capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


def broken_copy(model, out, bias):
    shutil.copytree(model, out)
    path = os.path.join(out, "calibration.json")
    calibration = json.load(open(path, encoding="utf-8"))
    calibration["bias"] = bias
    with open(path, "w", encoding="utf-8") as file:
        json.dump(calibration, file, ensure_ascii=False, indent=2, sort_keys=True)
        file.write("\n")
    manifest_path = os.path.join(out, "manifest.json")
    manifest = json.load(open(manifest_path, encoding="utf-8"))
    manifest["file_sha256"]["calibration.json"] = hashlib.sha256(open(path, "rb").read()).hexdigest()
    manifest["model_version"] = manifest["model_version"] + f"-bias{bias:g}"
    with open(manifest_path, "w", encoding="utf-8") as file:
        json.dump(manifest, file, ensure_ascii=False, indent=2)
        file.write("\n")
    return manifest["model_version"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/kwsuggest"))
    parser.add_argument("--model", default=os.path.join(ROOT, "models/default"))
    parser.add_argument("--bias", type=float, default=50)
    parser.add_argument("--gate", action="append", default=[])
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="kwsuggest-gate-")
    store = "file:" + os.path.join(work, "keywords.overlay.json")
    gates = [option for path in args.gate for option in ("--gate", path)]
    try:
        broken = broken_copy(args.model, os.path.join(work, "bias"), args.bias)
        code, text = run(args.binary, "model", "push", os.path.join(work, "bias"), "--store", store)
        if code != 0:
            raise RuntimeError("push of the broken copy failed: " + text)
        refused_code, refused = run(args.binary, "model", "promote", broken, "--store", store, "--model", args.model, *gates)
        print(f"== bias {args.bias:g}: model promote exit {refused_code}")
        print(refused.rstrip())
        shutil.copytree(args.model, os.path.join(work, "same"))
        code, text = run(args.binary, "model", "push", os.path.join(work, "same"), "--store", store)
        if code != 0:
            raise RuntimeError("push of the unchanged copy failed: " + text)
        same = json.load(open(os.path.join(args.model, "manifest.json"), encoding="utf-8"))["model_version"]
        passed_code, passed = run(args.binary, "model", "promote", same, "--store", store, "--model", args.model, *gates)
        print(f"== unchanged copy: model promote exit {passed_code}")
        print(passed.rstrip())
        ok = refused_code != 0 and "refused" in refused and passed_code == 0
        print(json.dumps({"bias": args.bias, "refused": refused_code != 0, "unchanged_promoted": passed_code == 0, "ok": ok}))
        return 0 if ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
