#!/usr/bin/env python3
"""Train a tiny transformer with attn's forward and backward, beside the same
model with torch's scaled_dot_product_attention, and compare the losses.

    python3 examples/torch/train_tiny.py --lib build-gpu/lib/libattn_runtime_c.so \
        [--bundle DIR] [--steps 200] [--log-every 10] [--dtype bf16] \
        [--alibi --d-model 512]

Two copies of one initialisation (a causal decoder: 2 layers, d_model 256,
4 query heads of 64 over 2 key/value heads (GQA), sequences of 256) learn the
same batches with the same optimiser; only the attention differs: attn
(examples/torch/attn_torch.py: attn_forward, attn_backward) or SDPA (torch's
FlashAttention-2 / cuDNN backends), both on bf16 (or f16) Q, K, V with the
rest of the model in f32. The task needs attention: sequences of a
second-order Markov chain (token t is a fixed random function of tokens t-2
and t-1, replaced by a uniform draw 10% of the time), so that predicting a
token needs the one two positions back, which only attention brings.

With --alibi every attention adds BLOOM's ALiBi bias (slopes 2^(-8(h+1)/H)):
attn through attn_forward_variant / attn_backward_variant (the bundle holds
the causal bf16 pair at head dim 128: --d-model 512 with 4 heads; elsewhere
libattn_jit compiles it), SDPA with the same bias as its additive attn_mask.
ALiBi's model reaches its steep phase by step ~35 (at 1e-3): run 30 steps
(--steps 30 --log-every 5) for the smooth comparison (H200: within 8e-5).

Prints the loss of both at every logged step and their relative difference;
exits non-zero if any logged step differs by more than --tolerance (1e-2), if
a loss is not finite, or if nothing was learned (final loss above 3/4 of the
initial one).

Training is kept where it is smooth: when the model learns to use the token
two back, the loss drops steeply (around step 150 at a learning rate of 3e-3,
step 230 at 1e-3), and there two runs that differ only in the rounding of
attention (even SDPA in f32 against SDPA in bf16, on a CPU) part by up to
12% (3e-3) or 3% (1e-3) before meeting again; before it, at 1e-3, they stay
within 1e-4. Hence 200 steps at 1e-3 by default.
"""

import argparse
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attn_torch  # noqa: E402


class Attention(nn.Module):
    def __init__(self, d_model, heads, kv_heads, impl, rt, dtype):
        super().__init__()
        self.h, self.hkv, self.d = heads, kv_heads, d_model // heads
        self.q = nn.Linear(d_model, heads * self.d, bias=False)
        self.kv = nn.Linear(d_model, 2 * kv_heads * self.d, bias=False)
        self.out = nn.Linear(heads * self.d, d_model, bias=False)
        self.impl, self.rt, self.dtype = impl, rt, dtype
        # ALiBi's slopes (None: positions from the learned embedding only).
        self.slopes = None

    def forward(self, x):
        b, n, _ = x.shape
        q = self.q(x).view(b, n, self.h, self.d).to(self.dtype)
        k, v = self.kv(x).view(b, n, 2, self.hkv, self.d).to(
            self.dtype).unbind(2)
        if self.impl == "attn":
            # [B, N, H, D] views, read in place by their strides.
            o = attn_torch.attention(self.rt, q, k, v, causal=True,
                                     alibi_slopes=self.slopes)
        else:
            g = self.h // self.hkv
            qt = q.transpose(1, 2)
            kt = k.transpose(1, 2).repeat_interleave(g, dim=1)
            vt = v.transpose(1, 2).repeat_interleave(g, dim=1)
            if self.slopes is None:
                o = F.scaled_dot_product_attention(qt, kt, vt, is_causal=True)
            else:
                # ALiBi as SDPA's additive mask: −slope[h]·(i − j) on and
                # below the diagonal, −inf above it.
                i = torch.arange(n, device=x.device)[:, None]
                j = torch.arange(n, device=x.device)[None, :]
                dist = (i - j).to(torch.float32)
                bias = -self.slopes[:, None, None] * dist
                bias = bias.masked_fill(j > i, float("-inf")).to(self.dtype)
                o = F.scaled_dot_product_attention(qt, kt, vt,
                                                   attn_mask=bias[None])
            o = o.transpose(1, 2)
        return self.out(o.reshape(b, n, self.h * self.d).float())


