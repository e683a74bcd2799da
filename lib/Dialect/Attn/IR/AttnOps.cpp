//===- AttnOps.cpp - attn operations ----------------------------*- C++ -*-===//
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/runtime/Reference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::attn;

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

static bool isSupportedElementType(Type t) {
  return t.isF16() || t.isBF16() || t.isF32();
}

/// Largest block size the verifier accepts in an override; larger blocks
/// cannot fit any target's on-chip memory at the smallest head dim.
static constexpr int64_t kMaxBlockSize = 1024;

/// Largest head dim (D or Dv) the verifier accepts. Real models use at most
/// 256; beyond 1024 even the smallest tiles (16 rows of Q, K and V) outgrow
/// every target's on-chip memory, and the cap keeps size arithmetic such as
/// blocks × head dim × bytes far from int64 overflow.
static constexpr int64_t kMaxHeadDim = 1024;
/// The mask block of a block_mask without `mask_block` (FlexAttention's).
static constexpr int64_t kDefaultMaskBlock = 128;

int64_t AttentionOp::getHeadDim() {
  return cast<MemRefType>(getQuery().getType()).getDimSize(3);
}
int64_t AttentionOp::getValueHeadDim() {
  return cast<MemRefType>(getValue().getType())
      .getDimSize(getVTransposed() ? 2 : 3);
}
Type AttentionOp::getElementType() {
  return cast<MemRefType>(getQuery().getType()).getElementType();
}
double AttentionOp::getScaleValue() {
  assert(!getDynamicScale() && "the scale is only known at run time");
  if (auto s = getScaleAttr())
    return s.getValueAsDouble();
  return 1.0 / std::sqrt(static_cast<double>(getHeadDim()));
}

namespace {
/// Checks that dim `i` of operands `a` and `b` agree where both are static.
struct DimChecker {
  Operation *op;
  LogicalResult same(StringRef aName, MemRefType a, int64_t ai, StringRef bName,
                     MemRefType b, int64_t bi, StringRef what) {
    int64_t x = a.getDimSize(ai), y = b.getDimSize(bi);
    if (ShapedType::isDynamic(x) || ShapedType::isDynamic(y) || x == y)
      return success();
    return op->emitOpError() << what << " of " << aName << " (dim " << ai
                             << " = " << x << ") must equal " << what << " of "
                             << bName << " (dim " << bi << " = " << y << ")";
  }
};
/// A memref operand of a problem-level op: its name in messages, its rank
/// and the dims before [batch, heads, seq(, head_dim)] (split partials).
struct Named {
  StringRef name;
  Value value;
  int64_t rank;
  int64_t lead;
};

/// The rules every problem-level memref shares: a strided layout and no
/// zero dim.
LogicalResult verifyStridedNonEmpty(Operation *op, const Named &n) {
  auto t = cast<MemRefType>(n.value.getType());
  if (!t.isStrided())
    return op->emitOpError()
           << "unsupported: " << n.name << " must have a strided layout";
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (t.getDimSize(d) == 0)
      return op->emitOpError() << "dim " << d << " of " << n.name
                               << " is zero: every dimension must be non-zero";
  return success();
}

/// An i32 operand of a problem-level op (sequence lengths, a page table,
/// packed offsets, block lists): its rank (`shape` names its dims in the
/// message), i32 elements, a strided layout and no zero dim.
LogicalResult verifyI32Operand(Operation *op, const Named &n, StringRef shape) {
  auto t = cast<MemRefType>(n.value.getType());
  if (t.getRank() != n.rank)
    return op->emitOpError() << n.name << " must have rank " << n.rank << " "
                             << shape << ", got rank " << t.getRank();
  if (!t.getElementType().isSignlessInteger(32))
    return op->emitOpError()
           << n.name << " element type must be i32, got " << t.getElementType();
  return verifyStridedNonEmpty(op, n);
}
} // namespace

/// The rules of a sliding window's bounds, shared by attn.attention and
/// attn.mask: each >= 0, and `causal` (the right bound 0) excludes a right
/// bound.
static LogicalResult verifyWindow(Operation *op, bool causal,
                                  std::optional<int64_t> left,
                                  std::optional<int64_t> right) {
  for (auto [name, v] :
       {std::pair{"window_left", left}, std::pair{"window_right", right}})
    if (v && (*v < 0 || *v > INT32_MAX))
      return op->emitOpError() << name << " must be in [0, 2^31), got " << *v
                               << " (leave it out for no bound)";
  if (causal && right)
    return op->emitOpError()
           << "causal is window_right = 0: give one of causal and "
              "window_right";
  return success();
}

/// The soft-cap's and ALiBi's rules, shared by attn.attention and
/// attn.attention_grad: a soft-cap C with 1/C finite, not beside a
/// score_mod (write the cap in the region); ALiBi's slopes one f32 per
/// query head.
static LogicalResult verifySoftcapAlibi(Operation *op, FloatAttr softcap,
                                        bool scoreMod, Value slopes,
                                        Value query) {
  if (softcap) {
    double x = softcap.getValueAsDouble();
    if (!::attn::isValidSoftcap(x))
      return op->emitOpError()
             << "softcap must be a positive, finite, normal f32 "
                "(its reciprocal finite), got "
             << x;
    if (scoreMod)
      return op->emitOpError() << "softcap and a score_mod region are "
                                  "exclusive (write the cap in the region)";
  }
  if (slopes) {
    auto t = cast<MemRefType>(slopes.getType());
    if (t.getRank() != 1 || !t.getElementType().isF32())
      return op->emitOpError() << "alibi slopes must be a 1-d f32 memref (one "
                                  "slope per query head), got "
                               << t;
    int64_t hq = cast<MemRefType>(query.getType()).getDimSize(1);
    if (!t.isDynamicDim(0) && !ShapedType::isDynamic(hq) &&
        t.getDimSize(0) != hq)
      return op->emitOpError() << "alibi slopes have " << t.getDimSize(0)
                               << " entries for " << hq << " query heads";
  }
  return success();
}

/// The rules attn.attention and attn.attention_grad share: Hq a multiple
/// of Hkv (where both are static), one scale (a compile-time one would
/// silently override, or be overridden by, the run-time one; the run-time
/// value's sign is a precondition, only the attribute can be checked), and
/// block overrides the tiling can take.
static LogicalResult verifyHeadsScaleBlocks(Operation *op, int64_t hq,
                                            int64_t hkv, FloatAttr scale,
                                            bool dynamicScale,
                                            IntegerAttr blockQ,
                                            IntegerAttr blockKV) {
  if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hkv) && hq % hkv)
    return op->emitOpError()
           << "query heads (" << hq
           << ") must be a multiple of key/value heads (" << hkv << ")";
  if (scale && dynamicScale)
    return op->emitOpError()
           << "the 'scale' attribute and the scale(...) operand "
              "(dynamic_scale) are mutually exclusive: give the scale one way";
  if (scale) {
    double x = scale.getValueAsDouble();
    if (!(x > 0) || !std::isfinite(x))
      return op->emitOpError()
             << "scale must be positive and finite, got " << x;
  }
  for (auto [name, attr] :
       {std::pair{"block_q", blockQ}, std::pair{"block_kv", blockKV}}) {
    if (!attr)
      continue;
    int64_t b = attr.getInt();
    bool query = name == llvm::StringRef("block_q");
    if (!isValidBlockRows(b, kMaxBlockSize, query))
      return op->emitOpError() << name << " must be a power of two"
                               << (query ? " or a multiple of 64" : "")
                               << " in [1, " << kMaxBlockSize << "], got " << b;
  }
  return success();
}

