#!/usr/bin/env python3
"""One forward problem through attn (the runtime's C API) and through
FlashAttention-4, for Nsight Compute to profile side by side:

  ncu --kernel-name regex:'attn_fwd|FlashAttention' --launch-skip 2 \\
      --launch-count 2 --section SpeedOfLight ... -o pair \\
      python3 tools/scripts/ncu_pair.py \\
      --lib build-gpu/lib/libattn_runtime_c.so --bundle bundle --d 128 \\
      --n 16384 [--causal]

Each implementation runs three times (the first two are warm-up: FA4's
first call compiles; skip them with --launch-skip). The tensors are the GPU
check's: B*N = 16384, H*D = 2048, bf16, FA4 in its [B, N, H, D] storage.
FA4 comes from ATTN_FA4_SITE (tools/scripts/gpu_check.sh --fa4 unpacks it).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_check  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--n", type=int, default=16384)
    ap.add_argument("--causal", action="store_true")
    a = ap.parse_args()
    import torch
    D, N = a.d, a.n
    H, B = 2048 // D, max(1, 16384 // N)
    q, k, v = (torch.randn(B, N, H, D, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    o = torch.empty_like(q)
    rt = gpu_check.AttnRuntime(a.lib, a.bundle)
    qt, kt, vt, ot = (x.transpose(1, 2) for x in (q, k, v, o))
    for _ in range(3):
        rt.forward(qt, kt, vt, ot, None, causal=a.causal,
                   stream=torch.cuda.current_stream().cuda_stream or None)
    torch.cuda.synchronize()
    print("attn:", rt.last_kernel(), flush=True)
    mod = gpu_check.fa4_module()
    if mod is None:
        print("FA4:", gpu_check._FA4.get("error"))
        return 1
    for _ in range(3):
        ref = mod.flash_attn_func(q, k, v, causal=a.causal)
    torch.cuda.synchronize()
    ref = ref[0] if isinstance(ref, tuple) else ref
    rel = float((o.float() - ref.float()).norm() / ref.float().norm())
    print(f"FA4 ran; attn vs FA4 rel {rel:.2e}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
