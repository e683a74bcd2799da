#!/usr/bin/env python3
"""Correctness and speed of the attn runtime's kernels on a GPU.

Loads the runtime's C API (libattn_runtime_c.so) through ctypes and runs it
on torch tensors:

  (a) correctness: many problem shapes (B, H, N in {1, 17, 64, 128, 130, 1000,
      4096, 16384}, D in {64, 128}, causal or not, Nq != Nk, GQA/MQA, f16 and
      bf16, strided layouts, with and without LSE) against a float64
      reference computed on the GPU. Fresh random inputs each run (the seed
      is printed; --seed repeats it), outputs poisoned with NaN before the
      run. Pass: ||out - ref|| / ||ref|| < 1e-2, no NaN/inf, LSE matches
      (natural log; -inf exactly where the reference row sees no key).
  (b) timing: ours vs torch SDPA FlashAttention-2 and cuDNN, bf16,
      B*N = 16384, H*D = 2048, N in 512..16k, D in {64, 128}, causal or not;
      and FlashAttention-4 (flash_attn.cute) in the same process when its
      wheels are installed (--fa4-site DIR, or importable): the forward, the
      decode step, the KV cache (contiguous and paged) and packed batches.

Each job runs in a worker process that the parent restarts after a crash, a
sticky CUDA error or a hang, so one bad kernel does not hide the rest.
Exit status: 0 if every correctness case passed, 1 otherwise, 2 if the
runtime could not be used at all.

  python3 tools/scripts/gpu_check.py --lib build-gpu/lib/libattn_runtime_c.so \\
      --bundle bundle --out gpu_check.json
"""

import argparse
import csv
import ctypes
import json
import math
import os
import random
import subprocess
import sys
import time
import traceback

# --------------------------------------------------------------------------
# ctypes mirror of runtime/include/attn/runtime/attn.h (C API version 3)
# --------------------------------------------------------------------------

C_API_VERSION = 4
ATTN_DTYPE = {"f32": 0, "f16": 1, "bf16": 2, "e4m3": 3}


class Strides(ctypes.Structure):
    _fields_ = [("batch", ctypes.c_int64), ("head", ctypes.c_int64),
                ("seq", ctypes.c_int64), ("dim", ctypes.c_int64)]


class Problem(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int32), ("causal", ctypes.c_int32),
                ("with_lse", ctypes.c_int32), ("reserved", ctypes.c_int32),
                ("batch", ctypes.c_int64), ("heads_q", ctypes.c_int64),
                ("heads_kv", ctypes.c_int64), ("seq_q", ctypes.c_int64),
                ("seq_k", ctypes.c_int64), ("head_dim", ctypes.c_int64),
                ("head_dim_v", ctypes.c_int64), ("scale", ctypes.c_double),
                ("q", Strides), ("k", Strides), ("v", Strides),
                ("o", Strides)]


class Fp8(ctypes.Structure):
    _fields_ = [("q_descale", ctypes.c_float), ("k_descale", ctypes.c_float),
                ("v_descale", ctypes.c_float), ("reserved", ctypes.c_int32)]


class Window(ctypes.Structure):
    _fields_ = [("left", ctypes.c_int64), ("right", ctypes.c_int64)]


class Variant(ctypes.Structure):
    _fields_ = [("window_left", ctypes.c_int64),
                ("window_right", ctypes.c_int64), ("softcap", ctypes.c_float),
                ("reserved", ctypes.c_int32), ("alibi_slopes", ctypes.c_void_p),
                ("dropout_p", ctypes.c_float),
                ("dropout_offset", ctypes.c_uint32),
                ("dropout_seed", ctypes.c_uint64),
                ("bias", ctypes.c_void_p), ("bias_dtype", ctypes.c_int32),
                ("reserved2", ctypes.c_int32),
                ("bias_batch", ctypes.c_int64),
                ("bias_heads", ctypes.c_int64),
                ("bias_strides", Strides)]


class KVCache(ctypes.Structure):
    _fields_ = [("seq_lens", ctypes.c_void_p), ("block_table", ctypes.c_void_p),
                ("num_pages", ctypes.c_int64), ("page_size", ctypes.c_int64),
                ("max_pages", ctypes.c_int64), ("table_stride", ctypes.c_int64),
                ("check", ctypes.c_int32), ("reserved", ctypes.c_int32)]


class Varlen(ctypes.Structure):
    _fields_ = [("cu_seqlens_q", ctypes.c_void_p),
                ("cu_seqlens_k", ctypes.c_void_p),
                ("total_q", ctypes.c_int64), ("total_k", ctypes.c_int64),
                ("check", ctypes.c_int32), ("reserved", ctypes.c_int32)]


class KernelInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 128), ("chip", ctypes.c_char * 16),
                ("device_name", ctypes.c_char * 128)] + [
                    (n, ctypes.c_int32) for n in
                    ("device", "cc_major", "cc_minor", "head_dim",
                     "head_dim_v", "causal", "block_m", "block_n", "threads",
                     "smem")]


class Options(ctypes.Structure):
    _fields_ = [("bundle_dir", ctypes.c_char_p),
                ("driver_library", ctypes.c_char_p)]


class AttnError(Exception):
    def __init__(self, status, name, message):
        super().__init__(message)
        self.status = status
        self.status_name = name


class AttnRuntime:
    """The runtime's C API over ctypes."""

    def __init__(self, lib_path, bundle_dir=None):
        self.lib_path = lib_path
        self.lib = ctypes.CDLL(lib_path)
        L = self.lib
        vp, cp = ctypes.c_void_p, ctypes.c_char_p
        L.attn_c_api_version.restype = ctypes.c_int
        L.attn_status_name.restype = cp
        L.attn_status_name.argtypes = [ctypes.c_int]
        L.attn_last_error_message.restype = cp
        L.attn_runtime_create.argtypes = [ctypes.POINTER(Options),
                                          ctypes.POINTER(vp)]
        L.attn_runtime_destroy.argtypes = [vp]
        L.attn_runtime_bundle_dir.restype = cp
        L.attn_runtime_bundle_dir.argtypes = [vp]
        L.attn_forward.argtypes = [vp, ctypes.POINTER(Problem), vp, vp, vp,
                                   vp, vp, vp]
        L.attn_forward_kv_cache.argtypes = [
            vp, ctypes.POINTER(Problem), ctypes.POINTER(KVCache), vp, vp, vp,
            vp, vp, vp]
        L.attn_forward_varlen.argtypes = [
            vp, ctypes.POINTER(Problem), ctypes.POINTER(Varlen), vp, vp, vp,
            vp, vp, vp]
        L.attn_forward_window.argtypes = [
            vp, ctypes.POINTER(Problem), ctypes.POINTER(Window), vp, vp, vp,
            vp, vp, vp]
        L.attn_forward_variant.argtypes = [
            vp, ctypes.POINTER(Problem), ctypes.POINTER(Variant), vp, vp, vp,
            vp, vp, vp]
        L.attn_forward_fp8.argtypes = [
            vp, ctypes.POINTER(Problem), ctypes.POINTER(Fp8), vp, vp, vp,
            vp, vp, vp]
        L.attn_select_kernel.argtypes = [vp, ctypes.POINTER(Problem),
                                         ctypes.c_int,
                                         ctypes.POINTER(KernelInfo)]
        L.attn_last_kernel.argtypes = [vp, ctypes.POINTER(KernelInfo)]
        L.attn_malloc.argtypes = [vp, ctypes.c_int, ctypes.c_size_t,
                                  ctypes.POINTER(vp)]
        L.attn_free.argtypes = [vp, vp]
        for f in (L.attn_runtime_create, L.attn_forward,
                  L.attn_forward_kv_cache, L.attn_forward_varlen,
                  L.attn_forward_window, L.attn_forward_variant,
                  L.attn_forward_fp8,
                  L.attn_select_kernel, L.attn_last_kernel, L.attn_malloc,
                  L.attn_free):
            f.restype = ctypes.c_int
        if L.attn_c_api_version() != C_API_VERSION:
            raise RuntimeError(
                f"{lib_path}: C API version {L.attn_c_api_version()}, "
                f"this script knows {C_API_VERSION}")
        opts = Options(bundle_dir.encode() if bundle_dir else None, None)
        self.handle = vp()
        self._check(L.attn_runtime_create(ctypes.byref(opts),
                                          ctypes.byref(self.handle)))
        self.bundle_dir = L.attn_runtime_bundle_dir(self.handle).decode()

    def _check(self, status):
        if status != 0:
            raise AttnError(status,
                            self.lib.attn_status_name(status).decode(),
                            self.lib.attn_last_error_message().decode())

    @staticmethod
    def problem(q, k, v, o, causal, with_lse, scale=0.0):
        """An attn_problem for [B, H, N, D] tensors of any strides."""
        import torch
        names = {torch.float16: "f16", torch.bfloat16: "bf16",
                 torch.float32: "f32"}
        p = Problem()
        p.dtype = ATTN_DTYPE[names[q.dtype]]
        p.causal = int(causal)
        p.with_lse = int(with_lse)
        p.batch, p.heads_q, p.seq_q, p.head_dim = q.shape
        p.heads_kv, p.seq_k = k.shape[1], k.shape[2]
        p.head_dim_v = v.shape[3]
        p.scale = scale
        for name, t in (("q", q), ("k", k), ("v", v), ("o", o)):
            setattr(p, name, Strides(*t.stride()))
        return p

    def forward(self, q, k, v, o, lse=None, causal=False, scale=0.0,
                stream=None, window=None, softcap=None, alibi=None,
                dropout=None, bias=None):
        """bias: a [1|B, 1|Hq, Nq, Nk] tensor (f32 or q's dtype; a
        broadcast dim of size 1, keys contiguous)."""
        p = self.problem(q, k, v, o, causal, lse is not None, scale)
        if softcap is not None or alibi is not None or dropout is not None \
                or bias is not None:
            import torch
            rate, seed, offset = dropout or (0.0, 0, 0)
            var = Variant(*(window or (-1, -1)), softcap or 0.0, 0,
                          alibi.data_ptr() if alibi is not None else None,
                          rate, offset, seed)
            var.bias_batch = var.bias_heads = 1
            if bias is not None:
                names = {torch.float16: "f16", torch.bfloat16: "bf16",
                         torch.float32: "f32"}
                var.bias = bias.data_ptr()
                var.bias_dtype = ATTN_DTYPE[names[bias.dtype]]
                var.bias_batch, var.bias_heads = bias.shape[0], bias.shape[1]
                var.bias_strides = Strides(*bias.stride())
            self._check(self.lib.attn_forward_variant(
                self.handle, ctypes.byref(p), ctypes.byref(var), q.data_ptr(),
                k.data_ptr(), v.data_ptr(), o.data_ptr(),
                lse.data_ptr() if lse is not None else None, stream))
            return
        if window is not None:
            w = Window(*window)
            self._check(self.lib.attn_forward_window(
                self.handle, ctypes.byref(p), ctypes.byref(w), q.data_ptr(),
                k.data_ptr(), v.data_ptr(), o.data_ptr(),
                lse.data_ptr() if lse is not None else None, stream))
            return
        self.forward_ptrs(p, q.data_ptr(), k.data_ptr(), v.data_ptr(),
                          o.data_ptr(),
                          lse.data_ptr() if lse is not None else None, stream)

    def forward_fp8(self, q8, k8, vt, o, descale, lse=None, causal=False,
                    scale=0.0, stream=None):
        """fp8: q8, k8 [B, H, N, D] e4m3, vt V transposed [B, Hkv, Dv, Nk]
        (keys contiguous), o [B, Hq, Nq, Dv] bf16, descale (q, k, v)."""
        p = Problem()
        p.dtype = ATTN_DTYPE["e4m3"]
        p.causal, p.with_lse = int(causal), int(lse is not None)
        p.batch, p.heads_q, p.seq_q, p.head_dim = q8.shape
        p.heads_kv, p.seq_k = k8.shape[1], k8.shape[2]
        p.head_dim_v = vt.shape[2]
        p.scale = scale
        p.q, p.k, p.o = (Strides(*t.stride()) for t in (q8, k8, o))
        # V's element (b, h, key j, column c) at b·batch + h·head + j·seq +
        # c·dim: seq is the keys' stride (1), dim the rows'.
        sb, sh, sc, sj = vt.stride()
        p.v = Strides(sb, sh, sj, sc)
        f = Fp8(*descale, 0)
        self._check(self.lib.attn_forward_fp8(
            self.handle, ctypes.byref(p), ctypes.byref(f), q8.data_ptr(),
            k8.data_ptr(), vt.data_ptr(), o.data_ptr(),
            lse.data_ptr() if lse is not None else None, stream))

    def forward_ptrs(self, p, q, k, v, o, lse, stream):
        self._check(self.lib.attn_forward(self.handle, ctypes.byref(p), q, k,
                                          v, o, lse, stream))

    def forward_kv(self, q, k, v, o, lens, table=None, lse=None,
                   causal=False, check=True, stream=None):
        """Over a KV cache: lens [B] int32; table [B, max_pages] int32 with
        k, v pages [P, Hkv, page, D] (any strides), else k, v [B, Hkv, Nk,
        D]."""
        p = self.problem(q, k, v, o, causal, lse is not None)
        c = KVCache()
        c.seq_lens = lens.data_ptr()
        c.check = int(check)
        if table is not None:
            c.block_table = table.data_ptr()
            c.num_pages, c.page_size = k.shape[0], k.shape[2]
            c.max_pages, c.table_stride = table.shape[1], table.stride(0)
            p.seq_k = c.max_pages * c.page_size
        self._check(self.lib.attn_forward_kv_cache(
            self.handle, ctypes.byref(p), ctypes.byref(c), q.data_ptr(),
            k.data_ptr(), v.data_ptr(), o.data_ptr(),
            lse.data_ptr() if lse is not None else None, stream))

    def forward_varlen(self, q, k, v, o, cu_q, cu_k, max_q, max_k, lse=None,
                       causal=False, check=True, stream=None):
        """A packed batch: q, o [total_q, Hq, D] and k, v [total_k, Hkv, D]
        (any strides), cu_q, cu_k [B + 1] int32 offsets."""
        names = {"q": q, "k": k, "v": v, "o": o}
        views = {n: t.transpose(0, 1).unsqueeze(0) for n, t in names.items()}
        p = self.problem(views["q"], views["k"], views["v"], views["o"],
                         causal, lse is not None)
        p.batch = cu_q.numel() - 1
        p.seq_q, p.seq_k = max_q, max_k
        c = Varlen()
        c.cu_seqlens_q, c.cu_seqlens_k = cu_q.data_ptr(), cu_k.data_ptr()
        c.total_q, c.total_k = q.shape[0], k.shape[0]
        c.check = int(check)
        self._check(self.lib.attn_forward_varlen(
            self.handle, ctypes.byref(p), ctypes.byref(c), q.data_ptr(),
            k.data_ptr(), v.data_ptr(), o.data_ptr(),
            lse.data_ptr() if lse is not None else None, stream))

    def malloc(self, nbytes, device=0):
        ptr = ctypes.c_void_p()
        self._check(self.lib.attn_malloc(self.handle, device, nbytes,
                                         ctypes.byref(ptr)))
        return ptr.value

    def free(self, ptr):
        self._check(self.lib.attn_free(self.handle, ptr))

    def select(self, q, k, v, o, causal, with_lse):
        p = self.problem(q, k, v, o, causal, with_lse)
        info = KernelInfo()
        self._check(self.lib.attn_select_kernel(self.handle, ctypes.byref(p),
                                                q.device.index or 0,
                                                ctypes.byref(info)))
        return f"{info.name.decode()} ({info.chip.decode()})"

    def last_kernel(self):
        info = KernelInfo()
        self._check(self.lib.attn_last_kernel(self.handle,
                                              ctypes.byref(info)))
        return f"{info.name.decode()} ({info.chip.decode()})"


