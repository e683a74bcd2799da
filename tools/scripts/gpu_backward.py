#!/usr/bin/env python3
"""The backward pass (attn.attention_grad) on a GPU, from its PTX: build the
kernels here, run them on the device machine.

  python3 tools/scripts/gpu_backward.py build OUT [--chip sm_90a]
      [--dtypes bf16,f16] [--head-dims 64,128] [--opt PATH] [--codegen K=V]
      [--dq-accum] [--dropout] [--variant window=L,R|softcap=C|alibi]
          compiles attn.attention_grad problems (tensors with run-time
          strides, the scale a parameter; --dropout: dropout(p, seed,
          offset) as three more parameters, names ending in _dropout, each
          correctness case drawing its own and the reference applying the
          op's Philox mask; timed at p = 0.1 beside the peers' own dropout
          at that rate, FA4 left out; --variant: the forward's sliding
          window (L or R -1 for none), soft-cap or ALiBi (its slopes
          [Hq] f32 one more parameter, fresh each case), names ending in
          the variant, the reference applying it, timed at its visible
          pairs) with attn-opt --attn-codegen into
          OUT/<name>.ptx, each with its two kernels (grad_q: Δ and dQ per
          query block; grad_kv: dK and dV per key block) or, with
          --dq-accum (an f32 dQ workspace) where the tiling sums dQ with
          atomic adds, three (grad_prep: Δ and the workspace zeroed;
          grad_kv: dK, dV and dQ's sums; grad_q_out: dQ), and writes
          OUT/backward.json with what the launcher needs (the kernels'
          #attn.kernel_info: names, threads, shared memory, grids).

  python3 tools/scripts/gpu_backward.py run OUT [--ns 2048,4096,...]
      [--quick] [--no-timing]
          correctness: fresh random Q, K, V, dO (seed printed) in
          [B, N, H, D] storage, O and LSE from a float64 forward, dQ, dK, dV
          and Δ poisoned with NaN, both kernels launched in order; dQ, dK, dV
          against float64 autograd (relative error < 2e-2, no NaN, and at
          most 2x FlashAttention-2's own error on the same inputs where its
          mask is ours), Δ within 1e-3, and a second run bit-identical (dQ
          exempt where summed with atomics). Shapes: GQA,
          Nq != Nk (causal rows that see no key), lengths that are not
          multiples of the blocks.
          timing (bf16, B·N = 16384, H·D = 2048, causal and not): median of
          CUDA events over back-to-back calls, beside torch SDPA's
          FlashAttention-2 and cuDNN backward and FA4 (flash_attn.cute, with
          ATTN_FA4_SITE) through autograd, TFLOP/s at 2.5x the forward's
          FLOPs (half when causal). Prints a table last.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

PROBLEM = """
!t = memref<?x?x?x{d}x{t}, strided<[?, ?, ?, 1], offset: ?>>
!r = memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
!w = memref<?x?x?x{d}xf32>
func.func @attention_grad(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t, %lse: !r,
                          %dq: !t, %dk: !t, %dv: !t, %delta: !r,{ws_arg}
                          %scale: f32{drop_arg}{var_arg}) {{
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta){ws_use} scale(%scale){drop_use}{var_use} {attrs}
      : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}}
"""

ARGS = ["do", "q", "k", "v", "o", "lse", "dq", "dk", "dv", "delta", "scale"]
# With a dQ workspace (--dq-accum): [B, Hq, Nq, D] f32, contiguous.
ARGS_WS = ARGS[:-1] + ["ws", "scale"]
# With dropout (--dropout): the forward's rate, Philox key and offset last.
DROPOUT_ARGS = ["dropout_p", "seed", "offset"]
# With ALiBi (--variant alibi): its slopes [Hq], after everything else.
ALIBI_ARGS = ["slopes"]


def parse_variant(text):
    """--variant's value as the entry's "variant" dict ({} for none)."""
    if not text:
        return {}
    if text == "alibi":
        return {"alibi": True}
    key, _, val = text.partition("=")
    if key == "window":
        left, right = (int(x) for x in val.split(","))
        return {"window": [left, right]}
    if key == "softcap":
        return {"softcap": float(val)}
    sys.exit(f"--variant {text}: expected window=L,R, softcap=C or alibi")


def variant_suffix(var):
    if "window" in var:
        return "_w{}_{}".format(*(x if x >= 0 else "n" for x in var["window"]))
    if "softcap" in var:
        return f"_cap{var['softcap']:g}"
    return "_alibi" if var.get("alibi") else ""


def variant_attrs(var, causal):
    """The op's attributes of the variant (causal excludes window_right)."""
    out = []
    if "window" in var:
        left, right = var["window"]
        if left >= 0:
            out.append(f"window_left = {left}")
        if right >= 0 and not causal:
            out.append(f"window_right = {right}")
    if "softcap" in var:
        out.append(f"softcap = {float(var['softcap'])!r} : f32")
    return out


