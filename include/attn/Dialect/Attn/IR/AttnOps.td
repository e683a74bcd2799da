//===- AttnOps.td - attn operations ------------------------*- tablegen -*-===//
#ifndef ATTN_DIALECT_ATTN_IR_ATTNOPS_TD
#define ATTN_DIALECT_ATTN_IR_ATTNOPS_TD

include "attn/Dialect/Attn/IR/AttnBase.td"
include "attn/Dialect/Attn/IR/AttnAttrs.td"
include "attn/Dialect/Attn/IR/AttnTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

//===----------------------------------------------------------------------===//
// Problem level
//===----------------------------------------------------------------------===//

def Attn_AttentionOp : Attn_Op<"attention", [AttrSizedOperandSegments]> {
  let summary = "Exact scaled-dot-product attention, O = softmax(scale·QKᵀ)·V";
  let description = [{
    Computes, for every batch `b`, query head `h` and query row `i`:

    ```
    S[j]   = scale · Σ_d Q[b,h,i,d] · K[b,h/G,j,d]        (G = Hq / Hkv)
    O[b,h,i,:] = Σ_j softmax(S)[j] · V[b,h/G,j,:]
    LSE[b,h,i] = log Σ_j exp(S[j])                      (natural log, f32)
    ```

    Shapes: Q `[B, Hq, Nq, D]`, K `[B, Hkv, Nk, D]`, V `[B, Hkv, Nk, Dv]`,
    O `[B, Hq, Nq, Dv]`, LSE `[B, Hq, Nq]`. Batch, heads and sequence lengths
    may be dynamic; head dims are static and at most 1024. Elements are f32,
    f16 or bf16 (all operands alike), or fp8 inputs with an f16/bf16 output
    (below); accumulation is f32.

    * `scale` defaults to 1/sqrt(D) and must be positive and finite.
    * `scale(%s)` gives the scale as an f32 value known only at run time
      instead (a kernel compiled ahead of time takes it as a parameter); it
      excludes the `scale` attribute. Its value must be positive and finite:
      this is a precondition of the compiled code (attn-run checks it), not
      something the code checks. A scale <= 0 would break the tiled softmax,
      which takes its row maxima on the unscaled scores.
    * `causal` masks key j for query i when j > i + (Nk - Nq): the mask is
      aligned to the bottom-right corner, as in FlashAttention 2.1+. A row
      that sees no key (Nq > Nk) gets O = 0 and LSE = -inf, never NaN.
    * `window_left = L`, `window_right = R` (a sliding window, Mistral's and
      Gemma's local attention; FlashAttention's window_size=(L, R)): query i
      sees key j only if i + (Nk - Nq) - L <= j <= i + (Nk - Nq) + R, on the
      same bottom-right alignment; an absent bound is unbounded, `causal` is
      R = 0 (so it excludes `window_right`). Key blocks wholly outside the
      window are never visited. L, R >= 0. With `kv_lens` (and `pages`) the
      window is placed by each sequence's own key count. Not yet with
      split_kv or varlen.
    * `softcap = C` (Gemma 2's, Grok's; FlashAttention's softcap): every
      scaled score becomes C·tanh(S / C) before the mask and the softmax,
      S = scale·QKᵀ; C > 0 and finite. The built-in form of the score_mod
      region that computes it (tanh with `afn`: on the GPU tanh.approx.f32),
      a parameter of the kernel the runtime serves; it excludes a score_mod
      region (write the cap in the region there).
    * fp8 (FlashAttention-3's interface): Q, K and V of f8E4M3FN hold
      quantised values, Q = q_descale · Q8 and so on, with the three f32
      factors `descale(%qd, %kd, %vd)` (each 1 when absent); O is f16 or bf16
      and the result is the attention of the dequantised inputs:
      S = scale·qd·kd·Q8·K8ᵀ, O = vd · softmax(S)·V8. P is rounded to e4m3
      (satfinite) for the P·V product, as in FlashAttention-3. V is given
      transposed, `v_transposed`: `[B, Hkv, Dv, Nk]`, keys contiguous (the
      tensor cores read 8-bit operands only along the reduced dimension).
      Lowered on sm_90a (wgmma) only; not yet with a KV cache, varlen,
      split_kv, a sliding window, a soft-cap or a score_mod region.
    * `v_transposed`: V is `[B, Hkv, Dv, Nk]` (fp8 only).
    * GQA/MQA: Hq must be a multiple of Hkv; query head h reads kv head h/G.
      The verifier checks it for static head counts; with dynamic ones it is
      a precondition of the compiled code (attn-run and the runtime check
      it before a launch).
    * `pack_query_heads` (GQA packing, a GPU schedule; the result is the
      same): the G = Hq / Hkv query heads that read one key/value head are
      rows of the same programs, (position i, head g) as packed row i·G + g,
      so each key/value block is read once for all G heads (decoding a few
      speculated tokens, chunked prefill). The GPU grid is then (batch,
      Hkv, ceil(G·Nq / Br)); the CPU path runs the heads one by one. Not
      with a score_mod or mask_mod region, a sliding window, ALiBi, a bias,
      dropout, block sparsity, varlen or fp8. A packed row is addressed
      from its block's first in 32 bits: (G − 1) times Q's and O's head
      strides must be below 2^31 elements (a precondition the runtime
      checks before it packs).
    * `block_q`, `block_kv` override the tiling pass's block sizes;
      `target` overrides the target description the tiling pass reads.
    * `split_kv` (flash-decoding): the keys are split into S contiguous
      chunks, S = dim 0 of O, and each chunk's attention is written on its
      own: O `[S, B, Hq, Nq, Dv]` f32, normalised over the chunk's keys, and
      LSE `[S, B, Hq, Nq]` f32 (required). A chunk holds whole key blocks of
      the tiling (ceil(ceil(Nk / Bc) / S) blocks; the last ones may be
      empty: O = 0, LSE = -inf). `attn.merge_splits` combines the chunks
      into the exact result; the chunk boundaries are the tiling's choice
      and only the merged result is defined independently of it.
    * `kv_lens(%lens)` (a KV cache): sequence b has its own key count
      lens[b] (i32, `[B]`), 0 <= lens[b] <= the cache's capacity (Nk, or
      max_pages · page_size when paged): keys past it are never read, and
      causal alignment uses lens[b] in place of Nk. The bound is a
      precondition of the compiled code (the runtime and attn-run check it).
    * `pages(%table)` (a paged KV cache, vLLM's layout; needs `kv_lens`): K
      is `[num_pages, Hkv, page_size, D]`, V `[num_pages, Hkv, page_size,
      Dv]` and `%table` `[B, max_pages]` i32; key j of sequence b is row
      j mod page_size of page table[b, j / page_size]. The page size must
      be a multiple of the tiling's key block (the tiling shrinks a block
      to a static page size; a dynamic one is a precondition the runtime
      checks), and every page a sequence reaches must be in [0, num_pages).
    * `varlen(%cu_q, %cu_k)` (a packed batch of sequences of different
      lengths, FlashAttention's varlen): Q and O are `[1, Hq, total_q, *]`,
      K and V `[1, Hkv, total_k, *]`, LSE `[1, Hq, total_q]`, and the i32
      offsets `%cu_q`, `%cu_k` (`[B + 1]`, starting at 0, non-decreasing, the
      last at most total_q / total_k) give sequence b the queries
      [cu_q[b], cu_q[b+1]) and the keys [cu_k[b], cu_k[b+1]); causal is
      bottom-right aligned in each sequence. The offsets' rules are a
      precondition of the compiled code (the runtime and attn-run check
      them). Not with kv_lens, pages or split_kv.
    * `score_mod { ^bb0(%s: f32[, %b: i32, %h: i32, %i: i32, %j: i32]): ...
      attn.yield %t : f32 }` modifies every scaled score before the mask
      and the softmax (FlexAttention's and FlashAttention-4's `score_mod`):
      S'[i, j] = mod(S[i, j], b, h, i, j), then O = softmax(S')·V and
      LSE = log Σ_j exp(S'[i, j]) with no further scale. The optional
      arguments are the batch index b (the sequence of a packed batch), the
      query head h, the query's row i and the key's position j, both counted
      from the start of their sequence (a KV cache's key position; i32:
      sequences are shorter than 2^31). The body is scalar code that every
      backend lowers:
      - constants (float, integer, index); arith float ops (addf, subf,
        mulf, divf, negf, maximumf, minimumf, maxnumf, minnumf), integer ops
        (addi, subi, muli, divsi, divui, remsi, remui, floordivsi,
        ceildivsi, maxsi, minsi, maxui, minui, andi, ori, xori, shli, shrsi,
        shrui), cmpf, cmpi, select and casts (sitofp, uitofp, fptosi,
        fptoui, extsi, extui, trunci, extf, truncf, index_cast); math tanh,
        exp, exp2, log, sqrt, absf, absi;
      - `memref.load` from a memref defined outside the region (a captured
        table: ALiBi's per-head slopes, a relative-position bias, document
        ids). An index that depends on the score or the positions must be
        an `arith.index_cast` of an integer computed in the body (a gather:
        each score reads its own element); the indices must lie inside the
        memref for every (i, j) of the problem. `memref.dim` of such a
        memref at a constant dim gives a size (one value per program: the
        built-in ALiBi's Nk − Nq).
      Scalars defined outside the region (function arguments, constants) may
      be used too. `math.tanh` with `fastmath<afn>` may become the GPU's
      tanh.approx.f32 (relative error <= 2^-11, FlashAttention-3's
      soft-cap); without it the GPU's tanh is within about 8 ulp. The lowering applies the body to whole score tiles: the
      part that depends only on b, h and captures runs once per program, the
      rest once per score, so a modifier costs its own instructions and
      nothing else. A soft-cap of 30 (Gemma 2):

    ```mlir
    attn.attention %q, %k, %v into %o score_mod {
    ^bb0(%s: f32):
      %c = arith.constant 30.0 : f32
      %x = arith.divf %s, %c : f32
      %t = math.tanh %x fastmath<afn> : f32
      %y = arith.mulf %t, %c : f32
      attn.yield %y : f32
    } : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
    ```

      ALiBi (BLOOM, MPT) with a slope per query head, S + slope[h]·(j − i)
      (under a causal mask, O equals bottom-right aligned ALiBi's,
      −slope·(i + Nk − Nq − j): the two differ by a constant per row, which
      the softmax cancels and the LSE keeps):

    ```mlir
    attn.attention %q, %k, %v into %o score_mod {
    ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
      %hi = arith.index_cast %h : i32 to index
      %slope = memref.load %slopes[%hi] : memref<?xf32>
      %d = arith.subi %j, %i : i32
      %df = arith.sitofp %d : i32 to f32
      %bias = arith.mulf %slope, %df : f32
      %r = arith.addf %s, %bias : f32
      attn.yield %r : f32
    } {causal} : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
    ```

    * `block_mask(%counts, %indices)` (block sparsity, FlexAttention's
      BlockMask and FlashAttention-4's block-sparse tensors): the (query,
      key) plane is cut into mask blocks of `mask_block = [BQ, BK]` rows
      and columns (default [128, 128]; powers of two), and query block qb of
      batch b and head h sees the key blocks `indices[b', h', qb, t]` for
      t < `counts[b', h', qb]` only (b' = 0 where the mask's batch dim is 1,
      else b; h' likewise over the query heads): every key of an unlisted
      block is masked (-inf), before the softmax, on top of causal, a window
      and a score_mod. Key blocks that are not listed are never visited, so
      a mask that empties most blocks (packed documents, local or strided
      patterns) costs only the blocks it keeps. `%counts` is i32
      `[1|B, 1|Hq, ceil(Nq / BQ)]`, `%indices` i32 `[1|B, 1|Hq,
      ceil(Nq / BQ), K]` (K >= the largest count). Preconditions of the
      compiled code (attn-run checks them): 0 <= counts <= K; the listed
      indices of a row are distinct and in [0, ceil(Nk / BK)); their order
      is free. The tiling's blocks divide the mask's (it shrinks them).
      `attn.block_lists` computes the lists from a mask_mod
      (`attn-generate-block-lists` writes it before this op from the op's
      own). Not yet with split_kv, a KV cache, varlen or fp8.
    * `full_blocks(%full_counts, %full_indices)` (with `block_mask`, of the
      same shapes; FlexAttention's full_kv_num_blocks / full_kv_indices):
      more listed key blocks, in which the `mask_mod` region is not
      evaluated — every key of such a block is visible but for causal, a
      window and the keys' end — so they carry no mask code. A block must
      not be in both lists.
    * `mask_mod { ^bb0(%b: i32, %h: i32, %q_idx: i32, %kv_idx: i32): ...
      attn.yield %keep : i1 }` (FlexAttention's mask_mod): key j is masked
      for query i where the body yields false, after the score_mod, on top
      of causal and a window. Its body follows the score_mod's rules (the
      same ops, captured scalars and memrefs, gathers). In the blocks of a
      `full_blocks` list it is not evaluated.

    ```mlir
    attn.attention %q, %k, %v into %o
        block_mask(%c, %x : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
        full_blocks(%fc, %fx : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
        mask_mod {
    ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
      %bx = arith.index_cast %b : i32 to index
      %ix = arith.index_cast %i : i32 to index
      %jx = arith.index_cast %j : i32 to index
      %di = memref.load %docs[%bx, %ix] : memref<?x?xi32>
      %dj = memref.load %docs[%bx, %jx] : memref<?x?xi32>
      %same = arith.cmpi eq, %di, %dj : i32
      attn.yield %same : i1
    } {causal} : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
    ```

    ```mlir
    attn.attention %q, %k, %v into %o
        block_mask(%counts, %indices : memref<1x1x16xi32>,
                   memref<1x1x16x16xi32>) {mask_block = array<i64: 128, 128>}
        : memref<?x8x2048x64xbf16>, memref<?x8x2048x64xbf16>,
          memref<?x8x2048x64xbf16>, memref<?x8x2048x64xbf16>
    ```

    * `bias(%bias : memref<?x?x?x?xf32>)` (an additive score bias: T5's
      relative positions computed outside, key padding, FlashAttention's and
      SDPA's attn_mask as floats): S' = scale·S + bias[b', h', i, j] with
      bias `[1|B, 1|Hq, Nq, Nk]` f32 or of the inputs' element type
      (widened to f32) (b' = 0 where its batch dim is 1, else
      b; h' likewise), after the soft-cap and before the score_mod, the
      mask and the softmax (-inf entries mask). Each program reads its
      [Br, Bc] windows of it. Not yet with split_kv, a KV cache, varlen or
      fp8.

    * `dropout(%p, %seed, %offset)` (f32, i64, i32; attention dropout as
      in FlashAttention's dropout_p, for training): every probability is
      kept with probability 1 − p and scaled by 1/(1 − p), or dropped (0),
      after the softmax and before P·V:
      O[i, :] = Σ_j keep(b, h, i, j) · softmax(S)[j] / (1 − p) · V[j, :];
      the softmax's sum and the LSE are those without dropout. The mask is
      Philox4x32-10 (Salmon et al., 2011) with key (lo32(seed),
      hi32(seed)), one call for eight scores: score (i, j) of batch b,
      query head h (positions from the sequence's start, as for score_mod)
      takes the 16-bit half (j >> 3) & 1 (0 the lower) of word
      w = 2·((i >> 3) & 1) + (j & 1) of
      `Philox(counter = (4·(j >> 4) + ((j >> 1) & 3), 8·(i >> 4) + (i & 7),
      b·Hq + h, offset))` (the eight scores a GPU thread holds of two
      tensor-core n-tiles) and is kept iff that number is >= T (unsigned),
      T = u32(min(p·2^16, 65535)) computed in f32: with probability
      1 − T/2^16, within 2^-16 of 1 − p (FlashAttention-2 compares 8-bit
      numbers). 1/(1 − p) is an f32 division. The same (seed, offset) give
      the same mask on every backend and for every tiling;
      a training step gives each call its own offset. 0 <= p < 1 is a
      precondition of the compiled code (attn-run checks it; the verifier
      checks a constant). Not with fp8 inputs yet.

    ```mlir
    attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
        dropout(%p, %seed, %offset) {causal}
        : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
          memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
    ```

    * `alibi(%slopes : memref<?xf32>)` is the built-in ALiBi (BLOOM, MPT;
      FlashAttention's `alibi_slopes`): with one f32 slope per query head,
      S'[i, j] = scale·S[i, j] − slopes[h]·|i + Nk − Nq − j| (bottom-right
      aligned: under a causal mask slopes[h]·(j − i − (Nk − Nq)) ≤ 0), the
      softmax then without scale. `attn-expand-alibi` writes it as the
      equivalent score_mod region (a library of the same regions, not a
      separate kernel). Not with a score_mod region, a soft-cap, fp8 inputs,
      a KV cache or a packed batch (their key positions are per sequence).

    ```mlir
    attn.attention %q, %k, %v into %o alibi(%slopes : memref<16xf32>)
        {causal} : memref<?x16x?x128xbf16>, memref<?x16x?x128xbf16>,
        memref<?x16x?x128xbf16>, memref<?x16x?x128xbf16>
    ```

    Example:

    ```mlir
    attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
        {causal, scale = 0.125 : f32}
        : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
          memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
    ```

    With the scale a function argument (%s : f32):

    ```mlir
    attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
        scale(%s) {causal}
        : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
          memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
    ```

    fp8 inputs, V transposed, a bf16 output:

    ```mlir
    attn.attention %q, %k, %vt into %o descale(%qd, %kd, %vd)
        {causal, v_transposed}
        : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>,
          memref<?x?x128x?xf8E4M3FN>, memref<?x?x?x128xbf16>
    ```

    Decoding from a paged KV cache (one query row per sequence):

    ```mlir
    attn.attention %q, %kc, %vc into %o kv_lens(%lens : memref<?xi32>)
        pages(%table : memref<?x?xi32>)
        : memref<?x32x1x128xbf16>, memref<?x8x?x128xbf16>,
          memref<?x8x?x128xbf16>, memref<?x32x1x128xbf16>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "queries [B, Hq, Nq, D]", [MemRead]>:$query,
    Arg<AnyMemRef, "keys [B, Hkv, Nk, D]", [MemRead]>:$key,
    Arg<AnyMemRef, "values [B, Hkv, Nk, Dv]", [MemRead]>:$value,
    Arg<AnyMemRef, "output [B, Hq, Nq, Dv]", [MemWrite]>:$output,
    Arg<Optional<AnyMemRef>, "row log-sum-exp [B, Hq, Nq], f32",
        [MemWrite]>:$lse,
    Arg<Optional<F32>, "softmax scale known at run time (excludes the "
        "`scale` attribute)">:$dynamic_scale,
    Arg<Optional<AnyMemRef>, "key count of each sequence [B], i32",
        [MemRead]>:$kv_lens,
    Arg<Optional<AnyMemRef>, "page table [B, max_pages], i32",
        [MemRead]>:$page_table,
    Arg<Optional<AnyMemRef>, "query offsets of a packed batch [B + 1], i32",
        [MemRead]>:$cu_seqlens_q,
    Arg<Optional<AnyMemRef>, "key offsets of a packed batch [B + 1], i32",
        [MemRead]>:$cu_seqlens_k,
    Arg<Optional<F32>, "fp8: dequantisation factor of Q">:$q_descale,
    Arg<Optional<F32>, "fp8: dequantisation factor of K">:$k_descale,
    Arg<Optional<F32>, "fp8: dequantisation factor of V">:$v_descale,
    Arg<Optional<AnyMemRef>, "ALiBi slopes [Hq], f32", [MemRead]>:$alibi_slopes,
    Arg<Optional<AnyMemRef>, "block sparsity: listed key blocks per query "
        "block [1|B, 1|Hq, QB], i32", [MemRead]>:$block_counts,
    Arg<Optional<AnyMemRef>, "block sparsity: the key blocks [1|B, 1|Hq, QB, "
        "K], i32", [MemRead]>:$block_indices,
    Arg<Optional<AnyMemRef>, "block sparsity: listed full blocks per query "
        "block [1|B, 1|Hq, QB], i32", [MemRead]>:$full_counts,
    Arg<Optional<AnyMemRef>, "block sparsity: the full key blocks [1|B, 1|Hq, "
        "QB, K], i32", [MemRead]>:$full_indices,
    Arg<Optional<AnyMemRef>, "additive score bias [1|B, 1|Hq, Nq, Nk], f32",
        [MemRead]>:$bias,
    Arg<Optional<F32>, "dropout: the probability of dropping a score, in "
        "[0, 1)">:$dropout_rate,
    Arg<Optional<I64>, "dropout: the Philox key">:$dropout_seed,
    Arg<Optional<I32>, "dropout: the Philox counter's last word (one per "
        "call that needs its own mask)">:$dropout_offset,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$causal,
    OptionalAttr<I64Attr>:$window_left,
    OptionalAttr<I64Attr>:$window_right,
    OptionalAttr<I64Attr>:$block_q,
    OptionalAttr<I64Attr>:$block_kv,
    OptionalAttr<Attn_TargetAttr>:$target,
    UnitAttr:$split_kv,
    OptionalAttr<F32Attr>:$softcap,
    UnitAttr:$v_transposed,
    OptionalAttr<DenseI64ArrayAttr>:$mask_block,
    UnitAttr:$pack_query_heads
  );
  let regions = (region AnyRegion:$score_mod, AnyRegion:$mask_mod);
  let assemblyFormat = [{
    $query `,` $key `,` $value `into` $output
    (`lse` `(` $lse^ `:` type($lse) `)`)?
    (`scale` `(` $dynamic_scale^ `)`)?
    (`kv_lens` `(` $kv_lens^ `:` type($kv_lens) `)`)?
    (`pages` `(` $page_table^ `:` type($page_table) `)`)?
    (`varlen` `(` $cu_seqlens_q^ `,` $cu_seqlens_k `:` type($cu_seqlens_q) `,`
        type($cu_seqlens_k) `)`)?
    (`descale` `(` $q_descale^ `,` $k_descale `,` $v_descale `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`dropout` `(` $dropout_rate^ `,` $dropout_seed `,` $dropout_offset `)`)?
    (`alibi` `(` $alibi_slopes^ `:` type($alibi_slopes) `)`)?
    (`block_mask` `(` $block_counts^ `,` $block_indices `:`
        type($block_counts) `,` type($block_indices) `)`)?
    (`full_blocks` `(` $full_counts^ `,` $full_indices `:`
        type($full_counts) `,` type($full_indices) `)`)?
    (`score_mod` $score_mod^)?
    (`mask_mod` $mask_mod^)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `,`
    type($output)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether K and V are pages of a paged KV cache (`pages(...)`).
    bool isPaged() { return static_cast<bool>(getPageTable()); }
    /// A paged cache's page size (K's dim 2, or V's where K's is dynamic),
    /// or ShapedType::kDynamic where neither is static.
    int64_t getStaticPageSize() {
      auto k = ::llvm::cast<::mlir::MemRefType>(getKey().getType());
      auto v = ::llvm::cast<::mlir::MemRefType>(getValue().getType());
      return k.isDynamicDim(2) ? v.getDimSize(2) : k.getDimSize(2);
    }
    /// Whether the scores pass through a `score_mod` region.
    bool hasScoreMod() { return !getScoreMod().empty(); }
    /// Whether the score_mod reads any of b, h, q_idx, kv_idx.
    bool scoreModUsesPositions();
    /// The score_mod and mask_mod regions' rules (AttentionOp::verify).
    ::llvm::LogicalResult verifyScoreMod();
    ::llvm::LogicalResult verifyModRegion(::mlir::Region &region,
                                          bool isMask);
    /// The block_mask operands' rules (AttentionOp::verify).
    ::llvm::LogicalResult verifyBlockMask();
    /// The bias operand's rules (AttentionOp::verify).
    ::llvm::LogicalResult verifyBias();
    /// The dropout operands' rules (AttentionOp::verify).
    ::llvm::LogicalResult verifyDropout();
    /// Whether P is dropped out before P·V (`dropout(...)`).
    bool hasDropout() { return static_cast<bool>(getDropoutRate()); }
    /// Whether key blocks are listed per query block (`block_mask(...)`).
    bool hasBlockMask() { return static_cast<bool>(getBlockCounts()); }
    /// Whether full key blocks are listed too (`full_blocks(...)`).
    bool hasFullBlocks() { return static_cast<bool>(getFullCounts()); }
    /// Whether keys pass through a `mask_mod` region.
    bool hasMaskMod() { return !getMaskMod().empty(); }
    /// The mask's block [BQ, BK] (`mask_block`, default [128, 128]).
    std::pair<int64_t, int64_t> getMaskBlockSizes();
    /// Whether the batch is packed sequences of different lengths
    /// (`varlen(...)`).
    bool isVarlen() { return static_cast<bool>(getCuSeqlensQ()); }
    /// Head dimension of Q and K (static).
    int64_t getHeadDim();
    /// Head dimension of V and O (static).
    int64_t getValueHeadDim();
    /// The dim of V that counts its keys: 2, or 3 when `v_transposed`.
    unsigned getValueKeyDim() { return getVTransposed() ? 3 : 2; }
    /// The element type of Q, K and V (and of O, except for fp8 inputs).
    ::mlir::Type getElementType();
    /// Whether Q, K and V are fp8 (f8E4M3FN).
    bool isFp8() { return ::llvm::isa<::mlir::Float8E4M3FNType>(getElementType()); }
    /// The compile-time softmax scale: the `scale` attribute, or 1/sqrt(D).
    /// Only for an op without `dynamic_scale` (whose scale is known only at
    /// run time).
    double getScaleValue();
  }];
}

def Attn_YieldOp : Attn_Op<"yield", [Pure, Terminator,
    ParentOneOf<["AttentionOp", "AttentionGradOp", "BlockListsOp"]>]> {
  let summary = "The result of a `score_mod` or `mask_mod` region";
  let description = [{
    Ends a `score_mod` region (of attn.attention or attn.attention_grad)
    with the score that replaces the region's argument (one f32), or a
    `mask_mod` region with whether the key is visible (one i1).

    ```mlir
    score_mod {
    ^bb0(%s: f32):
      attn.yield %s : f32
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
  let hasVerifier = 1;
}

def Attn_BlockListsOp : Attn_Op<"block_lists", [AttrSizedOperandSegments]> {
  let summary = "Build the block lists of a mask_mod (block sparsity's helper)";
  let description = [{
    Writes the `block_mask(%counts, %indices)` lists (and with `full`, the
    `full_blocks` lists) of attn.attention for the keys its `mask_mod`
    keeps, so that a mask written once as a region (a document mask, a
    prefix-LM mask) also gives the blocks the attention visits, as
    FlexAttention's create_block_mask does. For the row (b', h', qb) of the
    lists, over the mask blocks of `mask_block = [BQ, BK]` (default
    [128, 128]; the attention's own):

    ```
    rows(b', h') = the (b, h) the row covers: every b < batch where the
                   lists' batch dim is 1, else b = b' (heads likewise)
    seen(i, j)   = j < kv_len, inside causal / the window (bottom-right
                   aligned, as attn.attention's), and mask_mod(b, h, i, j)
    visible(kb)  = ∃ (b, h) ∈ rows, i ∈ [qb·BQ, min((qb+1)·BQ, q_len)),
                   j ∈ [kb·BK, (kb+1)·BK): seen(i, j)
    whole(kb)    = ∀ the same (b, h, i) and j ∈ [kb·BK, min((kb+1)·BK,
                   kv_len)): mask_mod(b, h, i, j)
    ```

    Key block kb is listed in the full list where `full` is given and
    visible(kb) ∧ whole(kb) (the attention then skips the mask_mod there
    but still applies causal and the window), else in the partial list
    where visible(kb); each list in increasing kb, with its count. Entries
    of `%indices` past a row's count hold no listed block (the GPU lowering
    leaves scratch there). The lists' dims give
    the rows: counts `[1|B, 1|Hq, ceil(q_len / BQ)]`, indices `[1|B, 1|Hq,
    ceil(q_len / BQ), K]`, i32 (attn.attention's shapes). K >=
    ceil(kv_len / BK) is a precondition (a longer list is cut at K and its
    count too, on the GPU the key blocks from K on are not looked at:
    memory stays safe, the attention would miss blocks; the callers check
    it). `batch`, `heads`, `q_len` and `kv_len` are the
    attention's B, Hq, Nq and Nk. The mask_mod region follows
    attn.attention's rules (scalar code, captured scalars and memrefs);
    it must not read the lists.

    Lowered by attn-tile-attention to a grid over the lists' rows (every
    key of a visible range evaluated until the block's kind is known): on
    the CPU path a parallel loop, each row walking its blocks in order; for
    a GPU target (the op's `target`, which attn-select-gpu-blocks sets) a
    thread block a row, a warp a key block at a time, the kinds compacted
    by a prefix count across a warp's lanes: a kernel of its own (manifest
    `program=block_lists`) launched before the attention, which uses the
    row's entries past its count as scratch.
    `attn-generate-block-lists` writes it in front of an attn.attention
    from the op's own mask_mod.

    Example (documents whose ids are a captured [B, N] table):

    ```mlir
    attn.block_lists %c, %x full(%fc, %fx : memref<?x1x?xi32>,
        memref<?x1x?x?xi32>) sizes(%b, %h, %nq, %nk) mask_mod {
    ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
      %bx = arith.index_cast %b : i32 to index
      %ix = arith.index_cast %i : i32 to index
      %jx = arith.index_cast %j : i32 to index
      %di = memref.load %docs[%bx, %ix] : memref<?x?xi32>
      %dj = memref.load %docs[%bx, %jx] : memref<?x?xi32>
      %same = arith.cmpi eq, %di, %dj : i32
      attn.yield %same : i1
    } {causal, mask_block = array<i64: 128, 128>}
        : memref<?x1x?xi32>, memref<?x1x?x?xi32>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "listed key blocks per query block [1|B, 1|Hq, QB], i32",
        [MemWrite]>:$block_counts,
    Arg<AnyMemRef, "the listed key blocks [1|B, 1|Hq, QB, K], i32",
        [MemWrite]>:$block_indices,
    Arg<Optional<AnyMemRef>, "full key blocks per query block [1|B, 1|Hq, "
        "QB], i32", [MemWrite]>:$full_counts,
    Arg<Optional<AnyMemRef>, "the full key blocks [1|B, 1|Hq, QB, K], i32",
        [MemWrite]>:$full_indices,
    Index:$batch, Index:$heads, Index:$q_len, Index:$kv_len,
    UnitAttr:$causal,
    OptionalAttr<I64Attr>:$window_left,
    OptionalAttr<I64Attr>:$window_right,
    OptionalAttr<DenseI64ArrayAttr>:$mask_block,
    OptionalAttr<Attn_TargetAttr>:$target
  );
  let regions = (region SizedRegion<1>:$mask_mod);
  let assemblyFormat = [{
    $block_counts `,` $block_indices
    (`full` `(` $full_counts^ `,` $full_indices `:` type($full_counts) `,`
        type($full_indices) `)`)?
    `sizes` `(` $batch `,` $heads `,` $q_len `,` $kv_len `)`
    `mask_mod` $mask_mod
    attr-dict `:` type($block_counts) `,` type($block_indices)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// [BQ, BK]: the mask_block attribute or the default.
    std::pair<int64_t, int64_t> getMaskBlockSizes();
  }];
}

def Attn_MergeSplitsOp : Attn_Op<"merge_splits"> {
  let summary = "Merge attention computed over disjoint key ranges";
  let description = [{
    Combines S partial attentions of the same queries over disjoint key
    ranges (the splits of `attn.attention {split_kv}`, or shards of a KV
    cache on different devices) into the attention over their union. For
    every batch `b`, head `h` and query row `i`:

    ```
    M      = max_s LSE_s                     (LSE_s = LSE[s,b,h,i])
    w_s    = exp(LSE_s − M)
    O[b,h,i,:] = Σ_s w_s · O_s[b,h,i,:] / Σ_s w_s
    LSE[b,h,i] = M + log Σ_s w_s             (natural log)
    ```

    A split that saw no key has LSE_s = -inf and weight 0; a row whose
    splits all saw none gets O = 0 and LSE = -inf, never NaN.

    Shapes: partial O `[S, B, H, N, Dv]` f32, partial LSE `[S, B, H, N]`
    f32, O `[B, H, N, Dv]` (f32, f16 or bf16), LSE `[B, H, N]` f32
    (optional). Dv is static.

    Example:

    ```mlir
    attn.merge_splits %po, %plse into %o lse(%lse : memref<?x?x?xf32>)
        : memref<?x?x?x?x128xf32>, memref<?x?x?x?xf32>,
          memref<?x?x?x128xbf16>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "partial outputs [S, B, H, N, Dv], f32", [MemRead]>:
        $partial_output,
    Arg<AnyMemRef, "partial log-sum-exp [S, B, H, N], f32", [MemRead]>:
        $partial_lse,
    Arg<AnyMemRef, "output [B, H, N, Dv]", [MemWrite]>:$output,
    Arg<Optional<AnyMemRef>, "merged log-sum-exp [B, H, N], f32",
        [MemWrite]>:$lse,
    OptionalAttr<I64Attr>:$block_q,
    OptionalAttr<Attn_TargetAttr>:$target
  );
  let assemblyFormat = [{
    $partial_output `,` $partial_lse `into` $output
    (`lse` `(` $lse^ `:` type($lse) `)`)?
    attr-dict `:` type($partial_output) `,` type($partial_lse) `,`
    type($output)
  }];
  let hasVerifier = 1;
}

def Attn_AttentionGradOp : Attn_Op<"attention_grad",
                                   [AttrSizedOperandSegments]> {
  let summary = "Gradients of attn.attention: dQ, dK, dV from dO and the LSE";
  let description = [{
    The backward pass of `attn.attention` (FlashAttention's): given the
    forward's inputs, its output O and log-sum-exp LSE, and the gradient of
    the loss with respect to O (dO), writes the gradients with respect to Q,
    K and V. P is recomputed from the LSE, never stored. For every batch
    `b`, query head `h` (kv head `h/G`, G = Hq / Hkv), query row `i` and key
    `j` the query sees (causal: j <= i + Nk − Nq):

    ```
    S[i,j]  = scale · Q[i]·K[j]
    P[i,j]  = exp(S[i,j] − LSE[i])               (0 for a hidden key)
    dP[i,j] = dO[i]·V[j]
    Δ[i]    = Σ_c dO[i,c] · O[i,c]               (= Σ_j P[i,j]·dP[i,j])
    dS[i,j] = P[i,j] · (dP[i,j] − Δ[i])
    dQ[i]   = scale · Σ_j dS[i,j] · K[j]
    dK[j]   = scale · Σ_{h of the group} Σ_i dS[i,j] · Q[i]
    dV[j]   = Σ_{h of the group} Σ_i P[i,j] · dO[i]
    ```

    Shapes: dO and O `[B, Hq, Nq, Dv]`, Q and dQ `[B, Hq, Nq, D]`, K and dK
    `[B, Hkv, Nk, D]`, V and dV `[B, Hkv, Nk, Dv]`, LSE and `delta`
    `[B, Hq, Nq]` f32. All other element types are one of f32, f16, bf16;
    accumulation is f32 and P and dS are rounded to that type for their
    products (as the forward rounds P). Head dims are static.

    * `delta` is written with Δ (FlashAttention's softmax_d): a workspace
      the op fills first and then reads.
    * `scale`, `scale(%s)`, `causal`, `block_q`, `block_kv` and `target`
      mean what they mean on `attn.attention`; LSE must be the forward's for
      the same scale and mask (a row that sees no key has LSE = −inf and
      gets dQ = 0).
    * Deterministic without `dq_accum`: every element of dQ, dK and dV is
      written once by one program from sums in a fixed order (no atomics),
      so runs on the same inputs are bit-identical. The tiling computes dQ
      (with Δ) in one grid over query blocks and dK, dV in a second over key
      blocks, each recomputing S and dP (seven products a block pair).
    * `dq_accum` (`[B, Hq, Nq, D]` f32): a workspace that lets the tiling
      sum dQ over the key blocks with atomic adds, in the grid that computes
      dK and dV from the same S and dP (FlashAttention-2/3's five products a
      block pair): Δ and zeros into the workspace first, then the key-block
      grid, then dQ = scale · workspace. dQ's rounding then depends on the
      order of the adds (dK and dV stay deterministic). The tiling uses it
      where the key-block grid takes warpgroup MMA with one 64-row block of
      D per warpgroup (D = key block); elsewhere it is left untouched and the
      deterministic grids run.
    * `dropout(%p, %seed, %offset)`: the gradients of `attn.attention` with
      the same dropout (the same rate, Philox key and offset, so the same
      mask; O is the dropped forward's output). With z[i,j] = 1/(1 − p)
      where the score was kept and 0 where it was dropped:
      dV[j] = Σ_i P[i,j]·z[i,j] · dO[i] and
      dS[i,j] = P[i,j] · (z[i,j]·dP[i,j] − Δ[i]) (Δ from the dropped O
      equals Σ_j P·z·dP). Both grids draw the mask for their own tiles
      (attn.random; the key-major grid's {transposed}).
    * The forward's score variants, with their derivatives: `window_left`,
      `window_right` (key blocks outside every row's window are not
      visited, as in the forward), `softcap = C` (S' = C·tanh(S/C), so
      dS = P∘(dP − Δ)∘(1 − (S'/C)²)), `alibi(%slopes)` (a bias that does
      not depend on S: dS unchanged; `attn-expand-alibi` writes it as the
      score_mod region it is), and `score_mod` / `mask_mod` regions under
      the forward's rules. With a score_mod the tiling differentiates the
      region in forward mode: dS = P∘(dP − Δ)∘∂mod/∂s, with ∂mod/∂s built
      from the body's ops (addf, subf, mulf, negf, divf by a value that
      does not depend on the score, maximumf, minimumf, maxnumf, minnumf,
      select, extf, truncf, tanh, exp, exp2, absf); an op whose derivative
      may be unbounded where the score is finite (log, sqrt, a division by
      the score) is refused. Captured memrefs (a bias table, slopes) are
      constants: no gradient is computed for them.

    Example:

    ```mlir
    attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
        delta(%delta) {causal}
        : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
          memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
          memref<?x?x?x128xbf16>, memref<?x?x?xf32>,
          memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
          memref<?x?x?x128xbf16>, memref<?x?x?xf32>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "gradient of the output dO [B, Hq, Nq, Dv]", [MemRead]>:
        $grad_output,
    Arg<AnyMemRef, "queries [B, Hq, Nq, D]", [MemRead]>:$query,
    Arg<AnyMemRef, "keys [B, Hkv, Nk, D]", [MemRead]>:$key,
    Arg<AnyMemRef, "values [B, Hkv, Nk, Dv]", [MemRead]>:$value,
    Arg<AnyMemRef, "the forward's output [B, Hq, Nq, Dv]", [MemRead]>:$output,
    Arg<AnyMemRef, "the forward's log-sum-exp [B, Hq, Nq], f32", [MemRead]>:
        $lse,
    Arg<AnyMemRef, "dQ [B, Hq, Nq, D]", [MemWrite]>:$grad_query,
    Arg<AnyMemRef, "dK [B, Hkv, Nk, D]", [MemWrite]>:$grad_key,
    Arg<AnyMemRef, "dV [B, Hkv, Nk, Dv]", [MemWrite]>:$grad_value,
    Arg<AnyMemRef, "Δ = rowsum(dO∘O) [B, Hq, Nq], f32",
        [MemRead, MemWrite]>:$delta,
    Arg<Optional<AnyMemRef>, "f32 workspace for dQ's atomic sums "
        "[B, Hq, Nq, D]", [MemRead, MemWrite]>:$dq_accum,
    Arg<Optional<F32>, "softmax scale known at run time (excludes the "
        "`scale` attribute)">:$dynamic_scale,
    Arg<Optional<F32>, "dropout: the forward's probability of dropping a "
        "score, in [0, 1)">:$dropout_rate,
    Arg<Optional<I64>, "dropout: the forward's Philox key">:$dropout_seed,
    Arg<Optional<I32>, "dropout: the forward's Philox offset">:
        $dropout_offset,
    Arg<Optional<AnyMemRef>, "ALiBi slopes [Hq], f32", [MemRead]>:$alibi_slopes,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$causal,
    OptionalAttr<I64Attr>:$block_q,
    OptionalAttr<I64Attr>:$block_kv,
    OptionalAttr<Attn_TargetAttr>:$target,
    OptionalAttr<I64Attr>:$window_left,
    OptionalAttr<I64Attr>:$window_right,
    OptionalAttr<F32Attr>:$softcap
  );
  let regions = (region AnyRegion:$score_mod, AnyRegion:$mask_mod);
  let assemblyFormat = [{
    $grad_output `,` $query `,` $key `,` $value `,` $output `,` $lse `into`
    $grad_query `,` $grad_key `,` $grad_value `delta` `(` $delta `)`
    (`dq_accum` `(` $dq_accum^ `:` type($dq_accum) `)`)?
    (`scale` `(` $dynamic_scale^ `)`)?
    (`dropout` `(` $dropout_rate^ `,` $dropout_seed `,` $dropout_offset `)`)?
    (`alibi` `(` $alibi_slopes^ `:` type($alibi_slopes) `)`)?
    (`score_mod` $score_mod^)?
    (`mask_mod` $mask_mod^)?
    attr-dict `:` type($grad_output) `,` type($query) `,` type($key) `,`
    type($value) `,` type($output) `,` type($lse) `,` type($grad_query) `,`
    type($grad_key) `,` type($grad_value) `,` type($delta)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the scores pass through a `score_mod` region.
    bool hasScoreMod() { return !getScoreMod().empty(); }
    /// Whether keys pass through a `mask_mod` region.
    bool hasMaskMod() { return !getMaskMod().empty(); }
    /// Whether the scores are modified before the softmax (a score_mod,
    /// the soft-cap or ALiBi): the modifier then sees scale·S.
    bool hasScoreModifier() {
      return hasScoreMod() || getSoftcapAttr() || getAlibiSlopes();
    }
    /// Head dimension of Q and K (static).
    int64_t getHeadDim();
    /// Head dimension of V and dO (static).
    int64_t getValueHeadDim();
    /// The element type of every tensor but LSE and delta.
    ::mlir::Type getElementType();
    /// The compile-time softmax scale: the `scale` attribute, or 1/sqrt(D).
    /// Only for an op without `dynamic_scale`.
    double getScaleValue();
  }];
}

//===----------------------------------------------------------------------===//
// Tile level
//===----------------------------------------------------------------------===//

def Attn_LoadTileOp : Attn_Op<"load_tile", [AttrSizedOperandSegments]> {
  let summary = "Load a block of rows from a memref into a tile, zero-padded";
  let description = [{
    Reads `rows` consecutive rows of `source`, starting at the position
    `indices` names, into a statically shaped tile; tile rows at or past
    `rows` are zero. The last index is the row; the tile's trailing dims are
    the source's trailing dims. `rows` must not exceed the tile's row count.
    Zero padding keeps padded query/key rows finite, so masked scores stay
    -inf rather than NaN. Tiles of every tile-level op have non-zero static
    dims.

    With `cols`, the tile is a window of a 2-d tile's columns as well: there
    is one index per source dim, the last one the first column, the tile's
    columns may be fewer than the source's last dim (which may be dynamic),
    and tile columns at or past `cols` are zero too (e.g. a [Br, Bc] block
    of a [B, H, Nq, Nk] score bias).

    With `pages` (a block table [B, max_pages] of i32 page numbers) the
    source is a paged cache [num_pages, H, P, D] and the rows are gathered
    from its pages: with indices [b, h, pos], tile row r is source[table[b,
    (pos + r) / P], h, (pos + r) mod P] (a block of keys may span pages).
    Only rows below `rows` read the table.

    With `group(%g)` (GQA packing: the G = %g query heads that share a
    key/value head as rows of one tile) the last two indices are a head h
    and a packed row p, and tile row r is source[..., h + (p + r) mod G,
    (p + r) / G, :]: rows (position i, head g) in the order i·G + g. `rows`
    counts packed rows. Not with `cols` or `pages`.

    Example (a 64-row block of K for batch %b, kv head %h):

    ```mlir
    %k = attn.load_tile %key[%b, %h, %row] rows %n
        : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
    %bias = attn.load_tile %bias[%b, %h, %row, %col] rows %n cols %m
        : memref<?x?x?x?xf32> -> tensor<128x32xf32>
    %kp = attn.load_tile %pages[%b, %h, %pos] rows %n pages(%table : memref<?x?xi32>)
        : memref<?x?x16x128xbf16> -> tensor<64x128xbf16>
    %qp = attn.load_tile %q[%b, %h0, %p] rows %n group(%g)
        : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$source,
                   Variadic<Index>:$indices, Index:$rows,
                   Optional<Index>:$cols,
                   Arg<Optional<MemRefRankOf<[I32], [2]>>, "", [MemRead]>:$pages,
                   Optional<Index>:$group);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` `rows` $rows (`cols` $cols^)?
    (`pages` `(` $pages^ `:` type($pages) `)`)? (`group` `(` $group^ `)`)?
    attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$source,
                   "::mlir::ValueRange":$indices, "::mlir::Value":$rows), [{
      build($_builder, $_state, result, source, indices, rows,
            /*cols=*/::mlir::Value(), /*pages=*/::mlir::Value(),
            /*group=*/::mlir::Value());
    }]>,
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$source,
                   "::mlir::ValueRange":$indices, "::mlir::Value":$rows,
                   "::mlir::Value":$cols), [{
      build($_builder, $_state, result, source, indices, rows, cols,
            /*pages=*/::mlir::Value(), /*group=*/::mlir::Value());
    }]>,
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$source,
                   "::mlir::ValueRange":$indices, "::mlir::Value":$rows,
                   "::mlir::Value":$cols, "::mlir::Value":$pages), [{
      build($_builder, $_state, result, source, indices, rows, cols, pages,
            /*group=*/::mlir::Value());
    }]>
  ];
}

def Attn_StoreTileOp : Attn_Op<"store_tile", [AttrSizedOperandSegments]> {
  let summary = "Store the first rows of a tile into a memref";
  let description = [{
    Writes the first `rows` rows of `tile` into `dest` at the position
    `indices` names (the last index is the row). An f32 tile stored into a
    f16/bf16 memref is rounded to nearest even.

    With `group(%g)` the rows are packed (position, head) pairs as
    `attn.load_tile ... group` reads them: tile row r goes to dest[..., h +
    (p + r) mod G, (p + r) / G] for the last two indices h, p.

    Example:

    ```mlir
    attn.store_tile %o, %out[%b, %h, %row] rows %n
        : tensor<64x128xf32>, memref<?x?x?x128xbf16>
    attn.store_tile %o, %out[%b, %h0, %p] rows %n group(%g)
        : tensor<64x128xf32>, memref<?x?x?x128xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$tile,
                   Arg<AnyMemRef, "", [MemWrite]>:$dest,
                   Variadic<Index>:$indices, Index:$rows,
                   Optional<Index>:$group);
  let assemblyFormat = [{
    $tile `,` $dest `[` $indices `]` `rows` $rows
    (`group` `(` $group^ `)`)? attr-dict `:` type($tile) `,` type($dest)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$tile, "::mlir::Value":$dest,
                   "::mlir::ValueRange":$indices, "::mlir::Value":$rows), [{
      build($_builder, $_state, tile, dest, indices, rows,
            /*group=*/::mlir::Value());
    }]>
  ];
  let hasVerifier = 1;
}

def Attn_AccumulateTileOp : Attn_Op<"accumulate_tile",
                                   [AttrSizedOperandSegments]> {
  let summary = "Atomically add an f32 tile into a block of rows of a memref";
  let description = [{
    Adds the tile into `dest` at the position `indices` names (the last
    index is the row), element by element with atomic adds: programs that
    run at the same time may add into the same elements (the backward's dQ,
    summed over the key blocks that see each query), and the order of the
    additions, hence the rounding of the sum, is not fixed. Tile and dest
    are f32.

    The tile `[R, C]` covers rows `[row, row + R)` and the C columns of
    dest's last dim; only rows below `rows` are added. With `transposed`
    the tile is `[C, R]` and its column j goes to row `row + j` (tile
    element `[i, j]` into dest `[row + j, i]`; only columns below `rows`):
    a product computed transposed (dQᵀ = Kᵀ·dS) added where its transpose
    belongs.

    With `via` (a GPU schedule, set with layouts) the tile is first
    written into the one-slot ring `staging` (f32, rows of dest's block
    `[R', C]` row-major, unswizzled, possibly padded) by the threads that
    hold it, and each of the block's first `rows` rows is added with one
    bulk reduction (Hopper's cp.reduce.async.bulk .add.f32) into dest, whose
    rows must then be contiguous 16-byte chunks (the row stride equal to
    the last dim, static and a multiple of 4; a static offset of whole
    chunks; a 16-byte aligned base): a bulk add a row instead of an atomic
    add per element. A slot of 128-byte slabs instead
    (`#attn.shared<swizzle = 8, pad = 0, slab = 128>`: 32 f32 columns a
    slab, rows of 128 bytes, 128-byte swizzled) is added with one bulk
    tensor reduction a slab (cp.reduce.async.bulk.tensor .add) through dest's
    tensor map (dest is then a kernel argument of at most 5 dims whose last
    dim is a multiple of 32); the slot's rows at or past `rows` are written as zeros, and the
    tensor map leaves out rows past dest's end; a ring of two slots
    (`via %ring[%slot]`, the slot alternating from one add to the next)
    lets one add's reductions read their slot while the next add fills the
    other (each issuer waits only for the reductions before its last one,
    and for all of them after the enclosing loop). Where each slab is written
    by one warpgroup (a transposed tile whose warpgroups' rows are whole
    slabs), each warpgroup synchronises and adds its own slabs. The
    threads that hold the tile synchronise around the slot's writes (before
    them not with `slot_released`: the schedule guarantees that they
    synchronised since the slot's last reduction read it, as
    attn.store_slot's `slot_released`).

    Example (dQᵀ of 64 queries, D = 128, into an f32 dQ workspace):

    ```mlir
    attn.accumulate_tile %dqt, %ws[%b, %h, %row] rows %n {transposed}
        : tensor<128x64xf32>, memref<?x?x?x128xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$tile,
                   Arg<AnyMemRef, "", [MemRead, MemWrite]>:$dest,
                   Variadic<Index>:$indices, Index:$rows,
                   Arg<Optional<Attn_RingType>, "", [MemRead, MemWrite]>:
                       $staging,
                   Optional<Index>:$slot,
                   UnitAttr:$transposed, UnitAttr:$slot_released);
  let assemblyFormat = [{
    $tile `,` $dest `[` $indices `]` `rows` $rows
    (`via` $staging^ (`[` $slot^ `]`)? `:` qualified(type($staging)))?
    attr-dict `:` type($tile) `,` type($dest)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$tile, "::mlir::Value":$dest,
                   "::mlir::ValueRange":$indices, "::mlir::Value":$rows,
                   "bool":$transposed), [{
      build($_builder, $_state, tile, dest, indices, rows,
            /*staging=*/::mlir::Value(), /*slot=*/::mlir::Value(),
            transposed, /*slot_released=*/false);
    }]>
  ];
  let extraClassDeclaration = [{
    /// Why `dest` cannot take a bulk reduction of a block of its rows
    /// (`via`), or "" where it can: rows back to back in 16-byte chunks
    /// (the row stride the static last dim, a multiple of 4; unit column
    /// stride; a static offset of whole chunks).
    static std::string bulkReduceRefusal(::mlir::MemRefType dest);
  }];
  let hasVerifier = 1;
}

def Attn_DotOp : Attn_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "Tile matrix product with f32 accumulation";
  let description = [{
    `result = acc + lhs · rhs` (or `lhs · rhsᵀ` with `rhs_transposed`;
    with `lhs_transposed` the lhs tile is `[K, M]` and its transpose is the
    left factor: `acc + lhsᵀ · rhs`, e.g. Kᵀ·dS for the backward's dQᵀ).
    Operands are f16, bf16, f32 or f8E4M3FN (both alike), widened exactly
    to f32;
    `acc` and `result` are f32.

    Example (S = Q·Kᵀ for a 64×64 block, D = 128):

    ```mlir
    %s = attn.dot %q, %k, %zero {rhs_transposed}
        : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xf32>
    ```

    With `async` (a GPU schedule on Hopper's wgmma, set after layouts) the
    product is only started: its result may be used only by `attn.dot_wait`,
    which gives the finished value.
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                   AnyRankedTensor:$acc, UnitAttr:$rhs_transposed,
                   UnitAttr:$async, UnitAttr:$lhs_transposed);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $acc attr-dict `:` type($lhs) `,` type($rhs) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Attn_MaskOp : Attn_Op<"mask", [Pure, AllTypesMatch<["scores", "result"]>]> {
  let summary = "Set scores of invisible (query, key) pairs to -inf";
  let description = [{
    For tile element (i, j), with query position qi = q_start + i and key
    position kj = kv_start + j, the result is -inf when kj >= kv_len (past
    the end of the keys) or, with `causal`, when kj > qi + (kv_len - q_len)
    (bottom-right aligned causal mask); otherwise it is the score. A sliding
    window hides kj < qi + (kv_len - q_len) - window_left and
    kj > qi + (kv_len - q_len) + window_right (`causal` is window_right = 0
    and excludes it).

    With `transposed` the tile is Sᵀ: element (i, j) is key kv_start + i and
    query q_start + j (the backward pass's key-major tiles), with the same
    rules.

    With `group(%g)` the rows are packed (position, head) pairs (GQA
    packing, `attn.load_tile ... group`): row i's query position is
    (q_start + i) / G, q_start a packed row and q_len the positions.

    Example:

    ```mlir
    %m = attn.mask %s q(%q0, %nq) kv(%k0, %nk) {causal} : tensor<64x64xf32>
    %w = attn.mask %s q(%q0, %nq) kv(%k0, %nk) {causal, window_left = 256}
        : tensor<64x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$scores, Index:$q_start, Index:$q_len,
                   Index:$kv_start, Index:$kv_len, Optional<Index>:$group,
                   UnitAttr:$causal,
                   OptionalAttr<I64Attr>:$window_left,
                   OptionalAttr<I64Attr>:$window_right,
                   UnitAttr:$transposed);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $scores `q` `(` $q_start `,` $q_len `)` `kv` `(` $kv_start `,` $kv_len `)`
    (`group` `(` $group^ `)`)? attr-dict `:` type($scores)
  }];
  let hasVerifier = 1;
}

def Attn_IotaOp : Attn_Op<"iota", [Pure]> {
  let summary = "A tile of query or key positions";
  let description = [{
    `result[i, j] = start + i` with `dim = 0` (each row's query position) or
    `start + j` with `dim = 1` (each column's key position), as i32; a 1-d
    result (`dim = 0`) is `result[k] = start + k` (one position per row or
    per column of a score tile, as the vector is broadcast). With
    `clamp(%n)` a position is at most n − 1: the rows and columns of a
    block past the sequence's end repeat its last position (a score_mod's
    gather then reads only positions of the sequence; those elements are
    masked or never stored). The tiling builds the position arguments of a
    `score_mod` region with it; each backend lowers it from the tile's
    layout (every element's row and column), with no memory traffic.

    Example:

    ```mlir
    %qi = attn.iota %q0 dim 0 : tensor<64x64xi32>
    %kj = attn.iota %k0 dim 1 clamp(%nk) : tensor<64x64xi32>
    %cols = attn.iota %k0 dim 0 : tensor<64xi32>
    ```
  }];
  let arguments = (ins Index:$start, I64Attr:$dim, Optional<Index>:$clamp);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $start `dim` $dim (`clamp` `(` $clamp^ `)`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Attn_RandomOp : Attn_Op<"random", [Pure]> {
  let summary = "Philox4x32-10 random bits of a score tile (dropout's mask)";
  let description = [{
    `result[r, c]` (i32, read as unsigned) is the dropout value of query
    i = q_start + r and key j = kv_start + c of attn.attention's dropout,
    whose upper 16 bits are the score's random number: with w word
    2·((i >> 3) & 1) + (j & 1) of Philox4x32-10 under key (lo32(seed),
    hi32(seed)) and counter (4·(j >> 4) + ((j >> 1) & 3),
    8·(i >> 4) + (i & 7), stream, offset), the value is w where
    (j >> 3) & 1 = 1 and w << 16 otherwise (`stream` is the program's
    b·Hq + h). A score is kept iff its value >= T·2^16 (unsigned): one
    compare, whichever half. The eight scores of rows i, i + 8
    (i ≡ 0..7 mod 16) and columns j, j + 1, j + 8, j + 9 (j ≡ 0, 2, 4, 6
    mod 16) share one counter — the accumulators a GPU thread holds of two
    mma/wgmma n-tiles: the GPU lowering computes one Philox call per eight
    elements and requires q_start and kv_start ≡ 0 (mod 16) (the tiling's
    blocks are multiples of 16); the CPU lowering computes any element on
    its own. `transposed`: rows are keys and columns queries
    (`result[r, c]` is the value of query q_start + c and key
    kv_start + r), as the backward's key-major tiles hold them: a GPU
    thread then holds the keys of one parity only, so each Philox call
    serves four of its elements (two calls per eight).

    Example:

    ```mlir
    %u = attn.random key(%seed) counter(%bh, %offset) q(%q0) kv(%k0)
        : tensor<64x64xi32>
    ```
  }];
  let arguments = (ins I64:$seed, I32:$stream, I32:$offset, Index:$q_start,
                   Index:$kv_start, UnitAttr:$transposed);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    `key` `(` $seed `)` `counter` `(` $stream `,` $offset `)`
    `q` `(` $q_start `)` `kv` `(` $kv_start `)` attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Attn_GatherOp : Attn_Op<"gather"> {
  let summary = "One element of a memref for each element of a tile";
  let description = [{
    `result[r, c] = source[x_0, ..., x_(n-1)]` where index k is either an
    `index` scalar (the same for every element) or a 2-d i32 tile of the
    result's shape (`x_k = index_k[r, c]`). One index per dim of `source`;
    the result's element type is the source's. The indices must lie inside
    the memref (as for memref.load). The tiling lowers a `score_mod`'s load
    indexed by the positions (a relative-position bias table, document ids)
    to it.

    Example:

    ```mlir
    %bias = attn.gather %table[%h, %bucket] : memref<?x?xf32>, index,
        tensor<64x64xi32> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "gathered from", [MemRead]>:$source,
                   Variadic<AnyType>:$indices);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` attr-dict `:` type($source) `,` type($indices)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Attn_ReduceOp : Attn_Op<"reduce", [Pure]> {
  let summary = "Row-wise max or sum of a 2-d f32 tile";
  let description = [{
    `result[i] = max_j input[i, j]` or `Σ_j input[i, j]`. The max of a row of
    -inf is -inf.

    With a 2-d result `[R, W]` (W divides the input's C columns) the row is
    reduced in W column groups, each of the columns congruent mod W:
    `result[i, w] = max_k input[i, w + W·k]` (or the sum). Reducing that
    result's rows gives the full row reduction; the GPU path uses it to keep
    per-thread partial row sums through a loop (attn-defer-row-sums), with
    W the width of one tensor-core n-tile.

    Example:

    ```mlir
    %rowmax = attn.reduce max %s : tensor<64x64xf32> -> tensor<64xf32>
    %parts = attn.reduce sum %p : tensor<64x64xf32> -> tensor<64x8xf32>
    ```
  }];
  let arguments = (ins Attn_ReduceKindAttr:$kind, AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $kind $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Attn_BroadcastOp : Attn_Op<"broadcast", [Pure]> {
  let summary = "Broadcast a per-row vector along the columns of a tile";
  let description = [{
    `result[i, j] = input[i]`, or with `per_column` `result[i, j] =
    input[j]` (a per-query value on a transposed score tile, whose columns
    are queries: the backward pass's LSE and Δ).

    Example:

    ```mlir
    %mb = attn.broadcast %m : tensor<64xf32> -> tensor<64x64xf32>
    %lb = attn.broadcast %lse {per_column} : tensor<64xf32>
        -> tensor<128x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, UnitAttr:$per_column);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

include "attn/Dialect/Attn/IR/AttnGPUOps.td"

#endif // ATTN_DIALECT_ATTN_IR_ATTNOPS_TD