# --------------------------------------------------------------------------
# Jobs
# --------------------------------------------------------------------------

SIZES = (1, 17, 64, 128, 130, 1000, 4096, 16384)


def correctness_cases(quick):
    """Dicts: dtype, D, Dv, causal, B, Hq, Hkv, Nq, Nk, layout, lse."""
    cases = []

    def add(dtype="bf16", D=128, causal=False, B=1, Hq=1, Hkv=None, Nq=1,
            Nk=None, layout="bhnd", lse=True, scale=None, Dv=None,
            window=None, softcap=None, alibi=False, dropout=False,
            bias=None, jit=False):
        cases.append(dict(kind="correctness", dtype=dtype, D=D, jit=jit,
                          Dv=D if Dv is None else Dv,
                          causal=causal, B=B, Hq=Hq,
                          Hkv=Hq if Hkv is None else Hkv, Nq=Nq,
                          Nk=Nq if Nk is None else Nk, layout=layout,
                          lse=lse, scale=scale, window=window,
                          softcap=softcap, alibi=alibi, dropout=dropout,
                          bias=bias))

    sizes = (1, 17, 130, 1000, 4096) if quick else SIZES
    # Every sequence length, both dtypes, head dims and masks.
    for dtype in ("bf16", "f16"):
        for D in (64, 128):
            for causal in (False, True):
                for N in sizes:
                    B, H = (2, 3) if N <= 1000 else (1, 2) if N <= 4096 \
                        else (1, 1)
                    add(dtype, D, causal, B, H, Nq=N)
    # Batch and head counts from the same set.
    for B, H, N in ((17, 1, 64), (1, 17, 130), (64, 2, 128), (1, 128, 64),
                    (128, 1, 17), (2, 64, 130), (17, 17, 17)):
        for D in (64, 128):
            for causal in (False, True):
                add("bf16", D, causal, B, H, Nq=N)
    # Nq != Nk (causal is bottom-right aligned; Nq > Nk leaves rows that
    # see no key: O = 0, LSE = -inf).
    for Nq, Nk in ((1, 1000), (17, 130), (130, 17), (128, 4096), (1000, 64),
                   (4096, 1000), (64, 16384), (1, 1), (16384, 128)):
        for D in (64, 128):
            for causal in (False, True):
                for dtype in (("bf16",) if quick else ("bf16", "f16")):
                    add(dtype, D, causal, 1, 2, Nq=Nq, Nk=Nk)
    # GQA and MQA.
    for Hkv in (2, 1):
        for causal in (False, True):
            for D in (64, 128):
                add("bf16", D, causal, 2, 8, Hkv, Nq=1000)
                add("f16", D, causal, 1, 8, Hkv, Nq=130, Nk=1000)
    # Strided storage ([B, N, H, D], what a fused QKV projection gives) and
    # no LSE.
    for causal in (False, True):
        for D in (64, 128):
            add("bf16", D, causal, 2, 4, 2, Nq=130, Nk=1000, layout="bnhd")
            add("bf16", D, causal, 2, 4, Nq=1000, lse=False)
    # Head dims beyond 64 and 128 (padded rows at 96, one m-tile per warp at
    # 256).
    for D in (96, 256):
        for causal in (False, True):
            for N in ((17, 1000) if quick else (1, 17, 130, 1000, 4096)):
                add("bf16", D, causal, 2, 3, Nq=N)
            add("f16", D, causal, 1, 8, 2, Nq=130, Nk=1000)
            add("bf16", D, causal, 1, 2, Nq=1000, Nk=64)
    # Values narrower than keys (D = 192, Dv = 128): the bundle's kernel
    # compiled from examples/attention-d192-v128.mlir (causal, with LSE).
    for N in ((130, 1000) if quick else (1, 17, 130, 1000, 4096)):
        add("bf16", 192, True, 2, 3, Nq=N, Dv=128)
    add("bf16", 192, True, 1, 8, 2, Nq=130, Nk=1000, Dv=128)
    add("bf16", 192, True, 2, 4, 2, Nq=1000, Nk=130, layout="bnhd", Dv=128)
    # A sliding window through attn_forward_window: the bundle's kernel of
    # examples/attention-sliding-window.mlir (causal, 4096 keys back, D =
    # 128, bf16, LSE), windows that bind (N > 4096) and do not, Nq != Nk.
    for N in ((4500,) if quick else (130, 4096, 4500, 6000)):
        add("bf16", 128, True, 1, 4, 1, Nq=N, window=(4096, -1))
    add("bf16", 128, True, 1, 2, Nq=300, Nk=5000, layout="bnhd",
        window=(4096, -1))
    # Gemma 2's soft-cap (50) through attn_forward_variant: the bundle's
    # kernel of examples/attention-softcap.mlir (causal, D = 256, bf16,
    # LSE); scores up to 50·tanh(1) need a large scale to reach the cap.
    for N in ((130, 1000) if quick else (1, 130, 1000, 4096)):
        add("bf16", 256, True, 1, 4, 2, Nq=N, softcap=50.0)
    add("bf16", 256, True, 2, 4, 1, Nq=300, Nk=2000, layout="bnhd",
        softcap=50.0)
    add("bf16", 256, True, 1, 2, Nq=1000, scale=3.0, softcap=50.0)
    # ALiBi through attn_forward_variant (alibi_slopes): the bundle's kernel
    # of examples/attention-alibi.mlir (causal, D = 128, bf16, LSE), fresh
    # slopes, Nq != Nk both ways, GQA, [B, N, H, D] storage.
    for N in ((130, 1000) if quick else (1, 17, 130, 1000, 4096)):
        add("bf16", 128, True, 2, 4, 2, Nq=N, alibi=True)
    add("bf16", 128, True, 1, 8, 2, Nq=300, Nk=2000, layout="bnhd",
        alibi=True)
    add("bf16", 128, True, 1, 2, Nq=1000, Nk=130, alibi=True)
    # Dropout through attn_forward_variant (dropout_p, seed, offset: fresh
    # each case): the bundle's kernel of examples/attention-dropout.mlir
    # (not causal, D = 128, bf16, LSE), Nq != Nk both ways, GQA,
    # [B, N, H, D] storage.
    for N in ((130, 1000) if quick else (1, 17, 130, 1000, 4096)):
        add("bf16", 128, False, 2, 4, 2, Nq=N, dropout=True)
    add("bf16", 128, False, 1, 8, 2, Nq=300, Nk=2000, layout="bnhd",
        dropout=True)
    add("bf16", 128, False, 1, 2, Nq=1000, Nk=130, dropout=True)
    # A score bias through attn_forward_variant (bias, bias_dtype, its dims
    # and strides): the bundle's kernel of examples/attention-bias.mlir (not
    # causal, D = 128, bf16, a bf16 bias, LSE), fresh values with keys
    # hidden by -inf, each broadcast ("bh": [B, Hq, ..], "h": [1, Hq, ..],
    # "b": [B, 1, ..], "1": [1, 1, ..]) over rows padded with NaN, Nq != Nk
    # both ways, GQA, [B, N, H, D] storage.
    for N in ((130, 1000) if quick else (1, 17, 130, 1000, 4096)):
        add("bf16", 128, False, 2, 4, 2, Nq=N, bias="bh")
    add("bf16", 128, False, 2, 8, 2, Nq=300, Nk=2000, layout="bnhd",
        bias="h")
    add("bf16", 128, False, 2, 2, Nq=1000, Nk=130, bias="b")
    add("bf16", 128, False, 1, 4, 1, Nq=77, Nk=4097, bias="1")
    # D = 256 (64-key blocks, the window staged; Nk = 130: its element-wise
    # twin): the shipped bundle leaves it to libattn_jit, so without one
    # (ATTN_ERROR_NOT_IN_BUNDLE) these count as unsupported, not failed.
    add("bf16", 256, False, 2, 4, 2, Nq=1000, bias="bh", jit=True)
    add("bf16", 256, False, 1, 2, 1, Nq=300, Nk=130, bias="h", jit=True)
    # fp8 (e4m3, attn_forward_fp8; the bundle's sm_90a kernels at D = 64,
    # 128 and 256): every length, Nq != Nk (key counts that are not whole
    # 16-byte rows of the transposed V), GQA, [B, N, H, D] storage, no LSE.
    for D in (64, 128, 256):
        for causal in (False, True):
            for N in ((17, 1000) if quick else (1, 17, 130, 1000, 4096)):
                add("e4m3", D, causal, 2, 3, Nq=N)
            add("e4m3", D, causal, 1, 8, 2, Nq=130, Nk=1000, layout="bnhd")
            add("e4m3", D, causal, 1, 2, Nq=1000, Nk=17)
            add("e4m3", D, causal, 2, 4, 1, Nq=300, Nk=2001, lse=False)
    # Scales far from 1/sqrt(D): the exponent must not overflow f32 even
    # where scale·score does (1e30), nor lose the softmax to underflow.
    for scale in (1e-3, 3.0, 1e30):
        for causal in (False, True):
            for D in (64, 128):
                add("bf16", D, causal, 1, 2, Nq=1000, scale=scale)
    return cases


def decode_cases(quick):
    """Decoding shapes (few query rows, long keys: the runtime splits the
    keys over thread blocks and merges the partials), GQA packed as in
    serving, [B, N, H, D] storage."""
    cases = []
    for Nq in ((1, 16) if quick else (1, 4, 16)):
        for Nk in ((1000, 16384) if quick else (1, 1000, 4096, 16384, 65537)):
            for causal in (False, True):
                for D in (64, 128, 256):
                    cases.append(dict(kind="correctness", dtype="bf16", D=D,
                                      causal=causal, B=2, Hq=32, Hkv=8,
                                      Nq=Nq, Nk=Nk, layout="bnhd",
                                      lse=Nk != 1000, scale=None))
    for dtype in ("f16", "bf16"):
        for Hq, Hkv in ((8, 1), (4, 4)):
            cases.append(dict(kind="correctness", dtype=dtype, D=128,
                              causal=True, B=3, Hq=Hq, Hkv=Hkv, Nq=3,
                              Nk=8191, layout="bhnd", lse=True, scale=None))
    # A few query rows under GQA (speculated tokens): the kernels pack the
    # G query heads of a key/value head into their rows, (position, head)
    # pairs of G = 2-8 heads (3 and 7: not powers of two), up to 128 rows.
    for Hq, Hkv, Nq, D in ((8, 2, 2, 64), (12, 4, 5, 128), (28, 4, 9, 128),
                           (64, 8, 16, 128), (16, 2, 7, 256)):
        for causal in (False, True):
            cases.append(dict(kind="correctness", dtype="bf16", D=D,
                              causal=causal, B=2, Hq=Hq, Hkv=Hkv, Nq=Nq,
                              Nk=5001, layout="bnhd", lse=True, scale=None))
    return cases


def kvcache_cases(quick):
    """Decoding from a KV cache: ragged per-sequence lengths (0, 1, a
    partial page, full), contiguous or paged with shuffled pages in vLLM's
    [pages, page, Hkv, D] storage, GQA, Nq 1 and 4, causal or not; the
    timed rows (uniform lengths) beside the same step on a dense cache."""
    cases = []
    for page in (0, 16, 64, 128, 256):
        for Nq, causal in ((1, False), (4, True)):
            for D in (64, 128):
                cases.append(dict(kind="kvcache", dtype="bf16", D=D, B=5,
                                  Hq=32, Hkv=8, Nq=Nq, cap=4096, page=page,
                                  causal=causal, time=False))
    cases.append(dict(kind="kvcache", dtype="f16", D=128, B=3, Hq=8, Hkv=8,
                      Nq=16, cap=1024, page=64,
                      causal=True, time=False))
    # Speculated tokens under GQA (the query heads packed into rows).
    for dtype, D, Hq, Hkv, Nq, page in (("f16", 128, 32, 8, 16, 64),
                                        ("bf16", 64, 28, 4, 9, 128),
                                        ("bf16", 128, 12, 4, 5, 0)):
        cases.append(dict(kind="kvcache", dtype=dtype, D=D, B=3, Hq=Hq,
                          Hkv=Hkv, Nq=Nq, cap=4096, page=page, causal=True,
                          time=False))
    if not quick:
        for B, cap in ((1, 16384), (8, 4096), (8, 65536), (32, 16384)):
            for page in (0, 16, 128):
                cases.append(dict(kind="kvcache", dtype="bf16", D=128, B=B,
                                  Hq=32, Hkv=8, Nq=1, cap=cap, page=page,
                                  causal=False, time=True))
    return cases


