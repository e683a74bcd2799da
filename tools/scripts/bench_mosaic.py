#!/usr/bin/env python3
"""Times Mosaic GPU's attention (JAX Pallas, built from MLIR: TMA, wgmma,
warp specialisation; jax.experimental.pallas.ops.gpu.attention_mgpu) at the
GPU check's problem sizes, so that gpu_check.py can print it beside attn,
FlashAttention-2 and cuDNN (--mosaic FILE). Hopper only; f16 (its bf16 path
failed a dtype check in the jax of the anchors, shared/anchors).

Sizes: B·N = 16384, H·D = 2048, layout [B, N, H, D]; FLOPs 4·B·H·N²·D,
halved when causal. Per point the best of --block-kv choices (block_q 64,
two stages), timed by Mosaic GPU's own profiler (CUPTI) where it works, else
the median of wall-clock batches; the output is compared with a float32
reference for N <= 4096 and a point whose error is large or not finite is
reported and left out.

  XLA_PYTHON_CLIENT_PREALLOCATE=false tools/scripts/bench_mosaic.py \\
      --out m.json [--d 64 128 256] [--n 2048 4096 8192 16384] \\
      [--block-kv 128 64]
"""

import argparse
import functools
import json
import os
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--d", type=int, nargs="+", default=[64, 128, 256])
    ap.add_argument("--n", type=int, nargs="+",
                    default=[2048, 4096, 8192, 16384])
    ap.add_argument("--block-kv", type=int, nargs="+", default=[128, 64])
    ap.add_argument("--dtype", default="f16", choices=("f16", "bf16"))
    args = ap.parse_args()
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    rows = []
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax.experimental.pallas.ops.gpu import attention_mgpu as am
    except Exception as e:  # noqa: BLE001 - reported, not fatal
        print(f"bench_mosaic: Mosaic GPU unavailable: {type(e).__name__}: "
              f"{e}")
        json.dump(dict(error=str(e), rows=rows), open(args.out, "w"))
        return 0
    try:
        from jax.experimental.mosaic.gpu import profiler
    except Exception:  # noqa: BLE001
        profiler = None
    dev = jax.devices()[0].device_kind
    print(f"bench_mosaic: jax {jax.__version__}, {dev}", flush=True)
    dt = {"f16": jnp.float16, "bf16": jnp.bfloat16}[args.dtype]

    def time_ms(fn, *xs):
        out = fn(*xs)
        jax.block_until_ready(out)
        if profiler is not None:
            try:
                _, ms = profiler.measure(fn)(*xs)
                if ms and ms > 0:
                    return out, float(ms), "cupti"
            except Exception:  # noqa: BLE001 - fall back to wall time
                pass
        samples = []
        for _ in range(5):
            t = time.perf_counter()
            for _ in range(10):
                o = fn(*xs)
            jax.block_until_ready(o)
            samples.append((time.perf_counter() - t) * 1e3 / 10)
        return out, statistics.median(samples), "wall"

    for D in args.d:
        for causal in (False, True):
            for N in args.n:
                B, H = max(1, 16384 // N), 2048 // D
                keys = jax.random.split(jax.random.key(
                    int.from_bytes(os.urandom(4), "little")), 3)
                q, k, v = (jax.random.normal(kk, (B, N, H, D), dt)
                           for kk in keys)
                flops = 4 * B * H * N * N * D / (2 if causal else 1)
                best, errs = None, []
                for bkv in args.block_kv:
                    try:
                        cfg = am.TuningConfig(block_q=64, block_kv=bkv,
                                              max_concurrent_steps=2,
                                              causal=causal)
                        fn = jax.jit(functools.partial(am.attention,
                                                       config=cfg))
                        out, ms, how = time_ms(fn, q, k, v)
                        if best is None or ms < best[0]:
                            best = (ms, bkv, how, out)
                    except Exception as e:  # noqa: BLE001
                        errs.append(f"block_kv {bkv}: {type(e).__name__}: "
                                    f"{str(e)[:120]}")
                r = dict(dtype=args.dtype, D=D, causal=causal, N=N, B=B, H=H)
                if best:
                    ms, bkv, how, out = best
                    r.update(ms=ms, block_kv=bkv, timer=how)
                    if N <= 4096:
                        ref = am.attention_reference(q, k, v, causal=causal)
                        o32 = np.asarray(out, np.float32)
                        r32 = np.asarray(ref, np.float32)
                        rel = float(np.linalg.norm(o32 - r32) /
                                    np.linalg.norm(r32))
                        r["rel_err"] = rel
                        if not np.isfinite(o32).all() or rel > 1e-2:
                            r["error"] = f"wrong output: rel error {rel:.2e}"
                    if "error" not in r:
                        r["tflops"] = flops / ms / 1e9
                else:
                    r["error"] = " | ".join(errs)[:300]
                rows.append(r)
                msg = (f"{r['tflops']:7.1f} TFLOP/s (block_kv {r['block_kv']}"
                       f", {r['timer']})" if "tflops" in r
                       else "FAILED " + r["error"])
                print(f"mosaic {args.dtype} D={D:3d} "
                      f"{'causal' if causal else 'full':6s} N={N:5d}: {msg}",
                      flush=True)
    with open(args.out, "w") as f:
        json.dump(dict(device=dev, jax=jax.__version__, rows=rows), f,
                  indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
