"""attn from PyTorch: a torch.autograd.Function over attn's C API.

    import attn_torch
    rt = attn_torch.Runtime("build-gpu/lib/libattn_runtime_c.so")
    o = attn_torch.attention(rt, q, k, v, causal=True)   # q: [B, N, Hq, D]
    o.sum().backward()                                   # dq, dk, dv by attn

The forward is attn_forward (with the LSE, which the backward reads); the
backward is attn_backward (dQ, dK, dV from dO, Q, K, V, O and the LSE:
deterministic, GQA's dK/dV summed over each group). Tensors are CUDA f16 or
bf16 in FlashAttention's [batch, seq, heads, head_dim] layout (any strides
whose last dim is contiguous and the others multiples of 16 bytes); attn
reads them in place through their strides, nothing is copied. Kernels run on
torch's current stream.

No compiled extension: the C API through ctypes (the structs below mirror
runtime/include/attn/runtime/attn.h, C API version 3).
"""

import ctypes
import os

import torch

C_API_VERSION = 4
_DTYPES = {torch.float16: 1, torch.bfloat16: 2}


class _Strides(ctypes.Structure):
    _fields_ = [("batch", ctypes.c_int64), ("head", ctypes.c_int64),
                ("seq", ctypes.c_int64), ("dim", ctypes.c_int64)]


class _Problem(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int32), ("causal", ctypes.c_int32),
                ("with_lse", ctypes.c_int32), ("reserved", ctypes.c_int32),
                ("batch", ctypes.c_int64), ("heads_q", ctypes.c_int64),
                ("heads_kv", ctypes.c_int64), ("seq_q", ctypes.c_int64),
                ("seq_k", ctypes.c_int64), ("head_dim", ctypes.c_int64),
                ("head_dim_v", ctypes.c_int64), ("scale", ctypes.c_double),
                ("q", _Strides), ("k", _Strides), ("v", _Strides),
                ("o", _Strides)]


class _GradStrides(ctypes.Structure):
    _fields_ = [("d_o", _Strides), ("dq", _Strides), ("dk", _Strides),
                ("dv", _Strides)]


class _Variant(ctypes.Structure):
    # attn_variant: window_left/right (-1: no bound), softcap (0: none),
    # reserved, alibi_slopes (a device pointer or NULL), dropout (rate 0:
    # none; the Philox key and offset of the mask), a score bias (NULL:
    # none; its dims 1 then; this module trains without one: the backward
    # has no bias yet).
    _fields_ = [("window_left", ctypes.c_int64),
                ("window_right", ctypes.c_int64),
                ("softcap", ctypes.c_float), ("reserved", ctypes.c_int32),
                ("alibi_slopes", ctypes.c_void_p),
                ("dropout_p", ctypes.c_float),
                ("dropout_offset", ctypes.c_uint32),
                ("dropout_seed", ctypes.c_uint64),
                ("bias", ctypes.c_void_p), ("bias_dtype", ctypes.c_int32),
                ("reserved2", ctypes.c_int32),
                ("bias_batch", ctypes.c_int64),
                ("bias_heads", ctypes.c_int64),
                ("bias_strides", _Strides)]


class _Options(ctypes.Structure):
    _fields_ = [("bundle_dir", ctypes.c_char_p),
                ("driver_library", ctypes.c_char_p)]


class AttnError(RuntimeError):
    pass


def _bhnd_strides(t):
    """attn's [batch, head, seq, dim] strides of a [B, N, H, D] tensor."""
    sb, sn, sh, sd = t.stride()
    return _Strides(sb, sh, sn, sd)