LogicalResult AttentionOp::verify() {
  // With split_kv, O and LSE carry a leading split dimension: `lead` is the
  // offset of their [batch, heads, seq(, head_dim)] dims.
  bool split = getSplitKv();
  int64_t lead = split ? 1 : 0;
  SmallVector<Named> operands = {{"query", getQuery(), 4, 0},
                                 {"key", getKey(), 4, 0},
                                 {"value", getValue(), 4, 0},
                                 {"output", getOutput(), 4 + lead, lead}};
  if (split && !getLse())
    return emitOpError() << "split_kv needs an lse operand: the merge weighs "
                            "each split by its log-sum-exp";
  if (failed(
          verifyWindow(*this, getCausal(), getWindowLeft(), getWindowRight())))
    return failure();
  if ((getWindowLeft() || getWindowRight()) && (split || isVarlen()))
    return emitOpError() << "unsupported: a sliding window with "
                         << (split ? "split_kv" : "varlen")
                         << " (not implemented yet)";
  if (getLse())
    operands.push_back({"lse", getLse(), 3 + lead, lead});
  if (getPackQueryHeads()) {
    // Packed rows are (position, head) pairs: whatever else reads a row's
    // head or position per row is not lowered for them.
    const char *other = hasScoreMod()  ? "a score_mod region"
                        : hasMaskMod() ? "a mask_mod region"
                        : (getWindowLeft() || getWindowRight())
                            ? "a sliding window"
                        : getAlibiSlopes()                    ? "ALiBi"
                        : getBias()                           ? "a bias"
                        : hasDropout()                        ? "dropout"
                        : hasBlockMask()                      ? "block_mask"
                        : isVarlen()                          ? "varlen"
                        : (getQDescale() || getVTransposed()) ? "fp8"
                                                              : nullptr;
    if (other)
      return emitOpError() << "unsupported: pack_query_heads with " << other
                           << " (packed rows are (position, head) pairs)";
  }

  for (const Named &n : operands) {
    auto t = cast<MemRefType>(n.value.getType());
    if (t.getRank() != n.rank) {
      bool matrix = n.rank - n.lead == 4;
      return emitOpError() << n.name << " must have rank " << n.rank << " ["
                           << (n.lead ? "splits, " : "")
                           << (matrix ? "batch, heads, seq, head_dim]"
                                      : "batch, heads, seq]")
                           << ", got rank " << t.getRank();
    }
    if (failed(verifyStridedNonEmpty(*this, n)))
      return failure();
  }

  auto q = cast<MemRefType>(getQuery().getType());
  auto k = cast<MemRefType>(getKey().getType());
  auto v = cast<MemRefType>(getValue().getType());
  auto o = cast<MemRefType>(getOutput().getType());

  // Element types: one of f32/f16/bf16, the same on Q, K, V and O; split
  // partials are f32 (they are summed again by the merge). fp8 inputs
  // (e4m3) write an f16 or bf16 O.
  bool fp8 = isFp8();
  if (!fp8 && !isSupportedElementType(q.getElementType()))
    return emitOpError() << "query element type must be f32, f16, bf16 or "
                            "f8E4M3FN, got "
                         << q.getElementType();
  for (const Named &n : ArrayRef(operands).drop_front().take_front(3)) {
    Type et = cast<MemRefType>(n.value.getType()).getElementType();
    if (n.lead) {
      if (!et.isF32())
        return emitOpError() << "split_kv output element type must be f32, "
                                "got "
                             << et;
      continue;
    }
    if (fp8 && n.value == getOutput()) {
      if (!et.isF16() && !et.isBF16())
        return emitOpError() << "output element type must be f16 or bf16 "
                                "with fp8 inputs, got "
                             << et;
      continue;
    }
    if (et != q.getElementType())
      return emitOpError() << n.name << " element type " << et
                           << " must match query element type "
                           << q.getElementType();
  }
  if (getLse() &&
      !cast<MemRefType>(getLse().getType()).getElementType().isF32())
    return emitOpError()
           << "lse element type must be f32, got "
           << cast<MemRefType>(getLse().getType()).getElementType();

  // fp8: the dequantisation factors, V's transposed layout, and what the
  // fp8 lowering does not cover yet.
  bool vt = getVTransposed();
  if (fp8 != vt)
    return emitOpError()
           << (fp8 ? "fp8 needs v_transposed (V as [B, Hkv, Dv, Nk], keys "
                     "contiguous: the tensor cores read 8-bit operands only "
                     "along the reduced dimension)"
                   : "v_transposed is the fp8 layout of V; with f16, bf16 "
                     "or f32 inputs give V as [B, Hkv, Nk, Dv]");
  if (getQDescale() && !fp8)
    return emitOpError() << "descale(...) dequantises fp8 inputs; the inputs "
                            "are "
                         << q.getElementType();
  if (fp8) {
    const char *what = split         ? "split_kv"
                       : getKvLens() ? "a KV cache (kv_lens)"
                       : isVarlen()  ? "varlen"
                       : getWindowLeft() || getWindowRight()
                           ? "a sliding window"
                       : getSoftcapAttr() ? "a soft-cap"
                       : hasScoreMod()    ? "a score_mod region"
                       : hasMaskMod()     ? "a mask_mod region"
                       : getBias()        ? "a bias"
                                          : nullptr;
    if (what)
      return emitOpError() << "unsupported: fp8 inputs with " << what
                           << " (not implemented yet)";
  }
  const unsigned vHeadDim = vt ? 2 : 3, vKeyDim = getValueKeyDim();

  // Head dims are static; Q and K share D, V and O share Dv.
  for (const Named &n : ArrayRef(operands).take_front(4)) {
    unsigned d = n.value == getValue() ? vHeadDim : 3 + n.lead;
    if (cast<MemRefType>(n.value.getType()).isDynamicDim(d))
      return emitOpError() << "head dim (dim " << d << ") of " << n.name
                           << " must be static";
  }
  if (q.getDimSize(3) != k.getDimSize(3))
    return emitOpError() << "head dim of query (" << q.getDimSize(3)
                         << ") must equal head dim of key (" << k.getDimSize(3)
                         << ")";
  if (v.getDimSize(vHeadDim) != o.getDimSize(3 + lead))
    return emitOpError() << "head dim of value (" << v.getDimSize(vHeadDim)
                         << ") must equal head dim of output ("
                         << o.getDimSize(3 + lead) << ")";
  for (auto [what, hd] : {std::pair{"head dim", q.getDimSize(3)},
                          std::pair{"value head dim", v.getDimSize(vHeadDim)}})
    if (hd > kMaxHeadDim)
      return emitOpError() << "unsupported: " << what << " " << hd
                           << " (at most " << kMaxHeadDim << ")";

  // A KV cache: per-sequence key counts [B] i32, and with pages a table
  // [B, max_pages] i32 (K and V then hold pages, not batches).
  bool paged = isPaged();
  if (paged && !getKvLens())
    return emitOpError() << "pages(...) needs kv_lens(...): a paged cache "
                            "has no key count of its own";
  SmallVector<Named> cache;
  if (getKvLens())
    cache.push_back({"kv_lens", getKvLens(), 1, 0});
  if (paged)
    cache.push_back({"page table", getPageTable(), 2, 0});
  for (const Named &n : cache)
    if (failed(verifyI32Operand(
            *this, n, n.rank == 1 ? "[batch]" : "[batch, max_pages]")))
      return failure();

  // A packed batch: offsets [B + 1] i32 for the queries and the keys, one
  // "batch" of packed rows in every tensor.
  if (bool(getCuSeqlensQ()) != bool(getCuSeqlensK()))
    return emitOpError() << "varlen needs both cu_seqlens_q and cu_seqlens_k";
  if (isVarlen()) {
    if (split || getKvLens())
      return emitOpError() << "unsupported: varlen with "
                           << (split ? "split_kv" : "a KV cache (kv_lens)")
                           << " (the packed batch's sequences are tiled "
                              "whole)";
    for (Named n : {Named{"cu_seqlens_q", getCuSeqlensQ(), 1, 0},
                    Named{"cu_seqlens_k", getCuSeqlensK(), 1, 0}})
      if (failed(verifyI32Operand(*this, n, "[batch + 1]")))
        return failure();
    auto cq = cast<MemRefType>(getCuSeqlensQ().getType());
    auto ck = cast<MemRefType>(getCuSeqlensK().getType());
    if (!cq.isDynamicDim(0) && !ck.isDynamicDim(0) &&
        cq.getDimSize(0) != ck.getDimSize(0))
      return emitOpError() << "cu_seqlens_q (" << cq.getDimSize(0)
                           << " entries) and cu_seqlens_k (" << ck.getDimSize(0)
                           << " entries) must have one entry per sequence "
                              "plus one, alike";
    if (!cq.isDynamicDim(0) && cq.getDimSize(0) < 2)
      return emitOpError() << "cu_seqlens_q needs at least 2 entries (one "
                              "sequence), got "
                           << cq.getDimSize(0);
    for (const Named &n : operands) {
      auto t = cast<MemRefType>(n.value.getType());
      if (!t.isDynamicDim(0) && t.getDimSize(0) != 1)
        return emitOpError()
               << "varlen: dim 0 of " << n.name << " must be 1 (the "
               << "sequences are packed along the rows), got "
               << t.getDimSize(0);
    }
  }

  DimChecker dc{getOperation()};
  // Batch: all alike (paged K and V have pages in dim 0 instead). Every
  // pair is checked, so that a dynamic batch on one operand does not hide a
  // mismatch between two others.
  SmallVector<Named> batched;
  for (const Named &n : operands)
    if (!paged || (n.value != getKey() && n.value != getValue()))
      batched.push_back(n);
  batched.append(cache.begin(), cache.end());
  for (size_t i = 0; i < batched.size(); ++i) {
    for (size_t j = i + 1; j < batched.size(); ++j) {
      const Named &a = batched[i], &b = batched[j];
      if (failed(dc.same(a.name, cast<MemRefType>(a.value.getType()), a.lead,
                         b.name, cast<MemRefType>(b.value.getType()), b.lead,
                         "batch")))
        return failure();
    }
  }
  // Heads: O has Hq heads, K and V have Hkv heads.
  if (failed(dc.same("query", q, 1, "output", o, 1 + lead, "heads")) ||
      failed(dc.same("key", k, 1, "value", v, 1, "heads")))
    return failure();
  // Sequences: O has Nq rows, K and V have Nk rows (paged: the page size).
  if (failed(
          dc.same("query", q, 2, "output", o, 2 + lead, "sequence length")) ||
      failed(dc.same("key", k, 2, "value", v, vKeyDim,
                     paged ? "page size" : "sequence length")))
    return failure();
  if (paged && failed(dc.same("key", k, 0, "value", v, 0, "pages")))
    return failure();
  if (paged) {
    // A key block must not straddle part of a page: the page size is a
    // multiple of an explicit block_kv, or block_kv a multiple of the page
    // size (the block gathers whole pages).
    int64_t page = getStaticPageSize();
    if (auto bkv = getBlockKvAttr(); bkv && bkv.getInt() > 0 &&
                                     !ShapedType::isDynamic(page) &&
                                     page % bkv.getInt() && bkv.getInt() % page)
      return emitOpError() << "page size " << page
                           << " must be a multiple or a divisor of block_kv ("
                           << bkv.getInt() << "): a key block is read "
                           << "from one page or from whole pages";
  }
  // LSE has the Hq heads and Nq rows of Q and O (its batch is checked above)
  // and, with split_kv, O's splits.
  SmallVector<std::pair<MemRefType, int64_t>> qHeads = {{q, 1}, {o, 1 + lead}};
  if (getLse()) {
    auto l = cast<MemRefType>(getLse().getType());
    if (failed(dc.same("lse", l, 1 + lead, "query", q, 1, "heads")) ||
        failed(dc.same("lse", l, 2 + lead, "query", q, 2, "sequence length")) ||
        failed(dc.same("lse", l, 1 + lead, "output", o, 1 + lead, "heads")) ||
        failed(dc.same("lse", l, 2 + lead, "output", o, 2 + lead,
                       "sequence length")))
      return failure();
    if (split && failed(dc.same("lse", l, 0, "output", o, 0, "splits")))
      return failure();
    qHeads.push_back({l, 1 + lead});
  }
  // GQA/MQA: each kv head serves Hq/Hkv query heads. Each count is taken
  // from any operand that has it static (the checks above made them agree).
  auto staticHeads = [](ArrayRef<std::pair<MemRefType, int64_t>> types) {
    for (auto [t, dim] : types)
      if (!t.isDynamicDim(dim))
        return t.getDimSize(dim);
    return ShapedType::kDynamic;
  };
  int64_t hq = staticHeads(qHeads), hkv = staticHeads({{k, 1}, {v, 1}});
  if (failed(verifyHeadsScaleBlocks(*this, hq, hkv, getScaleAttr(),
                                    bool(getDynamicScale()), getBlockQAttr(),
                                    getBlockKvAttr())))
    return failure();
  if (failed(verifySoftcapAlibi(*this, getSoftcapAttr(), hasScoreMod(),
                                getAlibiSlopes(), getQuery())))
    return failure();
  if (failed(verifyBlockMask()) || failed(verifyBias()) ||
      failed(verifyDropout()))
    return failure();
  return verifyScoreMod();
}

