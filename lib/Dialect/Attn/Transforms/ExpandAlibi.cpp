//===- ExpandAlibi.cpp - the built-in ALiBi as a score_mod region ---------===//
//
// ALiBi (BLOOM, MPT; FlashAttention's alibi_slopes) biases each scaled score
// by its distance from the query's diagonal, bottom-right aligned:
//
//   S'[i, j] = S[i, j] − slopes[h] · |j − i − (Nk − Nq)|
//
// The built-in is a library of the same score_mod regions users write: the
// op's `alibi(%slopes)` operand becomes the region
//
//   ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
//     %slope = memref.load %slopes[index_cast %h]     (per head: hoisted)
//     %d     = sitofp((%j − %i) − (Nk − Nq))          (per score)
//     %r     = %s − %slope · absf(%d)
//
// and, where only keys left of the diagonal are visible (causal), where
// |d| = −d on every visible score, %r = %s + %slope · %d (no abs: the
// distance stays affine in the positions, which the tiles fold).
//
// with Nk − Nq a constant in the region where the sequence dims are static,
// else the difference of the K and Q memrefs' dims (per program), so both
// backends lower it through the score_mod path and nothing else.
//
//===----------------------------------------------------------------------===//
#include "attn/Transforms/Passes.h"

#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNEXPANDALIBI
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

/// Why `op`'s ALiBi cannot be written as a region, or null.
const char *refusal(AttentionGradOp op) {
  if (op.hasScoreMod())
    return "a score_mod region (add the bias in the region)";
  if (op.getSoftcapAttr())
    return "a soft-cap";
  return nullptr;
}
const char *refusal(AttentionOp op) {
  if (op.hasScoreMod())
    return "a score_mod region (add the bias in the region)";
  if (op.getSoftcapAttr())
    return "a soft-cap";
  if (op.isFp8())
    return "fp8 inputs";
  if (op.getKvLens() || op.isVarlen())
    return "a KV cache or a packed batch (their key positions are per "
           "sequence)";
  return nullptr;
}

/// Nk − Nq as an i32 in the region: a constant where both sequence dims are
/// static, else from the K and Q memrefs' dims (memref.dim of captured
/// memrefs: one value per program).
template <typename OpTy> Value diagonalOffset(OpBuilder &b, OpTy op) {
  Location loc = op.getLoc();
  int64_t nk = cast<MemRefType>(op.getKey().getType()).getDimSize(2);
  int64_t nq = cast<MemRefType>(op.getQuery().getType()).getDimSize(2);
  if (!ShapedType::isDynamic(nk) && !ShapedType::isDynamic(nq))
    return arith::ConstantIntOp::create(b, loc, nk - nq, 32);
  // One statement each: the order of the ops (and of the IR a test reads)
  // must not depend on the compiler's order of argument evaluation.
  Value nqDim = memref::DimOp::create(b, loc, op.getQuery(), 2);
  Value nkDim = memref::DimOp::create(b, loc, op.getKey(), 2);
  Value diff = arith::SubIOp::create(b, loc, nkDim, nqDim);
  return arith::IndexCastOp::create(b, loc, b.getI32Type(), diff);
}

/// Writes `op`'s ALiBi (attn.attention's or attn.attention_grad's, whose
/// backward sees the same scores) as its score_mod region.
template <typename OpTy> LogicalResult expand(OpTy op) {
  Value slopes = op.getAlibiSlopes();
  if (const char *why = refusal(op))
    return op.emitError() << "unsupported: alibi with " << why;
  OpBuilder outside(op);
  Location loc = op.getLoc();
  Type f32 = outside.getF32Type(), i32 = outside.getI32Type();
  Block *body = new Block();
  op.getScoreMod().push_back(body);
  Value s = body->addArgument(f32, loc);
  body->addArgument(i32, loc); // b
  Value h = body->addArgument(i32, loc);
  Value i = body->addArgument(i32, loc);
  Value j = body->addArgument(i32, loc);
  OpBuilder b = OpBuilder::atBlockBegin(body);
  Value offset = diagonalOffset(b, op);
  // slope = slopes[h]
  Value hIdx = arith::IndexCastOp::create(b, loc, b.getIndexType(), h);
  Value slope = memref::LoadOp::create(b, loc, slopes, hIdx);
  // d = (j − i) − (Nk − Nq): ≤ 0 on and below the causal diagonal.
  Value d = arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, j, i),
                                  offset);
  // In f32 before the |·|: the tile lowering folds sitofp of an affine
  // function of the positions into one conversion a thread and
  // constant offsets (an integer abs would need one a score).
  Value df = arith::SIToFPOp::create(b, loc, f32, d);
  // Where no key right of the diagonal is visible (causal, or a window
  // with right bound 0), −slope·|d| = slope·d on every visible score:
  // S' = S + slope·d; else S' = S − slope·|d|.
  std::optional<int64_t> right = op.getWindowRight();
  bool leftOfDiagonal = op.getCausal() || (right && *right == 0);
  // `contract`: the product and the sum may become one FMA.
  auto contract = arith::FastMathFlags::contract;
  Value dist = leftOfDiagonal ? df : Value(math::AbsFOp::create(b, loc, df));
  Value bias = arith::MulFOp::create(b, loc, slope, dist, contract);
  Value res = leftOfDiagonal
                  ? Value(arith::AddFOp::create(b, loc, s, bias, contract))
                  : Value(arith::SubFOp::create(b, loc, s, bias, contract));
  YieldOp::create(b, loc, res);
  op.getAlibiSlopesMutable().clear();
  return success();
}

struct ExpandAlibiPass
    : public mlir::attn::impl::AttnExpandAlibiBase<ExpandAlibiPass> {
  void runOnOperation() override {
    WalkResult r = getOperation()->walk([&](Operation *o) {
      LogicalResult ok = success();
      if (auto op = dyn_cast<AttentionOp>(o); op && op.getAlibiSlopes())
        ok = expand(op);
      else if (auto g = dyn_cast<AttentionGradOp>(o); g && g.getAlibiSlopes())
        ok = expand(g);
      return failed(ok) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