# The grids of each form, in launch order.
PROGRAMS = (["grad_q", "grad_kv"], ["grad_prep", "grad_kv", "grad_q_out"])


def kernel_infos(opt, src_file, chip, codegen=""):
    """(name, #attn.kernel_info fields) of each kernel, in launch order."""
    run = subprocess.run([opt, src_file,
                          f"--attn-gpu-kernel-pipeline=chip={chip} {codegen}"
                          .strip()],
                         capture_output=True, text=True)
    if run.returncode:
        sys.exit(f"attn-opt failed:\n{run.stderr}")
    out = []
    for m in re.finditer(r"gpu\.func @(\w+)\(.*?#attn\.kernel_info<(.*?)>",
                         run.stdout):
        f = m.group(2)
        get = lambda k: re.search(rf"\b{k} = ([^,>]+)", f).group(1)
        # tensor_maps = [ARG, ROWS, BYTES, ...]: the memref arguments (0 dO,
        # 1 Q, 2 K, 3 V) the kernel reads by bulk tensor copies, boxes of
        # ROWS rows by one slab of BYTES (KernelABI.h).
        tm = re.search(r"\btensor_maps = \[([0-9, ]*)\]", f)
        nums = [int(x) for x in tm.group(1).split(",")] if tm else []
        out.append({"kernel": m.group(1), "threads": int(get("threads")),
                    "smem": int(get("smem_bytes")),
                    "block_m": int(get("block_m")),
                    "program": get("program").strip('"'),
                    "tensor_maps": list(zip(nums[::3], nums[1::3],
                                            nums[2::3]))})
    return out


def build(a):
    os.makedirs(a.out, exist_ok=True)
    entries = []
    var = parse_variant(a.variant)
    for t in a.dtypes.split(","):
        for d in map(int, a.head_dims.split(",")):
            for causal in (False, True):
                name = (f"grad_{t}_d{d}{'_causal' if causal else ''}"
                        f"{'_dropout' if a.dropout else ''}"
                        f"{variant_suffix(var)}")
                attrs = (["causal"] if causal else []) + \
                    variant_attrs(var, causal) + \
                    ([a.attrs] if a.attrs else [])
                src = PROBLEM.format(
                    d=d, t=t, attrs="{" + ", ".join(attrs) + "}"
                    if attrs else "",
                    ws_arg=" %ws: !w," if a.dq_accum else "",
                    ws_use=" dq_accum(%ws : !w)" if a.dq_accum else "",
                    drop_arg=(",\n    %dp: f32, %dseed: i64, %doff: i32"
                              if a.dropout else ""),
                    drop_use=(" dropout(%dp, %dseed, %doff)"
                              if a.dropout else ""),
                    var_arg=(",\n    %slopes: memref<?xf32>"
                             if var.get("alibi") else ""),
                    var_use=(" alibi(%slopes : memref<?xf32>)"
                             if var.get("alibi") else ""))
                src_file = os.path.join(a.out, name + ".mlir")
                open(src_file, "w").write(src)
                ptx = os.path.join(a.out, name + ".ptx")
                run = subprocess.run(
                    [a.opt, src_file,
                     f"--attn-codegen=chip={a.chip} {a.codegen}".strip(),
                     "--emit=ptx", "-o", ptx], capture_output=True, text=True)
                if run.returncode:
                    sys.exit(f"attn-opt failed on {name}:\n{run.stderr}")
                kernels = kernel_infos(a.opt, src_file, a.chip, a.codegen)
                # A workspace is used where the tiling can (else the
                # deterministic grids run and it is an unused argument).
                if [k["program"] for k in kernels] not in PROGRAMS:
                    sys.exit(f"{name}: expected the kernels {PROGRAMS}, got "
                             f"{kernels}")
                entries.append({"name": name, "ptx": name + ".ptx",
                                "dtype": t, "head_dim": d, "causal": causal,
                                "kernels": kernels,
                                "dq_accum": bool(a.dq_accum),
                                "dropout": bool(a.dropout),
                                "variant": var})
                print(name, [(k["kernel"], k["threads"], k["smem"])
                             for k in kernels])
    json.dump(entries, open(os.path.join(a.out, "backward.json"), "w"),
              indent=1)