/// A dropout rate that is a constant lies in [0, 1).
static LogicalResult verifyDropoutRate(Operation *op, Value rate) {
  FloatAttr p;
  if (rate && matchPattern(rate, m_Constant(&p))) {
    double v = p.getValueAsDouble();
    if (!(v >= 0.0 && v < 1.0)) {
      char text[32];
      std::snprintf(text, sizeof(text), "%g", v);
      return op->emitOpError()
             << "dropout rate must be in [0, 1), got " << text;
    }
  }
  return success();
}

/// dropout(p, seed, offset): 0 <= p < 1 where p is a constant.
LogicalResult AttentionOp::verifyDropout() {
  Value rate = getDropoutRate();
  if (!rate)
    return success();
  if (isFp8())
    return emitOpError()
           << "unsupported: dropout with fp8 inputs (not implemented yet)";
  return verifyDropoutRate(*this, rate);
}

/// What a variant indexed by the dense (batch, head, query, key) positions
/// does not combine with yet: split_kv, a KV cache, varlen, fp8 (null if
/// none).
static const char *denseOnlyConflict(AttentionOp op) {
  return op.getSplitKv()  ? "split_kv"
         : op.getKvLens() ? "a KV cache (kv_lens)"
         : op.isVarlen()  ? "varlen"
         : op.isFp8()     ? "fp8 inputs"
                          : nullptr;
}

/// Dim `d` (0 batch, 1 heads) of a broadcast operand `what`: 1 or Q's.
static LogicalResult verifyBroadcastDim(AttentionOp op, StringRef what,
                                        int64_t d, int64_t size, MemRefType q) {
  int64_t n = q.getDimSize(d);
  if (ShapedType::isDynamic(size) || ShapedType::isDynamic(n) || size == 1 ||
      size == n)
    return success();
  return op.emitOpError() << what << " " << (d == 0 ? "batch" : "heads") << " ("
                          << size << ") must be 1 or the query's (" << n << ")";
}

/// An additive bias [1|B, 1|Hq, Nq, Nk] f32.
LogicalResult AttentionOp::verifyBias() {
  Value bias = getBias();
  if (!bias)
    return success();
  if (const char *what = denseOnlyConflict(*this))
    return emitOpError() << "unsupported: bias with " << what
                         << " (not implemented yet)";
  auto t = cast<MemRefType>(bias.getType());
  if (t.getRank() != 4)
    return emitOpError() << "bias must have rank 4 [1|batch, 1|heads, "
                            "seq_q, seq_k], got rank "
                         << t.getRank();
  Type bt = t.getElementType();
  if (!bt.isF32() && bt != getElementType())
    return emitOpError() << "bias element type " << bt
                         << " must be f32 or the inputs' (" << getElementType()
                         << ")";
  if (failed(verifyStridedNonEmpty(*this, {"bias", bias, 4, 0})))
    return failure();
  auto q = cast<MemRefType>(getQuery().getType());
  auto k = cast<MemRefType>(getKey().getType());
  for (int64_t d : {0, 1})
    if (failed(verifyBroadcastDim(*this, "bias", d, t.getDimSize(d), q)))
      return failure();
  DimChecker dc{getOperation()};
  if (failed(dc.same("bias", t, 2, "query", q, 2, "sequence length")) ||
      failed(dc.same("bias", t, 3, "key", k, 2, "sequence length")))
    return failure();
  return success();
}

/// [BQ, BK] of a mask_block attribute, or the default (attn.attention and
/// attn.block_lists).
static std::pair<int64_t, int64_t> maskBlockSizes(DenseI64ArrayAttr a) {
  if (a && a.size() == 2)
    return {a[0], a[1]};
  return {kDefaultMaskBlock, kDefaultMaskBlock};
}

std::pair<int64_t, int64_t> AttentionOp::getMaskBlockSizes() {
  return maskBlockSizes(getMaskBlockAttr());
}

