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

  // Bad options fail the pass even when no op would read them.
  LogicalResult initialize(MLIRContext *ctx) override {
    TargetAttr target = TargetAttr::getKnown(ctx, chip);
    if (!target || !target.isGPU())
      return emitError(UnknownLoc::get(ctx))
             << "unsupported chip '" << chip
             << "' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)";
    for (auto [name, v] : {std::pair{"block-q", int64_t(blockQ)},
                           std::pair{"block-kv", int64_t(blockKV)}})
      if (v != 0 && (v < 16 || v > 256 || !llvm::isPowerOf2_64(v)))
        return emitError(UnknownLoc::get(ctx))
               << "pass option " << name
               << " must be 0 (heuristic) or a power of two in [16, 256], "
                  "got "
               << v;
    return success();
  }

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
      // The mma.sync kernel runs 4 warps of two 16-row m-tiles (one K/V
      // fragment from shared memory feeds two mma.sync: the shared-memory
      // bandwidth, not the tensor cores, bounds one m-tile per warp on
      // Hopper). Per thread that holds O (2·Dv/2 f32) and S (2·Bc/2 f32),
      // so Bc shrinks as D grows: 64 keys at D = 64, 32 at D = 128.
      // Measured on an H200 (results/PERF-NOTES.md): these beat 128x64 / 128x128
      // with one m-tile and 128x32 / 64x64 blocks.
      // Past D = 128 the O fragments of two m-tiles no longer fit: one
      // m-tile per warp, Br = 64.
      int64_t d = std::max(op.getHeadDim(), op.getValueHeadDim());
      int64_t bq = blockQ ? int64_t(blockQ) : (d <= 128 ? 128 : 64);
      int64_t bkv = blockKV ? int64_t(blockKV) : (d <= 64 ? 64 : 32);
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
