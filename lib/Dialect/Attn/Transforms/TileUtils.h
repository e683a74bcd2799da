//===- TileUtils.h - helpers of the tiling passes ---------------*- C++ -*-===//
//
// Index arithmetic and constant tiles shared by the tiling of attn.attention
// and attn.attention_grad (attn-tile-attention).
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_DIALECT_ATTN_TRANSFORMS_TILEUTILS_H
#define ATTN_LIB_DIALECT_ATTN_TRANSFORMS_TILEUTILS_H

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/runtime/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::attn {
namespace tiling {

/// Builds index arithmetic with signed semantics (sequence offsets such as
/// Nk - Nq may be negative).
struct IndexMath {
  OpBuilder &b;
  Location loc;
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value floorDiv(Value x, Value y) {
    return arith::FloorDivSIOp::create(b, loc, x, y);
  }
  Value ceilDiv(Value x, Value y) {
    return arith::CeilDivSIOp::create(b, loc, x, y);
  }
  Value dim(Value memref, int64_t d) {
    return memref::DimOp::create(b, loc, memref, d);
  }
  /// The rows of a tile of at most `block` rows at `start` that lie in
  /// `source` (a [B, H, N, D] memref: its own N), as a bulk tensor copy
  /// bounds them (it zero-fills past its own tensor's end only).
  Value rowsLeft(Value source, Value start, Value block) {
    Value n = dim(source, 2);
    return min(sub(n, start), block);
  }
};

/// Dropout's per-program scalars from its rate p (f32), as attn.random's
/// description defines the mask: the threshold of the 16-bit numbers in
/// the upper half of the values and the kept scores' factor,
///   T = u32(min(p·2^16, 65535)) << 16   (p·2^16 is exact in f32)
///   f = 1 / (1 − p).
struct DropoutScalars {
  Value threshold, scale;
};
inline DropoutScalars dropoutScalars(OpBuilder &b, Location loc, Value rate) {
  constexpr int bits = ::attn::kDropoutBits;
  Value two16 =
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(1u << bits)));
  Value top = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(float((1u << bits) - 1)));
  Value scaled = arith::MulFOp::create(b, loc, rate, two16);
  Value capped = arith::MinimumFOp::create(b, loc, scaled, top);
  Value t16 = arith::FPToUIOp::create(b, loc, b.getI32Type(), capped);
  Value shift = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(bits));
  DropoutScalars d;
  d.threshold = arith::ShLIOp::create(b, loc, t16, shift);
  Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f));
  Value keepRate = arith::SubFOp::create(b, loc, one, rate);
  d.scale = arith::DivFOp::create(b, loc, one, keepRate);
  return d;
}

/// Which scores of a tile are kept: attn.random's `values` >= T (unsigned),
/// an i1 tile of their shape.
inline Value dropoutKeep(OpBuilder &b, Location loc, Value values,
                         Value threshold) {
  Value t = tensor::SplatOp::create(b, loc, values.getType(), threshold);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, values, t);
}

/// The softmax scale: a compile-time constant, or an f32 value known only at
/// run time (the op's scale(...) operand).
struct Scale {
  float constant = 0;
  Value dynamic;
};

inline Value splat(OpBuilder &b, Location loc, RankedTensorType type,
                   double v) {
  auto attr = b.getFloatAttr(type.getElementType(), v);
  return arith::ConstantOp::create(b, loc, type,
                                   DenseElementsAttr::get(type, attr));
}

/// A tile of the scale: a dense constant, or a tensor.splat of the run-time
/// value. The fusion pass reads the scale back from this operand of the
/// multiply.
inline Value scaleSplat(OpBuilder &b, Location loc, RankedTensorType type,
                        const Scale &scale) {
  if (scale.dynamic)
    return tensor::SplatOp::create(b, loc, type, scale.dynamic);
  return splat(b, loc, type, scale.constant);
}

inline Value negInfSplat(OpBuilder &b, Location loc, RankedTensorType type) {
  auto ninf = APFloat::getInf(APFloat::IEEEsingle(), /*Negative=*/true);
  return arith::ConstantOp::create(
      b, loc, type,
      DenseElementsAttr::get(type, b.getFloatAttr(b.getF32Type(), ninf)));
}

