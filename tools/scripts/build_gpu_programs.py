#!/usr/bin/env python3
"""Compiles the kernels tools/scripts/gpu_programs.py checks on the GPU (run
here, on the build machine, with build/bin/attn-bundle, whose manifest line
says what the launcher needs):

  * attention problems (attn.attention: f16/bf16, head dims, causal or not)
    through the attn-codegen pipeline (--extra: more of its options);
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
import shutil
import subprocess
import sys
import tempfile

import manifest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Q, K, V and O with run-time strides (head dim contiguous) and the scale
# last, as the runtime's kernels take them (attn-bundle refuses anything
# else): the same kernel reads [B, H, N, D] or [B, N, H, D] storage
# (tools/scripts/gpu_programs.py --storage).
PROBLEM = """
!t = memref<?x?x?x{d}x{t}, strided<[?, ?, ?, 1], offset: ?>>
func.func @attention(%q: !t, %k: !t, %v: !t, %o: !t,
                     %lse: memref<?x?x?xf32>, %scale: f32) {{
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) {attrs}
      : !t, !t, !t, !t
  return
}}
"""

# fp8 (e4m3) Q and K, V transposed ([B, Hkv, D, Nk], keys contiguous), a
# bf16 O, and the dequantisation factors after the scale.
PROBLEM_FP8 = """
!t = memref<?x?x?x{d}xf8E4M3FN, strided<[?, ?, ?, 1], offset: ?>>
!vt = memref<?x?x{d}x?xf8E4M3FN, strided<[?, ?, ?, 1], offset: ?>>
!o = memref<?x?x?x{d}xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @attention(%q: !t, %k: !t, %v: !vt, %o: !o,
                     %lse: memref<?x?x?xf32>, %scale: f32, %qd: f32,
                     %kd: f32, %vd: f32) {{
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) descale(%qd, %kd, %vd) {attrs}
      : !t, !t, !vt, !o
  return
}}
"""


def compile_one(bundler, src, chip, extra, out_ptx):
    """Compiles the problem or program in `src` for `chip` with attn-bundle
    (its IR input) and returns what its manifest line says the launcher
    needs: the entry name, block rows, threads, shared memory and tensor
    maps."""
    with tempfile.TemporaryDirectory() as tmp:
        src_file = os.path.join(tmp, "program.mlir")
        with open(src_file, "w") as f:
            f.write(src)
        out = os.path.join(tmp, "bundle")
        run = subprocess.run([bundler, "--out-dir", out, "--chips", chip,
                              f"--codegen={extra}", src_file],
                             capture_output=True, text=True)
        if run.returncode:
            sys.exit(f"attn-bundle failed:\n{run.stderr}")
        ks = manifest.kernels(os.path.join(out, "manifest.txt"))
        # A program that builds its block lists first (attn.block_lists):
        # the lists kernel, then the attention; one PTX module holds both.
        lists = [k for k in ks if k.get("program") == "block_lists"]
        # (A program that reads its bias by bulk copies comes with its
        # "_unaligned" twin, the runtime's for other biases: not timed here.)
        rest = [k for k in ks if k.get("program") != "block_lists" and
                not k["name"].endswith("_unaligned_kernel")]
        if len(rest) != 1 or len(lists) > 1:
            sys.exit(f"expected one attention kernel (and at most one "
                     f"block_lists kernel before it), got "
                     f"{[k['name'] for k in ks]}")
        (k,) = rest
        shutil.copyfile(os.path.join(out, k["ptx"]), out_ptx)
    # Bulk copies: the tensor maps the launcher encodes, as (argument, box
    # rows, box bytes) triples (tensor_maps=ARG:ROWS[:BYTES],..., BYTES 128
    # when absent), passed after the arguments.
    maps = [([int(x) for x in m.split(":")] + [128])[:3]
            for m in k.get("tensor_maps", "").split(",") if m]
    # A persistent kernel (grid=persistent(...)) is launched as one block
    # per SM, at most one per tile.
    info = {"kernel": k["name"], "block_m": int(k["block_m"]),
            "threads": int(k["threads"]), "smem": int(k["smem"]),
            "tensor_maps": maps,
            "persistent": manifest.persistent(k),
            "tile_counter": manifest.tile_counter(k)}
    if lists:
        # Its grid: (ceil(Nq / BQ), heads or 1, batch or 1) of one warp.
        (ls,) = lists
        info["lists"] = {"kernel": ls["name"], "block_m": int(ls["block_m"]),
                         "block_n": int(ls["block_n"]),
                         "threads": int(ls["threads"]),
                         "smem": int(ls["smem"]), "grid": ls["grid"]}
    return info


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--chip", default="sm_90a")
    ap.add_argument("--bundler",
                    default=os.path.join(ROOT, "build/bin/attn-bundle"))
    ap.add_argument("--head-dims", default="64,128,256")
    ap.add_argument("--dtypes", default="bf16,f16",
                    help="bf16, f16 and e4m3 (fp8: V transposed, bf16 O)")
    ap.add_argument("--extra", default="", help="more pipeline options")
    ap.add_argument("--masks", default="full,causal",
                    help="which problems: full, causal or both")
    ap.add_argument("--no-programs", action="store_true",
                    help="only the generated problems, not test/GPU/programs")
    ap.add_argument("--programs-only", action="store_true",
                    help="only the hand-written programs of test/GPU/programs")
    ap.add_argument("--only", default="",
                    help="only the programs whose name contains this (as "
                         "gpu_programs.py --only; e.g. the ones that compile "
                         "for --chip sm_80)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    progs = []
    for t in [] if a.programs_only else a.dtypes.split(","):
        for d in map(int, a.head_dims.split(",")):
            for causal in (False, True):
                if ("causal" if causal else "full") not in a.masks.split(","):
                    continue
                name = f"{t}_d{d}{'_causal' if causal else ''}"
                fp8 = t == "e4m3"
                attrs = ["causal"] if causal else []
                if fp8:
                    attrs.append("v_transposed")
                src = (PROBLEM_FP8 if fp8 else PROBLEM).format(
                    d=d, t=t,
                    attrs="{" + ", ".join(attrs) + "}" if attrs else "")
                info = compile_one(a.bundler, src, a.chip, a.extra,
                                   os.path.join(a.out, name + ".ptx"))
                args = ["q", "k", "v", "o", "lse", "scale"]
                progs.append({"name": name, "ptx": name + ".ptx",
                              "dtype": t, "head_dim": d, "causal": causal,
                              "variant": "fp8" if fp8 else "plain",
                              "strided": True,
                              "args": args + (["qd", "kd", "vd"] if fp8
                                              else []),
                              "bench": t in ("bf16", "e4m3"), **info})
    pdir = os.path.join(ROOT, "test/GPU/programs")
    listed = os.path.isdir(pdir) and not a.no_programs
    for f in sorted(os.listdir(pdir)) if listed else []:
        if not f.endswith(".mlir"):
            continue
        src = open(os.path.join(pdir, f)).read()
        m = re.search(r"^// program: (\{.*\})$", src, re.M)
        if not m:
            continue
        meta = json.loads(m.group(1))
        name = os.path.splitext(f)[0]
        if a.only and a.only not in name:
            continue
        info = compile_one(a.bundler, src, a.chip, a.extra,
                           os.path.join(a.out, name + ".ptx"))
        progs.append({"name": name, "ptx": name + ".ptx", **meta, **info})
    json.dump(progs, open(os.path.join(a.out, "programs.json"), "w"),
              indent=1)
    print(f"{len(progs)} kernels in {a.out}")


if __name__ == "__main__":
    main()
