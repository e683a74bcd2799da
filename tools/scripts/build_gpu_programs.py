#!/usr/bin/env python3
"""Compiles the kernels tools/scripts/gpu_programs.py checks on the GPU (run
here, on the build machine, with build/bin/attn-opt):

  * attention problems (attn.attention: f16/bf16, head dims, causal or not)
    through `attn-opt --attn-codegen="chip=..."`;
  * hand-written tile-level programs under test/GPU/programs/*.mlir (the
    score path opened up: soft-cap, bias), each with a `// program:` line
    of JSON naming its variant and arguments, through the same pipeline.

Writes <out>/<name>.ptx and <out>/programs.json.

  tools/scripts/build_gpu_programs.py --out build/gpu-programs [--chip sm_90a]
"""

import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Q, K, V and O with run-time strides (head dim contiguous), as the runtime's
# kernels take them: the same kernel reads [B, H, N, D] or [B, N, H, D]
# storage (tools/scripts/gpu_programs.py --storage).
PROBLEM = """
!t = memref<?x?x?x{d}x{t}, strided<[?, ?, ?, 1], offset: ?>>
func.func @attention(%q: !t, %k: !t, %v: !t, %o: !t,
                     %lse: memref<?x?x?xf32>) {{
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) {attrs}
      : !t, !t, !t, !t
  return
}}
"""


def compile_one(opt, src, pipeline, out_ptx):
    """Returns the kernel's attn.kernel info and entry name."""
    # The kernel level only (attn-codegen's passes before serialising): its
    # gpu.func carries the launch facts.
    passes = [f"--attn-gpu-kernel-pipeline={pipeline}"]
    mlir = subprocess.run([opt, "-"] + passes, input=src,
                          capture_output=True, text=True)
    if mlir.returncode:
        sys.exit(f"attn-opt failed:\n{mlir.stderr}")
    m = re.search(r"gpu\.func @(\w+)\(.*?attn\.kernel = "
                  r"#attn\.kernel_info<([^>]*)>", mlir.stdout)
    if not m:
        sys.exit("no attn.kernel in the compiled module")
    info = dict(re.findall(r"(\w+) = (\w+|\"\w*\")", m.group(2)))
    ptx = subprocess.run([opt, "-", f"--attn-codegen={pipeline}",
                          "--emit=ptx", "-o", out_ptx],
                         input=src, capture_output=True, text=True)
    if ptx.returncode:
        sys.exit(f"attn-opt --emit=ptx failed:\n{ptx.stderr}")
    num = lambda k: int(info[k].split(":")[0]) if k in info else 0
    # Bulk copies: the tensor maps the launcher encodes, as (argument, box
    # rows) pairs, passed after the function's arguments.
    maps = re.search(r"tensor_maps = \[([0-9, ]+)\]", m.group(2))
    flat = [int(x) for x in maps.group(1).split(",")] if maps else []
    return {"kernel": m.group(1), "block_m": num("block_m"),
            "threads": num("threads"), "smem": num("smem_bytes"),
            "tensor_maps": [flat[i:i + 2] for i in range(0, len(flat), 2)]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--chip", default="sm_90a")
    ap.add_argument("--opt", default=os.path.join(ROOT, "build/bin/attn-opt"))
    ap.add_argument("--head-dims", default="64,128,256")
    ap.add_argument("--dtypes", default="bf16,f16")
    ap.add_argument("--extra", default="", help="more pipeline options")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    pipe = f"chip={a.chip} {a.extra}".strip()
    progs = []
    for t in a.dtypes.split(","):
        for d in map(int, a.head_dims.split(",")):
            for causal in (False, True):
                name = f"{t}_d{d}{'_causal' if causal else ''}"
                src = PROBLEM.format(d=d, t=t,
                                     attrs="{causal}" if causal else "")
                info = compile_one(a.opt, src, pipe,
                                   os.path.join(a.out, name + ".ptx"))
                progs.append({"name": name, "ptx": name + ".ptx",
                              "dtype": t, "head_dim": d, "causal": causal,
                              "variant": "plain", "strided": True,
                              "args": ["q", "k", "v", "o", "lse"],
                              "bench": t == "bf16", **info})
    pdir = os.path.join(ROOT, "test/GPU/programs")
    for f in sorted(os.listdir(pdir)) if os.path.isdir(pdir) else []:
        if not f.endswith(".mlir"):
            continue
        src = open(os.path.join(pdir, f)).read()
        m = re.search(r"^// program: (\{.*\})$", src, re.M)
        if not m:
            continue
        meta = json.loads(m.group(1))
        name = os.path.splitext(f)[0]
        info = compile_one(a.opt, src, pipe, os.path.join(a.out, name + ".ptx"))
        progs.append({"name": name, "ptx": name + ".ptx", **meta, **info})
    json.dump(progs, open(os.path.join(a.out, "programs.json"), "w"),
              indent=1)
    print(f"{len(progs)} kernels in {a.out}")


if __name__ == "__main__":
    main()
