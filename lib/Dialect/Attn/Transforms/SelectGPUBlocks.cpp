//===- SelectGPUBlocks.cpp - block sizes for the GPU kernel -----*- C++ -*-===//
#include "attn/Transforms/Passes.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNSELECTGPUBLOCKS
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {
struct SelectGPUBlocksPass
    : public attn::impl::AttnSelectGPUBlocksBase<SelectGPUBlocksPass> {
  using Base::Base;

  void runOnOperation() override {
    WalkResult r = getOperation()->walk([&](AttentionOp op) {
      TargetAttr target = TargetAttr::getKnown(op.getContext(), chip);
      if (!target || !target.isGPU()) {
        op.emitError() << "unsupported chip '" << chip
                       << "' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)";
        return WalkResult::interrupt();
      }
      Builder b(op.getContext());
      if (!op.getTargetAttr())
        op.setTargetAttr(target);
      // Registers per thread of the mma.sync kernel, 16 rows per warp:
      // S = Bc/2 f32, O = Dv/2 f32, Q = D/4 b32; Bc = 64 keeps D = 128 at
      // 32 + 64 + 32 plus addressing, Bc = 128 for D = 64 at 64 + 32 + 16.
      int64_t d = std::max(op.getHeadDim(), op.getValueHeadDim());
      int64_t bq = blockQ ? int64_t(blockQ) : 128;
      int64_t bkv = blockKV ? int64_t(blockKV) : (d <= 64 ? 128 : 64);
      if (!op.getBlockQAttr())
        op.setBlockQAttr(b.getI64IntegerAttr(bq));
      if (!op.getBlockKvAttr())
        op.setBlockKvAttr(b.getI64IntegerAttr(bkv));
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