/// mask_block = [BQ, BK]: powers of two in [1, kMaxBlockSize] (shared by
/// attn.attention and attn.block_lists).
static LogicalResult verifyMaskBlock(Operation *op, DenseI64ArrayAttr a) {
  if (!a)
    return success();
  if (a.size() != 2)
    return op->emitOpError()
           << "mask_block must be [BQ, BK] (2 entries), got " << a.size();
  for (int64_t x : a.asArrayRef())
    if (x < 1 || x > kMaxBlockSize || !llvm::isPowerOf2_64(uint64_t(x)))
      return op->emitOpError()
             << "mask_block entries must be powers of two in [1, "
             << kMaxBlockSize << "], got " << x;
  return success();
}

/// Block lists: counts [1|B, 1|Hq, QB] and indices [1|B, 1|Hq, QB, K], i32,
/// and the full lists (optional) of the same shapes; every pair agrees on
/// batch, heads and query blocks (so a dynamic dim on one does not hide a
/// mismatch of two others); each index list has its own K.
static LogicalResult verifyBlockLists(Operation *op, Value counts,
                                      Value indices, Value fullCounts,
                                      Value fullIndices) {
  SmallVector<Named> mask = {{"block counts", counts, 3, 0},
                             {"block indices", indices, 4, 0}};
  if (fullCounts) {
    mask.push_back({"full block counts", fullCounts, 3, 0});
    mask.push_back({"full block indices", fullIndices, 4, 0});
  }
  for (const Named &n : mask)
    if (failed(verifyI32Operand(op, n,
                                n.rank == 3
                                    ? "[1|batch, 1|heads, query blocks]"
                                    : "[1|batch, 1|heads, query blocks, K]")))
      return failure();
  DimChecker dc{op};
  for (auto [d, name] : {std::pair{0, "batch"}, std::pair{1, "heads"},
                         std::pair{2, "query blocks"}})
    for (size_t i = 0; i < mask.size(); ++i)
      for (size_t j = i + 1; j < mask.size(); ++j)
        if (failed(dc.same(mask[i].name,
                           cast<MemRefType>(mask[i].value.getType()), d,
                           mask[j].name,
                           cast<MemRefType>(mask[j].value.getType()), d, name)))
          return failure();
  return success();
}

/// Block sparsity: counts [1|B, 1|Hq, QB] and indices [1|B, 1|Hq, QB, K],
/// i32, with QB = ceil(Nq / BQ) mask blocks of rows.
LogicalResult AttentionOp::verifyBlockMask() {
  if (!hasBlockMask()) {
    if (getMaskBlockAttr())
      return emitOpError() << "mask_block sizes the blocks of a block_mask "
                              "operand, which this op has not";
    if (hasFullBlocks())
      return emitOpError() << "full_blocks needs block_mask (the partial "
                              "blocks' lists)";
    return success();
  }
  if (failed(verifyMaskBlock(*this, getMaskBlockAttr())))
    return failure();
  if (const char *what = denseOnlyConflict(*this))
    return emitOpError() << "unsupported: block_mask with " << what
                         << " (not implemented yet)";
  if (failed(verifyBlockLists(*this, getBlockCounts(), getBlockIndices(),
                              getFullCounts(), getFullIndices())))
    return failure();
  auto c = cast<MemRefType>(getBlockCounts().getType());
  auto x = cast<MemRefType>(getBlockIndices().getType());
  auto q = cast<MemRefType>(getQuery().getType());
  // Batch and heads broadcast from 1.
  for (int64_t d : {0, 1})
    if (failed(verifyBroadcastDim(
            *this, "block_mask", d,
            c.isDynamicDim(d) ? x.getDimSize(d) : c.getDimSize(d), q)))
      return failure();
  int64_t qb = c.isDynamicDim(2) ? x.getDimSize(2) : c.getDimSize(2);
  int64_t nq = q.getDimSize(2);
  int64_t bq = getMaskBlockSizes().first;
  if (!ShapedType::isDynamic(qb) && !ShapedType::isDynamic(nq) &&
      qb != (nq + bq - 1) / bq)
    return emitOpError() << "block_mask has " << qb << " query blocks; " << nq
                         << " query rows in blocks of " << bq << " need "
                         << (nq + bq - 1) / bq;
  return success();
}

/// The ops a score_mod body may hold: scalar code every backend lowers (the
/// CPU pipeline, the GPU patterns, attn-run's float64 reference). Constants
/// and memref.load are checked on their own.
static constexpr llvm::StringLiteral kScoreModOps[] = {
    // float arithmetic
    "arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf",
    "arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf",
    // integer arithmetic
    "arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.divui",
    "arith.remsi", "arith.remui", "arith.floordivsi", "arith.ceildivsi",
    "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui", "arith.andi",
    "arith.ori", "arith.xori", "arith.shli", "arith.shrsi", "arith.shrui",
    // comparisons, selection, casts
    "arith.cmpf", "arith.cmpi", "arith.select", "arith.sitofp", "arith.uitofp",
    "arith.fptosi", "arith.fptoui", "arith.extsi", "arith.extui",
    "arith.trunci", "arith.extf", "arith.truncf", "arith.index_cast",
    // math
    "math.tanh", "math.exp", "math.exp2", "math.log", "math.sqrt", "math.absf",
    "math.absi"};

bool AttentionOp::scoreModUsesPositions() {
  if (!hasScoreMod())
    return false;
  Block &block = getScoreMod().front();
  return llvm::any_of(block.getArguments().drop_front(),
                      [](BlockArgument a) { return !a.use_empty(); });
}

LogicalResult AttentionOp::verifyScoreMod() {
  if (failed(verifyModRegion(getScoreMod(), /*isMask=*/false)) ||
      failed(verifyModRegion(getMaskMod(), /*isMask=*/true)))
    return failure();
  if (hasFullBlocks() && !hasMaskMod())
    return emitOpError() << "full_blocks lists the blocks where mask_mod is "
                            "not evaluated; without a mask_mod give them in "
                            "block_mask";
  return success();
}

