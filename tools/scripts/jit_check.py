#!/usr/bin/env python3
"""The start-up and JIT part of the GPU check (issue 14), run by
tools/scripts/gpu_check.sh on the lent GPU machine with the statically linked
tools built on the build machine (tools/scripts/build_static.sh static/) and
the bundle:

  1. first call of a bundled kernel in a new process, from SASS, and the same
     kernel with the bundle's cubins hidden (the PTX JIT of the driver: what
     every process paid before the bundle carried SASS);
  2. problems the bundle lacks, compiled by libattn_jit: cold (empty cache),
     from the disk cache in a new process, and with the cache off;
  3. 16 threads of one process, then 4 processes at once, compiling the same
     and different variants into fresh caches: every output correct, exactly
     one cache entry per variant, no temporary file left;
  4. a truncated entry, an entry with a flipped byte and a read-only cache
     directory: correct outputs and a warning each;
  5. a table of what was measured, and a verdict against the issue's bounds.

Every attn-run call here is `--check`: fresh random inputs, NaN-poisoned
outputs, float64 reference. Usage:

  tools/scripts/jit_check.py --tools static --bundle bundle --out OUT_DIR
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import manifest

ENTRY = re.compile(r"^[0-9a-f]{64}$")

rows = []  # (what, value, bound, ok)
failures = []


def record(what, value, bound="", ok=True):
    rows.append((what, value, bound, ok))
    if not ok:
        failures.append(what)


def run(cmd, env=None, timeout=600):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env,
                       timeout=timeout)
    wall = (time.perf_counter() - t0) * 1e3
    out = p.stdout + p.stderr
    print("$ " + " ".join(cmd))
    print(out.rstrip())
    print(f"  (exit {p.returncode}, {wall:.0f} ms wall)")
    return p.returncode, out, wall


def attn_run(tools, args, env=None):
    """attn-run --target gpu --check ...: (ok, first-call ms, stages,
    origin line, output)."""
    rc, out, _ = run([os.path.join(tools, "attn-run"), "--target", "gpu",
                      "--check", "--repeat", "3"] + args, env=env)
    m = re.search(r"first call=([0-9.]+) ms \(ms:([^)]*)\)", out)
    first = float(m.group(1)) if m else float("nan")
    stages = {}
    if m:
        for k, v in re.findall(r"([\w-]+)=([0-9.]+)", m.group(2)):
            stages[k] = float(v)
    o = re.search(r"target=gpu \((.*)\) kernel=", out)
    ok = rc == 0 and "PASS" in out
    return ok, first, stages, o.group(1) if o else "", out


def entries(cache):
    if not os.path.isdir(cache):
        return [], []
    names = os.listdir(cache)
    return ([n for n in names if ENTRY.match(n)],
            [n for n in names if not ENTRY.match(n) and
             not n.endswith(".lock")])


def fmt_stages(stages):
    return " ".join(f"{k}={v:.1f}" for k, v in stages.items())


def read_only_dir(path):
    """Makes `path` a directory nobody can write, root included: a read-only
    tmpfs, else an immutable directory (chattr +i). Returns an undo
    function, or None if neither works here."""
    os.makedirs(path, exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs",
                       path], capture_output=True).returncode == 0:
        return lambda: subprocess.run(["umount", path])
    if subprocess.run(["chattr", "+i", path],
                      capture_output=True).returncode == 0:
        return lambda: subprocess.run(["chattr", "-i", path])
    if os.geteuid() != 0:
        os.chmod(path, 0o555)
        return lambda: os.chmod(path, 0o755)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tools", required=True)
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    tools, bundle = os.path.abspath(args.tools), os.path.abspath(args.bundle)
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="attn-jit-check-")
    env = dict(os.environ, ATTN_BUNDLE_DIR=bundle)
    env.pop("ATTN_CACHE_DIR", None)
    # The driver's own JIT cache would turn the PTX "before" into a cache
    # read after its first run.
    env["CUDA_CACHE_DISABLE"] = "1"

    # Every problem here fills most of an H100's SMs with query blocks (at
    # least 0.8 x 132): smaller grids take the split-KV pair (two kernels, a
    # workspace), which is not the one-kernel start-up measured here.
    print("=== 1. first call of a bundled kernel (new process each)")
    firsts = []
    for i in range(3):
        ok, first, st, origin, _ = attn_run(
            tools, ["--dtype", "bf16", "--head-dim", "128", "--causal",
                    "--seq-q", "1024", "--heads", "16"], env)
        firsts.append(first)
        if not ok:
            record("bundled bf16 d128 causal: check", "FAIL", "", False)
    sass = "SASS" in origin
    record("bundled kernel: image", origin, "SASS from bundle", sass)
    best = min(firsts)
    record("bundled kernel: first call (min of 3 processes)",
           f"{best:.2f} ms (median {sorted(firsts)[1]:.2f})", "< 5 ms",
           best < 5)
    # Before: the same bundle without its cubins.
    ptx_bundle = os.path.join(work, "bundle-ptx")
    shutil.copytree(bundle, ptx_bundle)
    lines = manifest.read(os.path.join(ptx_bundle, "manifest.txt"))
    with open(os.path.join(ptx_bundle, "manifest.txt"), "w") as f:
        for line, k in lines:
            if k is not None:
                k.pop("sass", None)
                line = manifest.format_kernel(k) + "\n"
            f.write(line)
    env_ptx = dict(env, ATTN_BUNDLE_DIR=ptx_bundle)
    ok, first, st, origin, _ = attn_run(
        tools, ["--dtype", "bf16", "--head-dim", "128", "--causal",
                "--seq-q", "1024", "--heads", "16"], env_ptx)
    record("same kernel from PTX (driver JIT; before)", f"{first:.1f} ms",
           "", ok)

    print("=== 2. problems the bundle lacks (libattn_jit)")
    cache = os.path.join(work, "cache")
    # Head dims the bundle lacks, and Dv != D (no bundle kernel has it).
    for dt, d, dv, causal in (("bf16", "80", "80", True),
                              ("f16", "192", "192", False),
                              ("bf16", "112", "112", True),
                              ("bf16", "128", "64", True)):
        name = f"{dt} d{d}{'' if dv == d else ' dv' + dv}" + \
            (" causal" if causal else "")
        flags = ["--dtype", dt, "--head-dim", d, "--head-dim-v", dv,
                 "--seq-q", "700", "--seq-k", "900", "--heads", "32",
                 "--kv-heads", "8", "--cache-dir", cache] + \
            (["--causal"] if causal else [])
        ok, first, st, origin, _ = attn_run(tools, flags, env)
        record(f"{name}: cold compile + load, check",
               f"{first:.0f} ms ({fmt_stages(st)})", "< 1000 ms",
               ok and first < 1000 and "stored" in origin)
        ok, first, st, origin, _ = attn_run(tools, flags, env)
        record(f"{name}: from the disk cache, new process",
               f"{first:.2f} ms ({fmt_stages(st)})", "< 5 ms",
               ok and first < 5 and "hit" in origin)
    ok, first, st, origin, _ = attn_run(
        tools, ["--dtype", "bf16", "--head-dim", "80", "--causal",
                "--cache", "off"], env)
    record("bf16 d80 causal, cache off", f"{first:.0f} ms ({fmt_stages(st)})",
           "", ok)
    ok, first, st, origin, _ = attn_run(
        tools, ["--dtype", "bf16", "--head-dim", "80", "--causal",
                "--cache", "off", "--no-nvjitlink"], env)
    record("bf16 d80 causal, no nvJitLink (driver JIT)",
           f"{first:.0f} ms ({fmt_stages(st)})", "", ok and "PTX" in origin)

    print("=== 3. 16 threads, then 4 processes, one cache")
    c16 = os.path.join(work, "cache16")
    variants = "bf16:80:causal,bf16:192,f16:80:lse,f16:160,bf16:128:causal"
    rc, out, wall = run([os.path.join(tools, "attn-jit-check"), "--threads",
                         "16", "--rounds", "3", "--cache-dir", c16,
                         "--variants", variants], env=env)
    ents, other = entries(c16)
    # bf16 d128 causal is bundled: 4 variants compiled.
    record("16 threads x 3 rounds, 5 variants (4 not bundled)",
           f"{'PASS' if rc == 0 else 'FAIL'}, {len(ents)} entries, "
           f"{len(other)} other files, {wall:.0f} ms",
           "PASS, 4 entries, 0 other", rc == 0 and len(ents) == 4 and
           not other)
    c4 = os.path.join(work, "cache4")
    lists = ["bf16:80:causal,bf16:192", "bf16:192,bf16:80:causal",
             "bf16:80:causal,f16:144", "f16:144,bf16:192"]
    procs = []
    t0 = time.perf_counter()
    for i, vl in enumerate(lists):
        log = open(os.path.join(args.out, f"jit-proc{i}.log"), "w")
        procs.append((subprocess.Popen(
            [os.path.join(tools, "attn-jit-check"), "--threads", "4",
             "--rounds", "2", "--cache-dir", c4, "--variants", vl],
            stdout=log, stderr=subprocess.STDOUT, env=env), log))
    rcs = [p.wait(timeout=600) for p, _ in procs]
    wall = (time.perf_counter() - t0) * 1e3
    for i, (_, log) in enumerate(procs):
        log.close()
        print(f"--- process {i}:")
        print(open(os.path.join(args.out, f"jit-proc{i}.log")).read().rstrip())
    ents, other = entries(c4)
    record("4 processes x 4 threads, 3 distinct variants",
           f"exits {rcs}, {len(ents)} entries, {len(other)} other files, "
           f"{wall:.0f} ms", "all 0, 3 entries, 0 other",
           rcs == [0] * 4 and len(ents) == 3 and not other)

    print("=== 4. damaged entries, read-only cache")
    flags = ["--dtype", "bf16", "--head-dim", "80", "--causal", "--seq-q",
             "300", "--cache-dir", cache]
    before, _ = entries(cache)
    for damage in ("truncated", "flipped byte"):
        for n in before:
            path = os.path.join(cache, n)
            size = os.path.getsize(path)
            if damage == "truncated":
                os.truncate(path, size // 2)
            else:
                with open(path, "r+b") as f:
                    f.seek(size // 2)
                    b = f.read(1)
                    f.seek(size // 2)
                    f.write(bytes([b[0] ^ 0x40]))
        ok, first, st, origin, out = attn_run(tools, flags, env)
        warned = "rebuilt" in out
        record(f"{damage} entries: check, warning, rebuilt",
               f"{'PASS' if ok else 'FAIL'}, warning {'yes' if warned else 'no'}"
               f", {origin.split(' from ')[-1].split()[0]}", "PASS, yes, stored",
               ok and warned and "stored" in origin)
    ro = os.path.join(work, "ro-cache")
    undo = read_only_dir(ro)
    if undo is None:
        record("read-only cache", "no way to make a read-only directory here",
               "", False)
    else:
        try:
            ok, first, st, origin, out = attn_run(
                tools, ["--dtype", "bf16", "--head-dim", "80", "--causal",
                        "--cache-dir", ro], env)
            warned = "could not store" in out
            record("read-only cache directory: check, warning",
                   f"{'PASS' if ok else 'FAIL'}, warning "
                   f"{'yes' if warned else 'no'}", "PASS, yes", ok and warned)
        finally:
            undo()

    print("=== sliding windows (fresh inputs against float64): the "
          "bundle's kernel, libattn_jit's, and attn-run's own sm_80 and "
          "sm_90a kernels")
    # (window, extra flags, kernel source): the bundle holds causal L = 4096
    # at D = 128 bf16 with LSE (examples/attention-sliding-window.mlir).
    cases = [
        ("4096,-1", ["--causal", "--head-dim", "128", "--seq-q", "4500",
                     "--heads", "4", "--kv-heads", "1"], []),
        ("300,-1", ["--causal", "--head-dim", "128", "--seq-q", "1000",
                    "--heads", "4", "--kv-heads", "2"], ["--bundle", "none"]),
        ("37,20", ["--head-dim", "64", "--seq-q", "777", "--batch", "2"],
         ["--bundle", "none"]),
        ("-1,5", ["--head-dim", "256", "--seq-q", "700"],
         ["--bundle", "none"]),
        ("0,-1", ["--causal", "--head-dim", "128", "--seq-q", "513"],
         ["--chip", "sm_90a"]),
        ("64,64", ["--head-dim", "64", "--seq-q", "1500", "--seq-k", "300"],
         ["--chip", "sm_80"]),
    ]
    for window, shape, source in cases:
        ok, _, _, origin, out = attn_run(
            tools, ["--dtype", "bf16", "--window", window] + shape + source,
            env)
        what = (f"window {window} d{shape[shape.index('--head-dim') + 1]} "
                f"({' '.join(source) or 'bundle'})")
        # The bundle's kernel must be the one that ran, not a JIT build.
        if not source:
            ok = ok and "from bundle" in origin
        record(what + ": check", ("PASS " if ok else "FAIL ") + origin,
               "PASS" + ("" if source else ", from bundle"), ok)

    print("=== soft-caps (fresh inputs against float64): the bundle's "
          "kernel, libattn_jit's, and attn-run's own sm_80 and sm_90a kernels")
    # (cap, extra flags, kernel source): the bundle holds causal 50 at
    # D = 256 bf16 with LSE (examples/attention-softcap.mlir), served where
    # the grid fills the device (a smaller one is split over the keys, and
    # libattn_jit builds the capped split-KV pair: the second case). A
    # large scale drives the scores into the cap's bend.
    cases = [
        ("50", ["--causal", "--head-dim", "256", "--seq-q", "4096",
                "--heads", "16", "--kv-heads", "8"], [], "bundle"),
        ("50", ["--causal", "--head-dim", "256", "--seq-q", "2000",
                "--heads", "4", "--kv-heads", "2"], [], "split-KV, jit"),
        ("30", ["--causal", "--head-dim", "128", "--seq-q", "1000",
                "--heads", "8", "--kv-heads", "2", "--scale", "1"],
         ["--bundle", "none"], None),
        ("5", ["--head-dim", "64", "--seq-q", "777", "--seq-k", "300",
               "--batch", "2"], ["--bundle", "none"], None),
        ("20", ["--causal", "--head-dim", "128", "--seq-q", "513"],
         ["--chip", "sm_90a"], None),
        ("20", ["--head-dim", "64", "--seq-q", "700"], ["--chip", "sm_80"],
         None),
    ]
    for cap, shape, source, label in cases:
        ok, _, _, origin, out = attn_run(
            tools, ["--dtype", "bf16", "--softcap", cap] + shape + source,
            env)
        what = (f"softcap {cap} d{shape[shape.index('--head-dim') + 1]} "
                f"({label or ' '.join(source)})")
        if label == "bundle":
            ok = ok and "from bundle" in origin
        record(what + ": check", ("PASS " if ok else "FAIL ") + origin,
               "PASS" + (", from bundle" if label == "bundle" else ""), ok)

    sizes = []
    for t in ("attn-run", "attn-jit-check"):
        p = os.path.join(tools, t)
        if os.path.exists(p):
            sizes.append(f"{t} {os.path.getsize(p) / 2**20:.1f} MiB")
    record("static tools (stripped)", ", ".join(sizes), "")

    shutil.rmtree(work, ignore_errors=True)
    lines = ["", "start-up and JIT (tools/scripts/jit_check.py)",
             f"{'what':<52} {'measured':<58} {'bound':<26} ok"]
    for what, value, bound, ok in rows:
        lines.append(f"{what:<52} {value:<58} {bound:<26} "
                     f"{'yes' if ok else 'NO'}")
    lines.append("jit-check: " + ("PASS" if not failures else
                                  "FAILED: " + "; ".join(failures)))
    table = "\n".join(lines)
    print(table)
    with open(os.path.join(args.out, "jit_check.txt"), "w") as f:
        f.write(table + "\n")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