/// The key blocks of a query block's rows [qStart, qStart + qRows) of nq
/// against nk keys in blocks of bc, bottom-right aligned with the mask's
/// right bound `right` (causal: 0; -1: none; c0 the index 0): blocks [0, nFull) are seen
/// whole by every row, [nFull, nEnd) need the mask, later ones are hidden
/// from every row.
struct KeyBlocks {
  Value nFull, nEnd;
};
inline KeyBlocks keyBlocks(IndexMath &im, Value qStart, Value qRows, Value nq,
                           Value nk, Value bc, Value c0, int64_t right) {
  if (right < 0) {
    Value nEnd = im.ceilDiv(nk, bc);
    return {im.floorDiv(nk, bc), nEnd};
  }
  // Row i sees key j iff j <= i + (Nk-Nq) + R.
  Value diag = im.sub(nk, nq);
  if (right)
    diag = im.add(diag, im.cst(right));
  // The last valid row sees keys [0, qStart + qRows + diag).
  Value kvEnd = im.max(im.min(nk, im.add(im.add(qStart, qRows), diag)), c0);
  Value nEnd = im.ceilDiv(kvEnd, bc);
  // Block j is whole for the first row iff (j+1)·Bc - 1 <= qStart + diag.
  Value firstRowEnd = im.add(im.add(qStart, diag), im.cst(1));
  Value nFull = im.max(im.floorDiv(firstRowEnd, bc), c0);
  nFull = im.min(nFull, im.floorDiv(nk, bc));
  nFull = im.min(nFull, nEnd);
  return {nFull, nEnd};
}

/// A window's left bound L on top of keyBlocks' [0, nFull) and [nFull,
/// nEnd): row i sees no key j < i + (Nk-Nq) - L. Blocks before the first
/// row's first key are skipped; blocks before the last row's first key are
/// masked; then whole blocks, then the right edge's masked ones:
///   begin     = floor(max(qStart + Nk-Nq - L, 0) / Bc)
///   fullBegin = ceil(max(qStart + qRows - 1 + Nk-Nq - L, 0) / Bc)
///   fullEnd   = max(nFull, fullBegin)
/// (segments [begin, fullBegin) masked, [fullBegin, fullEnd) whole,
/// [fullEnd, nEnd) masked).
struct WindowBlocks {
  Value begin, fullBegin, fullEnd;
};
inline WindowBlocks leftWindowBlocks(IndexMath &im, Value qStart, Value qRows,
                                     Value nq, Value nk, Value bc, Value c0,
                                     int64_t left, Value nFull, Value nEnd) {
  Value base = im.sub(im.sub(nk, nq), im.cst(left));
  Value firstKey = im.max(im.add(qStart, base), c0);
  Value lastRowFirstKey =
      im.max(im.add(im.sub(im.add(qStart, qRows), im.cst(1)), base), c0);
  WindowBlocks w;
  w.begin = im.min(im.floorDiv(firstKey, bc), nEnd);
  w.fullBegin = im.max(im.min(im.ceilDiv(lastRowFirstKey, bc), nEnd), w.begin);
  w.fullEnd = im.max(nFull, w.fullBegin);
  return w;
}

/// The per-program part of a score_mod or mask_mod body (everything that
/// does not depend on the score or the positions), emitted once at `b`'s
/// insertion point, before the key/value loops: b and h become i32
/// scalars, captured values are used as they are, and each op is cloned as
/// the scalar op it is. Fills `map` for applyScoreMod (ScoreMods.cpp).
void emitScoreModScalars(OpBuilder &b, Location loc, Block &body, Value bIdx,
                         Value hIdx, IRMapping &map);

/// The body applied to the score tile `s` of the block whose first query
/// and key positions are `qStart`, `kvStart`: each op that depends on the
/// score or the positions becomes the same op on tiles of its result type
/// (the verifier admits only elementwise scalar ops), with per-program
/// scalars (emitScoreModScalars, in `scalars`) splat to tiles; the
/// positions are attn.iota tiles, query positions along the rows (along
/// the columns with `keyMajor`: the backward's Sᵀ, whose rows are keys).
/// A load indexed by per-score values is an attn.gather, its per-score
/// indices the i32 tiles the body casts to index. With gathers the
/// positions are clamped to the sequences (`nq`; `nk` where the block may
/// reach past the keys' end): elements past the end read the last
/// position's entry, and are masked or never stored. With `tangent` (a
/// score_mod body) it is set to ∂mod/∂s, a tile of s's type built beside
/// the values in forward mode, or null where it is 1.
Value applyScoreMod(OpBuilder &b, Location loc, Block &body,
                    const IRMapping &scalars, Value s, Value qStart,
                    Value kvStart, Value nq, Value nk, bool masked,
                    bool keyMajor = false, Value *tangent = nullptr);