# --- on the device -------------------------------------------------------


def reference(q, k, v, do, causal, scale, dropout=None, var=None,
              slopes=None):
    """O, LSE (gpu_programs.reference: float64, GQA by repeated K and V, a
    row that sees no key O = 0; `dropout`: the mask's factor per score,
    [B, Hq, Nq, Nk]) and their float64 gradients by autograd. With a score
    variant `var` (parse_variant) the op's own definition: S = scale·QKᵀ,
    then C·tanh(S/C), or S − slopes[h]·|i + Nk − Nq − j|, and the window
    (row i sees key j iff i + Nk − Nq − L <= j <= i + Nk − Nq + R)."""
    import torch
    import gpu_programs
    q64, k64, v64 = (x.detach().double().requires_grad_() for x in (q, k, v))
    if var:
        o, lse = variant_reference(q64, k64, v64, causal, scale, var, slopes)
    elif dropout is None:
        o, lse = gpu_programs.reference(q64, k64, v64, causal, scale, "plain",
                                        {})
    else:
        o, lse = gpu_programs.reference(q64, k64, v64, causal, scale,
                                        "dropout", {"dropout": dropout})
    dq, dk, dv = torch.autograd.grad(o, (q64, k64, v64), do.double())
    return o.detach(), lse.detach(), dq, dk, dv


def variant_reference(q, k, v, causal, scale, var, slopes):
    import torch
    g = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(g, dim=1)
    v = v.repeat_interleave(g, dim=1)
    nq, nk = q.shape[2], k.shape[2]
    s = torch.matmul(q, k.transpose(-1, -2)) * scale
    if "softcap" in var:
        c = var["softcap"]
        s = c * torch.tanh(s / c)
    i = torch.arange(nq, device=q.device)[:, None]
    j = torch.arange(nk, device=q.device)[None, :]
    if var.get("alibi"):
        dist = (i + (nk - nq) - j).abs().double()
        s = s - slopes.double()[None, :, None, None] * dist
    hidden = torch.zeros(nq, nk, dtype=torch.bool, device=q.device)
    left, right = var.get("window", [-1, -1])
    if causal:
        right = 0
    if right >= 0:
        hidden |= j > i + (nk - nq) + right
    if left >= 0:
        hidden |= j < i + (nk - nq) - left
    s = s.masked_fill(hidden, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - torch.where(torch.isinf(lse), 0, lse)[..., None])
    return torch.matmul(p, v), lse


def visible_fraction(var, causal, n):
    """The visible (query, key) pairs of an N×N problem over N²."""
    left, right = var.get("window", [-1, -1]) if var else (-1, -1)
    if causal:
        right = 0
    pairs = 0
    for i in range(n):
        lo = max(0, i - left) if left >= 0 else 0
        hi = min(n - 1, i + right) if right >= 0 else n - 1
        pairs += max(0, hi - lo + 1)
    return pairs / (n * n)


