//===- HoistVectorTransfers.cpp - register tiles stay in registers -------===//
//
// After bufferization, the k loop of a vectorised register tile reads the
// accumulator from its buffer and writes it back every step:
//   for k { acc = transfer_read C; acc' = fma(...acc...); transfer_write acc', C }
// Hoisting the pair out of the loop carries acc in registers instead:
//   acc = transfer_read C; for k { acc = fma(...acc...) }; transfer_write acc, C
// One-shot bufferization (with allow-return-allocs-from-loops) threads C
// through the loops as an iter_arg that each iteration yields unchanged,
//   scf.for ... iter_args(%c = %C) -> memref { ...; scf.yield %c }
// and the hoisting only moves transfers of a loop-invariant buffer: the
// loops' own canonicalisation (a yielded-unchanged iter_arg is its init)
// runs first, or the accumulator goes through memory at every k step.
//
//===----------------------------------------------------------------------===//
#include "attn/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNHOISTVECTORTRANSFERS
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;

namespace {
struct HoistVectorTransfersPass
    : public attn::impl::AttnHoistVectorTransfersBase<
          HoistVectorTransfersPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    scf::ForOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    linalg::hoistRedundantVectorTransfers(getOperation());
  }
};
} // namespace
