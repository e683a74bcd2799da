//===- DeferRowSums.cpp - partial row sums through the key/value loop -----===//
//
// The online softmax carries the row sum l through the key/value loop:
//
//   l_j = α_j · l_{j−1} + rowsum(P_j)               (P_j: [R, C], α_j: [R])
//
// On the GPU a row of P is spread over the four lanes of a quad, so every
// rowsum costs two shuffles and two adds per row after the thread's own
// fold. The sum is only read after the loop, so the cross-lane part can
// wait: carry L_j: [R, W] instead, the row reduced in W column groups,
//
//   L_j[:, w] = α_j · L_{j−1}[:, w] + Σ_k P_j[:, w + W·k]      (w < W)
//
// By induction Σ_w L_j[:, w] = l_j (α_j is the same for every column), so
// one `attn.reduce sum` of L after the loop gives l. With W the width of a
// tensor-core n-tile (8) the column-group reduce is each thread's own fold
// (no shuffles) and the single cross-lane reduction moves to the epilogue.
//
// Rewritten: an scf.for iter_arg `a: tensor<R x f32>` whose yield is
// `addf(mulf(α, a), reduce sum P)` (either operand order), `a` used only by
// that mulf, the mulf and the reduce used only by the addf, with an initial
// value that is a zero splat or the row sum of an already rewritten loop
// (the masked loop that continues an unmasked one). With max-columns, only
// in loops that carry no 2-d tile wider than that (the partial sums take
// W/4 − 1 more registers per row a thread holds), except in programs that
// take wgmma layouts (their consumer warpgroups have 240 registers).
//
//===----------------------------------------------------------------------===//
#include "attn/Transforms/Passes.h"

#include "WarpgroupTiling.h"

#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNDEFERROWSUMS
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

/// One loop-carried row sum to defer.
struct RowSum {
  scf::ForOp loop;
  unsigned index; // iter_arg number
  arith::AddFOp add;
  arith::MulFOp mul;
  ReduceOp sum;
  Value alpha;
};

/// The pattern of the file comment at iter_arg `index`, if it matches.
std::optional<RowSum> matchRowSum(scf::ForOp loop, unsigned index,
                                  int64_t width) {
  BlockArgument a = loop.getRegionIterArg(index);
  auto t = dyn_cast<RankedTensorType>(a.getType());
  if (!t || t.getRank() != 1 || !t.getElementType().isF32() ||
      t.getEncoding() || !a.hasOneUse())
    return std::nullopt;
  auto add = loop.getYieldedValues()[index].getDefiningOp<arith::AddFOp>();
  if (!add || !add->hasOneUse())
    return std::nullopt;
  for (auto [x, y] : {std::pair{add.getLhs(), add.getRhs()},
                      std::pair{add.getRhs(), add.getLhs()}}) {
    auto mul = x.getDefiningOp<arith::MulFOp>();
    auto sum = y.getDefiningOp<ReduceOp>();
    if (!mul || !sum || !mul->hasOneUse() || !sum->hasOneUse() ||
        sum.getKind() != ReduceKind::Sum ||
        mul->getParentOp() != loop.getOperation() ||
        sum->getParentOp() != loop.getOperation())
      continue;
    auto p = cast<RankedTensorType>(sum.getInput().getType());
    if (p.getDimSize(1) <= width || p.getDimSize(1) % width)
      continue;
    Value alpha;
    if (mul.getLhs() == a)
      alpha = mul.getRhs();
    else if (mul.getRhs() == a)
      alpha = mul.getLhs();
    if (!alpha || alpha == a)
      continue;
    return RowSum{loop, index, add, mul, sum, alpha};
  }
  return std::nullopt;
}

/// The widest 2-d tile the loop carries (the online softmax's O: D).
int64_t carriedColumns(scf::ForOp loop) {
  int64_t cols = 0;
  for (Value a : loop.getRegionIterArgs())
    if (auto t = dyn_cast<RankedTensorType>(a.getType());
        t && t.getRank() == 2)
      cols = std::max(cols, t.getDimSize(1));
  return cols;
}

struct AttnDeferRowSumsPass
    : public attn::impl::AttnDeferRowSumsBase<AttnDeferRowSumsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    if (wgmma < -1 || wgmma > 1)
      return emitError(UnknownLoc::get(ctx))
             << "pass option wgmma must be -1 (heuristic), 0 or 1, got "
             << int64_t(wgmma);
    return success();
  }

  void runOnOperation() override {
    if (width < 1) {
      getOperation()->emitError()
          << "attn-defer-row-sums: width must be >= 1, got " << width;
      return signalPassFailure();
    }
    // Program order: a masked loop's initial value is the rewritten row sum
    // of the loop before it.
    SmallVector<RowSum> sums;
    getOperation()->walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      if (isBackwardGrid(loop))
        return;
      if (maxColumns > 0 && carriedColumns(loop) > maxColumns) {
        auto grid = loop->getParentOfType<scf::ForallOp>();
        if (!grid || !takesWgmma(grid, wgmma))
          return;
      }
      for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
        if (auto rs = matchRowSum(loop, i, width))
          sums.push_back(*rs);
    });
    for (RowSum &rs : sums)
      rewrite(rs);
  }

  void rewrite(RowSum &rs) {
    scf::ForOp loop = rs.loop;
    Location loc = rs.add.getLoc();
    auto rowType = cast<RankedTensorType>(rs.add.getType());
    auto groupType = RankedTensorType::get({rowType.getDimSize(0), width},
                                           rowType.getElementType());
    // The initial L: zeros, or the previous loop's L.
    OpOperand &initOperand = loop.getInitArgsMutable()[rs.index];
    Value init = initOperand.get();
    Value groupInit;
    if (auto prev = init.getDefiningOp<ReduceOp>();
        prev && prev.getInput().getType() == groupType &&
        prev.getKind() == ReduceKind::Sum) {
      groupInit = prev.getInput();
    } else if (matchPattern(init, m_AnyZeroFloat())) {
      OpBuilder b(loop);
      groupInit = arith::ConstantOp::create(
          b, loc, groupType,
          DenseElementsAttr::get(groupType, b.getF32FloatAttr(0.0f)));
    } else {
      return; // an arbitrary start value cannot be split into parts
    }
    initOperand.set(groupInit);
    if (auto prev = init.getDefiningOp<ReduceOp>(); prev && prev->use_empty())
      prev.erase();

    // In the body: L' = broadcast(α)·L + reduce_groups(P).
    BlockArgument a = loop.getRegionIterArg(rs.index);
    a.setType(groupType);
    OpBuilder b(rs.add);
    Value parts =
        ReduceOp::create(b, rs.sum.getLoc(), groupType, ReduceKind::Sum,
                         rs.sum.getInput());
    Value alphaCols = BroadcastOp::create(b, rs.mul.getLoc(), groupType,
                                          rs.alpha);
    Value scaled = arith::MulFOp::create(b, rs.mul.getLoc(), alphaCols, a);
    Value next = arith::AddFOp::create(b, loc, scaled, parts);
    rs.add.replaceAllUsesWith(next);
    rs.add.erase();
    rs.mul.erase();
    rs.sum.erase();

    // After the loop: l = rowsum(L) for every use of the loop's result.
    Value result = loop.getResult(rs.index);
    result.setType(groupType);
    b.setInsertionPointAfter(loop);
    auto total =
        ReduceOp::create(b, loop.getLoc(), rowType, ReduceKind::Sum, result);
    result.replaceAllUsesExcept(total, total);
  }
};

} // namespace