class Runtime:
    """One attn runtime (the kernels of its bundle, loaded on first use)."""

    def __init__(self, lib_path=None, bundle_dir=None, jit_lib_path=None):
        lib_path = lib_path or os.environ.get("ATTN_RUNTIME_LIB",
                                              "libattn_runtime_c.so")
        L = self.lib = ctypes.CDLL(lib_path)
        vp = ctypes.c_void_p
        L.attn_c_api_version.restype = ctypes.c_int
        L.attn_last_error_message.restype = ctypes.c_char_p
        L.attn_status_name.restype = ctypes.c_char_p
        L.attn_status_name.argtypes = [ctypes.c_int]
        L.attn_runtime_create.argtypes = [ctypes.POINTER(_Options),
                                          ctypes.POINTER(vp)]
        L.attn_runtime_destroy.argtypes = [vp]
        L.attn_forward.argtypes = [vp, ctypes.POINTER(_Problem), vp, vp, vp,
                                   vp, vp, vp]
        L.attn_backward.argtypes = [vp, ctypes.POINTER(_Problem),
                                    ctypes.POINTER(_GradStrides), vp, vp, vp,
                                    vp, vp, vp, vp, vp, vp, vp]
        for f in (L.attn_runtime_create, L.attn_forward, L.attn_backward):
            f.restype = ctypes.c_int
        if L.attn_c_api_version() != C_API_VERSION:
            raise AttnError(f"{lib_path}: C API version "
                            f"{L.attn_c_api_version()}, this module knows "
                            f"{C_API_VERSION}")
        # The variants' entry points (a library older than the backward of
        # variants lacks attn_backward_variant: attention() with a variant
        # then says so).
        self.variants = hasattr(L, "attn_backward_variant")
        if self.variants:
            L.attn_forward_variant.argtypes = [vp, ctypes.POINTER(_Problem),
                                               ctypes.POINTER(_Variant), vp,
                                               vp, vp, vp, vp, vp]
            L.attn_backward_variant.argtypes = [
                vp, ctypes.POINTER(_Problem), ctypes.POINTER(_Variant),
                ctypes.POINTER(_GradStrides), vp, vp, vp, vp, vp, vp, vp, vp,
                vp, vp]
            for f in (L.attn_forward_variant, L.attn_backward_variant):
                f.restype = ctypes.c_int
        opts = _Options(bundle_dir.encode() if bundle_dir else None, None)
        self.handle = vp()
        self._check(L.attn_runtime_create(ctypes.byref(opts),
                                          ctypes.byref(self.handle)))

    def __del__(self):
        if getattr(self, "handle", None):
            self.lib.attn_runtime_destroy(self.handle)
            self.handle = None

    def _check(self, status):
        if status != 0:
            raise AttnError(
                f"attn: {self.lib.attn_status_name(status).decode()}: "
                f"{self.lib.attn_last_error_message().decode()}")

    @staticmethod
    def _problem(q, k, v, o, causal, scale):
        if q.dtype not in _DTYPES:
            raise AttnError(f"attn: dtype {q.dtype} (f16 and bf16 only)")
        p = _Problem()
        p.dtype = _DTYPES[q.dtype]
        p.causal = int(causal)
        p.with_lse = 1
        p.batch, p.seq_q, p.heads_q, p.head_dim = q.shape
        p.seq_k, p.heads_kv = k.shape[1], k.shape[2]
        p.head_dim_v = v.shape[3]
        p.scale = scale
        p.q, p.k, p.v, p.o = (_bhnd_strides(t) for t in (q, k, v, o))
        return p

    def _variant(self, variant):
        """attn_variant of (window, softcap, alibi_slopes, dropout), or
        None for the plain problem; dropout is (rate, key, offset) or None."""
        window, softcap, slopes, dropout = variant or (None, None, None, None)
        if window is None and not softcap and slopes is None and not dropout:
            return None
        if not self.variants:
            raise AttnError("attn: this libattn_runtime_c has no "
                            "attn_backward_variant (a window, soft-cap, "
                            "ALiBi or dropout needs a newer one)")
        v = _Variant()
        v.bias_batch = v.bias_heads = 1  # no bias (attn_variant_init's)
        v.window_left, v.window_right = window if window else (-1, -1)
        v.softcap = float(softcap or 0)
        if dropout:
            v.dropout_p, v.dropout_seed, v.dropout_offset = dropout
        if slopes is not None:
            if slopes.dtype != torch.float32 or not slopes.is_contiguous():
                raise AttnError("attn: alibi slopes must be a contiguous f32 "
                                "tensor of Hq entries")
            v.alibi_slopes = slopes.data_ptr()
        return v

    def forward(self, q, k, v, causal, scale, variant=None):
        """O [B, Nq, Hq, Dv] and LSE [B, Hq, Nq] (f32); `variant` (window
        (L, R), softcap, alibi_slopes [Hq] f32) as attention()'s."""
        b, nq, hq, _ = q.shape
        o = torch.empty(b, nq, hq, v.shape[3], dtype=q.dtype, device=q.device)
        lse = torch.empty(b, hq, nq, dtype=torch.float32, device=q.device)
        p = self._problem(q, k, v, o, causal, scale)
        var = self._variant(variant)
        stream = torch.cuda.current_stream(q.device).cuda_stream
        ptrs = (q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(),
                lse.data_ptr(), stream)
        if var is None:
            self._check(self.lib.attn_forward(self.handle, ctypes.byref(p),
                                              *ptrs))
        else:
            self._check(self.lib.attn_forward_variant(
                self.handle, ctypes.byref(p), ctypes.byref(var), *ptrs))
        return o, lse

    def backward(self, do, q, k, v, o, lse, causal, scale, variant=None):
        """dQ, dK, dV (each shaped and laid out like what it differentiates)
        of the forward with the same `variant`."""
        dq, dk, dv = (torch.empty_like(t) for t in (q, k, v))
        p = self._problem(q, k, v, o, causal, scale)
        g = _GradStrides(*(_bhnd_strides(t) for t in (do, dq, dk, dv)))
        var = self._variant(variant)
        stream = torch.cuda.current_stream(q.device).cuda_stream
        ptrs = (do.data_ptr(), q.data_ptr(), k.data_ptr(), v.data_ptr(),
                o.data_ptr(), lse.data_ptr(), dq.data_ptr(), dk.data_ptr(),
                dv.data_ptr(), stream)
        if var is None:
            self._check(self.lib.attn_backward(
                self.handle, ctypes.byref(p), ctypes.byref(g), *ptrs))
        else:
            self._check(self.lib.attn_backward_variant(
                self.handle, ctypes.byref(p), ctypes.byref(var),
                ctypes.byref(g), *ptrs))
        return dq, dk, dv


