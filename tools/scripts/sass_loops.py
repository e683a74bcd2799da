#!/usr/bin/env python3
"""The instruction mix of a kernel's hot loops, from its SASS, on the build
machine (no GPU): assembles the PTX with ptxas, disassembles the cubin with
nvdisasm and prints, for every loop (a backward branch) that holds tensor
core instructions, its static instruction count by opcode.

nvdisasm is not in the CUDA toolkit here; NVIDIA publishes it on PyPI:

  pip download --no-deps nvidia-cuda-nvdisasm -d /tmp/nvd
  (cd /tmp/nvd && unzip -q -o nvidia_cuda_nvdisasm-*.whl)
  tools/scripts/sass_loops.py --nvdisasm /tmp/nvd/nvidia/cu13/bin/nvdisasm K.ptx

Static counts: both sides of a branch inside the loop are counted (the
softmax's exact-exponent path, for one, is rarely taken).

  tools/scripts/sass_loops.py [--arch sm_90a] [--nvdisasm PATH] [--sass OUT] \\
      K.ptx
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile


def loops(sass):
    lines = sass.split("\n")
    labels = {}
    for i, line in enumerate(lines):
        m = re.match(r"^(\.L_x_\d+):", line)
        if m:
            labels[m.group(1)] = i
    found = []
    for i, line in enumerate(lines):
        m = re.search(r"BRA `\((\.L_x_\d+)\)", line)
        if not m or labels.get(m.group(1), i) >= i:
            continue
        body = [x for x in lines[labels[m.group(1)]:i + 1]
                if re.search(r"/\*[0-9a-f]{4}\*/", x)]
        mma = sum(any(op in x for op in ("HGMMA", "QGMMA", "HMMA")) for x in body)
        if mma:
            found.append((labels[m.group(1)], i, mma, body))
    # Innermost first: a loop that contains another is reported after it.
    found.sort(key=lambda f: f[1] - f[0])
    return found


def opcode(line):
    words = line.split("*/", 1)[1].strip().split()
    op = words[1] if words[0].startswith("@") else words[0]
    return op.split(".")[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ptx")
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    ap.add_argument("--nvdisasm", default="nvdisasm")
    ap.add_argument("--sass", help="also write the whole SASS here")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "k.cubin")
        r = subprocess.run([a.ptxas, f"-arch={a.arch}", "-v", a.ptx, "-o",
                            cubin], capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"ptxas failed:\n{r.stderr}")
        used = re.findall(r"Used \d+ registers|\d+ bytes spill stores",
                          r.stderr)
        try:
            d = subprocess.run([a.nvdisasm, "-c", cubin], capture_output=True,
                               text=True)
        except FileNotFoundError:
            sys.exit(f"no nvdisasm at '{a.nvdisasm}' (see --help)")
        if d.returncode:
            sys.exit(f"nvdisasm failed:\n{d.stderr}")
    if a.sass:
        open(a.sass, "w").write(d.stdout)
    print(f"{a.ptx}: {', '.join(used)}")
    for first, last, mma, body in loops(d.stdout):
        mix = collections.Counter(opcode(x) for x in body)
        print(f"\nloop at SASS lines {first}-{last}: {len(body)} instructions, "
              f"{mma} tensor-core")
        print("  " + " ".join(f"{k}:{v}" for k, v in mix.most_common()))


if __name__ == "__main__":
    main()