/// A score_mod region: (%score: f32[, %b, %h, %q_idx, %kv_idx: i32]) ->
/// f32; a mask_mod region: (%b, %h, %q_idx, %kv_idx: i32) -> i1. Both take
/// the same scalar code, on attn.attention and attn.attention_grad alike.
/// `written` are the memrefs `self` writes (`writtenWhat` names them): the
/// body must not read them.
static LogicalResult verifyModRegionOf(Operation *self, Region &region,
                                       bool isMask, ArrayRef<Value> written,
                                       StringRef writtenWhat) {
  const StringRef name = isMask ? "mask_mod" : "score_mod";
  if (region.empty())
    return success();
  auto emitOpError = [&]() { return self->emitOpError(); };
  if (!region.hasOneBlock())
    return emitOpError() << name << " must have one block";
  Block &block = region.front();
  MLIRContext *ctx = self->getContext();
  Type f32 = Float32Type::get(ctx), i32 = IntegerType::get(ctx, 32);
  SmallVector<Type> full = {f32, i32, i32, i32, i32};
  TypeRange args = block.getArgumentTypes();
  if (isMask && TypeRange(ArrayRef(full).drop_front()) != args)
    return emitOpError() << "mask_mod takes (%b: i32, %h: i32, %q_idx: i32, "
                            "%kv_idx: i32)";
  if (!isMask && !(args.size() == 1 && args[0] == f32) &&
      TypeRange(full) != args)
    return emitOpError() << "score_mod takes (%score: f32) or (%score: f32, "
                            "%b: i32, %h: i32, %q_idx: i32, %kv_idx: i32)";
  if (block.empty() || !isa<YieldOp>(block.back()))
    return emitOpError() << name << " must end with attn.yield";
  Type yielded = isMask ? Type(IntegerType::get(ctx, 1)) : f32;
  if (block.back().getNumOperands() != 1 ||
      block.back().getOperand(0).getType() != yielded)
    return block.back().emitOpError()
           << "in " << name << ": must yield one "
           << (isMask ? "i1 (whether the key is visible)"
                      : "f32 (the modified score)");
  // Values that differ from score to score: the score, the positions i and
  // j, and whatever is computed from them. A load that depends on them is
  // a gather (each score reads its own element).
  llvm::SmallPtrSet<Value, 16> varying;
  if (isMask) {
    varying.insert(block.getArgument(2));
    varying.insert(block.getArgument(3));
  } else {
    varying.insert(block.getArgument(0));
    if (args.size() == 5) {
      varying.insert(block.getArgument(3));
      varying.insert(block.getArgument(4));
    }
  }
  // What the op writes: reading it from the body would race with the
  // kernel's own stores.
  auto checkCapture = [&](Operation &op, Value v,
                          bool memrefOk) -> LogicalResult {
    if (v.getParentRegion() == &region ||
        region.isProperAncestor(v.getParentRegion()))
      return success();
    if (isa<MemRefType>(v.getType())) {
      if (!memrefOk)
        return op.emitOpError() << "in " << name
                                << ": a captured memref may only be read by "
                                   "memref.load";
      if (llvm::is_contained(written, v))
        return op.emitOpError() << "in " << name << ": reads the "
                                << writtenWhat << ", which it writes";
      return success();
    }
    if (!v.getType().isIntOrIndexOrFloat())
      return op.emitOpError()
             << "in " << name
             << ": a value defined outside the region must be a "
                "scalar or a memref, got "
             << v.getType();
    return success();
  };
  for (Value v : block.back().getOperands())
    if (v.getParentRegion() != &region)
      return block.back().emitOpError()
             << "in " << name << ": must yield a value computed in the region";
  for (Operation &op : block.without_terminator()) {
    if (op.getNumRegions())
      return op.emitOpError() << "in " << name
                              << ": ops with regions are not "
                                 "supported";
    for (Type t : op.getResultTypes()) {
      if (!t.isIntOrIndexOrFloat())
        return op.emitOpError()
               << "in " << name << ": results must be scalars, got " << t;
      // What every backend (and attn-run's reference, in int64 and
      // double) computes exactly.
      if ((t.isInteger() && t.getIntOrFloatBitWidth() > 64) ||
          (isa<FloatType>(t) &&
           !(t.isF16() || t.isBF16() || t.isF32() || t.isF64())))
        return op.emitOpError() << "in " << name
                                << ": integers of at most 64 "
                                   "bits and f16, bf16, f32 or f64 only, got "
                                << t;
    }
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      if (!isa<FloatAttr, IntegerAttr>(c.getValue()))
        return op.emitOpError()
               << "in " << name << ": only scalar constants are supported";
      continue;
    }
    // A size of a memref defined outside (a sequence length: ALiBi's
    // diagonal offset Nk − Nq): one value per program.
    if (auto dim = dyn_cast<memref::DimOp>(op)) {
      if (dim.getSource().getParentRegion() == &region ||
          region.isProperAncestor(dim.getSource().getParentRegion()) ||
          !dim.getConstantIndex())
        return op.emitOpError() << "in " << name
                                << ": memref.dim of a memref "
                                   "defined outside the region, at a "
                                   "constant dim, only";
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      if (failed(checkCapture(op, load.getMemRef(), /*memrefOk=*/true)))
        return failure();
      if (load.getMemRef().getParentRegion() == &region)
        return op.emitOpError() << "in " << name
                                << ": loads from a memref defined outside the "
                                   "region only";
      Type et = load.getType();
      if (!(et.isF32() || et.isF16() || et.isBF16() || et.isInteger(32) ||
            et.isInteger(64)))
        return op.emitOpError() << "in " << name
                                << ": loads f32, f16, bf16, i32 "
                                   "or i64 elements, not "
                                << et;
      bool gather = false;
      for (Value idx : load.getIndices()) {
        if (failed(checkCapture(op, idx, /*memrefOk=*/false)))
          return failure();
        gather |= varying.contains(idx);
      }
      if (gather)
        varying.insert(load.getResult());
      continue;
    }
    if (!llvm::is_contained(kScoreModOps, op.getName().getStringRef()))
      return op.emitOpError()
             << "in " << name
             << ": unsupported op (supported: scalar constants; "
                "memref.load and memref.dim of a captured memref; arith "
                "float and integer "
                "arithmetic, cmpf, cmpi, select and casts; math tanh, exp, "
                "exp2, log, sqrt, absf, absi)";
    for (Value v : op.getOperands()) {
      if (failed(checkCapture(op, v, /*memrefOk=*/false)))
        return failure();
      if (!v.getType().isIntOrIndexOrFloat())
        return op.emitOpError()
               << "in " << name << ": operands must be scalars, got "
               << v.getType();
      if (varying.contains(v))
        varying.insert(op.getResults().begin(), op.getResults().end());
    }
    // An index that differs from score to score is a gather's index: an
    // index_cast of an integer, read only by loads (the backends keep
    // per-score values as i32 and address each element from them).
    Value r = op.getResult(0);
    if (r.getType().isIndex() && varying.contains(r)) {
      if (!isa<arith::IndexCastOp>(op) ||
          !op.getOperand(0).getType().isInteger(32))
        return op.emitOpError()
               << "unsupported: in " << name
               << ", index arithmetic on the score "
                  "or the positions; compute in i32 and arith.index_cast "
                  "the result for memref.load";
      for (OpOperand &use : r.getUses())
        if (!isa<memref::LoadOp>(use.getOwner()) || use.getOperandNumber() == 0)
          return use.getOwner()->emitOpError()
                 << "unsupported: in " << name
                 << ", a per-score index used other "
                    "than as a memref.load index";
    }
  }
  return success();
}

/// A score_mod the backward differentiates (attn.attention_grad): every op
/// on the way from the score to the result has a derivative that is finite
/// wherever its operands are (dS = P∘(dP − Δ)∘∂mod/∂s is also computed
/// where P = 0: masked scores, rows past the end). The score's float
/// dependents are followed; integer results (fptosi, cmpf) carry no
/// derivative.
static LogicalResult verifyDifferentiable(Operation *self, Region &region) {
  if (region.empty())
    return success();
  Block &block = region.front();
  llvm::SmallPtrSet<Value, 16> onScore = {block.getArgument(0)};
  for (Operation &op : block.without_terminator()) {
    auto depends = [&](Value v) { return onScore.contains(v); };
    if (!llvm::any_of(op.getOperands(), depends))
      continue;
    const char *why = nullptr;
    StringRef name = op.getName().getStringRef();
    if (name == "math.log")
      why = "log (1/x)";
    else if (name == "math.sqrt")
      why = "sqrt (1/(2·sqrt(x)))";
    else if (auto div = dyn_cast<arith::DivFOp>(op);
             div && depends(div.getRhs()))
      why = "a division by the score (−a/b²)";
    if (why)
      return op.emitOpError()
             << "unsupported: in score_mod of attn.attention_grad, the "
                "derivative of "
             << why
             << " is unbounded where the score is finite (the backward "
                "evaluates it on masked scores too)";
    for (Value r : op.getResults())
      if (isa<FloatType>(r.getType()))
        onScore.insert(r);
  }
  return success();
}

LogicalResult AttentionOp::verifyModRegion(Region &region, bool isMask) {
  SmallVector<Value> written = {getOutput()};
  if (getLse())
    written.push_back(getLse());
  return verifyModRegionOf(*this, region, isMask, written,
                           "attention's output (O or LSE)");
}

LogicalResult YieldOp::verify() {
  // A score_mod yields one f32, a mask_mod one i1 (AttentionOp's verifier
  // checks which).
  if (getValues().size() != 1)
    return emitOpError() << "must yield one value (the modified score, or "
                            "whether the key is visible)";
  return success();
}

//===----------------------------------------------------------------------===//
// BlockListsOp
//===----------------------------------------------------------------------===//

std::pair<int64_t, int64_t> BlockListsOp::getMaskBlockSizes() {
  return maskBlockSizes(getMaskBlockAttr());
}

LogicalResult BlockListsOp::verify() {
  if (failed(verifyWindow(*this, getCausal(), getWindowLeft(),
                          getWindowRight())) ||
      failed(verifyMaskBlock(*this, getMaskBlockAttr())) ||
      failed(verifyBlockLists(*this, getBlockCounts(), getBlockIndices(),
                              getFullCounts(), getFullIndices())))
    return failure();
  SmallVector<Value> written = {getBlockCounts(), getBlockIndices()};
  if (getFullCounts())
    written.append({getFullCounts(), getFullIndices()});
  return verifyModRegionOf(*this, getMaskMod(), /*isMask=*/true, written,
                           "block lists");
}

//===----------------------------------------------------------------------===//
// MergeSplitsOp
//===----------------------------------------------------------------------===//

