#!/usr/bin/env python3
"""Seed corpus for attn-fuzz: every MLIR input under a directory, split at
`// -----` (as -split-input-file does), once per fuzzer stage (the first byte
picks the stage; see attn-fuzz.cpp's kStages).

usage: make_seeds.py TEST_DIR OUT_DIR
"""
import hashlib
import pathlib
import re
import sys

NUM_STAGES = 16  # len(kStages) in attn-fuzz.cpp


def main():
    src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for f in sorted(src.rglob("*.mlir")):
        text = f.read_text(errors="replace")
        for chunk in re.split(r"^// -----.*$", text, flags=re.M):
            # Lit directives and comments are noise for the parser.
            body = "\n".join(l for l in chunk.splitlines()
                             if not l.lstrip().startswith("//")).strip()
            if not body:
                continue
            for stage in range(NUM_STAGES):
                data = bytes([stage]) + body.encode()
                name = hashlib.sha1(data).hexdigest()
                (out / name).write_bytes(data)
                n += 1
    print(f"make_seeds: {n} seeds in {out}")


if __name__ == "__main__":
    main()