def _inner_contiguous(t):
    """t with a contiguous last dim and 16-byte strides (what attn reads in
    place); a copy only where t is not already so."""
    es = t.element_size()
    if t.stride(-1) == 1 and all(s * es % 16 == 0 or n == 1
                                 for s, n in zip(t.stride()[:-1],
                                                 t.shape[:-1])):
        return t
    return t.contiguous()


class AttnFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, rt, causal, scale, variant):
        q, k, v = (_inner_contiguous(t) for t in (q, k, v))
        o, lse = rt.forward(q, k, v, causal, scale, variant)
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.rt, ctx.causal, ctx.scale = rt, causal, scale
        ctx.variant = variant
        return o

    @staticmethod
    def backward(ctx, do):
        q, k, v, o, lse = ctx.saved_tensors
        dq, dk, dv = ctx.rt.backward(_inner_contiguous(do), q, k, v, o, lse,
                                     ctx.causal, ctx.scale, ctx.variant)
        return dq, dk, dv, None, None, None, None


def attention(rt, q, k, v, causal=False, scale=None, window=None,
              softcap=None, alibi_slopes=None, dropout_p=0.0,
              generator=None):
    """softmax(scale·Q·Kᵀ)·V in FlashAttention's layout: q [B, Nq, Hq, D],
    k [B, Nk, Hkv, D], v [B, Nk, Hkv, Dv] -> [B, Nq, Hq, Dv]; GQA when
    Hq is a multiple of Hkv; causal aligned to the bottom-right corner;
    scale None: 1/sqrt(D). The forward's score variants, with their
    gradients: window (L, R) (FlashAttention's window_size, -1 for no
    bound), softcap C (C·tanh(S/C) of the scaled scores), alibi_slopes (a
    contiguous f32 CUDA tensor of Hq slopes: S − slope[h]·|i + Nk − Nq −
    j|; no gradient flows to it), dropout_p (each probability dropped with
    that rate, the kept ones scaled by 1/(1 − p); a fresh Philox key a call,
    drawn from `generator` (torch's default CPU one if None), and the
    backward drops the same ones)."""
    dropout = None
    if dropout_p:
        key = int(torch.randint(0, 2**62, (1,), generator=generator))
        dropout = (float(dropout_p), key, 0)
    variant = (tuple(window) if window is not None else None, softcap,
               alibi_slopes, dropout)
    return AttnFunction.apply(q, k, v, rt, bool(causal),
                              0.0 if scale is None else float(scale),
                              variant)
