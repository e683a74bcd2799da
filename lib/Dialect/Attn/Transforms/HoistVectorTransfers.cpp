//===- HoistVectorTransfers.cpp - register tiles stay in registers -------===//
//
// After bufferization, the k loop of a vectorised register tile reads the
// accumulator from its buffer and writes it back every step:
//   for k { acc = transfer_read C; acc' = fma(...acc...); transfer_write acc', C }
// Hoisting the pair out of the loop carries acc in registers instead:
//   acc = transfer_read C; for k { acc = fma(...acc...) }; transfer_write acc, C
//
//===----------------------------------------------------------------------===//
#include "attn/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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
    linalg::hoistRedundantVectorTransfers(getOperation());
  }
};
} // namespace
