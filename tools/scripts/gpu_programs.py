#!/usr/bin/env python3
"""Runs compiled attn kernels straight from their PTX on a GPU, checks them
against a float64 reference and times them beside torch SDPA.

The kernels come from tools/build-gpu-programs.sh (run on the build machine),
which writes <dir>/programs.json: one entry per kernel with its PTX file, its
entry name, the launch shape (block_m, threads, smem), the function signature
(the memref operands in order, then scalars) and the variant its reference
computes:

  plain     O = softmax(scale·QKᵀ [+ causal mask])·V, LSE
  softcap   S = scale·c·tanh(QKᵀ / c) before the softmax
  bias      S = scale·QKᵀ + Bias[b, h, i, j]
  alibi     S = scale·QKᵀ + slopes[h]·(j − i)   (a score_mod reading the
            positions and a captured [Hq] f32 table)
  alibi_fa  S = scale·QKᵀ − slopes[h]·|i + Nk − Nq − j|   (the built-in
            alibi(...) operand, FlashAttention's alibi_slopes)
  dropout   O = (softmax(S) ∘ keep / (1 − p))·V with the op's Philox mask
            (fresh p, seed and offset per case; the reference computes the
            mask in torch)

Kernel parameters follow runtime/include/attn/runtime/KernelABI.h: the
function's arguments in order, a memref as (allocated ptr, aligned ptr,
offset, sizes..., strides...) with 64-bit integers, an f32 as itself.
Launch: grid (ceil(Nq / block_m), Hq, B), block (threads, 1, 1); a persistent
kernel (manifest grid=persistent(...)) min(SMs, tiles) blocks in x.

Correctness: fresh random inputs (seed printed), outputs poisoned with NaN,
pass iff ||O - ref|| / ||ref|| < 1e-2 with no NaN/inf, and LSE within 1e-3
(-inf exactly where the reference row sees no key). Timing: median of CUDA
events over back-to-back launches after warm-up, bf16/f16 at
B·N = 16384, H·D = 2048, beside SDPA FLASH (FlashAttention-2) and CUDNN.
A case or timing that does not return within --step-timeout seconds ends
the run as a hang (exit 3), naming it and printing the results before it.

  python3 tools/scripts/gpu_programs.py build/gpu-programs [--quick] \\
      [--out f.json]
"""

import argparse
import ctypes
import json
import math
import os
import random
import sys
import threading
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_check  # noqa: E402 - FA4's loader, make_tensor

cuda = ctypes.CDLL("libcuda.so.1")