def varlen_cases(quick):
    """Packed batches (varlen prefill): ragged sequences in [total, H, D]
    storage, GQA, causal or not, checked per sequence against float64; the
    timed rows beside the same tokens as a dense batch of equal lengths."""
    cases = []
    for D in (64, 128):
        for causal in (False, True):
            cases.append(dict(kind="varlen", dtype="bf16", D=D, Hq=32, Hkv=8,
                              lens_q=[1, 77, 0, 1000, 9, 513],
                              lens_k=[5, 77, 3, 1000, 0, 700],
                              causal=causal, time=False))
    cases.append(dict(kind="varlen", dtype="f16", D=128, Hq=16, Hkv=16,
                      lens_q=[300, 64], lens_k=[300, 64], causal=True,
                      time=False))
    if not quick:
        for n, causal in ((2048, True), (4096, True), (2048, False)):
            cases.append(dict(kind="varlen", dtype="bf16", D=128, Hq=32,
                              Hkv=8, lens_q=[n] * (16384 // n),
                              lens_k=[n] * (16384 // n), causal=causal,
                              time=True))
    return cases


def large_cases(quick):
    """Tensors of 2^31 elements: a causal [1, 32, 524288, 128] attention
    with GQA 32:8 (Q and O span 2^31 elements: 64-bit addressing), checked
    on sampled rows against float64 and timed once."""
    return [dict(kind="large", dtype="bf16", D=128, B=1, Hq=32, Hkv=8,
                 N=1 << 19, causal=True, rows=64 if quick else 256)]


# Decode points of the serving table (Hq 32, Hkv 8, D 128, one query row).
DECODE_POINTS = ((1, 4096), (1, 16384), (1, 65536), (8, 4096), (8, 65536),
                 (32, 16384))


# Serving prefill (GQA 32:8, D 128, causal, bottom-right aligned): a chunk
# of 512 queries against 8k keys (chunked prefill), and a Llama-8B prompt
# of 4k tokens.
PREFILL_POINTS = ((512, 8192), (4096, 4096))


# Speculative decoding (GQA 32:8, D 128, causal, bottom-right): a few query
# rows a sequence, (B, Nq, Nk); the runtime packs the query heads of a group
# into the rows of one program.
SPEC_POINTS = ((8, 4, 65536), (1, 8, 65536), (4, 8, 16384), (16, 16, 8192),
               (32, 2, 4096))


def decode_configs(quick, head_dims):
    points = DECODE_POINTS[1:3] if quick else DECODE_POINTS
    out = [dict(kind="decode", dtype="bf16", D=D, B=B, Nq=1, Nk=Nk, Hq=32,
                Hkv=8, causal=False) for D in head_dims for B, Nk in points]
    out += [dict(kind="decode", dtype="bf16", D=128, B=1, Nq=Nq, Nk=Nk,
                 Hq=32, Hkv=8, causal=True) for Nq, Nk in PREFILL_POINTS]
    out += [dict(kind="decode", dtype="bf16", D=128, B=B, Nq=Nq, Nk=Nk,
                 Hq=32, Hkv=8, causal=True)
            for B, Nq, Nk in (SPEC_POINTS[:2] if quick else SPEC_POINTS)]
    return out


def api_checks():
    """Errors through the C API: a clear message, nothing written."""
    return [dict(kind="api", check=c) for c in
            ("host_tensor", "head_dim_80", "output_aliases_input",
             "misaligned", "too_small", "host_overhead", "graph_capture")]


def fp8_timing_configs(quick, ns=None):
    """fp8 against attn's own bf16 at the benchmark shape, D 64, 128 and
    256."""
    return [dict(kind="fp8_timing", dtype="e4m3", D=D, causal=causal, N=N,
                 B=16384 // N, H=2048 // D)
            for D in (64, 128, 256) for causal in (False, True)
            for N in (ns or ((2048, 8192) if quick else
                             (2048, 4096, 8192, 16384)))]


def bias_timing_configs(quick, ns=None, bias_dtypes=None, ds=None):
    """A score bias [1, H, N, N] (T5's per-head positions), bf16 unless
    `bias_dtypes` says (bf16, f32), at D = 128 unless `ds` says (H·D =
    2048), through the bundle's kernel beside SDPA's cuDNN and
    memory-efficient kernels with the same bias as attn_mask (FA2 and FA4
    take none)."""
    return [dict(kind="bias_timing", dtype="bf16", D=D, causal=False, N=N,
                 B=max(1, 8192 // N), H=2048 // D, bias_dtype=bt)
            for D in (ds or (128,))
            for bt in (bias_dtypes or ("bf16",))
            for N in (ns or ((1024, 4096) if quick else (1024, 2048, 4096)))]


def timing_configs(quick, ns=None, ds=None, dtypes=None, lse=False):
    out = []
    for dtype in (dtypes or ("bf16",)):
        for D in (ds or (64, 128, 256)):
            for causal in (False, True):
                for N in (ns or ((1024, 4096) if quick else
                                 (512, 1024, 2048, 4096, 8192, 16384))):
                    out.append(dict(kind="timing", dtype=dtype, D=D,
                                    causal=causal, N=N, B=16384 // N,
                                    H=2048 // D, lse=lse))
    return out


def describe(job):
    if job["kind"] == "bias_timing":
        return (f"timing bf16 D={job['D']} full N={job['N']} B={job['B']} "
                f"H={job['H']} with a [1, H, N, N] {job['bias_dtype']} bias")
    if job["kind"] == "fp8_timing":
        return (f"timing e4m3 D={job['D']} "
                f"{'causal' if job['causal'] else 'full'} N={job['N']} "
                f"B={job['B']} H={job['H']}")
    if job["kind"] == "api":
        return f"api {job['check']}"
    if job["kind"] == "large":
        return (f"large {job['dtype']} D={job['D']} B={job['B']} "
                f"Hq={job['Hq']} Hkv={job['Hkv']} N={job['N']} "
                f"{'causal' if job['causal'] else 'full'} bnhd, "
                f"{job['rows']} sampled rows")
    if job["kind"] == "varlen":
        return (f"varlen {job['dtype']} D={job['D']} Hq={job['Hq']} "
                f"Hkv={job['Hkv']} {len(job['lens_q'])} sequences, "
                f"{sum(job['lens_q'])} rows"
                f"{' causal' if job['causal'] else ''}"
                f"{' timed' if job['time'] else ''}")
    if job["kind"] == "kvcache":
        return (f"kv-cache {'page ' + str(job['page']) if job['page'] else 'contiguous'} "
                f"{job['dtype']} D={job['D']} B={job['B']} Nq={job['Nq']} "
                f"cap={job['cap']} Hq={job['Hq']} Hkv={job['Hkv']}"
                f"{' causal' if job['causal'] else ''}"
                f"{' timed' if job['time'] else ''}")
    if job["kind"] == "decode":
        return (f"{'decode' if job['Nq'] == 1 else 'prefill'} "
                f"{job['dtype']} D={job['D']} B={job['B']} Nq={job['Nq']} "
                f"Nk={job['Nk']} Hq={job['Hq']} Hkv={job['Hkv']}"
                f"{' causal' if job['causal'] else ''}")
    if job["kind"] == "timing":
        return (f"timing {job['dtype']} D={job['D']} "
                f"{'causal' if job['causal'] else 'full'} N={job['N']} "
                f"B={job['B']} H={job['H']}")
    return (f"{job['dtype']} D={job['D']} "
            f"{'causal' if job['causal'] else 'full'} B={job['B']} "
            f"Hq={job['Hq']} Hkv={job['Hkv']} Nq={job['Nq']} Nk={job['Nk']}"
            f"{' ' + job['layout'] if job['layout'] != 'bhnd' else ''}"
            f"{'' if job['lse'] else ' no-lse'}"
            f"{' scale=%g' % job['scale'] if job.get('scale') else ''}"
            f"{' window=%d,%d' % job['window'] if job.get('window') else ''}"
            f"{' softcap=%g' % job['softcap'] if job.get('softcap') else ''}"
            f"{' alibi' if job.get('alibi') else ''}"
            f"{' dropout' if job.get('dropout') else ''}"
            f"{' bias=' + job['bias'] if job.get('bias') else ''}")


# --------------------------------------------------------------------------
# Worker side (imports torch)
# --------------------------------------------------------------------------

def near_tied_rows(q, k, causal):
    """[B, Hq, Nq] bools: rows whose best and second-best visible keys'
    exact scores q·k differ by at most a bound on f32 accumulation's error
    (2^-16 · the row's largest Σ_d |q_d·k_d|, far above D · 2^-24 of it),
    bottom-right causal."""
    import torch
    B, Hq, Nq, D = q.shape
    Hkv, Nk = k.shape[1], k.shape[2]
    g = Hq // Hkv
    out = torch.zeros(B, Hq, Nq, dtype=torch.bool, device=q.device)
    keys = torch.arange(Nk, device=q.device)
    for b in range(B):
        kb = k[b].double().repeat_interleave(g, dim=0)
        qb = q[b].double()
        s = torch.matmul(qb, kb.transpose(1, 2))
        mag = torch.matmul(qb.abs(), kb.abs().transpose(1, 2))
        if causal:
            rows = torch.arange(Nq, device=q.device)
            hidden = keys[None, :] > rows[:, None] + (Nk - Nq)
            s.masked_fill_(hidden[None], float("-inf"))
            mag.masked_fill_(hidden[None], 0.0)
        if Nk < 2:
            continue
        top = s.topk(2, dim=-1).values
        bound = mag.amax(dim=-1) * 2.0 ** -16
        out[b] = (top[..., 0] - top[..., 1]) <= bound
    return out


PHILOX_M = (0xD2511F53, 0xCD9E8D57)
PHILOX_W = (0x9E3779B9, 0xBB67AE85)
U32 = 0xFFFFFFFF


def philox4x32_10(c, k0, k1):
    """Philox4x32-10 (runtime/include/attn/runtime/Philox.h) on int64
    tensors (or ints) holding u32 values; the 64-bit products are formed
    from 16-bit halves so that nothing overflows int64."""
    def mulhilo(m, x):
        a = m * (x & 0xFFFF)            # < 2^48
        b = m * (x >> 16)               # < 2^48
        low = a + ((b & 0xFFFF) << 16)  # < 2^49
        return ((b >> 16) + (low >> 32)) & U32, low & U32
    c = list(c)
    for _ in range(10):
        hi0, lo0 = mulhilo(PHILOX_M[0], c[0])
        hi1, lo1 = mulhilo(PHILOX_M[1], c[2])
        c = [hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0]
        k0, k1 = (k0 + PHILOX_W[0]) & U32, (k1 + PHILOX_W[1]) & U32
    return c


def philox_self_test():
    # Random123's known answer (its kat_vectors, the pi digits).
    got = philox4x32_10([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344],
                        0xA4093822, 0x299F31D0)
    want = [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]
    assert list(got) == want, "Philox self-test failed"


def dropout_rows(b, hq, i, j, p, seed, offset):
    """attn.attention dropout(p, seed, offset)'s factor for batch b, every
    query head, query positions i and key positions j (int64 vectors):
    float64 [Hq, len(i), len(j)], 1/(1 − p) (f32) where the score's 16-bit
    number is >= T = u32(min(p·2^16, 65535)), else 0. The op's description:
    counter (4·(j >> 4) + ((j >> 1) & 3), 8·(i >> 4) + (i & 7), b·Hq + h,
    offset), word 2·((i >> 3) & 1) + (j & 1), its upper half where
    (j >> 3) & 1, else the word << 16."""
    import torch
    i, j = i[:, None], j[None, :]
    pf = torch.tensor(p, dtype=torch.float32)
    thr = int(min(float(pf * 65536.0), 65535.0)) << 16
    scale = float(torch.tensor(1.0, dtype=torch.float32) / (1.0 - pf))
    shape = (i.shape[0], j.shape[1])
    c0 = (4 * (j >> 4) + ((j >> 1) & 3)).expand(shape)
    c1 = (8 * (i >> 4) + (i & 7)).expand(shape)
    word = (2 * ((i >> 3) & 1) + (j & 1)).expand(shape)
    upper = (((j >> 3) & 1) == 1).expand(shape)
    out = torch.empty((hq,) + shape, device=i.device, dtype=torch.float64)
    for h in range(hq):
        s = torch.full_like(c0, b * hq + h)
        o = torch.full_like(c0, offset)
        w = philox4x32_10([c0, c1, s, o], seed & U32, seed >> 32)
        pick = torch.where(word == 0, w[0], torch.where(
            word == 1, w[1], torch.where(word == 2, w[2], w[3])))
        value = torch.where(upper, pick, (pick << 16) & U32)
        out[h] = (value >= thr).double() * scale
    return out


def reference(q, k, v, causal, scale, window=None, softcap=None, alibi=None,
              dropout=None, bias=None):
    """float64 attention on the GPU; bottom-right causal; a sliding window
    (left, right; -1 for no bound) on the same alignment; a soft-cap C
    (scaled scores S -> C·tanh(S / C)) before the mask; a bias
    ([1|B, 1|Hq, Nq, Nk], added after the soft-cap); ALiBi (slopes [Hq]:
    S − slope[h]·|i + Nk − Nq − j|); dropout ((p, seed, offset): P times
    dropout_rows' factor before P·V, the LSE undropped); empty rows give
    O = 0 and LSE = -inf. Query rows are done in chunks to bound memory."""
    import torch
    B, Hq, Nq, D = q.shape
    Hkv, Nk, Dv = k.shape[1], k.shape[2], v.shape[3]
    g = Hq // Hkv
    o = torch.empty(B, Hq, Nq, Dv, dtype=torch.float64, device=q.device)
    lse = torch.empty(B, Hq, Nq, dtype=torch.float64, device=q.device)
    budget = 1 << 29  # bytes of float64 scores per chunk
    chunk = max(1, min(Nq, budget // (8 * Hq * Nk)))
    keys = torch.arange(Nk, device=q.device)
    for b in range(B):
        kb = k[b].double().repeat_interleave(g, dim=0)  # [Hq, Nk, D]
        vb = v[b].double().repeat_interleave(g, dim=0)
        for i0 in range(0, Nq, chunk):
            i1 = min(Nq, i0 + chunk)
            s = torch.matmul(q[b, :, i0:i1].double(), kb.transpose(1, 2))
            s *= scale
            if softcap:
                s = softcap * torch.tanh(s / softcap)
            if bias is not None:
                s += bias[b if bias.shape[0] > 1 else 0, :, i0:i1].double()
            if alibi is not None:
                rows = torch.arange(i0, i1, device=q.device)
                dist = (rows[:, None] + (Nk - Nq) - keys[None, :]).abs()
                s -= alibi.double()[:, None, None] * dist[None].double()
            left, right = window if window else (-1, -1)
            if causal:
                right = 0
            if left >= 0 or right >= 0:
                rows = torch.arange(i0, i1, device=q.device)
                diag = rows[:, None] + (Nk - Nq)
                visible = torch.ones(i1 - i0, Nk, dtype=torch.bool,
                                     device=q.device)
                if right >= 0:
                    visible &= keys[None, :] <= diag + right
                if left >= 0:
                    visible &= keys[None, :] >= diag - left
                s.masked_fill_(~visible[None], float("-inf"))
            m = s.amax(dim=-1, keepdim=True)
            m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
            p = torch.exp(s - m)
            l = p.sum(dim=-1, keepdim=True)
            if dropout is not None:
                p = p * dropout_rows(b, Hq, torch.arange(i0, i1,
                                                         device=q.device),
                                     keys, *dropout)
            ob = torch.matmul(p, vb) / l
            o[b, :, i0:i1] = torch.where(l > 0, ob, torch.zeros_like(ob))
            lse[b, :, i0:i1] = (torch.log(l) + m).squeeze(-1)
            del s, p, ob
    return o, lse


def make_tensor(shape, dtype, layout, gen, fill=None):
    """A [B, H, N, D] tensor stored as [B, H, N, D] or [B, N, H, D]."""
    import torch
    B, H, N, D = shape
    store = (B, H, N, D) if layout == "bhnd" else (B, N, H, D)
    if fill is None:
        t = torch.randn(store, dtype=torch.float32, device="cuda",
                        generator=gen).to(dtype)
    else:
        t = torch.full(store, fill, dtype=dtype, device="cuda")
    return t if layout == "bhnd" else t.transpose(1, 2)


def quantize_fp8(x):
    """x as e4m3 with a per-tensor descale factor (amax / 448, FA3's and
    Transformer Engine's per-tensor recipe), the factor rounded to the f32
    the kernel takes: (x8, descale, the dequantised float64 values the
    reference computes with)."""
    import torch
    descale = float(torch.tensor(max(x.abs().max().item(), 1e-12) / 448.0,
                                 dtype=torch.float32))
    x8 = (x / descale).to(torch.float8_e4m3fn)
    return x8, descale, x8.double() * descale


def fp8_inputs(b, hq, hkv, nq, nk, d, gen, layout="bnhd"):
    """fp8 Q and K ([B, H, N, D] views of `layout` storage) of different
    spreads, V transposed as the kernel takes it ([B, Hkv, D, Nk] over rows
    padded to a multiple of 16 keys: a tensor map's row stride is a multiple
    of 16 bytes; the padding NaN codes, which a kernel reading past Nk would
    carry into O), a NaN-poisoned bf16 O, the descale factors and the
    dequantised float64 Q, K, V ([B, H, N, D])."""
    import torch

    def raw(h, n, sigma):
        return make_tensor((b, h, n, d), torch.float32, layout, gen) * sigma
    q8, qd, qr = quantize_fp8(raw(hq, nq, 0.5))
    k8, kd, kr = quantize_fp8(raw(hkv, nk, 2.0))
    v8, vd, vr = quantize_fp8(raw(hkv, nk, 1.0))
    pad = (nk + 15) // 16 * 16
    vt = torch.full((b, hkv, d, pad), 0x7F, device="cuda",
                    dtype=torch.uint8).view(torch.float8_e4m3fn)
    vt[..., :nk] = v8.transpose(2, 3)
    vt = vt[..., :nk]
    o = make_tensor((b, hq, nq, d), torch.bfloat16, layout, gen,
                    fill=float("nan"))
    return (q8, k8, vt, o, qd, kd, vd), (qr, kr, vr)


def fp8_emulation(q, k, v, causal, scale):
    """FlashAttention-3's fp8 arithmetic in float64: P = exp(S − rowmax)
    rounded to e4m3 for P·V, the row sum of the unrounded P. Its error
    against the exact reference is the error fp8 attention is expected to
    have (the kernel's running maxima round differently, alike in size)."""
    import torch
    g = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(g, dim=1)
    v = v.repeat_interleave(g, dim=1)
    s = torch.matmul(q, k.transpose(-1, -2)) * scale
    nq, nk = q.shape[2], k.shape[2]
    if causal:
        i = torch.arange(nq, device=q.device)[:, None]
        j = torch.arange(nk, device=q.device)[None, :]
        s = s.masked_fill(j > i + (nk - nq), float("-inf"))
    m = s.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isinf(m), 0, m)
    p = torch.exp(s - m)
    p8 = p.float().to(torch.float8_e4m3fn).double()
    l = p.sum(dim=-1, keepdim=True)
    return torch.matmul(p8, v) / torch.where(l == 0, 1, l)


def check_fp8(o, lse, ref_o, ref_lse, emul):
    """An fp8 result against float64 attention of the dequantised inputs:
    O within max(2x the fp8 emulation's error + 2e-3, 1e-2) and below 6e-2
    (the runtime's e4m3 tolerance), no NaN, LSE within 5e-3 absolute (and
    -inf exactly where the reference's is): Hopper's fp8 tensor cores
    accumulate with fewer bits than f32 (about 14 kept, DeepSeek-V3
    §3.3.2), so the scores are not exact (seen: LSE off by up to 1.7e-3 at
    D = 256, 9e-4 at D = 128, H100). Returns (result dict, problems)."""
    import torch
    norm = ref_o.norm().clamp_min(1e-30)
    res = dict(emul_rel=((emul - ref_o).norm() / norm).item())
    od = o.double()
    res["o_nan"] = int((~torch.isfinite(od)).sum())
    res["o_rel"] = (torch.nan_to_num(od - ref_o, nan=0.0).norm()
                    / norm).item()
    res["o_bound"] = min(max(2 * res["emul_rel"] + 2e-3, 1e-2), 6e-2)
    problems = []
    if res["o_nan"]:
        problems.append(f"o has {res['o_nan']} non-finite values")
    if not res["o_rel"] < res["o_bound"]:
        problems.append(f"o relative error {res['o_rel']:.3g} >= "
                        f"{res['o_bound']:.3g} (fp8 emulation's "
                        f"{res['emul_rel']:.3g})")
    if lse is not None:
        inf = torch.isinf(ref_lse)
        if not (bool((torch.isinf(lse) == inf).all())
                and bool((lse[inf] < 0).all())):
            problems.append("lse is -inf where the reference is not, or "
                            "the other way")
        fin = ~inf
        res["lse_rel"] = (lse.double()[fin] - ref_lse[fin]).abs().max() \
            .item() if fin.any() else 0.0
        if not res["lse_rel"] < 5e-3:
            problems.append(f"lse error {res['lse_rel']:.3g} >= 5e-3")
    return res, problems


def run_fp8_correctness(rt, job, seed):
    """An e4m3 problem through attn_forward_fp8 (fresh inputs quantised per
    tensor, V transposed, O poisoned) against float64 of the dequantised
    inputs (check_fp8)."""
    import torch
    if torch.cuda.get_device_capability() != (9, 0):
        return dict(ok=False, unsupported=True,
                    error="fp8 attention runs on sm_90 (this GPU is sm_%d%d)"
                    % torch.cuda.get_device_capability())
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    B, Hq, Hkv, Nq, Nk, D = (job[x] for x in ("B", "Hq", "Hkv", "Nq", "Nk",
                                              "D"))
    (q8, k8, vt, o, qd, kd, vd), (qr, kr, vr) = fp8_inputs(
        B, Hq, Hkv, Nq, Nk, D, gen, job["layout"])
    lse = (torch.full((B, Hq, Nq), float("nan"), dtype=torch.float32,
                      device="cuda") if job["lse"] else None)
    scale = job.get("scale") or 1.0 / math.sqrt(D)
    torch.cuda.synchronize()
    rt.forward_fp8(q8, k8, vt, o, (qd, kd, vd), lse, causal=job["causal"],
                   scale=scale,
                   stream=torch.cuda.current_stream().cuda_stream or None)
    torch.cuda.synchronize()
    ref_o, ref_lse = reference(qr, kr, vr, job["causal"], scale)
    emul = fp8_emulation(qr, kr, vr, job["causal"], scale)
    res, problems = check_fp8(o, lse, ref_o, ref_lse, emul)
    res["kernel"] = rt.last_kernel()
    res["ok"] = not problems
    res["error"] = "; ".join(problems)
    return res


def run_correctness(rt, job, seed):
    import torch
    if job["dtype"] == "e4m3":
        return run_fp8_correctness(rt, job, seed)
    dt = {"bf16": torch.bfloat16, "f16": torch.float16}[job["dtype"]]
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    B, Hq, Hkv, Nq, Nk, D = (job[x] for x in ("B", "Hq", "Hkv", "Nq", "Nk",
                                              "D"))
    lay = job["layout"]
    q = make_tensor((B, Hq, Nq, D), dt, lay, gen)
    k = make_tensor((B, Hkv, Nk, D), dt, lay, gen)
    Dv = job.get("Dv", D)
    v = make_tensor((B, Hkv, Nk, Dv), dt, lay, gen)
    o = make_tensor((B, Hq, Nq, Dv), dt, lay, gen, fill=float("nan"))
    lse = (torch.full((B, Hq, Nq), float("nan"), dtype=torch.float32,
                      device="cuda") if job["lse"] else None)
    scale = job.get("scale") or 1.0 / math.sqrt(D)
    torch.cuda.synchronize()
    window = job.get("window")
    # ALiBi's slopes: fresh values in (0, 1] a head (BLOOM's are 2^(-8h/H)).
    alibi = (torch.rand(Hq, device="cuda", generator=gen) + 1e-3
             if job.get("alibi") else None)
    # Dropout: a fresh rate, key and offset.
    dropout = None
    if job.get("dropout"):
        r = torch.rand(3, device="cuda", generator=gen).tolist()
        dropout = (0.05 + 0.85 * r[0], int(r[1] * (1 << 53)) * 2048 + 1,
                   int(r[2] * (1 << 32)))
    # A bias: fresh N(0, 1) values of the inputs' type, every key j = 3
    # (mod 7) hidden (-inf), in rows padded by 8 NaN (a kernel that read
    # past a row would carry them into O); "b"/"h" name its full dims.
    bias = None
    if job.get("bias"):
        bb = B if "b" in job["bias"] else 1
        bh = Hq if "h" in job["bias"] else 1
        padded = torch.full((bb, bh, Nq, Nk + 8), float("nan"), dtype=dt,
                            device="cuda")
        bias = padded[..., :Nk]
        bias.copy_(torch.randn((bb, bh, Nq, Nk), device="cuda",
                               generator=gen).to(dt))
        bias[..., 3::7] = float("-inf")
    rt.forward(q, k, v, o, lse, causal=job["causal"], scale=scale,
               stream=torch.cuda.current_stream().cuda_stream or None,
               window=window, softcap=job.get("softcap"), alibi=alibi,
               dropout=dropout, bias=bias)
    torch.cuda.synchronize()
    kernel = rt.last_kernel()
    ref_o, ref_lse = reference(q, k, v, job["causal"], scale, window,
                               job.get("softcap"), alibi, dropout,
                               None if bias is None else bias.expand(
                                   B if bias.shape[0] > 1 else 1, Hq, Nq,
                                   Nk))

    res = dict(kernel=kernel)
    od = o.double()
    res["o_nan"] = int(torch.isnan(od).sum())
    res["o_inf"] = int(torch.isinf(od).sum())
    # Where scale · (the f32 rounding of a score) is large (scale 1e30: the
    # softmax is an argmax), a row whose two best keys' exact scores differ
    # by less than that rounding has no f32 answer: the tensor cores'
    # accumulation may pick either key. Such rows are left out of the
    # comparison (and counted); every other row still must match.
    tied = None
    if scale > 1e6 and window is None and not job.get("softcap") and \
            alibi is None and dropout is None and bias is None:
        tied = near_tied_rows(q, k, job["causal"])
        res["o_tied_rows"] = int(tied.sum())
    cmp_o, cmp_ref = od, ref_o
    if tied is not None and bool(tied.any()):
        keep = (~tied)[..., None].double()
        cmp_o, cmp_ref = od * keep, ref_o * keep
    ref_norm = float(cmp_ref.norm())
    diff = float(torch.nan_to_num(cmp_o - cmp_ref, nan=0.0).norm())
    res["o_rel"] = diff / ref_norm if ref_norm > 0 else diff
    res["o_max_abs"] = float(torch.nan_to_num(cmp_o - cmp_ref, nan=0.0)
                             .abs().max())
    problems = []
    if res["o_nan"] or res["o_inf"]:
        problems.append(f"o has {res['o_nan']} NaN, {res['o_inf']} inf "
                        f"(of {od.numel()})")
    if not res["o_rel"] < 1e-2:
        problems.append(f"o relative error {res['o_rel']:.3g} >= 1e-2")
    if lse is not None:
        ld = lse.double()
        ref_ninf = torch.isneginf(ref_lse)
        res["lse_nan"] = int(torch.isnan(ld).sum())
        res["lse_ninf_mismatch"] = int((torch.isneginf(ld) != ref_ninf).sum())
        res["lse_rows_empty"] = int(ref_ninf.sum())
        fin = ~ref_ninf & torch.isfinite(ld)
        if int(fin.sum()):
            err = (ld[fin] - ref_lse[fin])
            res["lse_rel"] = float(err.norm() / ref_lse[fin].norm().clamp(
                min=1e-30))
            res["lse_max_abs"] = float(err.abs().max())
        else:
            res["lse_rel"] = res["lse_max_abs"] = 0.0
        res["lse_nonfinite"] = int((~torch.isfinite(ld) & ~ref_ninf).sum())
        if res["lse_nan"]:
            problems.append(f"lse has {res['lse_nan']} NaN")
        if res["lse_ninf_mismatch"]:
            problems.append(f"lse is -inf in {res['lse_ninf_mismatch']} "
                            f"rows where the reference disagrees")
        if res["lse_nonfinite"]:
            problems.append(f"lse has {res['lse_nonfinite']} non-finite "
                            f"values where the reference is finite")
        if not res["lse_rel"] < 1e-3:
            problems.append(f"lse relative error {res['lse_rel']:.3g} >= "
                            f"1e-3")
    res["ok"] = not problems
    res["error"] = "; ".join(problems)
    return res


def run_api(rt, job, seed):
    """Each bad call must fail with the expected status and message and
    leave the (poisoned) output untouched."""
    import torch
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    B, H, N, D = 2, 4, 256, 64
    q, k, v = (make_tensor((B, H, N, D), torch.bfloat16, "bhnd", gen)
               for _ in range(3))
    o = torch.full_like(q, float("nan"))
    c = job["check"]
    if c == "graph_capture":
        # A fresh runtime whose first launch is a causal forward (a grid
        # that claims its tiles from a counter: 2 x 16 x 8 blocks, too many
        # to split), run once, then captured into a CUDA graph (whose
        # counter comes from the workspace pool) and replayed: the replay
        # must equal the uncaptured run.
        fresh = AttnRuntime(rt.lib_path, rt.bundle_dir)
        qc, kc, vc = (make_tensor((2, 16, 1024, 128), torch.bfloat16, "bnhd",
                                  gen) for _ in range(3))
        oc = torch.full_like(qc, float("nan"))
        fresh.forward(qc, kc, vc, oc, causal=True)
        torch.cuda.synchronize()
        want = oc.clone()
        oc.fill_(float("nan"))
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        g = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(g, stream=side):
                fresh.forward(qc, kc, vc, oc, causal=True,
                              stream=side.cuda_stream)
            g.replay()
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - the check's verdict
            return dict(ok=False, error=f"{type(e).__name__}: {e}")
        ok = bool(torch.equal(oc, want)) and bool(torch.isfinite(oc).all())
        return dict(ok=ok, note=fresh.last_kernel(), error="" if ok else
                    "the graph's replay differs from the uncaptured run")
    if c == "host_overhead":
        # Host time of one forward call through ctypes (validation, pointer
        # queries, launch), on a problem too small for the GPU to matter.
        small = [t[:1, :1, :16] for t in (q, k, v, o)]
        for _ in range(10):
            rt.forward(*small)
        torch.cuda.synchronize()
        n = 2000
        t0 = time.perf_counter()
        for _ in range(n):
            rt.forward(*small)
        us = (time.perf_counter() - t0) / n * 1e6
        torch.cuda.synchronize()
        return dict(ok=True, host_us_per_call=us,
                    note=f"{us:.1f} us of host time per forward call")
    if c == "host_tensor":
        args, want = (q.cpu(), k, v, o), (1, "not CUDA device memory")
    elif c == "head_dim_80":
        # A head dim the default bundle does not hold: a runtime without a
        # compiler says so (ATTN_ERROR_NOT_IN_BUNDLE) rather than guess.
        q2, k2, v2, o2 = (torch.randn(1, 1, 16, 80, dtype=torch.bfloat16,
                                      device="cuda") for _ in range(4))
        o2.fill_(float("nan"))
        o = o2
        args, want = (q2, k2, v2, o2), (8, "not in the bundle: head dim 80 "
                                           "(this bundle has")
    elif c == "output_aliases_input":
        o = q
        before = q.clone()
        args, want = (q, k, v, q), (1, "o overlaps q")
    elif c == "misaligned":
        flat = torch.empty(q.numel() + 8, dtype=q.dtype, device="cuda")
        q2 = flat[4:4 + q.numel()].view(q.shape)  # 8 bytes off
        args, want = (q2, k, v, o), (1, "is not 16-byte aligned")
    elif c == "too_small":
        # Half of what K needs, from the runtime's own allocator (torch's
        # caching allocator hides where an allocation ends).
        small = rt.malloc(k.numel() * k.element_size() // 2)
        try:
            p = rt.problem(q, k, v, o, False, False)
            rt.forward_ptrs(p, q.data_ptr(), small, v.data_ptr(),
                            o.data_ptr(), None, None)
            torch.cuda.synchronize()
            return dict(ok=False, error="a too-small k was accepted")
        except AttnError as e:
            msg = str(e)
            ok = e.status == 1 and "k needs" in msg and \
                bool(torch.isnan(o).all())
            return dict(ok=ok, note=msg, error="" if ok else
                        f"got status {e.status} '{msg}'")
        finally:
            rt.free(small)
    try:
        rt.forward(*args)
        torch.cuda.synchronize()
        return dict(ok=False, error="the call succeeded; expected "
                    f"status {want[0]} '{want[1]}'")
    except AttnError as e:
        msg = str(e)
        torch.cuda.synchronize()
        untouched = (bool(torch.equal(o, before)) if c ==
                     "output_aliases_input" else bool(torch.isnan(o).all()))
        ok = e.status == want[0] and want[1] in msg and untouched
        return dict(ok=ok, note=msg, error="" if ok else
                    f"got status {e.status} '{msg}', output untouched: "
                    f"{untouched}; expected status {want[0]} '{want[1]}'")


TIMER = "triton.testing.do_bench (median)"
# The peers a ratio "/best" is taken over.
PEERS = ("fa2", "cudnn", "fa4")


def best_peer(r, key):
    """The fastest peer's r["<peer>_<key>"] (higher is faster), or None."""
    return max((r[f"{n}_{key}"] for n in PEERS if f"{n}_{key}" in r),
               default=None)


def bench(fn, rep=300):
    """Median milliseconds of fn() on the current stream (runs for about
    `rep` ms after a warm-up)."""
    try:
        import triton.testing
        return float(triton.testing.do_bench(fn, warmup=50, rep=rep,
                                             return_mode="median"))
    except ImportError:
        pass
    global TIMER
    TIMER = "CUDA events (median)"
    import torch
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    # Calibrate to ~rep ms of runs.
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    once = max(time.perf_counter() - t0, 1e-5)
    n = max(10, min(1000, int(rep * 1e-3 / once)))
    times = []
    for _ in range(n):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        times.append((a, b))
    torch.cuda.synchronize()
    ms = sorted(a.elapsed_time(b) for a, b in times)
    return ms[len(ms) // 2]


def _bench_sdpa(fn, backend, rep):
    from torch.nn.attention import sdpa_kernel
    with sdpa_kernel([backend]):
        return bench(fn, rep=rep)


def time_sdpa_peers(res, q, k, v, o, causal, graph=None, fns=None):
    """Times torch SDPA's FlashAttention-2 and cuDNN on [B, H, N, D] tensors
    (res[<name>_ms], and res[<name>_graph_ms] through `graph` if given) and
    compares our output `o` with each (res[ours_vs_<name>_rel]); each timed
    call goes into fns[<name>] if given."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    Nq, Nk = q.shape[2], k.shape[2]
    kw = dict(is_causal=causal)
    if causal and Nq != Nk:
        # SDPA's is_causal is top-left aligned; its lower-right causal bias
        # is what FA2 and cuDNN take.
        from torch.nn.attention.bias import causal_lower_right
        kw = dict(attn_mask=causal_lower_right(Nq, Nk))
    if q.shape[1] != k.shape[1]:
        kw["enable_gqa"] = True
    for name, backend in (("fa2", SDPBackend.FLASH_ATTENTION),
                          ("cudnn", SDPBackend.CUDNN_ATTENTION)):
        try:
            with sdpa_kernel([backend]):
                def fn():
                    return F.scaled_dot_product_attention(q, k, v, **kw)
                ref = fn()
                res[f"{name}_ms"] = bench(fn)
                if fns is not None:
                    # SDPA picks its backend when called: time it again
                    # inside the same choice.
                    fns[name] = (lambda fn=fn, backend=backend, rep=300:
                                 _bench_sdpa(fn, backend, rep))
                if graph:
                    try:
                        res[f"{name}_graph_ms"] = graph(fn)
                    except Exception as e:  # noqa: BLE001
                        res[f"{name}_graph_error"] = \
                            f"{type(e).__name__}: {e}"
            if "ours_ms" in res:
                # The timed kernel must also be right: compare with SDPA.
                d = (o.float() - ref.float()).norm() / ref.float().norm()
                res[f"ours_vs_{name}_rel"] = float(d)
        except Exception as e:  # noqa: BLE001
            res[f"{name}_error"] = f"{type(e).__name__}: {e}"



# FlashAttention-4 (flash-attn-4, CuTe DSL) as a peer. Its wheels are not on
# the device image: tools/scripts/gpu_check.sh --fa4-wheels installs them into a
# folder and passes it here (ATTN_FA4_SITE); that folder and its
# nvidia_cutlass_dsl/dsl_packages go first on sys.path (the image's own
# Python may carry another cutlass).
_FA4 = {}


def fa4_module():
    """flash_attn.cute, or None (the reason in _FA4["error"])."""
    if "mod" not in _FA4:
        site = os.environ.get("ATTN_FA4_SITE")
        if site:
            for p in (os.path.join(site, "nvidia_cutlass_dsl", "dsl_packages"),
                      site):
                if p not in sys.path:
                    sys.path.insert(0, p)
        try:
            import flash_attn.cute as mod
            _FA4["mod"] = mod
        except Exception as e:  # noqa: BLE001 - a missing peer is noted
            _FA4["mod"] = None
            _FA4["error"] = f"{type(e).__name__}: {str(e)[:120]}"
    return _FA4["mod"]


def time_fa4(res, call, ours=None, graph=None, fns=None):
    """Times call(flash_attn.cute) -> output (res["fa4_ms"], and
    res["fa4_graph_ms"] through `graph`), its first call (CuTe DSL JIT) in
    res["fa4_first_s"], and compares our output `ours` (same shape as FA4's)
    with FA4's (res["ours_vs_fa4_rel"])."""
    import torch
    mod = fa4_module()
    if mod is None:
        res["fa4_note"] = _FA4.get("error", "not installed")
        return
    try:
        t0 = time.perf_counter()
        out = call(mod)
        torch.cuda.synchronize()
        res["fa4_first_s"] = time.perf_counter() - t0
        out = out[0] if isinstance(out, tuple) else out
        if ours is not None:
            ref = out.float()
            res["ours_vs_fa4_rel"] = float((ours.float() - ref).norm()
                                           / ref.norm().clamp(min=1e-30))
        del out
        res["fa4_ms"] = bench(lambda: call(mod))
        if fns is not None:
            fns["fa4"] = lambda rep=300: bench(lambda: call(mod), rep=rep)
        if graph:
            try:
                res["fa4_graph_ms"] = graph(lambda: call(mod))
            except Exception as e:  # noqa: BLE001
                res["fa4_graph_error"] = f"{type(e).__name__}: {str(e)[:80]}"
    except Exception as e:  # noqa: BLE001 - reported, not fatal
        res["fa4_error"] = f"{type(e).__name__}: {str(e)[:160]}"


def run_timing(rt, job, seed):
    import torch
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    B, H, N, D, causal = job["B"], job["H"], job["N"], job["D"], \
        job["causal"]
    tdtype = {"bf16": torch.bfloat16, "f16": torch.float16}[job["dtype"]]
    q, k, v = (torch.randn(B, H, N, D, device="cuda", generator=gen,
                           dtype=torch.float32).to(tdtype)
               for _ in range(3))
    o = torch.empty_like(q)
    lse = (torch.empty(B, H, N, device="cuda", dtype=torch.float32)
           if job.get("lse") else None)
    flops = 4.0 * B * H * N * N * D / (2 if causal else 1)
    stream = torch.cuda.current_stream().cuda_stream or None
    res = dict(flops=flops)

    def ours():
        rt.forward(q, k, v, o, lse, causal=causal, stream=stream)

    try:
        ours()
        torch.cuda.synchronize()
        res["kernel"] = rt.last_kernel()
        res["ours_ms"] = bench(ours)
    except Exception as e:  # noqa: BLE001 - reported, not fatal
        res["ours_error"] = f"{type(e).__name__}: {e}"
        if "CUDA error" in str(e):
            raise
    fns = {"ours": lambda rep=300: bench(ours, rep=rep)}
    time_sdpa_peers(res, q, k, v, o, causal, fns=fns)
    # FA4 in its own storage, [B, N, H, D] contiguous (its best case).
    qf, kf, vf = (x.transpose(1, 2).contiguous() for x in (q, k, v))
    time_fa4(res, lambda m: m.flash_attn_func(qf, kf, vf, causal=causal),
             ours=o.transpose(1, 2) if "ours_ms" in res else None, fns=fns)
    # Two more rounds in other orders, and each implementation's median of
    # its three: the clock lags behind a heavy kernel, and the one timed
    # right after FA4 ran ~5% slow on an H100 (attn, D 128, N 16k: 578
    # TFLOP/s after FA4, 611 in a run without it). Over the three rounds
    # each one follows a different predecessor.
    names = [n for n in ("ours", "fa2", "cudnn", "fa4")
             if n in fns and f"{n}_ms" in res]
    runs = {n: [res[f"{n}_ms"]] for n in names}
    for order in (names[::-1],
                  names[2:3] + names[0:1] + names[3:] + names[1:2]):
        for n in order:
            runs[n].append(fns[n](rep=150))
    for n in names:
        res[f"{n}_ms"] = sorted(runs[n])[1]
        res[f"{n}_ms_rounds"] = runs[n]
    del qf, kf, vf
    for name in ("ours", "fa2", "cudnn", "fa4"):
        if f"{name}_ms" in res:
            res[f"{name}_tflops"] = flops / (res[f"{name}_ms"] * 1e-3) / 1e12
    res["ok"] = "ours_ms" in res
    res["error"] = res.get("ours_error", "")
    res["timer"] = TIMER
    return res


def run_bias_timing(rt, job, seed):
    """attn's forward with a bias (attn_forward_variant's) beside SDPA's
    cuDNN and memory-efficient kernels with it as attn_mask, each the median
    of three rounds in other orders; O compared with cuDNN's."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    B, H, N, D = job["B"], job["H"], job["N"], job["D"]
    q, k, v = (torch.randn(B, H, N, D, device="cuda", generator=gen,
                           dtype=torch.float32).to(torch.bfloat16)
               for _ in range(3))
    bias = torch.randn(1, H, N, N, device="cuda", generator=gen,
                       dtype=torch.float32)
    if job["bias_dtype"] == "bf16":
        bias = bias.to(torch.bfloat16)
    o = torch.empty_like(q)
    # (The bundle's bias kernel writes the LSE.)
    lse = torch.empty(B, H, N, device="cuda", dtype=torch.float32)
    stream = torch.cuda.current_stream().cuda_stream or None
    res = dict(flops=4.0 * B * H * N * N * D)

    def ours(rep=300):
        return bench(lambda: rt.forward(q, k, v, o, lse, stream=stream,
                                        bias=bias), rep=rep)
    fns = {"ours": ours}
    rt.forward(q, k, v, o, lse, stream=stream, bias=bias)
    torch.cuda.synchronize()
    res["kernel"] = rt.last_kernel()
    for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                          ("efficient", SDPBackend.EFFICIENT_ATTENTION)):
        # (SDPA takes the mask in q's dtype.)
        mask = bias.to(q.dtype)

        def fn(mask=mask):
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        try:
            from torch.nn.attention import sdpa_kernel
            with sdpa_kernel([backend]):
                ref = fn()
            torch.cuda.synchronize()
            res[f"ours_vs_{name}_rel"] = float(
                (o.double() - ref.double()).norm() / ref.double().norm())
            fns[name] = (lambda fn=fn, backend=backend, rep=300:
                         _bench_sdpa(fn, backend, rep))
        except Exception as e:  # noqa: BLE001 - a peer that cannot run it
            res[f"{name}_error"] = f"{type(e).__name__}: {e}"
    names = list(fns)
    runs = {n: [fns[n]()] for n in names}
    for order in (names[::-1], names[1:] + names[:1]):
        for n in order:
            runs[n].append(fns[n](rep=150))
    for n in names:
        res[f"{n}_ms"] = sorted(runs[n])[1]
        res[f"{n}_tflops"] = res["flops"] / (res[f"{n}_ms"] * 1e-3) / 1e12
    res["ok"] = all(res.get(f"ours_vs_{n}_rel", 0) < 1e-2 for n in names)
    if not res["ok"]:
        res["error"] = "O differs from SDPA's with the same bias"
    res["timer"] = TIMER
    return res


def run_fp8_timing(rt, job, seed):
    """attn's fp8 forward (attn_forward_fp8) beside its own bf16 forward of
    the same shape, in mirrored order (fp8, bf16, bf16, fp8; each the
    median of its two): SDPA and FA4 have no fp8 forward on sm_90."""
    import torch
    if torch.cuda.get_device_capability() != (9, 0):
        return dict(ok=False, unsupported=True,
                    error="fp8 attention runs on sm_90")
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    B, H, N, D, causal = job["B"], job["H"], job["N"], job["D"], \
        job["causal"]
    (q8, k8, vt, o8, qd, kd, vd), _ = fp8_inputs(B, H, H, N, N, D, gen)
    q, k, v = (make_tensor((B, H, N, D), torch.bfloat16, "bnhd", gen)
               for _ in range(3))
    o = torch.empty_like(q)
    stream = torch.cuda.current_stream().cuda_stream or None
    fns = {"fp8": lambda: rt.forward_fp8(q8, k8, vt, o8, (qd, kd, vd),
                                         causal=causal, stream=stream),
           "bf16": lambda: rt.forward(q, k, v, o, causal=causal,
                                      stream=stream)}
    res = dict(flops=4.0 * B * H * N * N * D / (2 if causal else 1))
    fns["fp8"]()
    torch.cuda.synchronize()
    res["kernel"] = rt.last_kernel()
    runs = {n: [] for n in fns}
    for n in ("fp8", "bf16", "bf16", "fp8"):
        runs[n].append(bench(fns[n]))
    for n, ms in runs.items():
        res[f"{n}_tflops"] = res["flops"] / (sum(ms) / 2 * 1e-3) / 1e12
    res["fp8_over_bf16"] = res["fp8_tflops"] / res["bf16_tflops"]
    res["ok"] = True
    res["error"] = ""
    return res


def run_large(rt, job, seed):
    """A problem whose Q and O span 2^31 elements ([B, N, H, D] storage):
    O and LSE on sampled rows against float64, NaN-poisoned outputs, and
    the time of one call (TFLOP/s, to set beside the N = 16k rows)."""
    import torch
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    B, Hq, Hkv, N, D = (job[x] for x in ("B", "Hq", "Hkv", "N", "D"))
    causal = job["causal"]
    dt = {"bf16": torch.bfloat16, "f16": torch.float16}[job["dtype"]]
    q = torch.randn(B, N, Hq, D, device="cuda", generator=gen, dtype=dt)
    k = torch.randn(B, N, Hkv, D, device="cuda", generator=gen, dtype=dt)
    v = torch.randn(B, N, Hkv, D, device="cuda", generator=gen, dtype=dt)
    o = torch.full((B, N, Hq, D), float("nan"), device="cuda", dtype=dt)
    lse = torch.full((B, Hq, N), float("nan"), device="cuda",
                     dtype=torch.float32)
    qt, kt, vt, ot = (x.transpose(1, 2) for x in (q, k, v, o))
    scale = 1.0 / math.sqrt(D)
    stream = torch.cuda.current_stream().cuda_stream or None
    torch.cuda.synchronize()
    # The first call writes the poisoned outputs (what is checked); the
    # second, the same again, is timed.
    rt.forward(qt, kt, vt, ot, lse, causal=causal, scale=scale, stream=stream)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    rt.forward(qt, kt, vt, ot, lse, causal=causal, scale=scale, stream=stream)
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) * 1e3
    res = dict(kernel=rt.last_kernel(), ms=ms)
    pairs = N * (N + 1) / 2 if causal else N * N
    res["tflops"] = 4.0 * B * Hq * pairs * D / (ms * 1e-3) / 1e12
    # Sampled rows: the first and last rows of the first and last heads,
    # and random (head, row) pairs; each against float64 over its keys.
    rnd = random.Random(seed)
    picks = [(0, 0), (0, N - 1), (Hq - 1, 0), (Hq - 1, N - 1)]
    picks += [(rnd.randrange(Hq), rnd.randrange(N))
              for _ in range(job["rows"] - len(picks))]
    g = Hq // Hkv
    worst_o = worst_l = 0.0
    bad = 0
    # One key/value head at a time in float64 (1 GiB), its sampled rows
    # together: S = Q_rows·Kᵀ, causal rows masked past their diagonal.
    for kvh in range(Hkv):
        rows = [(h, i) for h, i in picks if h // g == kvh]
        if not rows:
            continue
        kk = kt[0, kvh].double()
        vv = vt[0, kvh].double()
        qr = torch.stack([qt[0, h, i] for h, i in rows]).double()
        s_ = (qr @ kk.T) * scale
        if causal:
            pos = torch.tensor([i for _, i in rows], device="cuda")[:, None]
            s_.masked_fill_(torch.arange(N, device="cuda")[None, :] > pos,
                            float("-inf"))
        m = s_.max(dim=1, keepdim=True).values
        p_ = torch.exp(s_ - m)
        l_ = p_.sum(dim=1, keepdim=True)
        ref_o = (p_ @ vv) / l_
        ref_l = (m + torch.log(l_)).squeeze(1)
        del kk, vv, s_, p_
        for r, (h, i) in enumerate(rows):
            got = ot[0, h, i].double()
            got_l = float(lse[0, h, i])
            if not torch.isfinite(got).all() or not math.isfinite(got_l):
                bad += 1
                continue
            worst_o = max(worst_o, float((got - ref_o[r]).norm() /
                                         ref_o[r].norm().clamp(min=1e-30)))
            worst_l = max(worst_l, abs(got_l - float(ref_l[r])) /
                          max(abs(float(ref_l[r])), 1e-30))
    res.update(o_rel=worst_o, lse_rel=worst_l, nonfinite_rows=bad,
               rows=len(picks))
    problems = []
    if bad:
        problems.append(f"{bad} sampled rows not finite")
    if not worst_o < 1e-2:
        problems.append(f"o relative error {worst_o:.3g} >= 1e-2 (worst row)")
    if not worst_l < 1e-3:
        problems.append(f"lse relative error {worst_l:.3g} >= 1e-3")
    res["ok"] = not problems
    res["error"] = "; ".join(problems)
    del q, k, v, o, qt, kt, vt, ot
    return res


def run_decode(rt, job, seed):
    """One decode step: GB/s of K, V, Q and O moved, ours beside SDPA's
    FlashAttention-2 and cuDNN (GQA), tensors in [B, N, H, D] storage."""
    import torch
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    B, Nq, Nk, Hq, Hkv, D = (job[x] for x in ("B", "Nq", "Nk", "Hq", "Hkv",
                                              "D"))
    causal = job["causal"]
    tdtype = {"bf16": torch.bfloat16, "f16": torch.float16}[job["dtype"]]

    def rand(*shape):
        return torch.randn(*shape, device="cuda", generator=gen,
                           dtype=torch.float32).to(tdtype)
    q = rand(B, Nq, Hq, D).transpose(1, 2)
    k, v = (rand(B, Nk, Hkv, D).transpose(1, 2) for _ in range(2))
    o = torch.full((B, Nq, Hq, D), float("nan"), device="cuda",
                   dtype=tdtype).transpose(1, 2)
    nbytes = 2 * (2 * B * Hkv * Nk * D + 2 * B * Hq * Nq * D)
    # Causal (bottom-right): query i sees Nk - Nq + i + 1 keys.
    pairs = (Nq * Nk - Nq * (Nq - 1) / 2) if causal else Nq * Nk
    res = dict(bytes=nbytes, flops=4.0 * B * Hq * pairs * D)

    # The problem packed once (as a serving loop holds it), so that the
    # times are the runtime's and the GPU's, not Python's packing.
    prob = rt.problem(q, k, v, o, causal, False)
    ptrs = (q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), None)

    def ours():
        # The current stream at call time: a graph capture runs on its own.
        rt.forward_ptrs(prob, *ptrs,
                        torch.cuda.current_stream().cuda_stream or None)

    def graph_ms(fn, calls=20):
        """Milliseconds a call of fn() inside a CUDA graph of `calls`
        calls: the GPU's time without the host's per-call overhead."""
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            fn()
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(calls):
                fn()
        g.replay()
        torch.cuda.synchronize()
        graph_ms.last = g
        return bench(g.replay) / calls

    try:
        ours()
        torch.cuda.synchronize()
        res["kernel"] = rt.last_kernel()
        res["ours_ms"] = bench(ours)
        res["ours_graph_ms"] = graph_ms(ours)
        # What the peers' comparison below reads is the graph's output: O
        # poisoned, then one more replay (a persistent kernel's tile counter
        # under capture is the graph's own).
        o.fill_(float("nan"))
        graph_ms.last.replay()
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001 - reported, not fatal
        res["ours_error"] = f"{type(e).__name__}: {e}"
        if "CUDA error" in str(e):
            raise
    time_sdpa_peers(res, q, k, v, o, causal, graph=graph_ms)
    # q, k, v are [B, N, H, D] storage already: FA4's own layout.
    qf, kf, vf = (x.transpose(1, 2) for x in (q, k, v))
    time_fa4(res, lambda m: m.flash_attn_func(qf, kf, vf, causal=causal),
             ours=o.transpose(1, 2) if "ours_ms" in res else None,
             graph=graph_ms)
    for name in ("ours", "fa2", "cudnn", "fa4"):
        for kind in ("", "graph_"):
            if f"{name}_{kind}ms" in res:
                res[f"{name}_{kind}gbs"] = \
                    nbytes / (res[f"{name}_{kind}ms"] * 1e-3) / 1e9
                res[f"{name}_{kind}tflops"] = \
                    res["flops"] / (res[f"{name}_{kind}ms"] * 1e-3) / 1e12
    rel = [res[k] for k in ("ours_vs_fa2_rel", "ours_vs_cudnn_rel")
           if k in res]
    res["ok"] = "ours_ms" in res and bool(rel) and min(rel) < 1e-2
    res["error"] = res.get("ours_error", "") or (
        "" if res["ok"] else f"ours vs SDPA rel {rel}")
    res["timer"] = TIMER
    return res


def run_kvcache(rt, job, seed):
    """A decode step over a KV cache, checked against float64 per
    sequence; a bad block table must be refused with O untouched; timed
    rows: GB/s of the keys and values read, beside the dense cache."""
    import torch
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    tdtype = {"bf16": torch.bfloat16, "f16": torch.float16}[job["dtype"]]
    B, Hq, Hkv, Nq, D, cap, page = (job[x] for x in (
        "B", "Hq", "Hkv", "Nq", "D", "cap", "page"))
    causal = job["causal"]

    def rand(*shape):
        return torch.randn(*shape, device="cuda", generator=gen,
                           dtype=torch.float32).to(tdtype)
    if job["time"]:
        lens = [cap] * B
    else:
        extra = torch.randint(1, cap + 1, (max(B - 4, 0),),
                              generator=torch.Generator().manual_seed(seed))
        lens = ([0, 1, cap, page + 3 if page else 77]
                + [int(x) for x in extra])[:B]
    q = rand(B, Nq, Hq, D).transpose(1, 2)
    kd, vd = (rand(B, cap, Hkv, D).transpose(1, 2) for _ in range(2))
    lens_t = torch.tensor(lens, dtype=torch.int32, device="cuda")
    table = None
    if page:
        maxp = cap // page
        used = sum((n + page - 1) // page for n in lens)
        P = used + 3
        order = torch.randperm(P, generator=torch.Generator().manual_seed(
            seed + 1)).tolist()
        table = torch.full((B, maxp), 2**31 - 1, dtype=torch.int32)
        # vLLM's storage [P, page, Hkv, D], seen as [P, Hkv, page, D].
        kc, vc = (torch.full((P, page, Hkv, D), float("nan"), device="cuda",
                             dtype=tdtype).transpose(1, 2) for _ in range(2))
        nxt = 0
        for b, n in enumerate(lens):
            for i in range((n + page - 1) // page):
                pg = order[nxt]
                nxt += 1
                table[b, i] = pg
                r = min(page, n - i * page)
                kc[pg, :, :r] = kd[b, :, i * page:i * page + r]
                vc[pg, :, :r] = vd[b, :, i * page:i * page + r]
        table = table.cuda()
    else:
        kc, vc = kd.clone(), vd.clone()
        for b, n in enumerate(lens):
            kc[b, :, n:] = float("nan")
            vc[b, :, n:] = float("nan")
    o = torch.full((B, Nq, Hq, D), float("nan"), device="cuda",
                   dtype=tdtype).transpose(1, 2)
    lse = torch.full((B, Hq, Nq), float("nan"), device="cuda",
                     dtype=torch.float32)
    stream = torch.cuda.current_stream().cuda_stream or None
    res = dict()
    torch.cuda.synchronize()
    rt.forward_kv(q, kc, vc, o, lens_t, table, lse, causal=causal,
                  stream=stream)
    torch.cuda.synchronize()
    res["kernel"] = rt.last_kernel()
    problems = []
    worst_o = worst_l = 0.0
    for b, n in enumerate(lens):
        ob, lb = o[b].double(), lse[b].double()
        if n == 0:
            ok = bool((ob == 0).all()) and bool(torch.isneginf(lb).all())
            if not ok:
                problems.append(f"sequence {b} (no keys): O != 0 or LSE != "
                                f"-inf")
            continue
        ro, rl = reference(q[b:b + 1], kd[b:b + 1, :, :n], vd[b:b + 1, :, :n],
                           causal, 1.0 / math.sqrt(D))
        if torch.isnan(ob).any() or torch.isnan(lb).any():
            problems.append(f"sequence {b} ({n} keys): NaN in O or LSE")
            continue
        fin = torch.isfinite(rl[0])
        e_o = float((ob - ro[0]).norm() / ro[0].norm().clamp(min=1e-30))
        e_l = float((lb[fin] - rl[0][fin]).norm()
                    / rl[0][fin].norm().clamp(min=1e-30)) if fin.any() else 0
        worst_o, worst_l = max(worst_o, e_o), max(worst_l, e_l)
    res["o_rel"], res["lse_rel"] = worst_o, worst_l
    if worst_o >= 1e-2:
        problems.append(f"o relative error {worst_o:.3g} >= 1e-2")
    if worst_l >= 1e-3:
        problems.append(f"lse relative error {worst_l:.3g} >= 1e-3")
    if page and not job["time"]:
        # A page number out of range: refused, nothing written.
        bad = table.clone()
        bad[2, 0] = kc.shape[0]  # sequence 2 holds the full cache
        before = o.clone()
        try:
            rt.forward_kv(q, kc, vc, o, lens_t, bad, lse, causal=causal,
                          stream=stream)
            problems.append("an out-of-range page was not refused")
        except AttnError as e:
            res["refused"] = str(e)[:80]
        torch.cuda.synchronize()
        if not torch.equal(before.nan_to_num(7.0), o.nan_to_num(7.0)):
            problems.append("a refused call wrote O")
    if job["time"]:
        nbytes = 2 * 2 * sum(lens) * Hkv * D + 2 * 2 * B * Hq * Nq * D

        def ours():
            rt.forward_kv(q, kc, vc, o, lens_t, table, None, causal=causal,
                          check=False,
                          stream=torch.cuda.current_stream().cuda_stream
                          or None)

        def dense():
            rt.forward(q, kd, vd, o, None, causal=causal,
                       stream=torch.cuda.current_stream().cuda_stream or None)
        res["ours_gbs"] = nbytes / (bench(ours) * 1e-3) / 1e9
        res["dense_gbs"] = nbytes / (bench(dense) * 1e-3) / 1e9
        try:
            from flash_attn import flash_attn_with_kvcache
            qf = q.transpose(1, 2).contiguous()
            if page and page % 256 == 0 or not page:
                kf = kc.transpose(1, 2) if page else kd.transpose(1, 2)
                vf = vc.transpose(1, 2) if page else vd.transpose(1, 2)

                def fa2():
                    flash_attn_with_kvcache(qf, kf, vf, cache_seqlens=lens_t,
                                            block_table=table, causal=causal)
                res["fa2_gbs"] = nbytes / (bench(fa2) * 1e-3) / 1e9
        except Exception as e:  # noqa: BLE001 - a missing peer is noted
            res["fa2_note"] = f"{type(e).__name__}: {str(e)[:60]}"
        # FlashAttention-4 over the same cache: K/V in [pages, page, Hkv, D]
        # (or [B, cap, Hkv, D]) storage, seqused_k = lens. Every page of a
        # timed sequence is full (lens = cap), so no NaN row is read.
        qf = q.transpose(1, 2)
        kf = kc.transpose(1, 2)
        vf = vc.transpose(1, 2)
        res_f = {}
        time_fa4(res_f, lambda m: m.flash_attn_varlen_func(
            qf, kf, vf, seqused_k=lens_t, page_table=table, causal=causal),
            ours=o.transpose(1, 2))
        if "fa4_ms" in res_f:
            res["fa4_gbs"] = nbytes / (res_f.pop("fa4_ms") * 1e-3) / 1e9
        res.update(res_f)
    res["ok"] = not problems
    res["error"] = "; ".join(problems)
    return res


def run_varlen(rt, job, seed):
    import itertools
    import torch
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    tdtype = {"bf16": torch.bfloat16, "f16": torch.float16}[job["dtype"]]
    Hq, Hkv, D, causal = job["Hq"], job["Hkv"], job["D"], job["causal"]
    lq, lk = job["lens_q"], job["lens_k"]
    tq, tk = sum(lq), sum(lk)

    def rand(*shape):
        return torch.randn(*shape, device="cuda", generator=gen,
                           dtype=torch.float32).to(tdtype)
    q, k, v = rand(tq, Hq, D), rand(tk, Hkv, D), rand(tk, Hkv, D)
    o = torch.full((tq, Hq, D), float("nan"), device="cuda", dtype=tdtype)
    lse = torch.full((Hq, tq), float("nan"), device="cuda",
                     dtype=torch.float32)
    cu_q = torch.tensor([0] + list(itertools.accumulate(lq)),
                        dtype=torch.int32, device="cuda")
    cu_k = torch.tensor([0] + list(itertools.accumulate(lk)),
                        dtype=torch.int32, device="cuda")
    stream = torch.cuda.current_stream().cuda_stream or None
    torch.cuda.synchronize()
    rt.forward_varlen(q, k, v, o, cu_q, cu_k, max(lq), max(lk), lse,
                      causal=causal, stream=stream)
    torch.cuda.synchronize()
    res = dict(kernel=rt.last_kernel())
    problems, worst_o, worst_l = [], 0.0, 0.0
    q0 = k0 = 0
    for s, (nq, nk) in enumerate(zip(lq, lk)):
        ob = o[q0:q0 + nq].double()
        lb = lse[:, q0:q0 + nq].double()
        if nq and nk == 0:
            if not (bool((ob == 0).all()) and bool(torch.isneginf(lb).all())):
                problems.append(f"sequence {s} (no keys): O != 0 or LSE "
                                f"!= -inf")
        elif nq:
            ro, rl = reference(q[q0:q0 + nq].transpose(0, 1)[None],
                               k[k0:k0 + nk].transpose(0, 1)[None],
                               v[k0:k0 + nk].transpose(0, 1)[None], causal,
                               1.0 / math.sqrt(D))
            ro, rl = ro[0].transpose(0, 1), rl[0]
            if torch.isnan(ob).any() or torch.isnan(lb).any():
                problems.append(f"sequence {s}: NaN in O or LSE")
            else:
                fin = torch.isfinite(rl)
                worst_o = max(worst_o, float((ob - ro).norm()
                                             / ro.norm().clamp(min=1e-30)))
                if fin.any():
                    worst_l = max(worst_l, float(
                        (lb[fin] - rl[fin]).norm()
                        / rl[fin].norm().clamp(min=1e-30)))
        q0, k0 = q0 + nq, k0 + nk
    res["o_rel"], res["lse_rel"] = worst_o, worst_l
    if worst_o >= 1e-2:
        problems.append(f"o relative error {worst_o:.3g} >= 1e-2")
    if worst_l >= 1e-3:
        problems.append(f"lse relative error {worst_l:.3g} >= 1e-3")
    if job["time"]:
        B, n = len(lq), lq[0]
        pairs = n * n / 2 if causal else n * n
        flops = 4.0 * B * Hq * pairs * D

        def ours():
            rt.forward_varlen(q, k, v, o, cu_q, cu_k, n, n, None,
                              causal=causal, check=False,
                              stream=torch.cuda.current_stream().cuda_stream
                              or None)
        qd = q.view(B, n, Hq, D).transpose(1, 2)
        kd = k.view(B, n, Hkv, D).transpose(1, 2)
        vd = v.view(B, n, Hkv, D).transpose(1, 2)
        od = o.view(B, n, Hq, D).transpose(1, 2)

        def dense():
            rt.forward(qd, kd, vd, od, None, causal=causal,
                       stream=torch.cuda.current_stream().cuda_stream or None)
        res["ours_tflops"] = flops / (bench(ours) * 1e-3) / 1e12
        res["dense_tflops"] = flops / (bench(dense) * 1e-3) / 1e12
        res_f = {}
        time_fa4(res_f, lambda m: m.flash_attn_varlen_func(
            q, k, v, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k, max_seqlen_q=n,
            max_seqlen_k=n, causal=causal), ours=o)
        if "fa4_ms" in res_f:
            res["fa4_tflops"] = flops / (res_f.pop("fa4_ms") * 1e-3) / 1e12
        res.update(res_f)
    res["ok"] = not problems
    res["error"] = "; ".join(problems)
    return res


def worker(args, jobs):
    """Runs jobs[start:] and appends one JSON line per event to args.results:
    {"start": i} before job i, then {"done": i, ...}."""
    import torch

    def emit(obj):
        with open(args.results, "a") as f:
            f.write(json.dumps(obj) + "\n")
            f.flush()

    try:
        rt = AttnRuntime(args.lib, args.bundle)
        torch.cuda.init()
    except Exception as e:  # noqa: BLE001
        emit({"fatal": f"{type(e).__name__}: {e}"})
        return 2
    for i in range(args.start, len(jobs)):
        job = jobs[i]
        emit({"start": i})
        seed = args.seed + i
        try:
            fn = {"timing": run_timing, "api": run_api,
                  "correctness": run_correctness,
                  "decode": run_decode, "large": run_large,
                  "kvcache": run_kvcache, "varlen": run_varlen,
                  "fp8_timing": run_fp8_timing,
                  "bias_timing": run_bias_timing}[job["kind"]]
            res = fn(rt, job, seed)
        except Exception as e:  # noqa: BLE001
            msg = f"{type(e).__name__}: {e}"
            # ATTN_ERROR_UNSUPPORTED, or ATTN_ERROR_NOT_IN_BUNDLE for a case
            # whose kernel the shipped bundle leaves to libattn_jit.
            unsupported = isinstance(e, AttnError) and (
                e.status == 2 or (e.status == 8 and job.get("jit")))
            res = dict(ok=False, error=msg, unsupported=unsupported)
            if not unsupported and not isinstance(e, AttnError):
                res["traceback"] = traceback.format_exc(limit=3)
            emit(dict(done=i, seed=seed, **res))
            # A CUDA error is sticky: this process's context is gone.
            if "CUDA error" in msg or "illegal" in msg.lower():
                return 3
            torch.cuda.empty_cache()
            continue
        emit(dict(done=i, seed=seed, **res))
        torch.cuda.empty_cache()
    return 0


# --------------------------------------------------------------------------
# Parent side
# --------------------------------------------------------------------------

def run_jobs(args, jobs, results_path):
    """Runs the jobs in worker processes, restarting after crashes/hangs."""
    results = {}
    start = 0
    open(results_path, "w").close()
    seen_lines = 0
    while start < len(jobs):
        cmd = [sys.executable, os.path.abspath(__file__), "--worker",
               "--start", str(start), "--results", results_path,
               "--lib", args.lib, "--seed", str(args.seed)]
        if args.bundle:
            cmd += ["--bundle", args.bundle]
        if args.quick:
            cmd.append("--quick")
        if args.only:
            cmd += ["--only", args.only]
        if args.timing_n:
            cmd += ["--timing-n"] + [str(n) for n in args.timing_n]
        if args.timing_d:
            cmd += ["--timing-d"] + [str(d) for d in args.timing_d]
        if args.timing_dtypes:
            cmd += ["--timing-dtypes"] + args.timing_dtypes
        if args.timing_lse:
            cmd.append("--timing-lse")
        if args.bias_dtypes:
            cmd += ["--bias-dtypes"] + args.bias_dtypes
        cmd += ["--decode-d"] + [str(d) for d in args.decode_d]
        proc = subprocess.Popen(cmd)
        current, last_event = None, time.time()
        fatal = None
        while True:
            rc = proc.poll()
            with open(results_path) as f:
                lines = f.read().splitlines()
            for line in lines[seen_lines:]:
                ev = json.loads(line)
                last_event = time.time()
                if "fatal" in ev:
                    fatal = ev["fatal"]
                elif "start" in ev:
                    current = ev["start"]
                else:
                    i = ev.pop("done")
                    results[i] = ev
                    current = None
                    report(i, jobs[i], ev)
            seen_lines = len(lines)
            if rc is not None:
                break
            if current is not None and \
                    time.time() - last_event > args.case_timeout:
                proc.kill()
                proc.wait()
                results[current] = dict(
                    ok=False, error=f"timed out after {args.case_timeout} s "
                    "(hang?)")
                report(current, jobs[current], results[current])
                current = None
                break
            time.sleep(0.2)
        if fatal:
            return results, fatal
        if current is not None:  # died inside a job
            results[current] = dict(
                ok=False, error=f"worker died (exit code {proc.returncode})")
            report(current, jobs[current], results[current])
        done = [i for i in results if i >= start]
        start = (max(done) + 1) if done else start + 1
    return results, None


def report(i, job, res):
    if job["kind"] == "api":
        msg = ("ok  " if res.get("ok") else "FAILED: " + res.get("error", "")
               + " | ") + res.get("note", "")
    elif job["kind"] == "bias_timing":
        msg = ("TFLOP/s " + ", ".join(
            f"{n} {res[n + '_tflops']:.0f}" for n in
            ("ours", "cudnn", "efficient") if n + "_tflops" in res) +
            f"  {res.get('kernel', '')}" if res.get("ok")
            else "FAILED: " + res.get("error", ""))
    elif job["kind"] == "fp8_timing":
        msg = (f"TFLOP/s fp8 {res['fp8_tflops']:.0f}, bf16 "
               f"{res['bf16_tflops']:.0f} ({res['fp8_over_bf16']:.2f}x)  "
               f"{res.get('kernel', '')}" if res.get("ok")
               else ("UNSUPPORTED: " if res.get("unsupported") else
                     "FAILED: ") + res.get("error", ""))
    elif job["kind"] == "timing":
        if res.get("ok"):
            parts = [f"{n} {res[n + '_tflops']:.0f}" for n in
                     ("ours", "fa2", "cudnn", "fa4") if n + "_tflops" in res]
            msg = "TFLOP/s " + ", ".join(parts)
            for n in ("fa2", "cudnn", "fa4"):
                if f"ours_vs_{n}_rel" in res:
                    msg += f"; ours vs {n} rel {res[f'ours_vs_{n}_rel']:.1e}"
        else:
            msg = "FAILED: " + res.get("error", "")
    elif job["kind"] == "large":
        msg = (("ok  " if res.get("ok") else "FAILED: " + res.get("error", "")
                + " | ")
               + (f"worst sampled row: o rel {res['o_rel']:.2e}, lse rel "
                  f"{res['lse_rel']:.1e}; {res['tflops']:.0f} TFLOP/s "
                  f"(one call)  {res.get('kernel', '')}"
                  if "o_rel" in res else ""))
    elif job["kind"] == "varlen":
        msg = ("ok  " if res.get("ok") else "FAILED: " + res.get("error", "")
               + " | ") + (f"o rel {res['o_rel']:.2e}, lse rel "
                           f"{res['lse_rel']:.1e}" if "o_rel" in res else "")
        if "ours_tflops" in res:
            msg += (f"; TFLOP/s ours {res['ours_tflops']:.0f}, dense batch "
                    f"{res['dense_tflops']:.0f}")
            if "fa4_tflops" in res:
                msg += f", FA4 {res['fa4_tflops']:.0f}"
        msg += f"  {res.get('kernel', '')}"
    elif job["kind"] == "kvcache":
        msg = ("ok  " if res.get("ok") else "FAILED: " + res.get("error", "")
               + " | ") + (f"o rel {res['o_rel']:.2e}, lse rel "
                           f"{res['lse_rel']:.1e}" if "o_rel" in res else "")
        if "ours_gbs" in res:
            msg += "; GB/s " + ", ".join(
                f"{n} {res[n + '_gbs']:.0f}" for n in ("ours", "dense", "fa2",
                                                       "fa4")
                if n + "_gbs" in res)
        msg += f"  {res.get('kernel', '')}"
    elif job["kind"] == "decode":
        if "ours_gbs" in res:
            parts = [f"{n} {res[n + '_gbs']:.0f}" for n in
                     ("ours", "fa2", "cudnn", "fa4") if n + "_gbs" in res]
            msg = "GB/s " + ", ".join(parts) + f"  {res.get('kernel', '')}"
            if not res.get("ok"):
                msg = "FAILED: " + res.get("error", "") + " | " + msg
        else:
            msg = "FAILED: " + res.get("error", "")
    elif res.get("ok"):
        msg = (f"ok  o rel {res['o_rel']:.2e}"
               + (f" ({res['o_tied_rows']} near-tied rows not compared)"
                  if res.get("o_tied_rows") else "")
               + (f", lse rel {res['lse_rel']:.1e}" if "lse_rel" in res
                  else "") + f"  {res.get('kernel', '')}")
    elif res.get("unsupported"):
        msg = "UNSUPPORTED: " + res.get("error", "")
    else:
        msg = "FAILED: " + res.get("error", "")
    print(f"[{i + 1:3d}] {describe(job):60s} {msg}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", default="build-gpu/lib/libattn_runtime_c.so",
                    help="the runtime's C API shared library")
    ap.add_argument("--bundle", default=os.environ.get("ATTN_BUNDLE_DIR"),
                    help="kernel bundle directory (default: the runtime's)")
    ap.add_argument("--out", default="gpu_check.json",
                    help="JSON of all rows (a CSV of the timing rows is "
                    "written beside it)")
    ap.add_argument("--seed", type=int, default=None,
                    help="repeat a run's inputs (default: fresh)")
    ap.add_argument("--quick", action="store_true",
                    help="fewer cases and timing points")
    ap.add_argument("--only",
                    choices=("correctness", "timing", "decode", "large",
                             "kvcache", "varlen", "fp8", "dropout",
                             "bias"),
                    help="one part: the correctness sweep, the forward "
                    "timing, decoding (its correctness cases and timing), "
                    "the 2^31-element problem, fp8 (its correctness "
                    "cases and timing), dropout or a score bias (their "
                    "correctness cases)")
    ap.add_argument("--bias-dtypes", nargs="+", choices=("bf16", "f32"),
                    help="the bias timing's bias types (default: bf16)")
    ap.add_argument("--timing-n", type=int, nargs="+",
                    help="sequence lengths to time (default: 512..16k)")
    ap.add_argument("--timing-d", type=int, nargs="+",
                    help="head dims to time (default: 64 128 256)")
    ap.add_argument("--timing-dtypes", nargs="+", choices=("bf16", "f16"),
                    help="dtypes to time (default: bf16)")
    ap.add_argument("--decode-d", type=int, nargs="+", default=[64, 128],
                    help="head dims of the timed decode steps (default 64 "
                    "128)")
    ap.add_argument("--timing-lse", action="store_true",
                    help="time attn writing the log-sum-exp too (SDPA's "
                    "forward computes it either way)")
    ap.add_argument("--mosaic", metavar="JSON",
                    help="Mosaic GPU's times (tools/scripts/bench_mosaic.py "
                    "--out): a column beside the matching timing rows")
    ap.add_argument("--case-timeout", type=float, default=300,
                    help="seconds without progress before a case counts as "
                    "hung")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--results", help=argparse.SUPPRESS)
    args = ap.parse_args()

    jobs = []
    if args.only in (None, "correctness"):
        jobs += correctness_cases(args.quick) + api_checks()
    if args.only == "fp8":
        jobs += [c for c in correctness_cases(args.quick)
                 if c["dtype"] == "e4m3"]
    if args.only == "dropout":
        jobs += [c for c in correctness_cases(args.quick) if c.get("dropout")]
    if args.only == "bias":
        jobs += [c for c in correctness_cases(args.quick) if c.get("bias")]
    if args.only in (None, "correctness", "decode"):
        jobs += decode_cases(args.quick)
    if args.only in (None, "correctness", "decode", "kvcache"):
        jobs += kvcache_cases(args.quick)
    if args.only in (None, "correctness", "varlen", "kvcache"):
        jobs += varlen_cases(args.quick)
    if args.only in (None, "correctness", "large"):
        jobs += large_cases(args.quick)
    if args.only in (None, "timing"):
        jobs += timing_configs(args.quick, args.timing_n, args.timing_d,
                               args.timing_dtypes, args.timing_lse)
    if args.only in (None, "decode"):
        jobs += decode_configs(args.quick, args.decode_d)
    if args.only in (None, "timing", "fp8"):
        jobs += fp8_timing_configs(args.quick, args.timing_n)
    if args.only in (None, "bias"):
        jobs += bias_timing_configs(args.quick, bias_dtypes=args.bias_dtypes,
                                    ds=args.timing_d)
    if args.worker:
        return worker(args, jobs)

    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1 << 31)
    args.lib = os.path.abspath(args.lib)
    if args.bundle:
        args.bundle = os.path.abspath(args.bundle)
    import torch
    dev = torch.cuda.get_device_name(0) if torch.cuda.is_available() \
        else "no GPU"
    print(f"gpu_check: {dev}, torch {torch.__version__}, seed {args.seed} "
          f"(--seed {args.seed} repeats this run), {len(jobs)} jobs",
          flush=True)

    results_path = os.path.abspath(args.out) + ".events"
    results, fatal = run_jobs(args, jobs, results_path)
    if fatal:
        print(f"gpu_check: cannot use the runtime: {fatal}", flush=True)
        return 2

    rows = []
    for i, job in enumerate(jobs):
        r = results.get(i, dict(ok=False, error="not run"))
        rows.append(dict(job, **r))
    corr = [r for r in rows
            if r["kind"] in ("correctness", "api", "large", "kvcache",
                             "varlen")]
    timing = [r for r in rows if r["kind"] == "timing"]
    fp8_timing = [r for r in rows if r["kind"] == "fp8_timing"]
    bias_timing = [r for r in rows if r["kind"] == "bias_timing"]
    decode = [r for r in rows if r["kind"] == "decode"]
    # A decode row whose output disagrees with SDPA is a correctness failure.
    failed = [r for r in corr + decode + bias_timing
              if not r["ok"] and not r.get("unsupported")]
    unsupported = [r for r in corr if r.get("unsupported")]
    if args.mosaic and timing:
        try:
            with open(args.mosaic) as f:
                mrows = json.load(f).get("rows", [])
        except (OSError, ValueError) as e:
            print(f"gpu_check: no Mosaic GPU column: {args.mosaic}: {e}")
            mrows = []
        for r in timing:
            for m in mrows:
                if (m.get("dtype"), m.get("D"), m.get("causal"), m.get("N")) \
                        == (r["dtype"], r["D"], r["causal"], r["N"]) \
                        and "tflops" in m:
                    r["mosaic_tflops"] = m["tflops"]
    for r in timing:
        for n in ("fa2", "cudnn", "mosaic", "fa4"):
            if "ours_tflops" in r and f"{n}_tflops" in r:
                r[f"ours_over_{n}"] = r["ours_tflops"] / r[f"{n}_tflops"]
        best = best_peer(r, "tflops")
        if best and "ours_tflops" in r:
            r["ours_over_best"] = r["ours_tflops"] / best

    with open(args.out, "w") as f:
        json.dump(dict(device=dev, torch=torch.__version__, seed=args.seed,
                       correctness=corr, timing=timing, decode=decode,
                       fp8_timing=fp8_timing, bias_timing=bias_timing),
                  f, indent=1)
    csv_path = os.path.splitext(args.out)[0] + ".csv"
    cols = ["dtype", "D", "causal", "N", "B", "H", "ours_tflops",
            "fa2_tflops", "cudnn_tflops", "fa4_tflops", "mosaic_tflops",
            "ours_over_fa2", "ours_over_cudnn", "ours_over_fa4",
            "ours_over_best", "ours_over_mosaic", "ours_ms", "fa2_ms",
            "cudnn_ms", "fa4_ms", "ours_vs_fa2_rel", "ours_vs_fa4_rel",
            "fa4_first_s", "kernel", "error"]
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in timing:
            w.writerow(r)
    try:
        os.remove(results_path)
    except OSError:
        pass

    print()
    print(f"correctness: {len(corr) - len(failed) - len(unsupported)} passed,"
          f" {len(failed)} failed, {len(unsupported)} unsupported by the "
          f"bundle (of {len(corr)}); seed {args.seed}")
    for r in failed:
        print(f"  FAILED {describe(r)}: {r.get('error', '')}")
    for r in unsupported[:5]:
        print(f"  unsupported {describe(r)}: {r.get('error', '')}")
    print(f"rows written to {args.out} and {csv_path}")
    fa4_msgs = [r.get("fa4_error") or r.get("fa4_note") for r in rows
                if r.get("fa4_error") or r.get("fa4_note")]
    if fa4_msgs:
        print(f"FA4: {len(fa4_msgs)} rows without it: {fa4_msgs[0]}")
    def fmt(r, key, spec):
        return format(r[key], spec) if key in r else "-"

    def ratio_of(r, a, b):
        return format(r[a] / r[b], "6.2f") if a in r and r.get(b) else "-"
    for dtype in dict.fromkeys(r["dtype"] for r in timing):
        rows_d = [r for r in timing if r["dtype"] == dtype]
        mosaic = any("mosaic_tflops" in r for r in rows_d)
        print()
        with_lse = ", attn writing LSE" if args.timing_lse else ""
        print(f"{dtype} forward, B*N = 16384, H*D = 2048, {dev} (TFLOP/s; "
              f"causal FLOPs halved{with_lse})")
        hdr = (f"{'D':>4} {'mask':>6} {'N':>6} {'ours':>7} {'FA2':>7} "
               f"{'cuDNN':>7} {'FA4':>7}" +
               (f" {'Mosaic':>7}" if mosaic else "") +
               f" {'ours/FA2':>9} {'ours/cuDNN':>11} {'ours/FA4':>9}"
               f" {'ours/best':>10}" +
               (f" {'ours/Mosaic':>12}" if mosaic else ""))
        print(hdr)
        print("-" * len(hdr))
        for r in rows_d:
            print(f"{r['D']:>4} {'causal' if r['causal'] else 'full':>6} "
                  f"{r['N']:>6} {fmt(r, 'ours_tflops', '7.1f'):>7} "
                  f"{fmt(r, 'fa2_tflops', '7.1f'):>7} "
                  f"{fmt(r, 'cudnn_tflops', '7.1f'):>7} "
                  f"{fmt(r, 'fa4_tflops', '7.1f'):>7}" +
                  (f" {fmt(r, 'mosaic_tflops', '7.1f'):>7}" if mosaic
                   else "") +
                  f" {fmt(r, 'ours_over_fa2', '9.2f'):>9} "
                  f"{fmt(r, 'ours_over_cudnn', '11.2f'):>11} "
                  f"{fmt(r, 'ours_over_fa4', '9.2f'):>9} "
                  f"{fmt(r, 'ours_over_best', '10.2f'):>10}" +
                  (f" {fmt(r, 'ours_over_mosaic', '12.2f'):>12}" if mosaic
                   else ""))
    fp8_rows = [r for r in fp8_timing if r.get("ok")]
    if fp8_rows:
        print()
        print(f"fp8 (e4m3) forward, V transposed, bf16 O, B*N = 16384, "
              f"H*D = 2048, {dev} (TFLOP/s; attn's own bf16 kernel beside "
              f"it, mirrored order; SDPA and FA4 have no fp8 on sm_90)")
        hdr = (f"{'D':>4} {'mask':>6} {'N':>6} {'fp8':>7} {'bf16':>7} "
               f"{'fp8/bf16':>9}  kernel")
        print(hdr)
        print("-" * len(hdr))
        for r in fp8_rows:
            print(f"{r['D']:>4} {'causal' if r['causal'] else 'full':>6} "
                  f"{r['N']:>6} {r['fp8_tflops']:>7.1f} "
                  f"{r['bf16_tflops']:>7.1f} {r['fp8_over_bf16']:>9.2f}  "
                  f"{r.get('kernel', '')}")
    bias_rows = [r for r in bias_timing if r.get("ok")]
    if bias_rows:
        print()
        print(f"A score bias [1, H, N, N], bf16, H·D = 2048, not causal, "
              f"{dev} (TFLOP/s; SDPA's kernels with the bias as a bf16 "
              f"attn_mask)")
        hdr = (f"{'bias':>5} {'D':>4} {'N':>6} {'B':>3} {'ours':>7} "
               f"{'cudnn':>7} "
               f"{'effic.':>7} {'/cudnn':>7} {'/effic.':>8}  kernel")
        print(hdr)
        print("-" * len(hdr))
        for r in bias_rows:
            def col(n):
                return (f"{r[n + '_tflops']:>7.1f}" if n + "_tflops" in r
                        else f"{'-':>7}")

            def over(n, w):
                return (f"{r['ours_tflops'] / r[n + '_tflops']:>{w}.2f}"
                        if n + "_tflops" in r else f"{'-':>{w}}")
            print(f"{r['bias_dtype']:>5} {r['D']:>4} {r['N']:>6} {r['B']:>3} "
                  f"{col('ours')} {col('cudnn')} "
                  f"{col('efficient')} {over('cudnn', 7)} "
                  f"{over('efficient', 8)}  {r.get('kernel', '')}")
    prefill = [r for r in decode if r["Nq"] > 16]
    spec = [r for r in decode if 1 < r["Nq"] <= 16]
    decode = [r for r in decode if r["Nq"] == 1]

    def ratio(r, kind):
        best = best_peer(r, f"{kind}gbs")
        if not best or f"ours_{kind}gbs" not in r:
            return "-"
        return format(r[f"ours_{kind}gbs"] / best, "6.2f")

    def gbs_table(title, keys, rows):
        """GB/s back to back and in graphs, beside the peers; `keys` the
        leading columns (name, width)."""
        print()
        print(title)
        hdr = (" ".join(f"{k:>{w}}" for k, w in keys) + " |".join(
            f" {'ours':>6} {'FA2':>6} {'cuDNN':>6} {'FA4':>6} {'/best':>6}"
            for _ in range(2)) + "  kernel")
        print(hdr)
        print("-" * len(hdr))
        for r in rows:
            cols = " | ".join(
                f"{fmt(r, f'ours_{k}gbs', '6.0f'):>6} "
                f"{fmt(r, f'fa2_{k}gbs', '6.0f'):>6} "
                f"{fmt(r, f'cudnn_{k}gbs', '6.0f'):>6} "
                f"{fmt(r, f'fa4_{k}gbs', '6.0f'):>6} {ratio(r, k):>6}"
                for k in ("", "graph_"))
            lead = " ".join(f"{r[k]:>{w}}" for k, w in keys)
            print(f"{lead} {cols}  {r.get('kernel', '')}")
    if decode:
        gbs_table(f"decode, bf16, GQA 32:8, one query row, [B, N, H, D] "
                  f"storage, {dev} (GB/s of K, V, Q and O; calls back to "
                  f"back, then in a CUDA graph of 20 calls)",
                  (("D", 3), ("B", 3), ("Nk", 6)), decode)
    if spec:
        gbs_table(f"speculative decoding, bf16, GQA 32:8, D 128, causal "
                  f"(bottom-right), [B, N, H, D] storage, {dev} (GB/s of K, "
                  f"V, Q and O; back to back, then in a CUDA graph of 20 "
                  f"calls)", (("B", 3), ("Nq", 3), ("Nk", 6)), spec)
    if prefill:
        print()
        print(f"serving prefill, bf16, GQA 32:8, D 128, causal (bottom-right), "
              f"{dev} (TFLOP/s, back to back)")
        hdr = (f"{'Nq':>5} {'Nk':>6} {'ours':>6} {'FA2':>6} {'cuDNN':>6} "
               f"{'FA4':>6} {'/best':>6}  kernel")
        print(hdr)
        print("-" * len(hdr))
        for r in prefill:
            best = best_peer(r, "tflops")
            rat = (format(r["ours_tflops"] / best, "6.2f")
                   if best and "ours_tflops" in r else "-")
            print(f"{r['Nq']:>5} {r['Nk']:>6} "
                  f"{fmt(r, 'ours_tflops', '6.1f'):>6} "
                  f"{fmt(r, 'fa2_tflops', '6.1f'):>6} "
                  f"{fmt(r, 'cudnn_tflops', '6.1f'):>6} "
                  f"{fmt(r, 'fa4_tflops', '6.1f'):>6} {rat:>6}  "
                  f"{r.get('kernel', '')}")
    cache = [r for r in rows if r["kind"] == "kvcache" and r.get("time")
             and "ours_gbs" in r]
    if cache:
        print()
        print(f"decode over a KV cache, bf16, GQA 32:8, D 128, one query row, "
              f"{dev} (GB/s of K, V, Q and O, back to back; dense: the same "
              f"step on a dense cache)")
        hdr = (f"{'B':>3} {'Nk':>6} {'cache':>10} {'ours':>6} {'dense':>6} "
               f"{'FA4':>6} {'/dense':>6} {'/FA4':>6}  kernel")
        print(hdr)
        print("-" * len(hdr))
        for r in cache:
            kind = f"page {r['page']}" if r["page"] else "seqlens"
            print(f"{r['B']:>3} {r['cap']:>6} {kind:>10} "
                  f"{r['ours_gbs']:>6.0f} {r['dense_gbs']:>6.0f} "
                  f"{fmt(r, 'fa4_gbs', '6.0f'):>6} "
                  f"{r['ours_gbs'] / r['dense_gbs']:>6.2f} "
                  f"{ratio_of(r, 'ours_gbs', 'fa4_gbs'):>6}  "
                  f"{r.get('kernel', '')}")
    packed = [r for r in rows if r["kind"] == "varlen" and r.get("time")
              and "ours_tflops" in r]
    if packed:
        print()
        print(f"packed batches (varlen), bf16, GQA 32:8, D 128, {dev} "
              f"(TFLOP/s; dense: the same tokens as a dense batch)")
        hdr = (f"{'seqs':>4} {'len':>5} {'mask':>6} {'ours':>6} {'dense':>6} "
               f"{'FA4':>6} {'/dense':>6} {'/FA4':>6}  kernel")
        print(hdr)
        print("-" * len(hdr))
        for r in packed:
            print(f"{len(r['lens_q']):>4} {r['lens_q'][0]:>5} "
                  f"{'causal' if r['causal'] else 'full':>6} "
                  f"{r['ours_tflops']:>6.0f} {r['dense_tflops']:>6.0f} "
                  f"{fmt(r, 'fa4_tflops', '6.0f'):>6} "
                  f"{r['ours_tflops'] / r['dense_tflops']:>6.2f} "
                  f"{ratio_of(r, 'ours_tflops', 'fa4_tflops'):>6}  "
                  f"{r.get('kernel', '')}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