/// A score_mod that only adds to the score, mod(s) = s + g or s − g with g
/// independent of s (s used once, by that final op: ALiBi's −slope·|d| and
/// relative-position biases without a causal mask, which PositionBias does
/// not take), cloned into `into` for unscaled scores S:
///
///   mod(scale·S) = scale·(S ± g/scale)
///
/// the clone's final op adds g·(1/scale), computed as (u·(1/scale))·x once
/// per program where g = u·x with u one value per program (ALiBi's slope),
/// and fused with it (`contract`: one FMA a score). The softmax then keeps
/// the scale folded into its exponent, where a modifier of scale·S costs
/// the multiplication by the scale on every score. `scale` is the op's (its
/// run-time value or constant). False (and `into` empty) for other bodies.
/// Exact where g/scale stays finite: |g| below 3.4e38·scale.
bool unscaledAdditiveScoreMod(Block &body, const Scale &scale, Region &into);

/// A score_mod that adds a bias affine in the positions to the score,
///
///   mod(s, b, h, i, j) = s + Σ_t A_t·float(ci_t·i + cj_t·j + k_t)
///
/// (ci_t, cj_t integer constants; A_t a product of per-program values with a
/// sign, k_t a per-program i32; a term without positions is A_t alone): the
/// built-in ALiBi under a causal mask, slope·(j − i − (Nk − Nq)), and user
/// regions of its form. Split at the program's first query row q0 into a
/// per-column and a per-row part of the same integers,
///
///   ci·i + cj·j + k = (ci·q0 + cj·j + k) + ci·(i − q0)
///
/// (exact in f32 below 2^24; both parts are small near the program's
/// diagonal, where the weight of the softmax lies), the tiling adds the
/// columns' vector to each score tile, one FMA a score with the scale, and
/// leaves the rows' out of the scores: softmax(S + r·1ᵀ) = softmax(S) for
/// a per-row r, and only the LSE, log Σ_j exp(S_ij + r_i) = LSE_i + r_i,
/// takes it back.
class PositionBias {
public:
  /// The body's form, or none (any op outside +, −, ·, negation and
  /// conversion of positions; the score not added exactly once; a product
  /// of two position-dependent values).
  static std::optional<PositionBias> match(Block &body);
  /// The per-column part of the block whose first key is `kvStart`, a 1-d
  /// f32 tile of `type` ([Bc]), or null where no term depends on j.
  Value columns(OpBuilder &b, Location loc, const IRMapping &scalars,
                RankedTensorType type, Value qStart, Value kvStart) const;
  /// The per-row part of the program whose first query row is `qStart`, a
  /// 1-d f32 tile of `type` ([Br]), or null where it is 0.
  Value rows(OpBuilder &b, Location loc, const IRMapping &scalars,
             RankedTensorType type, Value qStart) const;

  /// ci·i + cj·j + c + Σ coefficient·scalar (i32).
  struct Positions {
    int64_t ci = 0, cj = 0, c = 0;
    SmallVector<std::pair<Value, int64_t>> scalars;
  };
  /// ±Π factors · float(positions), or ±Π factors without positions.
  struct Term {
    bool negate = false;
    SmallVector<Value> factors;
    std::optional<Positions> positions;
  };

private:
  SmallVector<Term> terms;
};

/// Tiles attn.attention_grad into its two grids (TileAttentionGrad.cpp):
/// `target` is the pass's default target, `blockQ`/`blockKV` its block
/// options (0: derived).
LogicalResult tileAttentionGrad(AttentionGradOp op, TargetAttr target,
                                int64_t blockQ, int64_t blockKV);

/// Lowers attn.block_lists to a loop program over the lists' rows
/// (TileBlockLists.cpp): for a GPU target (the op's, an enclosing op's or
/// `fallback`) a grid of one warp per row tagged attn.program =
/// "block_lists", else an scf.forall of scalar code tagged attn.cpu_only.
LogicalResult tileBlockLists(BlockListsOp op, TargetAttr fallback);

} // namespace tiling
} // namespace mlir::attn

#endif // ATTN_LIB_DIALECT_ATTN_TRANSFORMS_TILEUTILS_H