def launch_grid(prog, nq, hq, b):
    """(ceil(Nq / block_m), Hq, B) thread blocks, or for a persistent
    kernel min(SMs, that many tiles) blocks in x."""
    grid = ((nq + prog["block_m"] - 1) // prog["block_m"], hq, b)
    if prog.get("persistent"):
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        return (min(sms, grid[0] * grid[1] * grid[2]), 1, 1)
    return grid


def check(rc, what):
    if rc != 0:
        name = ctypes.c_char_p()
        cuda.cuGetErrorName(rc, ctypes.byref(name))
        raise RuntimeError(f"{what}: CUDA error {rc} "
                           f"({name.value.decode() if name.value else '?'})")


# cuTensorMapEncodeTiled's enums (cuda.h); fp8 is UINT8 (0).
TMA_DTYPE = {torch.float16: 6, torch.bfloat16: 9, torch.float8_e4m3fn: 0,
             torch.float32: 7}
# CU_TENSOR_MAP_SWIZZLE_* by the box's row bytes (one shared slab).
TMA_SWIZZLE = {128: 3, 64: 2}
TMA_L2_256B = 3


def tensor_map(t, box_rows, box_bytes=128):
    """The CUtensorMap (128 bytes) of a [.., rows, cols] 16-bit, 8-bit or
    f32 tensor for bulk copies (or, f32, bulk reductions) of box_rows x one
    slab of box_bytes (128: 64, 128 or 32 columns; 64: 32 16-bit columns),
    swizzled by box_bytes, zeros past the end (KernelABI.h)."""
    rank = t.dim()
    dims = (ctypes.c_uint64 * rank)(*reversed(t.shape))
    strides = (ctypes.c_uint64 * (rank - 1))(
        *[s * t.element_size() for s in reversed(t.stride()[:-1])])
    box = (ctypes.c_uint32 * rank)(
        *([box_bytes // t.element_size(), box_rows] + [1] * (rank - 2)))
    ones = (ctypes.c_uint32 * rank)(*([1] * rank))
    # CUtensorMap is 128-byte aligned (alignas(128) in cuda.h).
    buf = (ctypes.c_uint8 * 256)()
    m = (ctypes.c_uint64 * 16).from_buffer(buf, -ctypes.addressof(buf) % 128)
    m.buf = buf
    check(cuda.cuTensorMapEncodeTiled(
        ctypes.byref(m), TMA_DTYPE[t.dtype], rank,
        ctypes.c_void_p(t.data_ptr()), dims, strides, box, ones, 0,
        TMA_SWIZZLE[box_bytes], TMA_L2_256B, 0), "cuTensorMapEncodeTiled")
    return m


class Kernel:
    def __init__(self, ptx_path, name, smem, tensor_maps=(),
                 tile_counter=False):
        # (argument, box rows[, box bytes]): 128-byte boxes where absent.
        self.tensor_maps = [(list(m) + [128])[:3] for m in tensor_maps]
        # A dynamic grid's tile counter (KernelABI.h): zero before the first
        # launch, left zero by each; one stream uses it.
        self.counter = (torch.zeros(1, dtype=torch.int32, device="cuda")
                        if tile_counter else None)
        torch.cuda.init()
        torch.zeros(1, device="cuda")  # makes the primary context current
        data = open(ptx_path, "rb").read() + b"\0"
        self.module = ctypes.c_void_p()
        check(cuda.cuModuleLoadData(ctypes.byref(self.module), data),
              f"cuModuleLoadData({ptx_path})")
        self.fn = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(self.fn), self.module,
                                       name.encode()), "cuModuleGetFunction")
        # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
        check(cuda.cuFuncSetAttribute(self.fn, 8, smem), "cuFuncSetAttribute")
        self.smem = smem
        self.lists = None

    def with_lists(self, lists):
        """The program's block-lists kernel (attn.block_lists; manifest
        program=block_lists), another entry of the same PTX module: one
        warp a list row, grid (ceil(Nq / BQ), heads or 1, batch or 1)."""
        fn = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(fn), self.module,
                                       lists["kernel"].encode()),
              "cuModuleGetFunction")
        twin = object.__new__(Kernel)
        twin.module, twin.fn, twin.smem = self.module, fn, lists["smem"]
        twin.tensor_maps, twin.counter, twin.lists = [], None, None
        self.lists = (twin, lists)
        return self

    def lists_launcher(self, nq, hq, b, args):
        """The lists kernel's launch over the same arguments."""
        twin, lists = self.lists
        dims = lists["grid"].split(",")
        grid = (-(-nq // lists["block_m"]),
                hq if dims[1] != "1" else 1, b if dims[2] != "1" else 1)
        return twin.prepare(grid, lists["threads"], args)

    def launch(self, grid, threads, args):
        """args: a list of torch tensors (memrefs) and floats (f32)."""
        self.prepare(grid, threads, args)()

    def prepare(self, grid, threads, args):
        """A launcher with the kernel parameters packed once (timing loops:
        the per-call cost is cuLaunchKernel's alone)."""
        keep = []
        for a in args:
            if isinstance(a, torch.Tensor):
                p = a.data_ptr()
                keep += [ctypes.c_uint64(p), ctypes.c_uint64(p),
                         ctypes.c_int64(0)]
                keep += [ctypes.c_int64(s) for s in a.shape]
                keep += [ctypes.c_int64(s) for s in a.stride()]
            elif isinstance(a, tuple):
                # An integer scalar: ("i64", v) or ("i32", v).
                kind, val = a
                keep.append(ctypes.c_int64(val) if kind == "i64"
                            else ctypes.c_int32(val))
            else:
                keep.append(ctypes.c_float(a))
        for arg, rows, box_bytes in self.tensor_maps:
            keep.append(tensor_map(args[arg], rows, box_bytes))
        if self.counter is not None:
            keep.append(ctypes.c_uint64(self.counter.data_ptr()))
        params = (ctypes.c_void_p * len(keep))(
            *[ctypes.cast(ctypes.byref(k), ctypes.c_void_p) for k in keep])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

        def go():
            check(cuda.cuLaunchKernel(self.fn, grid[0], grid[1], grid[2],
                                      threads, 1, 1, self.smem, stream,
                                      params, None), "cuLaunchKernel")
        go.keep = (keep, params)  # alive as long as the launcher
        return go


# The mean document length of the benchmark's packed sequences (--doc-len).
DOC_LEN = 256
# The run's seed: the benchmark's documents at each N derive from it, so
# that every program of a run (an A/B's mirrored copies included) is timed
# on the same documents, and each run draws fresh ones.
RUN_SEED = 0


def document_ids(b, n, gen=None, mean_len=256):
    """[b, n] int32 document ids of packed sequences: non-decreasing, a new
    document starting at each position with probability 1/mean_len."""
    starts = torch.rand(b, n, device="cuda", generator=gen) < 1 / mean_len
    return torch.cumsum(starts.int(), dim=1, dtype=torch.int32)


def block_lists(docs, nq, nk, causal, mask_block, drop=0.0, gen=None,
                full=False):
    """Block sparsity for packed documents (a program's block_mask(...)):
    per sequence and BQ-row query block, the BK-key blocks that hold a key
    of the same documents, causally visible (bottom-right), as counts
    [B, 1, QB] and indices [B, 1, QB, KB] i32; with `full`, the blocks
    whose keys are all of the query rows' document go to a second pair of
    lists (full_blocks: no mask_mod there). With `drop`, each visible block
    is left out, each invisible one listed and (with `full`) each partial
    one listed as full with that probability (the reference then masks by
    the lists); the order is shuffled and entries past a count hold other
    valid blocks. Returns ((counts, indices), (full counts, full indices)
    or None, kind [B, QB, KB]: 0 unlisted, 1 partial, 2 full)."""
    bq, bk = mask_block
    b = docs.shape[0]
    qb, kb = -(-nq // bq), -(-nk // bk)
    i = torch.arange(nq, device="cuda")
    j = torch.arange(nk, device="cuda")
    same = docs[:, :nq, None] == docs[:, None, :nk]
    vis = same.clone()
    if causal:
        vis &= (j[None, :] <= i[:, None] + (nk - nq))[None]

    def blocks(x, fill, reduce):
        pad = torch.full((b, qb * bq, kb * bk), fill, dtype=torch.bool,
                         device="cuda")
        pad[:, :nq, :nk] = x
        return reduce(reduce(pad.view(b, qb, bq, kb, bk), 4), 2)
    listed = blocks(vis, False, lambda t, d: t.any(dim=d))
    whole = blocks(same, True, lambda t, d: t.all(dim=d)) & listed \
        if full else torch.zeros_like(listed)
    coin = lambda: (torch.rand(listed.shape, device="cuda", generator=gen)
                    < drop) if drop > 0 else torch.zeros_like(listed)
    if drop > 0:
        listed = listed ^ coin()
        if full:
            whole = (whole | coin()) & listed
    kind = listed.to(torch.int8) + whole.to(torch.int8)

    def pack(sel):
        counts = sel.sum(dim=2).to(torch.int32)
        # Listed blocks first in a random order, then random valid indices.
        key = torch.rand(sel.shape, device="cuda", generator=gen)
        key = torch.where(sel, key, key + 2)
        order = key.argsort(dim=2).to(torch.int32)
        filler = torch.randint(0, kb, sel.shape, device="cuda",
                               generator=gen, dtype=torch.int32)
        t = torch.arange(kb, device="cuda")[None, None, :]
        indices = torch.where(t < counts[:, :, None], order, filler)
        return (counts.view(b, 1, qb).contiguous(),
                indices.view(b, 1, qb, kb).contiguous())
    return pack(kind == 1), (pack(kind == 2) if full else None), kind


def dropout_factor(b, hq, nq, nk, p, seed, offset):
    """attn.attention dropout(p, seed, offset)'s factor per score, float64
    [B, Hq, Nq, Nk] (gpu_check.dropout_rows for each batch)."""
    i = torch.arange(nq, device="cuda", dtype=torch.int64)
    j = torch.arange(nk, device="cuda", dtype=torch.int64)
    return torch.stack([gpu_check.dropout_rows(bb, hq, i, j, p, seed, offset)
                        for bb in range(b)])


def reference(q, k, v, causal, scale, variant, extra):
    """float64 O and LSE; Q [B,Hq,Nq,D], K/V [B,Hkv,Nk,D]."""
    q, k, v = q.double(), k.double(), v.double()
    g = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(g, dim=1)
    v = v.repeat_interleave(g, dim=1)
    s = torch.matmul(q, k.transpose(-1, -2))
    if variant == "softcap":
        # softmax(scale · c·tanh(QKᵀ / c)): the cap on the raw scores.
        c = extra["softcap"]
        s = c * torch.tanh(s / c)
    s = s * scale
    if variant == "bias":
        s = s + extra["bias"].double()
    nq, nk = q.shape[2], k.shape[2]
    if variant == "alibi":
        i = torch.arange(nq, device=q.device, dtype=torch.float64)[:, None]
        j = torch.arange(nk, device=q.device, dtype=torch.float64)[None, :]
        slopes = extra["slopes"].double()[None, :, None, None]
        s = s + slopes * (j - i)
    if variant == "alibi_fa":
        # The built-in ALiBi (FlashAttention's alibi_slopes): bottom-right
        # aligned, S − slopes[h]·|i + Nk − Nq − j|.
        i = torch.arange(nq, device=q.device, dtype=torch.float64)[:, None]
        j = torch.arange(nk, device=q.device, dtype=torch.float64)[None, :]
        slopes = extra["slopes"].double()[None, :, None, None]
        s = s - slopes * (i + (nk - nq) - j).abs()
    if variant == "relbias":
        m = extra["max_distance"]
        i = torch.arange(nq, device=q.device)[:, None]
        j = torch.arange(nk, device=q.device)[None, :]
        bucket = (j - i).clamp(-m, m) + m
        s = s + extra["table"].double()[:, bucket][None]
    if variant == "docmask":
        docs = extra["docs"]
        same = docs[:, :nq, None] == docs[:, None, :nk]
        if "kind" in extra:
            # Block lists: a full block's keys skip the document mask.
            bq, bk = extra["mask_block"]
            kind = extra["kind"][:, torch.arange(nq, device=q.device) // bq]
            kind = kind[:, :, torch.arange(nk, device=q.device) // bk]
            same = (kind == 2) | ((kind == 1) & same)
        s = s.masked_fill(~same[:, None], float("-inf"))
    if variant == "chunked":
        c = extra["chunk"]
        i = torch.arange(nq, device=q.device)[:, None] // c
        j = torch.arange(nk, device=q.device)[None, :] // c
        s = s.masked_fill(i != j, float("-inf"))
    if causal:
        i = torch.arange(nq, device=q.device)[:, None]
        j = torch.arange(nk, device=q.device)[None, :]
        s = s.masked_fill(j > i + (nk - nq), float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - torch.where(torch.isinf(lse), 0, lse)[..., None])
    if variant == "dropout":
        # Dropout after the softmax (the LSE is the undropped one).
        p = p * extra["dropout"]
    o = torch.matmul(p, v)
    return o, lse


# Storage of Q, K, V and O: "bnhd" ([B, N, H, D], the GPU check's, FA4's and
# the runtime's benchmark storage) or "bhnd" (each head's rows contiguous).
# The problems of build_gpu_programs.py take [B, H, N, D] memrefs with
# run-time strides (the runtime's kernels); hand-written programs with an
# identity layout always get [B, H, N, D].
STORAGE = "bnhd"


def layout(prog):
    """The storage of a program's Q, K, V and O (gpu_check.make_tensor's
    layout): STORAGE, or [B, H, N, D] for identity-layout memrefs."""
    return STORAGE if prog.get("strided", False) else "bhnd"


def compare_lists(named, extra, nq, nk, mask_block):
    """The lists the program wrote against the ones block_lists() built
    from the same documents (kind: 1 partial, 2 full): per row the count,
    then the listed blocks in increasing order; entries past a count are
    not compared. Returns the first difference, or None."""
    kind = extra["kind"]
    b, qb, kb = kind.shape
    for want, cname, iname in ((1, "counts", "indices"),
                               (2, "full_counts", "full_indices")):
        if cname not in named:
            continue
        counts = named[cname].view(b, qb).cpu()
        indices = named[iname].view(b, qb, -1).cpu()
        sel = (kind == want).cpu()
        for bi in range(b):
            for qi in range(qb):
                blocks = sel[bi, qi].nonzero().flatten().tolist()
                n = int(counts[bi, qi])
                got = indices[bi, qi, :max(n, 0)].tolist()
                if n != len(blocks) or got != blocks:
                    return (f"generated {cname}/{iname} of row (b {bi}, "
                            f"query block {qi}): {got} (count {n}), "
                            f"expected {blocks}")
    return None


def run_case(prog, kern, shape, dtype, gen):
    if prog["variant"] == "fp8":
        return run_fp8_case(prog, kern, shape, gen)
    b, hq, hkv, nq, nk = shape
    d = prog["head_dim"]
    dt = {"bf16": torch.bfloat16, "f16": torch.float16}[dtype]
    mk = lambda *s, fill=None: gpu_check.make_tensor(s, dt, layout(prog), gen,
                                                     fill)
    q, k, v = mk(b, hq, nq, d), mk(b, hkv, nk, d), mk(b, hkv, nk, d)
    o = mk(b, hq, nq, d, fill=float("nan"))
    lse = torch.full((b, hq, nq), float("nan"), device="cuda")
    scale = prog.get("scale") or 1.0 / math.sqrt(d)
    extra = {}
    args = []
    generated = bool(prog.get("generate_lists"))
    if "counts" in prog["args"]:
        # Block lists over fresh documents; in half the cases with a
        # fraction of the blocks left out (or added). Lists the program
        # builds itself are compared with these (none dropped).
        extra["docs"] = document_ids(b, max(nq, nk), gen)
        drop = prog.get("check_drop", 0.0) if bool(
            torch.rand(1, device="cuda", generator=gen) < 0.5) else 0.0
        if generated:
            drop = 0.0
        extra["mask_block"] = prog["mask_block"]
        part, full, extra["kind"] = block_lists(
            extra["docs"], nq, nk, prog["causal"], prog["mask_block"], drop,
            gen, full="full_counts" in prog["args"])
        extra["counts"], extra["indices"] = part
        if full:
            extra["full_counts"], extra["full_indices"] = full
    for a in prog["args"]:
        args.append({"q": q, "k": k, "v": v, "o": o, "lse": lse}.get(a))
        if a == "bias":
            extra["bias"] = torch.randn(b, hq, nq, nk, device="cuda",
                                        generator=gen) * 2
            args[-1] = extra["bias"]
            if prog.get("bias_dtype") == "bf16":
                # A bias of the inputs' type: the reference adds the
                # rounded values.
                args[-1] = extra["bias"].to(torch.bfloat16)
                extra["bias"] = args[-1].float()
        elif a == "slopes":
            # ALiBi's slopes are 2^(-8h/H); fresh ones in (0, 1) test more.
            extra["slopes"] = torch.rand(hq, device="cuda", generator=gen)
            args[-1] = extra["slopes"]
        elif a == "table":
            m = prog["max_distance"]
            extra["max_distance"] = m
            extra["table"] = torch.randn(hq, 2 * m + 1, device="cuda",
                                         generator=gen)
            args[-1] = extra["table"]
        elif a == "docs":
            if "docs" not in extra:
                extra["docs"] = document_ids(b, max(nq, nk), gen)
            args[-1] = extra["docs"]
        elif a in ("counts", "indices", "full_counts", "full_indices"):
            # Poisoned where the program writes them itself.
            args[-1] = (torch.full_like(extra[a], -1) if generated
                        else extra[a])
        elif a == "scale":
            args[-1] = scale
        elif a == "dropout_p":
            # A fresh rate, key and offset each case.
            r = torch.rand(3, device="cuda", generator=gen).tolist()
            extra["p"] = 0.05 + 0.85 * r[0]
            extra["seed"] = int(r[1] * (1 << 53)) * 2048 + 1
            extra["offset"] = int(r[2] * (1 << 31))
            args[-1] = extra["p"]
        elif a == "seed":
            args[-1] = ("i64", extra["seed"] - (1 << 64)
                        if extra["seed"] >= 1 << 63 else extra["seed"])
        elif a == "offset":
            args[-1] = ("i32", extra["offset"])
    if prog["variant"] == "dropout":
        extra["dropout"] = dropout_factor(b, hq, nq, nk, extra["p"],
                                          extra["seed"], extra["offset"])
    if prog["variant"] == "softcap":
        extra["softcap"] = prog["softcap"]
    if prog["variant"] == "chunked":
        extra["chunk"] = prog["chunk"]
    if generated:
        kern.lists_launcher(nq, hq, b, args)()
        torch.cuda.synchronize()
        named = dict(zip(prog["args"], args))
        why = compare_lists(named, extra, nq, nk, prog["mask_block"])
        if why:
            print(f"  {why}")
            return False, float("nan"), float("nan")
    grid = launch_grid(prog, nq, hq, b)
    kern.launch(grid, prog["threads"], args)
    torch.cuda.synchronize()
    ro, rl = reference(q, k, v, prog["causal"], scale, prog["variant"], extra)
    of = o.double()
    ok = bool(torch.isfinite(of).all())
    err = ((of - ro).norm() / ro.norm().clamp_min(1e-30)).item()
    ok = ok and err < 1e-2
    if kern.counter is not None and int(kern.counter.item()) != 0:
        # A dynamic grid must leave its tile counter zero for the next launch.
        print(f"  tile counter {int(kern.counter.item())} after the launch")
        kern.counter.zero_()
        ok = False
    lse_err = 0.0
    if "lse" in prog["args"]:
        inf = torch.isinf(rl)
        same_inf = bool((torch.isinf(lse) == inf).all()) and \
            bool((lse[inf] < 0).all())
        fin = ~inf
        lse_err = (lse.double()[fin] - rl[fin]).abs().max().item() \
            if fin.any() else 0.0
        ok = ok and same_inf and not math.isnan(lse_err) and lse_err < 1e-3
    return ok, err, lse_err


def run_fp8_case(prog, kern, shape, gen):
    """An fp8 kernel against float64 attention of the dequantised inputs
    (gpu_check.check_fp8's bounds)."""
    b, hq, hkv, nq, nk = shape
    d = prog["head_dim"]
    (q8, k8, vt, o, qd, kd, vd), (qr, kr, vr) = gpu_check.fp8_inputs(
        b, hq, hkv, nq, nk, d, gen)
    lse = torch.full((b, hq, nq), float("nan"), device="cuda")
    scale = 1.0 / math.sqrt(d)
    vals = {"q": q8, "k": k8, "v": vt, "o": o, "lse": lse, "scale": scale,
            "qd": qd, "kd": kd, "vd": vd}
    args = [vals[a] for a in prog["args"]]
    kern.launch(launch_grid(prog, nq, hq, b), prog["threads"], args)
    torch.cuda.synchronize()
    ro, rl = reference(qr, kr, vr, prog["causal"], scale, "plain", {})
    emul = gpu_check.fp8_emulation(qr, kr, vr, prog["causal"], scale)
    res, problems = gpu_check.check_fp8(o, lse, ro, rl, emul)
    ok = not problems
    if kern.counter is not None and int(kern.counter.item()) != 0:
        print(f"  tile counter {int(kern.counter.item())} after the launch")
        kern.counter.zero_()
        ok = False
    print(f"  fp8 emulation's O error {res['emul_rel']:.2e} (bound "
          f"{res['o_bound']:.2e})" + (f": {'; '.join(problems)}"
                                      if problems else ""))
    return ok, res["o_rel"], res["lse_rel"]


def time_ms(fn, samples=15, batch=10):
    """Median over samples of the mean time of `batch` back-to-back calls
    between two CUDA events (the host's launch cost overlaps the kernels)."""
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(samples):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(batch):
            fn()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) / batch)
    ts.sort()
    return ts[len(ts) // 2]


_FA4_ALIBI = {}


def fa4_alibi_mod(symmetric=False):
    """FA4's user score_mod for ALiBi, S + 0.0625·(j − i) (one slope for
    all heads: FA4's score_mod sees no per-head table without aux tensors),
    as ../shared/anchors/bench_fa4.py times it; `symmetric`: S − 0.0625·|j −
    i| (the built-in's form without a mask, Nq = Nk); None without CuTe
    DSL."""
    if symmetric not in _FA4_ALIBI:
        try:
            import cutlass
            import cutlass.cute as cute

            @cute.jit
            def alibi_mod(acc, batch_idx, head_idx, q_idx, kv_idx,
                          seqlen_info, aux_tensors):
                return acc + (kv_idx - q_idx).to(cutlass.Float32) * 0.0625

            @cute.jit
            def alibi_abs_mod(acc, batch_idx, head_idx, q_idx, kv_idx,
                              seqlen_info, aux_tensors):
                d = (kv_idx - q_idx).to(cutlass.Float32)
                return acc - cute.where(d > 0, d, -d) * 0.0625
            _FA4_ALIBI[symmetric] = alibi_abs_mod if symmetric else alibi_mod
        except Exception:  # noqa: BLE001 - no FA4 here
            _FA4_ALIBI[symmetric] = None
    return _FA4_ALIBI[symmetric]


def time_fa4(prog, q, k, v, causal):
    """FlashAttention-4 on the same problem in its [B, N, H, D] storage
    (ATTN_FA4_SITE: tools/scripts/gpu_check.sh --fa4), with `softcap=` where the
    program is a problem-level soft-cap ("score_mod_softcap": C, FA4's
    softcap on the scaled scores); None where FA4 is missing or has no such
    variant."""
    mod = gpu_check.fa4_module()
    # A document mask's peers (FA4 here, SDPA's in bench) run dense causal:
    # what the mask costs without block sparsity.
    if mod is None or prog["variant"] not in ("plain", "softcap", "alibi",
                                              "alibi_fa", "docmask"):
        return None
    kw = {"causal": causal}
    if prog["variant"] == "softcap":
        if "score_mod_softcap" not in prog:
            return None
        kw["softcap"] = prog["score_mod_softcap"]
    if prog["variant"] in ("alibi", "alibi_fa"):
        # The built-in without a mask is ALiBi's symmetric form.
        kw["score_mod"] = fa4_alibi_mod(
            symmetric=prog["variant"] == "alibi_fa" and not causal)
        if kw["score_mod"] is None:
            return None
    qf, kf, vf = (x.transpose(1, 2).contiguous() for x in (q, k, v))
    try:
        return time_ms(lambda: mod.flash_attn_func(qf, kf, vf, **kw))
    except Exception:  # noqa: BLE001 - a peer that cannot run is a "-"
        return None


def bench_fp8(prog, kern, n, own_bf16):
    """TFLOP/s of an fp8 kernel and of attn's own bf16 kernel of the same
    head dim and mask (`own_bf16`: (program, Kernel) or None) at the
    benchmark shape; SDPA and FA4 have no fp8 forward on sm_90."""
    d = prog["head_dim"]
    b, h = 16384 // n, 2048 // d
    (q8, k8, vt, o, qd, kd, vd), _ = gpu_check.fp8_inputs(b, h, h, n, n, d,
                                                          None)
    lse = torch.empty(b, h, n, device="cuda")
    vals = {"q": q8, "k": k8, "v": vt, "o": o, "lse": lse,
            "scale": 1.0 / math.sqrt(d), "qd": qd, "kd": kd, "vd": vd}
    causal = prog["causal"]
    flops = 4 * b * h * n * n * d / (2 if causal else 1)
    fn = kern.prepare(launch_grid(prog, n, h, b), prog["threads"],
                      [vals[a] for a in prog["args"]])
    # Mirrored order (fp8, bf16, fp8), the fp8 time the mean of its two.
    first = time_ms(fn)
    res = {"bf16": None}
    if own_bf16:
        bp, bk = own_bf16
        res["bf16"] = time_ms(bk.prepare(launch_grid(bp, n, h, b),
                                         bp["threads"],
                                         bf16_args(bp, b, h, n, d)))
    res["attn"] = (first + time_ms(fn)) / 2
    return {kname: (flops / (t * 1e-3) / 1e12 if t else None)
            for kname, t in res.items()}


def time_flex(q, k, v, docs, causal, mask_block):
    """FlexAttention (torch.compile'd flex_attention) with the document
    mask as a mask_mod and its BlockMask of the same block size; None where
    it cannot run."""
    try:
        from torch.nn.attention.flex_attention import (create_block_mask,
                                                       flex_attention)

        def mask_mod(b, h, i, j):
            same = docs[b, i] == docs[b, j]
            return same & (j <= i) if causal else same
        n = q.shape[2]
        torch._dynamo.reset()  # as in time_flex_mod: never the eager fallback
        bm = create_block_mask(mask_mod, q.shape[0], None, n, n,
                               BLOCK_SIZE=tuple(mask_block))
        flex = torch.compile(flex_attention)
        qc, kc, vc = (x.contiguous() for x in (q, k, v))
        return time_ms(lambda: flex(qc, kc, vc, block_mask=bm))
    except Exception as ex:  # noqa: BLE001 - a peer that cannot run is a "-"
        print(f"  FlexAttention: {type(ex).__name__}: {ex}"[:300])
        return None


def time_flex_mod(prog, q, k, v, causal, slopes):
    """FlexAttention (torch.compile'd flex_attention) with the program's
    score modifier as its score_mod (ALiBi with the same per-head slopes,
    the soft-cap on the scaled scores) and causal as a BlockMask: the peer
    that takes the same modifier as a user function. None for other
    variants or where it cannot run."""
    variant = prog["variant"]
    if variant not in ("plain", "alibi", "alibi_fa", "softcap"):
        return None
    try:
        from torch.nn.attention.flex_attention import (create_block_mask,
                                                       flex_attention)
        nq, nk = q.shape[2], k.shape[2]
        mod = None
        if variant == "alibi":
            def mod(score, b, h, i, j):
                return score + slopes[h] * (j - i)
        elif variant == "alibi_fa":
            def mod(score, b, h, i, j):
                return score - slopes[h] * (i + (nk - nq) - j).abs()
        elif variant == "softcap":
            c = float(prog.get("score_mod_softcap", prog.get("softcap", 30)))

            def mod(score, b, h, i, j):
                return c * torch.tanh(score / c)
        # A fresh compile per program and shape: each new score_mod
        # recompiles, and past torch.compile's recompile limit flex runs
        # eagerly (a dense score matrix: ~7 TFLOP/s), which would time the
        # fallback, not FlexAttention.
        torch._dynamo.reset()
        bm = None
        if causal:
            def causal_mask(b, h, i, j):
                return j <= i + (nk - nq)
            bm = create_block_mask(causal_mask, None, None, nq, nk)
        flex = torch.compile(flex_attention)
        qc, kc, vc = (x.contiguous() for x in (q, k, v))
        return time_ms(lambda: flex(qc, kc, vc, score_mod=mod, block_mask=bm))
    except Exception as ex:  # noqa: BLE001 - a peer that cannot run is a "-"
        print(f"  FlexAttention: {type(ex).__name__}: {ex}"[:300])
        return None


def bf16_args(prog, b, h, n, d):
    mk = lambda: gpu_check.make_tensor((b, h, n, d), torch.bfloat16,
                                       layout(prog), None)
    vals = {"q": mk(), "k": mk(), "v": mk(),
            "o": gpu_check.make_tensor((b, h, n, d), torch.bfloat16,
                                       layout(prog), None, 0.0),
            "lse": torch.empty(b, h, n, device="cuda"),
            "scale": 1.0 / math.sqrt(d)}
    return [vals[a] for a in prog["args"]]


def bench(prog, kern, n, dtype, peers=("fa2", "cudnn", "fa4")):
    d = prog["head_dim"]
    b, h = 16384 // n, 2048 // d
    dt = {"bf16": torch.bfloat16, "f16": torch.float16}[dtype]
    q, k, v = (gpu_check.make_tensor((b, h, n, d), dt, layout(prog), None)
               for _ in range(3))
    o = gpu_check.make_tensor((b, h, n, d), dt, layout(prog), None, 0.0)
    lse = torch.empty(b, h, n, device="cuda")
    scale = 1.0 / math.sqrt(d)
    slopes = torch.rand(h, device="cuda")
    table = torch.randn(h, 2 * prog.get("max_distance", 0) + 1, device="cuda")
    doc_gen = torch.Generator(device="cuda")
    doc_gen.manual_seed(RUN_SEED + n)
    docs = document_ids(b, n, doc_gen, mean_len=DOC_LEN)
    lists = {}
    if "counts" in prog["args"]:
        part, full, kind = block_lists(docs, n, n, prog["causal"],
                                       prog["mask_block"],
                                       full="full_counts" in prog["args"])
        lists = dict(zip(("counts", "indices"), part))
        if full:
            lists.update(zip(("full_counts", "full_indices"), full))
    # An additive bias [B, H, N, N] f32 (the peers take it as SDPA's
    # attn_mask in the inputs' dtype: FA2 has none, so "FA2" is SDPA's
    # memory-efficient kernel there).
    bias = (torch.randn(b, h, n, n, device="cuda")
            if "bias" in prog["args"] else None)
    if bias is not None and prog.get("bias_dtype") == "bf16":
        bias = bias.to(torch.bfloat16)
    drop_p = prog.get("bench_dropout", 0.1)
    args = [{"q": q, "k": k, "v": v, "o": o, "lse": lse, "slopes": slopes,
             "table": table, "docs": docs, "scale": scale, "bias": bias,
             "dropout_p": drop_p, "seed": ("i64", 12345),
             "offset": ("i32", 0), **lists}[a]
            for a in prog["args"]]
    dropout = drop_p if "dropout_p" in prog["args"] else 0.0
    grid = launch_grid(prog, n, h, b)
    causal = prog["causal"]
    flops = 4 * b * h * n * n * d / (2 if causal else 1)
    lists_ms = None
    if prog.get("generate_lists"):
        # The program's own lists (the same as the host's): its lists
        # kernel timed alone, then the attention over what it wrote.
        lists_ms = time_ms(kern.lists_launcher(n, h, b, args))
    res = {"attn": time_ms(kern.prepare(grid, prog["threads"], args))}
    if lists:
        # The fraction of the causal blocks the lists keep (and of those
        # full), and FlexAttention (torch.compile) on the same document mask
        # and block lists: the peer with block sparsity.
        qb = kind.shape[1]
        res["kept"] = float((kind > 0).sum()) / (b * qb * (qb + 1) / 2)
        res["full"] = float((kind == 2).sum()) / max(float((kind > 0).sum()),
                                                     1.0)
        res["flex"] = time_flex(q, k, v, docs, causal, prog["mask_block"])
    res["fa4"] = time_fa4(prog, q, k, v, causal) if "fa4" in peers else None
    if "flex" in peers and not lists:
        res["flex"] = time_flex_mod(prog, q, k, v, causal, slopes)
    from torch.nn.attention import sdpa_kernel, SDPBackend
    mask = bias.to(dt) if bias is not None else None
    # With dropout the peers drop too (SDPA's dropout_p, their own RNG):
    # FA2 is SDPA's FlashAttention-2 kernel, cuDNN its cuDNN one (FA4 has
    # no dropout).
    if dropout:
        res["fa4"] = None
    for name, be in (("fa2", SDPBackend.EFFICIENT_ATTENTION if mask is not None
                      else SDPBackend.FLASH_ATTENTION),
                     ("cudnn", SDPBackend.CUDNN_ATTENTION)):
        if name not in peers:
            res[name] = None
            continue
        try:
            with sdpa_kernel([be]):
                res[name] = time_ms(lambda: F.scaled_dot_product_attention(
                    q, k, v, attn_mask=mask, is_causal=causal,
                    dropout_p=dropout))
        except Exception as ex:  # backend unavailable for this shape
            res[name] = None
    kept, full = res.pop("kept", None), res.pop("full", None)
    out = {kname: (flops / (t * 1e-3) / 1e12 if t else None)
           for kname, t in res.items()}
    if kept is not None:
        out["kept"], out["full"] = kept, full
    if lists_ms is not None:
        out["lists_ms"], out["attn_ms"] = lists_ms, res["attn"]
    return out


class Watchdog:
    """Ends the run when one step (a correctness case or a timing) has not
    returned after `seconds`: a kernel that never finishes would otherwise
    hold the device call to its limit and lose every result with it. The
    step's name and the results so far are printed first. The waits that
    hang (cuLaunchKernel through ctypes, torch's synchronisations) release
    the GIL, so the timer's thread runs."""

    def __init__(self, seconds, report):
        self.seconds, self.report, self.timer = seconds, report, None

    def step(self, what):
        self.stop()
        if self.seconds > 0:
            self.timer = threading.Timer(self.seconds, self.fire, (what,))
            self.timer.daemon = True
            self.timer.start()

    def stop(self):
        if self.timer:
            self.timer.cancel()
            self.timer = None

    def fire(self, what):
        print(f"\nHANG: {what} did not return within {self.seconds} s "
              f"(--step-timeout); the results before it:", flush=True)
        self.report()
        sys.stdout.flush()
        os._exit(3)


def print_tables(results, failed, table, fp8_table, start):
    f = lambda x: f"{x:7.1f}" if x else "      -"
    # ours / theirs, 0 where theirs was not timed
    x = lambda r, peer: r["attn"] / r[peer] if r.get(peer) else 0
    print(f"\ncorrectness: {len(results) - failed}/{len(results)} passed "
          f"({time.time() - start:.0f} s in all)")
    if table:
        print(f"\n{'kernel':40s} {'N':>6s} {'attn':>7s} {'FA2':>7s} "
              f"{'cuDNN':>7s} {'FA4':>7s} {'xFA2':>6s} {'xcuDNN':>6s} "
              f"{'xFA4':>6s} {'Flex':>7s} {'xFlex':>6s}  (TFLOP/s; FA4 "
              f"with the program's soft-cap; Flex: FlexAttention with its "
              f"score_mod, --peers ...,flex)")
        for name, n, r in table:
            flex = r.get("flex") if "kept" not in r else None
            print(f"{name:40s} {n:6d} {f(r['attn'])} {f(r.get('fa2'))} "
                  f"{f(r.get('cudnn'))} {f(r.get('fa4'))} "
                  f"{x(r, 'fa2'):6.2f} {x(r, 'cudnn'):6.2f} "
                  f"{x(r, 'fa4'):6.2f} {f(flex)} "
                  f"{x(r, 'flex') if flex else 0:6.2f}")
    sparse = [(name, n, r) for name, n, r in table if "kept" in r]
    if sparse:
        print(f"\n{'block-sparse kernel':40s} {'N':>6s} {'kept':>6s} "
              f"{'full':>6s} {'attn':>7s} {'Flex':>7s} {'xFlex':>6s} "
              f"{'xFA4':>6s}  (TFLOP/s at the dense causal count; kept: the "
              f"fraction of causal blocks listed, full: of those full; "
              f"xFA4: against FA4's dense causal)")
        for name, n, r in sparse:
            # Lists the program builds (generate_lists): its lists kernel's
            # time beside the attention's, in ms.
            own = (f"  lists {r['lists_ms']:.3f} ms, attention "
                   f"{r['attn_ms']:.3f} ms" if "lists_ms" in r else "")
            print(f"{name:40s} {n:6d} {r['kept']:6.3f} {r['full']:6.3f} "
                  f"{f(r['attn'])} {f(r.get('flex'))} {x(r, 'flex'):6.2f} "
                  f"{x(r, 'fa4'):6.2f}{own}")
    if fp8_table:
        print(f"\n{'fp8 kernel':40s} {'N':>6s} {'fp8':>7s} {'bf16':>7s} "
              f"{'x bf16':>6s}  (TFLOP/s; attn's own bf16 kernel of the "
              f"same head dim and mask)")
        for name, n, r in fp8_table:
            print(f"{name:40s} {n:6d} {f(r['attn'])} {f(r.get('bf16'))} "
                  f"{x(r, 'bf16'):6.2f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-bench", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--ns", default="", help="bench sequence lengths")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--storage", choices=("bnhd", "bhnd"), default="bnhd",
                    help="Q, K, V and O storage (the kernels take any "
                         "strides; bnhd is the GPU check's)")
    ap.add_argument("--peers", default="fa2,cudnn,fa4",
                    help="implementations timed beside attn (comma list "
                         "of fa2, cudnn, fa4 and flex: FlexAttention with "
                         "the program's score_mod, compiled per shape; "
                         "'none' for A/B runs of attn variants)")
    ap.add_argument("--step-timeout", type=float, default=300,
                    help="seconds one correctness case or timing may take "
                         "before the run ends as a hang (0: no limit)")
    ap.add_argument("--doc-len", type=int, default=256,
                    help="mean document length of the benchmark's packed "
                         "sequences (document-mask programs)")
    a = ap.parse_args()
    peers = tuple(x for x in a.peers.split(",") if x and x != "none")
    global STORAGE, DOC_LEN, RUN_SEED
    STORAGE = a.storage
    DOC_LEN = a.doc_len
    start = time.time()
    gpu_check.philox_self_test()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    RUN_SEED = seed
    print(f"seed {seed}")
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    progs = json.load(open(os.path.join(a.dir, "programs.json")))
    # The last quick shape has more query blocks than the GPU has SMs
    # (512 of 128 rows, 384 of 192; GQA 4, ragged ends): a persistent
    # program runs several tiles, and its rings cross tile boundaries.
    shapes = [(1, 1, 1, 1, 1), (1, 2, 2, 17, 17), (2, 4, 2, 128, 128),
              (1, 2, 1, 130, 1000), (1, 2, 2, 1000, 130), (2, 2, 2, 1000, 1000),
              (2, 32, 8, 1000, 777)]
    if not a.quick:
        shapes += [(1, 8, 2, 4096, 4096), (1, 1, 1, 16384, 16384)]
    results, failed = [], 0
    fp8_table, table = [], []
    dog = Watchdog(a.step_timeout, lambda: print_tables(
        results, failed, table, fp8_table, start))
    for p in progs:
        if a.only and a.only not in p["name"]:
            continue
        kern = Kernel(os.path.join(a.dir, p["ptx"]), p["kernel"], p["smem"],
                          p.get("tensor_maps", ()), p.get("tile_counter"))
        if "lists" in p:
            kern.with_lists(p["lists"])
        # A program that reads its bias by bulk copies (a tensor map of the
        # bias argument) takes biases of 16-byte aligned rows only: the
        # runtime serves the others with the element twin (gpu_check.py).
        bulk_bias = "bias" in p["args"] and any(
            m[0] == p["args"].index("bias") for m in kern.tensor_maps)
        for shape in shapes:
            if p["variant"] == "bias" and shape[3] * shape[4] > 1 << 24:
                continue
            if bulk_bias and shape[4] % 8:
                print(f"skip {p['name']:40s} {str(shape):28s} (a bias read "
                      f"by bulk copies needs 16-byte aligned rows)")
                continue
            dog.step(f"{p['name']} {shape}")
            try:
                ok, err, lerr = run_case(p, kern, shape, p["dtype"], gen)
            except Exception as ex:
                ok, err, lerr = False, float("nan"), float("nan")
                print(f"  {p['name']} {shape}: {ex}")
            failed += not ok
            print(f"{'PASS' if ok else 'FAIL'} {p['name']:40s} {str(shape):28s}"
                  f" O rel {err:.2e}  LSE {lerr:.1e}", flush=True)
            results.append({"prog": p["name"], "shape": shape, "ok": ok,
                            "err": err, "lse_err": lerr})
    dog.stop()
    print(f"checked in {time.time() - start:.0f} s", flush=True)
    if not a.no_bench:
        for p in progs:
            if not p.get("bench") or (a.only and a.only not in p["name"]):
                continue
            kern = Kernel(os.path.join(a.dir, p["ptx"]), p["kernel"], p["smem"],
                          p.get("tensor_maps", ()), p.get("tile_counter"))
            if "lists" in p:
                kern.with_lists(p["lists"])
            ns = [int(x) for x in a.ns.split(",")] if a.ns else (
                [4096] if a.quick else [2048, 4096, 8192, 16384])
            own = None
            if p["variant"] == "fp8":
                # attn's own bf16 kernel of the same head dim and mask.
                twin = p["name"].replace("e4m3", "bf16", 1)
                for bp in progs:
                    if bp["name"] == twin:
                        own = (bp, Kernel(os.path.join(a.dir, bp["ptx"]),
                                          bp["kernel"], bp["smem"],
                                          bp.get("tensor_maps", ()),
                                          bp.get("tile_counter")))
            for n in ns:
                print(f"timing {p['name']} N = {n}", flush=True)
                dog.step(f"timing {p['name']} N = {n}")
                if p["variant"] == "fp8":
                    fp8_table.append((p["name"], n, bench_fp8(p, kern, n,
                                                              own)))
                    continue
                r = bench(p, kern, n, p["dtype"], peers)
                table.append((p["name"], n, r))
        dog.stop()
    if a.out:
        json.dump({"seed": seed, "cases": results,
                   "bench": [{"prog": t[0], "n": t[1], **t[2]}
                             for t in table + fp8_table]},
                  open(a.out, "w"), indent=1)
    print_tables(results, failed, table, fp8_table, start)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