LogicalResult MergeSplitsOp::verify() {
  SmallVector<Named> operands = {{"partial output", getPartialOutput(), 5, 1},
                                 {"partial lse", getPartialLse(), 4, 1},
                                 {"output", getOutput(), 4, 0}};
  if (getLse())
    operands.push_back({"lse", getLse(), 3, 0});
  for (const Named &n : operands) {
    auto t = cast<MemRefType>(n.value.getType());
    if (t.getRank() != n.rank)
      return emitOpError() << n.name << " must have rank " << n.rank
                           << ", got rank " << t.getRank();
    if (failed(verifyStridedNonEmpty(*this, n)))
      return failure();
    Type et = t.getElementType();
    bool isOut = n.value == getOutput();
    if (isOut ? !isSupportedElementType(et) : !et.isF32())
      return emitOpError() << n.name << " element type must be "
                           << (isOut ? "f32, f16 or bf16" : "f32") << ", got "
                           << et;
  }
  auto po = cast<MemRefType>(getPartialOutput().getType());
  auto pl = cast<MemRefType>(getPartialLse().getType());
  auto o = cast<MemRefType>(getOutput().getType());
  if (po.isDynamicDim(4) || o.isDynamicDim(3))
    return emitOpError() << "head dims (dim 4 of the partial output, dim 3 of "
                            "the output) must be static";
  if (po.getDimSize(4) != o.getDimSize(3))
    return emitOpError() << "head dim of the partial output ("
                         << po.getDimSize(4) << ") must equal head dim of the "
                         << "output (" << o.getDimSize(3) << ")";
  if (o.getDimSize(3) > kMaxHeadDim)
    return emitOpError() << "unsupported: head dim " << o.getDimSize(3)
                         << " (at most " << kMaxHeadDim << ")";
  DimChecker dc{getOperation()};
  if (failed(dc.same("partial output", po, 0, "partial lse", pl, 0, "splits")))
    return failure();
  static constexpr StringRef kWhat[] = {"batch", "heads", "sequence length"};
  for (int64_t d = 0; d < 3; ++d)
    for (size_t i = 0; i < operands.size(); ++i)
      for (size_t j = i + 1; j < operands.size(); ++j) {
        const Named &a = operands[i], &b = operands[j];
        if (failed(dc.same(
                a.name, cast<MemRefType>(a.value.getType()), a.lead + d, b.name,
                cast<MemRefType>(b.value.getType()), b.lead + d, kWhat[d])))
          return failure();
      }
  if (auto attr = getBlockQAttr()) {
    int64_t b = attr.getInt();
    if (!isValidBlockRows(b, kMaxBlockSize, /*queryBlock=*/true))
      return emitOpError() << "block_q must be a power of two or a multiple "
                              "of 64 in [1, "
                           << kMaxBlockSize << "], got " << b;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionGradOp
//===----------------------------------------------------------------------===//

int64_t AttentionGradOp::getHeadDim() {
  return cast<MemRefType>(getQuery().getType()).getDimSize(3);
}
int64_t AttentionGradOp::getValueHeadDim() {
  return cast<MemRefType>(getValue().getType()).getDimSize(3);
}
Type AttentionGradOp::getElementType() {
  return cast<MemRefType>(getQuery().getType()).getElementType();
}
double AttentionGradOp::getScaleValue() {
  assert(!getDynamicScale() && "the scale is only known at run time");
  if (auto s = getScaleAttr())
    return s.getValueAsDouble();
  return 1.0 / std::sqrt(static_cast<double>(getHeadDim()));
}

LogicalResult AttentionGradOp::verify() {
  // The operands by role: which rows (query or key rows) and which head dim
  // (D or Dv) each has, so one loop checks every pair that must agree.
  enum Rows { QueryRows, KeyRows };
  enum HeadDim { None, DimD, DimDv };
  struct Role {
    Named n;
    Rows rows;
    HeadDim hd;
    /// f32 whatever the element type (dq_accum).
    bool f32 = false;
  };
  SmallVector<Role> roles = {
      {{"grad_output", getGradOutput(), 4, 0}, QueryRows, DimDv},
      {{"query", getQuery(), 4, 0}, QueryRows, DimD},
      {{"key", getKey(), 4, 0}, KeyRows, DimD},
      {{"value", getValue(), 4, 0}, KeyRows, DimDv},
      {{"output", getOutput(), 4, 0}, QueryRows, DimDv},
      {{"lse", getLse(), 3, 0}, QueryRows, None},
      {{"grad_query", getGradQuery(), 4, 0}, QueryRows, DimD},
      {{"grad_key", getGradKey(), 4, 0}, KeyRows, DimD},
      {{"grad_value", getGradValue(), 4, 0}, KeyRows, DimDv},
      {{"delta", getDelta(), 3, 0}, QueryRows, None}};
  if (Value ws = getDqAccum())
    roles.push_back({{"dq_accum", ws, 4, 0}, QueryRows, DimD, /*f32=*/true});
  Type et = getElementType();
  if (!isSupportedElementType(et))
    return emitOpError() << "query element type must be f32, f16 or bf16, got "
                         << et;
  for (const Role &r : roles) {
    auto t = cast<MemRefType>(r.n.value.getType());
    if (t.getRank() != r.n.rank)
      return emitOpError() << r.n.name << " must have rank " << r.n.rank
                           << (r.n.rank == 4 ? " [batch, heads, seq, head_dim]"
                                             : " [batch, heads, seq]")
                           << ", got rank " << t.getRank();
    if (failed(verifyStridedNonEmpty(*this, r.n)))
      return failure();
    bool f32 = r.hd == None || r.f32;
    Type want = f32 ? Float32Type::get(getContext()) : et;
    if (t.getElementType() != want)
      return emitOpError() << r.n.name << " element type must be " << want
                           << (f32 ? "" : " (the query's)") << ", got "
                           << t.getElementType();
    if (r.hd != None && t.isDynamicDim(3))
      return emitOpError() << "head dim (dim 3) of " << r.n.name
                           << " must be static";
  }
  // Head dims: D on Q, K, dQ, dK; Dv on V, O, dO, dV.
  const Role *firstOf[3] = {nullptr, nullptr, nullptr};
  for (const Role &r : roles) {
    if (r.hd == None)
      continue;
    auto t = cast<MemRefType>(r.n.value.getType());
    const Role *&first = firstOf[r.hd];
    if (!first) {
      first = &r;
      if (t.getDimSize(3) > kMaxHeadDim)
        return emitOpError() << "unsupported: head dim " << t.getDimSize(3)
                             << " (at most " << kMaxHeadDim << ")";
      continue;
    }
    auto f = cast<MemRefType>(first->n.value.getType());
    if (f.getDimSize(3) != t.getDimSize(3))
      return emitOpError() << "head dim of " << r.n.name << " ("
                           << t.getDimSize(3) << ") must equal head dim of "
                           << first->n.name << " (" << f.getDimSize(3) << ")";
  }
  // Batch: all alike; heads: Hq on the query-row operands, Hkv on the
  // key-row ones; rows: Nq and Nk. Every pair is checked, so that a dynamic
  // dim on one operand does not hide a mismatch between two others.
  DimChecker dc{getOperation()};
  for (size_t i = 0; i < roles.size(); ++i)
    for (size_t j = i + 1; j < roles.size(); ++j) {
      const Role &a = roles[i], &b = roles[j];
      auto ta = cast<MemRefType>(a.n.value.getType());
      auto tb = cast<MemRefType>(b.n.value.getType());
      if (failed(dc.same(a.n.name, ta, 0, b.n.name, tb, 0, "batch")))
        return failure();
      if (a.rows != b.rows)
        continue;
      if (failed(dc.same(a.n.name, ta, 1, b.n.name, tb, 1, "heads")) ||
          failed(dc.same(a.n.name, ta, 2, b.n.name, tb, 2, "sequence length")))
        return failure();
    }
  auto staticDim = [&](Rows rows, int64_t dim) {
    for (const Role &r : roles)
      if (r.rows == rows &&
          !cast<MemRefType>(r.n.value.getType()).isDynamicDim(dim))
        return cast<MemRefType>(r.n.value.getType()).getDimSize(dim);
    return ShapedType::kDynamic;
  };
  if (failed(verifyDropoutRate(*this, getDropoutRate())))
    return failure();
  if (failed(verifyHeadsScaleBlocks(
          *this, staticDim(QueryRows, 1), staticDim(KeyRows, 1), getScaleAttr(),
          bool(getDynamicScale()), getBlockQAttr(), getBlockKvAttr())))
    return failure();
  // The forward's score variants (the same rules), and a score_mod the
  // tiling can differentiate.
  if (failed(
          verifyWindow(*this, getCausal(), getWindowLeft(), getWindowRight())))
    return failure();
  if (failed(verifySoftcapAlibi(*this, getSoftcapAttr(), hasScoreMod(),
                                getAlibiSlopes(), getQuery())))
    return failure();
  SmallVector<Value> written = {getGradQuery(), getGradKey(), getGradValue(),
                                getDelta()};
  if (Value ws = getDqAccum())
    written.push_back(ws);
  const StringRef what = "gradients or workspaces (dQ, dK, dV, delta)";
  if (failed(verifyModRegionOf(*this, getScoreMod(), /*isMask=*/false, written,
                               what)) ||
      failed(verifyModRegionOf(*this, getMaskMod(), /*isMask=*/true, written,
                               what)))
    return failure();
  return verifyDifferentiable(*this, getScoreMod());
}

//===----------------------------------------------------------------------===//
// Tile ops
//===----------------------------------------------------------------------===//

/// A static tile with a zero-sized dim holds nothing to compute on, and its
/// lowering would build out-of-bounds slices: every tile op rejects it.
static LogicalResult verifyNonEmpty(Operation *op, StringRef name,
                                    RankedTensorType t) {
  if (llvm::is_contained(t.getShape(), 0))
    return op->emitOpError() << name << " must have non-zero dims, got " << t;
  return success();
}

/// Checks the (memref, indices, tile) triple shared by load_tile/store_tile:
/// a tile of rank t covers the last t dims of the memref, the first of which
/// (the row dim) is indexed by the last index.
static LogicalResult verifyTileAccess(Operation *op, MemRefType mem,
                                      size_t numIndices, RankedTensorType tile,
                                      StringRef memName) {
  int64_t t = tile.getRank();
  if (t != 1 && t != 2)
    return op->emitOpError() << "tile must have rank 1 or 2, got " << t;
  if (!tile.hasStaticShape())
    return op->emitOpError() << "tile must have a static shape, got " << tile;
  if (failed(verifyNonEmpty(op, "tile", tile)))
    return failure();
  if (mem.getRank() < t)
    return op->emitOpError()
           << memName << " rank (" << mem.getRank()
           << ") must be at least the tile rank (" << t << ")";
  size_t expected = mem.getRank() - t + 1;
  if (numIndices != expected)
    return op->emitOpError()
           << "expected " << expected << " indices for a " << memName
           << " of rank " << mem.getRank() << " and a tile of rank " << t
           << ", got " << numIndices;
  if (t == 2 && mem.isDynamicDim(mem.getRank() - 1))
    return op->emitOpError()
           << memName << "'s last dim must be static to match "
           << "the tile columns (" << tile.getDimSize(1) << ")";
  if (t == 2 && tile.getDimSize(1) != mem.getDimSize(mem.getRank() - 1))
    return op->emitOpError()
           << "tile columns (" << tile.getDimSize(1) << ") must equal the "
           << memName << "'s last dim (" << mem.getDimSize(mem.getRank() - 1)
           << ")";
  if (!mem.isStrided())
    return op->emitOpError() << memName << " must have a strided layout";
  return success();
}

LogicalResult mlir::attn::verifyPagedRows(Operation *op, MemRefType mem,
                                          RankedTensorType tile, bool window) {
  if (window)
    return op->emitOpError() << "pages and cols do not combine (a paged "
                                "block gathers whole rows)";
  if (mem.getRank() != 4 || tile.getRank() != 2)
    return op->emitOpError()
           << "with pages, expected a [num_pages, heads, page rows, cols] "
              "source and a 2-d tile, got "
           << mem << " and " << tile;
  return success();
}

LogicalResult mlir::attn::verifyGroupedRows(Operation *op, size_t numIndices,
                                            bool window, bool paged) {
  if (window || paged)
    return op->emitOpError()
           << "group does not combine with " << (window ? "cols" : "pages")
           << " (packed rows are (position, head) pairs of whole rows)";
  if (numIndices < 2)
    return op->emitOpError() << "with group, expected a head index and a row "
                                "index last, got "
                             << numIndices << " indices";
  return success();
}

LogicalResult LoadTileOp::verify() {
  auto mem = cast<MemRefType>(getSource().getType());
  auto tile = cast<RankedTensorType>(getResult().getType());
  if (getPages() && failed(verifyPagedRows(*this, mem, tile, bool(getCols()))))
    return failure();
  if (getGroup() &&
      failed(verifyGroupedRows(*this, getIndices().size(), bool(getCols()),
                               bool(getPages()))))
    return failure();
  if (getCols()) {
    // A window of rows and columns: one index per source dim.
    if (tile.getRank() != 2 || !tile.hasStaticShape())
      return emitOpError() << "with cols, the tile must be a static 2-d tile, "
                              "got "
                           << tile;
    if (failed(verifyNonEmpty(*this, "tile", tile)))
      return failure();
    if (mem.getRank() < 2 ||
        getIndices().size() != static_cast<size_t>(mem.getRank()))
      return emitOpError() << "with cols, expected one index per source dim ("
                           << mem.getRank() << "), got " << getIndices().size();
    if (!mem.isStrided())
      return emitOpError() << "source must have a strided layout";
  } else if (failed(verifyTileAccess(*this, mem, getIndices().size(), tile,
                                     "source"))) {
    return failure();
  }
  if (tile.getElementType() != mem.getElementType())
    return emitOpError() << "tile element type " << tile.getElementType()
                         << " must match source element type "
                         << mem.getElementType();
  return success();
}

LogicalResult StoreTileOp::verify() {
  auto mem = cast<MemRefType>(getDest().getType());
  auto tile = cast<RankedTensorType>(getTile().getType());
  if (failed(verifyTileAccess(*this, mem, getIndices().size(), tile, "dest")))
    return failure();
  if (getGroup() && failed(verifyGroupedRows(*this, getIndices().size(),
                                             /*window=*/false,
                                             /*paged=*/false)))
    return failure();
  Type te = tile.getElementType(), me = mem.getElementType();
  if (te == me)
    return success();
  if (!te.isF32())
    return emitOpError() << "tile element type " << te
                         << " must match dest element type " << me
                         << " or be f32 (rounded on store)";
  // An f32 tile is only ever rounded to f16 or bf16 on store.
  if (!isSupportedElementType(me))
    return emitOpError() << "dest element type must be f32, f16 or bf16 for "
                            "an f32 tile, got "
                         << me;
  return success();
}

LogicalResult AccumulateTileOp::verify() {
  auto mem = cast<MemRefType>(getDest().getType());
  auto tile = cast<RankedTensorType>(getTile().getType());
  if (!tile.getElementType().isF32() || !mem.getElementType().isF32())
    return emitOpError() << "tile and dest must be f32, got "
                         << tile.getElementType() << " and "
                         << mem.getElementType();
  if (getTransposed()) {
    if (tile.getRank() != 2)
      return emitOpError() << "with transposed, the tile must be 2-d, got "
                           << tile;
    // The tile's transpose is what lands in dest's rows.
    tile = RankedTensorType::get({tile.getDimSize(1), tile.getDimSize(0)},
                                 tile.getElementType());
  }
  if (failed(verifyTileAccess(*this, mem, getIndices().size(), tile, "dest")))
    return failure();
  if (Value staging = getStaging()) {
    RankedTensorType slot = cast<RingType>(staging.getType()).getTile();
    auto layout = dyn_cast_or_null<SharedLayoutAttr>(slot.getEncoding());
    // Row-major rows (one bulk reduction a row) or 128-byte slabs (one
    // bulk tensor reduction a slab).
    bool rowMajor = layout && !layout.getSwizzle() && !layout.getSlab();
    bool slabs = layout && layout.getSwizzle() == 8 && !layout.getPad() &&
                 layout.getSlab() == 128;
    if (slot.getShape() != tile.getShape() || !slot.getElementType().isF32() ||
        !(rowMajor || slabs))
      return emitOpError() << "the staging ring's tile must be dest's block "
                           << tile
                           << " in f32, row-major in shared memory "
                              "(#attn.shared<swizzle = 0, pad = P>) or in "
                              "128-byte slabs (#attn.shared<swizzle = 8, pad "
                              "= 0, slab = 128>), got "
                           << slot;
    int64_t slots = cast<RingType>(staging.getType()).getStages();
    if (slots > 2 || (slots == 2) != static_cast<bool>(getSlot()) ||
        (slots == 2 && !slabs))
      return emitOpError() << "stages through one slot, or through a slot "
                              "of two (`via %ring[%slot]`) of 128-byte slabs, "
                              "got "
                           << staging.getType()
                           << (getSlot() ? " with" : " without") << " a slot";
    // (Whole slabs of 32 f32 columns: the #attn.shared type's rule.)
    if (slabs) {
      if (mem.getRank() > 5)
        return emitOpError() << "a bulk tensor reduction (via slabs) needs a "
                                "dest of at most 5 dims (a tensor map's), got "
                             << mem;
    } else if (std::string why = bulkReduceRefusal(mem); !why.empty()) {
      return emitOpError() << why;
    }
  }
  return success();
}

std::string AccumulateTileOp::bulkReduceRefusal(MemRefType dest) {
  SmallVector<int64_t> strides;
  int64_t offset;
  int64_t r = dest.getRank();
  // A bulk copy's global address and size are multiples of 16 bytes: rows
  // of whole 4-float chunks from an offset of whole chunks (the base is the
  // allocation's, 16-byte aligned).
  if (r < 2 || failed(dest.getStridesAndOffset(strides, offset)) ||
      strides[r - 1] != 1 || ShapedType::isDynamic(dest.getDimSize(r - 1)) ||
      strides[r - 2] != dest.getDimSize(r - 1) || dest.getDimSize(r - 1) % 4 ||
      ShapedType::isDynamic(offset) || offset % 4) {
    std::string str;
    llvm::raw_string_ostream(str) << dest;
    return "a bulk reduction (via) needs dest rows stored back to back in "
           "16-byte chunks (row stride = the static last dim, a multiple of "
           "4, unit column stride, a static offset of whole chunks), got " +
           str;
  }
  return "";
}

LogicalResult DotOp::verify() {
  if (getAsync())
    for (Operation *user : getResult().getUsers())
      if (!isa<DotWaitOp>(user))
        return emitOpError() << "with async: its result is in flight and may "
                                "only be read through attn.dot_wait, not by '"
                             << user->getName() << "'";
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  auto rhs = cast<RankedTensorType>(getRhs().getType());
  auto acc = cast<RankedTensorType>(getAcc().getType());
  for (auto [name, t] :
       {std::pair{"lhs", lhs}, std::pair{"rhs", rhs}, std::pair{"acc", acc}}) {
    if (t.getRank() != 2 || !t.hasStaticShape())
      return emitOpError() << name << " must be a static 2-d tile, got " << t;
    if (failed(verifyNonEmpty(*this, name, t)))
      return failure();
  }
  if (!(isSupportedElementType(lhs.getElementType()) ||
        isa<Float8E4M3FNType>(lhs.getElementType())) ||
      lhs.getElementType() != rhs.getElementType())
    return emitOpError() << "lhs and rhs must share an f32, f16, bf16 or "
                            "f8E4M3FN element type, got "
                         << lhs.getElementType() << " and "
                         << rhs.getElementType();
  if (!acc.getElementType().isF32())
    return emitOpError() << "acc must be f32, got " << acc.getElementType();
  // lhs [M, K], or [K, M] with lhs_transposed.
  int64_t m = lhs.getDimSize(getLhsTransposed() ? 1 : 0);
  int64_t kdim = lhs.getDimSize(getLhsTransposed() ? 0 : 1);
  int64_t rk = getRhsTransposed() ? rhs.getDimSize(1) : rhs.getDimSize(0);
  int64_t n = getRhsTransposed() ? rhs.getDimSize(0) : rhs.getDimSize(1);
  if (kdim != rk)
    return emitOpError() << "contraction dims differ: lhs has " << kdim
                         << ", rhs has " << rk;
  if (acc.getDimSize(0) != m || acc.getDimSize(1) != n)
    return emitOpError() << "acc must be " << m << "x" << n << ", got " << acc;
  return success();
}

LogicalResult MaskOp::verify() {
  auto t = cast<RankedTensorType>(getScores().getType());
  if (t.getRank() != 2 || !t.hasStaticShape() || !t.getElementType().isF32())
    return emitOpError() << "scores must be a static 2-d f32 tile, got " << t;
  if (failed(
          verifyWindow(*this, getCausal(), getWindowLeft(), getWindowRight())))
    return failure();
  if (getGroup() && getTransposed())
    return emitOpError() << "group and transposed do not combine (packed "
                            "query rows are the rows of a query-major tile)";
  return verifyNonEmpty(*this, "scores", t);
}

LogicalResult RandomOp::verify() {
  auto t = cast<RankedTensorType>(getType());
  if (t.getRank() != 2 || !t.hasStaticShape() ||
      !t.getElementType().isInteger(32))
    return emitOpError() << "result must be a static 2-d i32 tile, got " << t;
  return verifyNonEmpty(*this, "result", t);
}

LogicalResult IotaOp::verify() {
  auto t = cast<RankedTensorType>(getType());
  if ((t.getRank() != 1 && t.getRank() != 2) || !t.hasStaticShape() ||
      !t.getElementType().isInteger(32))
    return emitOpError() << "result must be a static 1-d or 2-d i32 tile, got "
                         << t;
  if (getDim() >= uint64_t(t.getRank()))
    return emitOpError() << "dim must be "
                         << (t.getRank() == 1 ? "0 for a 1-d tile"
                                              : "0 (rows) or 1 (columns)")
                         << ", got " << getDim();
  return verifyNonEmpty(*this, "result", t);
}

LogicalResult GatherOp::verify() {
  auto t = cast<RankedTensorType>(getType());
  auto mem = cast<MemRefType>(getSource().getType());
  if (t.getRank() != 2 || !t.hasStaticShape())
    return emitOpError() << "result must be a static 2-d tile, got " << t;
  if (t.getElementType() != mem.getElementType())
    return emitOpError() << "result element type " << t.getElementType()
                         << " differs from the source's "
                         << mem.getElementType();
  if (int64_t(getIndices().size()) != mem.getRank())
    return emitOpError() << "takes " << mem.getRank()
                         << " indices (the source's rank), got "
                         << getIndices().size();
  for (Value idx : getIndices()) {
    if (idx.getType().isIndex())
      continue;
    auto it = dyn_cast<RankedTensorType>(idx.getType());
    if (!it || !it.getElementType().isInteger(32) ||
        it.getShape() != t.getShape())
      return emitOpError() << "an index must be an index scalar or an i32 "
                              "tile of the result's shape, got "
                           << idx.getType();
  }
  return verifyNonEmpty(*this, "result", t);
}

LogicalResult ReduceOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (in.getRank() != 2 || !in.hasStaticShape() || !in.getElementType().isF32())
    return emitOpError() << "input must be a static 2-d f32 tile, got " << in;
  if (failed(verifyNonEmpty(*this, "input", in)))
    return failure();
  bool rowValues = out.getRank() == 1;
  // [R, W]: W column groups per row (the columns congruent mod W).
  bool columnGroups = out.getRank() == 2 && out.hasStaticShape() &&
                      out.getDimSize(1) > 0 &&
                      in.getDimSize(1) % out.getDimSize(1) == 0;
  if (!(rowValues || columnGroups) || out.getDimSize(0) != in.getDimSize(0) ||
      !out.getElementType().isF32())
    return emitOpError() << "result must be tensor<" << in.getDimSize(0)
                         << "xf32> (one value per row) or tensor<"
                         << in.getDimSize(0)
                         << "xWxf32> with W dividing the input's "
                         << in.getDimSize(1) << " columns, got " << out;
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (in.getRank() != 1 || !in.hasStaticShape())
    return emitOpError() << "input must be a static 1-d tile, got " << in;
  if (failed(verifyNonEmpty(*this, "input", in)))
    return failure();
  // The input runs along the result's rows (one value per row), or with
  // per_column along its columns.
  const unsigned along = getPerColumn() ? 1 : 0;
  if (out.getRank() != 2 || !out.hasStaticShape() ||
      out.getDimSize(along) != in.getDimSize(0) ||
      out.getElementType() != in.getElementType())
    return emitOpError() << "result must be a static 2-d tile with "
                         << in.getDimSize(0)
                         << (along ? " columns of " : " rows of ")
                         << in.getElementType() << ", got " << out;
  return verifyNonEmpty(*this, "result", out);
}

#define GET_OP_CLASSES
#include "attn/Dialect/Attn/IR/AttnOps.cpp.inc"