def grids_of(entry, b, hq, hkv, nq, nk):
    out = []
    for k in entry["kernels"]:
        rows = k["block_m"]
        if k["program"] != "grad_kv":
            out.append(((nq + rows - 1) // rows, hq, b))
        else:
            out.append(((nk + rows - 1) // rows, hkv, b))
    return out


class Prepared:
    """The two kernels of an entry, loaded."""

    def __init__(self, out_dir, entry):
        import gpu_programs
        self.entry = entry
        path = os.path.join(out_dir, entry["ptx"])
        self.kernels = []
        for k in entry["kernels"]:
            kern = gpu_programs.Kernel(path, k["kernel"], k["smem"],
                                       [tuple(t) for t in
                                        k.get("tensor_maps", [])])
            kern.threads = k["threads"]
            self.kernels.append(kern)

    def launchers(self, shape, vals):
        """One launcher a grid, from the argument values by name (the
        workspace "ws" only where the entry was built with one)."""
        b, hq, hkv, nq, nk = shape
        grids = grids_of(self.entry, b, hq, hkv, nq, nk)
        names = ARGS_WS if self.entry.get("dq_accum") else ARGS
        if self.entry.get("dropout"):
            names = names + DROPOUT_ARGS
        if self.entry.get("variant", {}).get("alibi"):
            names = names + ALIBI_ARGS
        args = [vals[x] for x in names]
        return [kern.prepare(g, kern.threads, args)
                for kern, g in zip(self.kernels, grids)]

    def atomic(self):
        """Whether dQ is summed with atomic adds (three grids)."""
        return len(self.kernels) == 3


def fa2_grads(q, k, v, do, causal):
    """dQ, dK, dV of torch SDPA's FlashAttention-2 backend, or None."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import sdpa_kernel, SDPBackend
    g = q.shape[1] // k.shape[1]
    try:
        qq = q.detach().clone().requires_grad_()
        kk = k.detach().repeat_interleave(g, dim=1).requires_grad_()
        vv = v.detach().repeat_interleave(g, dim=1).requires_grad_()
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            o = F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal)
        dq, dk, dv = torch.autograd.grad(o, (qq, kk, vv), do)
    except Exception:  # noqa: BLE001 - a shape FA2 does not take
        return None
    b, hkv, nk, d = k.shape
    fold = lambda t: t.reshape(b, hkv, g, nk, t.shape[-1]).sum(2)
    return dq, fold(dk), fold(dv)


def check_case(prep, shape, gen):
    import torch
    import gpu_check
    e = prep.entry
    b, hq, hkv, nq, nk = shape
    d = e["head_dim"]
    dt = {"bf16": torch.bfloat16, "f16": torch.float16}[e["dtype"]]
    mk = lambda *s, fill=None: gpu_check.make_tensor(s, dt, "bnhd", gen, fill)
    q, k, v, do = mk(b, hq, nq, d), mk(b, hkv, nk, d), mk(b, hkv, nk, d), \
        mk(b, hq, nq, d)
    scale = 1.0 / math.sqrt(d)
    drop = {}
    if e.get("dropout"):
        # A fresh rate, key and offset each case (gpu_programs' draws).
        import gpu_programs
        r = torch.rand(3, device="cuda", generator=gen).tolist()
        p = 0.05 + 0.85 * r[0]
        seed = int(r[1] * (1 << 53)) * 2048 + 1
        offset = int(r[2] * (1 << 31))
        drop = {"dropout_p": p,
                "seed": ("i64", seed - (1 << 64) if seed >= 1 << 63 else seed),
                "offset": ("i32", offset),
                "factor": gpu_programs.dropout_factor(b, hq, nq, nk, p, seed,
                                                      offset)}
    var = e.get("variant", {})
    # ALiBi's slopes: fresh, up to 1 (the scale of BLOOM's largest).
    slopes = torch.rand(hq, device="cuda", generator=gen)
    ro, rlse, rdq, rdk, rdv = reference(q, k, v, do, e["causal"], scale,
                                        drop.get("factor"), var, slopes)
    o = gpu_check.make_tensor((b, hq, nq, d), dt, "bnhd", gen,
                              fill=float("nan"))
    o.copy_(ro.to(dt))
    lse = rlse.float().contiguous()
    dq, dk, dv = (mk(*x.shape, fill=float("nan")) for x in (q, k, v))
    delta = torch.full((b, hq, nq), float("nan"), device="cuda")
    ws = torch.full((b, hq, nq, d), float("nan"), device="cuda")
    vals = {"do": do, "q": q, "k": k, "v": v, "o": o, "lse": lse, "dq": dq,
            "dk": dk, "dv": dv, "delta": delta, "ws": ws, "scale": scale,
            "slopes": slopes}
    vals.update(drop)
    go = prep.launchers(shape, vals)
    for g in go:
        g()
    torch.cuda.synchronize()
    first = [x.clone() for x in (dq, dk, dv, delta)]
    for g in go:
        g()
    torch.cuda.synchronize()
    bits = lambda t: t.contiguous().view(
        torch.int32 if t.element_size() == 4 else torch.int16)
    # dQ's atomic sums may round differently from run to run; the rest
    # never does.
    det = (prep.atomic(), False, False, False)
    same = all(skip or torch.equal(bits(x), bits(y))
               for skip, x, y in zip(det, first, (dq, dk, dv, delta)))
    errs = {}
    ok = same
    for name, got, want in (("dQ", dq, rdq), ("dK", dk, rdk), ("dV", dv, rdv)):
        g64 = got.double()
        fin = bool(torch.isfinite(g64).all())
        err = ((g64 - want).norm() / want.norm().clamp_min(1e-30)).item()
        errs[name] = err
        ok = ok and fin and err < 2e-2
    # FlashAttention-2's own gradients on the same inputs (torch SDPA's
    # flash backend; GQA through repeated K and V, their gradients summed
    # back), where its mask is ours: not causal, or Nq = Nk (SDPA's causal
    # is top-left aligned). Ours must stay within 2x its error.
    # (Not with dropout: FlashAttention-2's mask is its own.)
    if (not e["causal"] or nq == nk) and not e.get("dropout") and not var:
        fa2 = fa2_grads(q, k, v, do, e["causal"])
        if fa2 is not None:
            for name, got, want in zip(("dQ", "dK", "dV"), fa2,
                                       (rdq, rdk, rdv)):
                ferr = ((got.double() - want).norm() /
                        want.norm().clamp_min(1e-30)).item()
                errs["fa2_" + name] = ferr
                ok = ok and errs[name] <= max(2 * ferr, 1e-6)
    rdelta = (do.double() * o.double()).sum(-1)
    derr = ((delta.double() - rdelta).abs().max()).item()
    errs["delta"] = derr
    ok = ok and bool(torch.isfinite(delta).all()) and derr < 1e-3
    return ok, errs, same


def time_case(prep, n, d, causal, fa4, peers=True):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import sdpa_kernel, SDPBackend
    import gpu_check
    from gpu_programs import time_ms
    H = 2048 // d
    B = max(1, 16384 // n)
    e = prep.entry
    dt = {"bf16": torch.bfloat16, "f16": torch.float16}[e["dtype"]]
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1)
    mk = lambda *s: gpu_check.make_tensor(s, dt, "bnhd", gen)
    q, k, v, do = mk(B, H, n, d), mk(B, H, n, d), mk(B, H, n, d), \
        mk(B, H, n, d)
    scale = 1.0 / math.sqrt(d)
    o = mk(B, H, n, d)
    lse = torch.randn(B, H, n, device="cuda", generator=gen) + 10
    dq, dk, dv = (mk(B, H, n, d) for _ in range(3))
    delta = torch.empty(B, H, n, device="cuda")
    ws = torch.empty(B, H, n, d, device="cuda")
    var = e.get("variant", {})
    vals = {"do": do, "q": q, "k": k, "v": v, "o": o, "lse": lse, "dq": dq,
            "dk": dk, "dv": dv, "delta": delta, "ws": ws, "scale": scale,
            "slopes": torch.rand(H, device="cuda", generator=gen)}
    # Dropout at FlashAttention's usual training rate; the peers run their
    # own dropout at the same rate.
    drop_p = 0.1 if e.get("dropout") else 0.0
    vals.update({"dropout_p": drop_p, "seed": ("i64", 12345),
                 "offset": ("i32", 0)})
    go = prep.launchers((B, H, H, n, n), vals)

    def ours():
        for g in go:
            g()
    # FLOPs of the visible pairs (a window's; causal's half).
    flops = 2.5 * 4 * B * H * n * n * d * (
        visible_fraction(var, causal, n) if var.get("window")
        else 0.5 if causal else 1)
    r = {"N": n, "D": d, "causal": causal, "dtype": e["dtype"],
         "variant": variant_suffix(var).lstrip("_")}
    # (The peers run the plain problem: none takes these variants here.)
    r["ours"] = flops / time_ms(ours) / 1e9
    # Each grid alone (ms): where the time goes.
    for kern, g in zip(e["kernels"], go):
        r[kern["program"] + "_ms"] = time_ms(g)
    if not peers:
        return r
    qt, kt, vt = (x.detach().clone().requires_grad_() for x in (q, k, v))
    for name, be in (("fa2", SDPBackend.FLASH_ATTENTION),
                     ("cudnn", SDPBackend.CUDNN_ATTENTION)):
        try:
            with sdpa_kernel([be]):
                ot = F.scaled_dot_product_attention(qt, kt, vt,
                                                    is_causal=causal,
                                                    dropout_p=drop_p)
                r[name] = flops / time_ms(lambda: torch.autograd.grad(
                    ot, (qt, kt, vt), do, retain_graph=True)) / 1e9
        except Exception as ex:  # noqa: BLE001 - a missing peer is noted
            r[name] = None
            r[name + "_err"] = repr(ex)[:120]
    if fa4 is not None and not drop_p:
        try:
            qf, kf, vf = (x.detach().transpose(1, 2).clone().requires_grad_()
                          for x in (q, k, v))
            of = fa4.flash_attn_func(qf, kf, vf, causal=causal)
            of = of[0] if isinstance(of, tuple) else of
            dof = do.transpose(1, 2).contiguous()
            r["fa4"] = flops / time_ms(lambda: torch.autograd.grad(
                of, (qf, kf, vf), dof, retain_graph=True)) / 1e9
        except Exception as ex:  # noqa: BLE001
            r["fa4"] = None
            r["fa4_err"] = repr(ex)[:160]
    return r


def run(a):
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gpu_check
    entries = json.load(open(os.path.join(a.out, "backward.json")))
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4),
                                                            "little")
    print(f"seed {seed}; device {torch.cuda.get_device_name()}")
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    shapes = [(2, 4, 2, 130, 130), (1, 8, 2, 300, 200), (2, 2, 2, 64, 64),
              (1, 4, 1, 1, 257), (1, 2, 2, 257, 100), (1, 8, 8, 1024, 1024)]
    if a.quick:
        shapes = shapes[:2]
    if a.names:
        entries = [e for e in entries
                   if any(n in e["name"] for n in a.names.split(","))]
    failures = 0
    prepared = {}
    for e in entries:
        prep = prepared[e["name"]] = Prepared(a.out, e)
        for sh in shapes:
            ok, errs, same = check_case(prep, sh, gen)
            failures += not ok
            print(f"{'PASS' if ok else 'FAIL'} {e['name']} {sh} " +
                  " ".join(f"{k}={v:.2e}" for k, v in errs.items()) +
                  ("" if same else " NOT-DETERMINISTIC"), flush=True)
    rows = []
    if not a.no_timing:
        fa4 = None if a.no_peers else gpu_check.fa4_module()
        for e in entries:
            if e["dtype"] != "bf16":
                continue
            for n in map(int, a.ns.split(",")):
                r = time_case(prepared[e["name"]], n, e["head_dim"],
                              e["causal"], fa4, peers=not a.no_peers)
                rows.append(r)
                print(json.dumps(r), flush=True)
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)
    if rows:
        f = lambda x: f"{x:6.0f}" if x else "     -"
        print("\nbackward TFLOP/s (bf16, B·N = 16384, H·D = 2048)")
        print("  D causal     N |  ours |   FA2 | cuDNN |   FA4 | "
              "/FA2 | /best  (peers: the plain problem)")
        for r in rows:
            peers = [r.get(x) for x in ("fa2", "cudnn", "fa4") if r.get(x)]
            best = max(peers) if peers else None
            vs_fa2 = f"{r['ours'] / r['fa2']:.2f}" if r.get("fa2") else "   -"
            vs_best = f"{r['ours'] / best:.2f}" if best else "   -"
            print(f"{r['D']:3d} {int(r['causal']):6d} {r['N']:5d} |"
                  f"{f(r['ours'])} |{f(r.get('fa2'))} |{f(r.get('cudnn'))} |"
                  f"{f(r.get('fa4'))} | {vs_fa2} | {vs_best}  "
                  f"{r.get('variant', '')}")
    print(f"{failures} correctness failures")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("out")
    b.add_argument("--chip", default="sm_90a")
    b.add_argument("--dtypes", default="bf16,f16")
    b.add_argument("--head-dims", default="64,128")
    b.add_argument("--opt", default=os.path.join(ROOT, "build/bin/attn-opt"))
    b.add_argument("--attrs", default="",
                   help="more attributes of the op (e.g. 'block_q = 64')")
    b.add_argument("--dropout", action="store_true",
                   help="the op with dropout(p, seed, offset) (run-time "
                   "arguments; each case draws its own, the reference "
                   "applies the op's Philox mask)")
    b.add_argument("--dq-accum", action="store_true",
                   help="give the op an f32 dQ workspace: dQ summed with "
                   "atomic adds in the key-block grid where the tiling can")
    b.add_argument("--variant", default="",
                   help="a score variant of the forward: window=L,R (-1: no "
                   "bound), softcap=C or alibi")
    b.add_argument("--codegen", default="",
                   help="more --attn-codegen knobs, e.g. 'overlap-products=0' "
                   "(A/B of compiler variants)")
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("--ns", default="2048,4096,8192,16384")
    r.add_argument("--quick", action="store_true")
    r.add_argument("--no-timing", action="store_true")
    r.add_argument("--no-peers", action="store_true",
                   help="time attn's kernels only (A/B of compiler variants)")
    r.add_argument("--seed", type=int)
    r.add_argument("--json")
    r.add_argument("--names", help="only entries whose name holds one of "
                   "these comma-separated substrings")
    a = ap.parse_args()
    if a.cmd == "build":
        build(a)
        return 0
    return run(a)


if __name__ == "__main__":
    sys.exit(main())
