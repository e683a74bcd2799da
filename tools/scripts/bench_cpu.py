#!/usr/bin/env python3
"""bench_cpu.py: the attn CPU path against torch's CPU SDPA and a NumPy/BLAS
naive attention, in one run, printing a table.

For each dtype (f32, bf16) and mask (causal or not) at one shape (default
B=2, H=8, N=2048, D=128) it times:

  torch  torch.nn.functional.scaled_dot_product_attention on the CPU
         (torch.set_num_threads(--threads)); warm-ups, then the median of
         --repeat calls.
  numpy  softmax(Q K^T * scale) V per (batch, head) with BLAS matmuls, in
         f32 (the full S, masked for causal: no work is skipped); bf16 rows
         repeat the f32 time, marked "(f32)".
  attn   build/bin/attn-run --target cpu (the kernel-call time attn-run
         prints, "run=<ms> ms"; median over --attn-procs processes, and of
         attn-run's own repeats once it prints "median of N").

FLOPs: 4*B*H*Nq*Nk*D, half of that for causal. "attn/torch" is torch's time
over attn's (above 1: attn is faster; with --rounds R the median of R
paired rounds); "goal" is issue 31's bar, >= 1.0 for f32 and bf16 (on an
AMX host, bf16 against torch's AMX path). attn-run compiles for the host's
highest level (avx2, avx512, avx512bf16, amx; the "cpu-features" of each row's detail);
--attn-arg=--cpu-features=avx512 forces a lower one.

The first run creates .dev/venv-cpu with numpy and torch, then re-runs
itself in it; later runs reuse it. torch comes from pip's configured index
(PyPI's wheel brings CUDA libraries, several GB, unused here; its CPU kernels
are those of the CPU-only wheel); --torch-index-url URL installs from another
index instead, e.g. one serving the CPU-only wheel, where it can be reached.

  tools/scripts/bench_cpu.py                  # the full table (minutes today)
  tools/scripts/bench_cpu.py --quick          # B=1 H=2 N=512: a smoke run
  tools/scripts/bench_cpu.py --dtypes f32 --masks causal --threads 1
  tools/scripts/bench_cpu.py --no-attn        # the references only
  tools/scripts/bench_cpu.py --json out.json  # also write the rows as JSON
  tools/scripts/bench_cpu.py --rounds 5       # paired rounds on a noisy host
  tools/scripts/bench_cpu.py --batch 1 --heads 32 --kv-heads 8 --seq 4096 \
      --seq-q 1 --masks none                  # a GQA decode step

With --seq-q below --seq (a decode step) torch gets enable_gqa and the
rows count 4*B*H*Nq*Nk*D FLOPs; the mask must be none there (torch's
is_causal aligns the top-left corner, attn's the bottom-right).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
VENV = os.path.join(ROOT, ".dev", "venv-cpu")
VENV_PY = os.path.join(VENV, "bin", "python")
IN_VENV_ENV = "ATTN_BENCH_CPU_IN_VENV"


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="bench_cpu.py",
        description="attn's CPU path vs torch CPU SDPA and NumPy/BLAS "
        "naive attention",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--seq", type=int, default=2048,
                    help="Nq = Nk (default 2048)")
    ap.add_argument("--seq-q", type=int, default=None,
                    help="Nq when it differs from Nk = --seq (decoding)")
    ap.add_argument("--kv-heads", type=int, default=None,
                    help="Hkv (GQA: --heads a multiple of it; default "
                    "--heads)")
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--quick", action="store_true",
                    help="a small shape, B=1 H=2 N=512 (flags given "
                    "explicitly still win)")
    ap.add_argument("--dtypes", default="f32,bf16",
                    help="comma list of f32, bf16 (default both)")
    ap.add_argument("--masks", default="none,causal",
                    help="comma list of none, causal (default both)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="threads for torch, the BLAS and attn-run "
                    "(--threads and OMP_NUM_THREADS; default: all cores, "
                    "%(default)s)")
    ap.add_argument("--repeat", type=int, default=5,
                    help="timed torch/numpy calls after the warm-ups "
                    "(median; default 5)")
    ap.add_argument("--warmup", type=int, default=2,
                    help="untimed torch/numpy calls first (default 2)")
    ap.add_argument("--attn-procs", type=int, default=1,
                    help="attn-run processes per row (median of their "
                    "run= times; default 1)")
    ap.add_argument("--attn-repeat", type=int, default=3,
                    help="passed as attn-run --repeat: timed calls after one "
                    "warm-up, median (default 3)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="time torch and attn this many times per row, in "
                    "alternating order: medians, and the median of the "
                    "per-round ratios (default 1)")
    ap.add_argument("--attn-run", default=os.path.join(ROOT, "build", "bin",
                                                       "attn-run"),
                    help="the attn-run binary (default build/bin/attn-run)")
    ap.add_argument("--attn-arg", action="append", default=[],
                    help="extra attn-run argument (repeatable), e.g. "
                    "--attn-arg=--block-q=64")
    ap.add_argument("--attn-timeout", type=float, default=1800,
                    help="seconds before one attn-run is abandoned")
    ap.add_argument("--no-attn", action="store_true",
                    help="skip attn-run")
    ap.add_argument("--no-numpy", action="store_true",
                    help="skip the NumPy reference")
    ap.add_argument("--torch-index-url", metavar="URL",
                    help="pip index to install torch from when setting up "
                    "the venv (default: pip's configured index)")
    ap.add_argument("--no-setup", action="store_true",
                    help="do not create or update .dev/venv-cpu; run in "
                    "this interpreter")
    ap.add_argument("--json", metavar="FILE",
                    help="also write the rows and the setup as JSON")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print attn-run's output and each timing")
    args = ap.parse_args(argv)
    if args.quick:
        given = set(a.split("=")[0] for a in argv)
        if "--batch" not in given:
            args.batch = 1
        if "--heads" not in given:
            args.heads = 2
        if "--seq" not in given:
            args.seq = 512
    if args.seq_q is None:
        args.seq_q = args.seq
    if args.kv_heads is None:
        args.kv_heads = args.heads
    if args.kv_heads < 1:
        ap.error("--kv-heads must be at least 1")
    if args.heads % args.kv_heads:
        ap.error("--heads must be a multiple of --kv-heads")
    args.dtypes = [d for d in args.dtypes.split(",") if d]
    args.masks = [m for m in args.masks.split(",") if m]
    for d in args.dtypes:
        if d not in ("f32", "bf16"):
            ap.error(f"unknown dtype '{d}' (f32 or bf16)")
    for m in args.masks:
        if m not in ("none", "causal"):
            ap.error(f"unknown mask '{m}' (none or causal)")
    if args.seq_q != args.seq and "causal" in args.masks:
        ap.error("--masks causal needs --seq-q = --seq (torch's is_causal "
                 "aligns the top-left corner, attn's the bottom-right)")
    for name in ("batch", "heads", "seq", "seq_q", "head_dim", "threads",
                 "repeat",
                 "attn_procs", "attn_repeat"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.warmup < 0:
        ap.error("--warmup must not be negative")
    return args


# --------------------------------------------------------------------------
# The virtual environment.

def venv_ready():
    if not os.path.exists(VENV_PY):
        return False
    r = subprocess.run([VENV_PY, "-c", "import numpy, torch"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return r.returncode == 0


def setup_venv(torch_index_url=None):
    """Creates .dev/venv-cpu with numpy and torch if it lacks them."""
    if venv_ready():
        return
    print(f"bench_cpu: setting up {os.path.relpath(VENV, ROOT)} (numpy, "
          "torch; once)", file=sys.stderr, flush=True)
    if not os.path.exists(VENV_PY):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    pip = [VENV_PY, "-m", "pip", "install", "--quiet"]
    subprocess.run(pip + ["numpy"], check=True)
    has_torch = subprocess.run(
        [VENV_PY, "-c", "import torch"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL).returncode == 0
    if not has_torch:
        index = ["--index-url", torch_index_url] if torch_index_url else []
        if not torch_index_url:
            print("bench_cpu: installing torch from pip's index (the wheel "
                  "brings CUDA libraries: several GB)", file=sys.stderr,
                  flush=True)
        subprocess.run(pip + ["torch"] + index, check=True)
    if not venv_ready():
        sys.exit("bench_cpu: error: the venv still cannot import numpy and "
                 "torch")


def reexec_in_venv(args, argv):
    env = dict(os.environ)
    env[IN_VENV_ENV] = "1"
    # The BLAS reads these when numpy loads; torch takes set_num_threads.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(args.threads)
    os.execve(VENV_PY, [VENV_PY, os.path.abspath(__file__)] + argv, env)


# --------------------------------------------------------------------------
# Timing.

def flops(args, causal):
    f = 4.0 * args.batch * args.heads * args.seq_q * args.seq * args.head_dim
    return f * (0.5 if causal else 1.0)


def median_ms(fn, warmup, repeat):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), times


def make_inputs(torch, args):
    g = torch.Generator().manual_seed(1)
    q = (args.batch, args.heads, args.seq_q, args.head_dim)
    kv = (args.batch, args.kv_heads, args.seq, args.head_dim)
    return [torch.randn(shape, generator=g, dtype=torch.float32)
            for shape in (q, kv, kv)]


def time_torch(torch, args, qkv32, dtype, causal):
    F = torch.nn.functional
    tdt = {"f32": torch.float32, "bf16": torch.bfloat16}[dtype]
    q, k, v = (t.to(tdt).contiguous() for t in qkv32)

    gqa = {"enable_gqa": True} if args.kv_heads != args.heads else {}

    def call():
        with torch.inference_mode():
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                  **gqa)

    ms, times = median_ms(call, args.warmup, args.repeat)
    return ms, times, call()


def numpy_attention(np, q, k, v, causal, scale):
    """softmax(q k^T scale) v per (batch, head), f32, BLAS matmuls."""
    B, H, N, D = q.shape
    G = H // k.shape[1]
    out = np.empty_like(q)
    mask = None
    if causal:
        mask = np.triu(np.full((N, N), -np.inf, dtype=np.float32), k=1)
    for b in range(B):
        for h in range(H):
            s = q[b, h] @ k[b, h // G].T
            s *= scale
            if mask is not None:
                s += mask
            s -= s.max(axis=1, keepdims=True)
            np.exp(s, out=s)
            l = s.sum(axis=1, keepdims=True)
            o = s @ v[b, h // G]
            o /= l
            out[b, h] = o
    return out


def time_numpy(np, args, qkv32_np, causal):
    q, k, v = qkv32_np
    scale = 1.0 / (args.head_dim ** 0.5)
    ms, times = median_ms(
        lambda: numpy_attention(np, q, k, v, causal, scale),
        min(args.warmup, 1), args.repeat)
    return ms, times, numpy_attention(np, q, k, v, causal, scale)


RUN_RE = re.compile(r"run=([0-9.]+) ms(?: median of (\d+))?")
LEVEL_RE = re.compile(r"cpu-features=(\w+)")
COMPILE_RE = re.compile(r"compile=([0-9.]+) ms")


def attn_command(args, dtype, causal):
    cmd = [args.attn_run, "--target", "cpu", "--dtype", dtype,
           "--batch", str(args.batch), "--heads", str(args.heads),
           "--kv-heads", str(args.kv_heads), "--seq-q", str(args.seq_q),
           "--seq-k", str(args.seq), "--head-dim", str(args.head_dim),
           "--lse=false", "--seed", "1", "--repeat", str(args.attn_repeat),
           "--threads", str(args.threads)]
    if causal:
        cmd.append("--causal")
    return cmd + args.attn_arg


def time_attn(args, dtype, causal):
    """Returns (ms, note, detail); ms None when attn-run failed."""
    cmd = attn_command(args, dtype, causal)
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = str(args.threads)
    runs, compiles, medians_of, cores = [], [], None, []
    for i in range(args.attn_procs):
        r0 = os.times()
        t0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=env,
                               timeout=args.attn_timeout)
        except subprocess.TimeoutExpired:
            return None, f"timed out after {args.attn_timeout:.0f} s", ""
        wall = time.perf_counter() - t0
        r1 = os.times()
        cpu = (r1.children_user - r0.children_user) + \
              (r1.children_system - r0.children_system)
        if args.verbose:
            print("  $ " + " ".join(cmd))
            print("    " + p.stdout.strip().replace("\n", "\n    "))
        m = RUN_RE.search(p.stdout)
        if p.returncode != 0 or not m:
            last = p.stdout.strip().splitlines()[-1:] or ["no output"]
            return None, f"attn-run failed (exit {p.returncode}): " + \
                last[0][:120], p.stdout
        runs.append(float(m.group(1)))
        if m.group(2):
            medians_of = int(m.group(2))
        c = COMPILE_RE.search(p.stdout)
        if c:
            compiles.append(float(c.group(1)))
        cores.append(cpu / wall if wall > 0 else 0.0)
    ms = statistics.median(runs)
    how = (f"attn-run median of {medians_of} calls" if medians_of else
           "one cold call per attn-run process")
    level = LEVEL_RE.search(p.stdout)
    detail = (f"cpu-features={level.group(1) if level else '?'}; "
              f"{how}; {len(runs)} process(es); compile "
              f"{statistics.median(compiles) if compiles else float('nan'):.0f} ms; "
              f"process used {statistics.median(cores):.2f} cores on average")
    return ms, "", detail


# --------------------------------------------------------------------------
# The run.

def load_average():
    try:
        return os.getloadavg()
    except OSError:
        return None


def cpu_flags():
    """The instruction sets attn's CPU levels use, as /proc/cpuinfo names
    them."""
    want = ["avx2", "fma", "avx512f", "avx512_bf16", "amx_tile", "amx_bf16"]
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    have = set(line.split(":", 1)[1].split())
                    return " ".join(w for w in want if w in have) or "none"
    except OSError:
        pass
    return "unknown"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def main():
    argv = sys.argv[1:]
    args = parse_args(argv)
    if not args.no_setup and os.environ.get(IN_VENV_ENV) != "1":
        setup_venv(args.torch_index_url)
        reexec_in_venv(args, argv)

    import numpy as np
    import torch
    torch.set_num_threads(args.threads)

    if not args.no_attn and not os.access(args.attn_run, os.X_OK):
        sys.exit(f"bench_cpu: error: no attn-run at {args.attn_run} (build "
                 "the project first, or pass --no-attn)")

    load0 = load_average()
    shape = (f"N={args.seq}" if args.seq_q == args.seq else
             f"Nq={args.seq_q} Nk={args.seq}")
    heads = (f"H={args.heads}" if args.kv_heads == args.heads else
             f"Hq={args.heads} Hkv={args.kv_heads}")
    print(f"bench_cpu: B={args.batch} {heads} {shape} "
          f"D={args.head_dim}; {args.threads} thread(s); {cpu_model()}, "
          f"{os.cpu_count()} cores")
    print(f"  host flags: {cpu_flags()}")
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        blas = f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception:
        blas = "?"
    print(f"  torch {torch.__version__} ({torch.get_num_threads()} "
          f"threads); numpy {np.__version__} (BLAS: {blas})")
    if load0:
        print(f"  load average at start: {load0[0]:.2f} {load0[1]:.2f} "
              f"{load0[2]:.2f}")
    sys.stdout.flush()

    qkv32 = make_inputs(torch, args)
    qkv32_np = [t.numpy() for t in qkv32]
    numpy_ms = {}
    rows, details = [], []
    for dtype in args.dtypes:
        for mask in args.masks:
            causal = mask == "causal"
            f = flops(args, causal)
            # --rounds R: torch and attn R times each, in alternating order
            # (a shared host's speed drifts by 10-20% within minutes); the
            # medians, and the median of the per-round ratios.
            t_runs, a_runs, a_detail, a_note = [], [], "", ""
            for rnd in range(args.rounds):
                if rnd % 2 == 1 and not args.no_attn:
                    a, a_note, a_detail = time_attn(args, dtype, causal)
                    a_runs.append(a)
                t, _, t_out = time_torch(torch, args, qkv32, dtype, causal)
                t_runs.append(t)
                if rnd % 2 == 0 and not args.no_attn:
                    a, a_note, a_detail = time_attn(args, dtype, causal)
                    a_runs.append(a)
            t_ms = statistics.median(t_runs)
            # NumPy: f32 only; the bf16 rows repeat the f32 time.
            n_ms, n_note = None, ""
            if not args.no_numpy:
                if causal not in numpy_ms:
                    ms, _, n_out = time_numpy(np, args, qkv32_np, causal)
                    err = None
                    if dtype == "f32":
                        err = float(np.abs(n_out - t_out.float().numpy())
                                    .max())
                    numpy_ms[causal] = (ms, err)
                n_ms, err = numpy_ms[causal]
                if dtype != "f32":
                    n_note = "(f32)"
                if err is not None and dtype == "f32":
                    details.append(f"{dtype} {mask}: numpy vs torch max "
                                   f"|diff| = {err:.2e}")
            a_ms, ratio = None, None
            if args.no_attn:
                a_note = "skipped"
            elif None not in a_runs:
                a_ms = statistics.median(a_runs)
                ratio = statistics.median(t / a for t, a in zip(t_runs, a_runs))
            if not args.no_attn:
                details.append(f"{dtype} {mask}: attn: "
                               + (a_detail if a_ms is not None else a_note)
                               + (f"; {args.rounds} rounds, torch/attn per "
                                  "round " + " ".join(f"{t / a:.2f}" for t, a
                                                      in zip(t_runs, a_runs))
                                  if a_ms is not None and args.rounds > 1
                                  else ""))
            goal = 1.0
            row = dict(dtype=dtype, causal=causal, torch_ms=t_ms,
                       torch_gflops=f / t_ms * 1e-6, numpy_ms=n_ms,
                       numpy_note=n_note, attn_ms=a_ms,
                       attn_gflops=(f / a_ms * 1e-6) if a_ms else None,
                       attn_over_torch=ratio, goal=goal,
                       attn_note=a_note)
            rows.append(row)
            # Progress (a full run takes minutes while attn is slow).
            print(f"  {dtype} {mask}: torch {t_ms:.2f} ms, numpy "
                  f"{fmt(n_ms, '.2f')} ms, attn {fmt(a_ms, '.2f')} ms",
                  file=sys.stdout if args.verbose else sys.stderr,
                  flush=True)

    load1 = load_average()
    hdr = ["dtype", "causal", "torch ms", "torch GFLOP/s", "numpy ms",
           "attn ms", "attn GFLOP/s", "attn/torch", "goal"]
    table = []
    for r in rows:
        ratio = r["attn_over_torch"]
        goal = "-" if ratio is None else (
            f">={r['goal']:.1f} " + ("met" if ratio >= r["goal"] else "MISSED"))
        table.append([
            r["dtype"], "yes" if r["causal"] else "no",
            f"{r['torch_ms']:.2f}", f"{r['torch_gflops']:.1f}",
            "-" if r["numpy_ms"] is None else
            f"{r['numpy_ms']:.2f}" + (" " + r["numpy_note"]
                                      if r["numpy_note"] else ""),
            fmt(r["attn_ms"], ".2f") if r["attn_ms"] is not None else
            ("skipped" if r["attn_note"] == "skipped" else "failed"),
            fmt(r["attn_gflops"], ".2f"), fmt(ratio, ".3f"), goal])
    widths = [max(len(h), *(len(t[i]) for t in table))
              for i, h in enumerate(hdr)]
    print()
    print("  ".join(h.rjust(w) for h, w in zip(hdr, widths)))
    print("  ".join("-" * w for w in widths))
    for t in table:
        print("  ".join(c.rjust(w) for c, w in zip(t, widths)))
    print()
    print("FLOPs 4*B*H*Nq*Nk*D, half for causal. attn/torch = torch ms / attn "
          "ms (above 1: attn is faster).")
    if any(r["numpy_note"] for r in rows):
        print("numpy (f32): NumPy computes in f32 only; bf16 rows show the "
              "f32 time.")
    for d in details:
        print("  " + d)
    if load1:
        print(f"  load average at end: {load1[0]:.2f} {load1[1]:.2f} "
              f"{load1[2]:.2f} (on {os.cpu_count()} cores; above that, other "
              "work shared the machine)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(batch=args.batch, heads=args.heads,
                           kv_heads=args.kv_heads, seq=args.seq,
                           seq_q=args.seq_q, head_dim=args.head_dim,
                           threads=args.threads,
                           torch=torch.__version__, numpy=np.__version__,
                           cpu=cpu_model(), load_start=load0, load_end=load1,
                           rows=rows), f, indent=1)
    failed = [r for r in rows if r["attn_ms"] is None and
              r["attn_note"] != "skipped"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