class Block(nn.Module):
    def __init__(self, d_model, heads, kv_heads, impl, rt, dtype):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = Attention(d_model, heads, kv_heads, impl, rt, dtype)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(),
                                 nn.Linear(4 * d_model, d_model))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self, vocab, seq, d_model, layers, heads, kv_heads, rt,
                 dtype):
        super().__init__()
        self.emb = nn.Embedding(vocab, d_model)
        self.pos = nn.Parameter(torch.randn(seq, d_model) * 0.02)
        self.blocks = nn.ModuleList(
            Block(d_model, heads, kv_heads, "sdpa", rt, dtype)
            for _ in range(layers))
        self.ln = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, bias=False)

    def use(self, impl):
        for blk in self.blocks:
            blk.attn.impl = impl
        return self

    def forward(self, tokens):
        x = self.emb(tokens) + self.pos[:tokens.shape[1]]
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def batch(gen, table, b, seq, device):
    """b sequences of the chain x_t = table[x_{t-2}, x_{t-1}] (a uniform
    token instead with probability 0.1), from two uniform tokens."""
    vocab = table.shape[0]
    x = torch.empty(b, seq, dtype=torch.long)
    x[:, :2] = torch.randint(0, vocab, (b, 2), generator=gen)
    noise = torch.rand(b, seq, generator=gen) < 0.1
    uniform = torch.randint(0, vocab, (b, seq), generator=gen)
    for t in range(2, seq):
        x[:, t] = torch.where(noise[:, t], uniform[:, t],
                              table[x[:, t - 2], x[:, t - 1]])
    return x.to(device)


def loss_of(model, tokens):
    # Token t+1 predicted from tokens <= t, from t = 1 on (the first token
    # has no predecessor two back).
    logits = model(tokens[:, :-1])
    return F.cross_entropy(logits[:, 1:].reshape(-1, logits.shape[-1]),
                           tokens[:, 2:].reshape(-1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", default=os.environ.get("ATTN_RUNTIME_LIB"),
                    help="libattn_runtime_c.so (default: $ATTN_RUNTIME_LIB)")
    ap.add_argument("--bundle", default=None, help="kernel bundle directory")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--vocab", type=int, default=32)
    ap.add_argument("--d-model", type=int, default=256)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--dtype", choices=["bf16", "f16"], default="bf16")
    ap.add_argument("--tolerance", type=float, default=1e-2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--alibi", action="store_true",
                    help="ALiBi in every attention (BLOOM's slopes "
                    "2^(-8(h+1)/H)): attn_forward_variant and "
                    "attn_backward_variant beside SDPA with the same bias as "
                    "its attn_mask")
    a = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("train_tiny.py: needs a CUDA GPU (attn's kernels run there)")
    dev = torch.device("cuda")
    dtype = torch.bfloat16 if a.dtype == "bf16" else torch.float16
    rt = attn_torch.Runtime(a.lib, a.bundle)
    torch.manual_seed(a.seed)
    ref = TinyLM(a.vocab, a.seq, a.d_model, a.layers, a.heads, a.kv_heads, rt,
                 dtype).to(dev)
    # The same initial weights (the runtime is not copied: one serves both).
    ours = TinyLM(a.vocab, a.seq, a.d_model, a.layers, a.heads, a.kv_heads,
                  rt, dtype).to(dev)
    ours.load_state_dict(ref.state_dict())
    ours.use("attn")
    ref.use("sdpa")
    if a.alibi:
        slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / a.heads)
                               for h in range(a.heads)], device=dev)
        for m in (ref, ours):
            for blk in m.blocks:
                blk.attn.slopes = slopes
    opts = [torch.optim.AdamW(m.parameters(), lr=a.lr) for m in (ref, ours)]
    gen = torch.Generator().manual_seed(a.seed + 1)
    table = torch.randint(0, a.vocab, (a.vocab, a.vocab),
                          generator=torch.Generator().manual_seed(a.seed + 2))

    print(f"tiny LM: {a.layers} layers, d_model {a.d_model}, {a.heads}:"
          f"{a.kv_heads} heads of {a.d_model // a.heads}, seq {a.seq}, "
          f"batch {a.batch}, {a.dtype} attention"
          f"{' with ALiBi' if a.alibi else ''}, lr {a.lr}, seed {a.seed}")
    print(f"{'step':>5} {'loss sdpa':>10} {'loss attn':>10} {'rel diff':>9}")
    worst, first, last, ok = 0.0, None, None, True
    times = {"sdpa": 0.0, "attn": 0.0}
    for step in range(1, a.steps + 1):
        tokens = batch(gen, table, a.batch, a.seq, dev)
        losses = []
        for name, model, opt in (("sdpa", ref, opts[0]),
                                 ("attn", ours, opts[1])):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            loss = loss_of(model, tokens)
            loss.backward()
            opt.step()
            torch.cuda.synchronize()
            times[name] += time.perf_counter() - t0
            losses.append(loss.item())
        if step == 1 or step % a.log_every == 0 or step == a.steps:
            ls, la = losses
            rel = abs(la - ls) / abs(ls)
            bad = not (math.isfinite(ls) and math.isfinite(la)) or \
                rel > a.tolerance
            ok = ok and not bad
            worst = max(worst, rel)
            first = first or ls
            last = ls
            print(f"{step:>5} {ls:>10.5f} {la:>10.5f} {rel:>9.2e}"
                  f"{'  FAIL' if bad else ''}", flush=True)
    learned = last < 0.75 * first
    print(f"worst relative difference {worst:.2e} (tolerance "
          f"{a.tolerance:.0e}); loss {first:.3f} -> {last:.3f}"
          f"{'' if learned else ' (nothing learned)'}; step time sdpa "
          f"{1e3 * times['sdpa'] / a.steps:.1f} ms, attn "
          f"{1e3 * times['attn'] / a.steps:.1f} ms")
    ok = ok and learned
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
