//===- ChainGrids.cpp - programs that start under their predecessor -------===//
//
// A decode step is two grids back to back on one stream: the split kernel
// (partial O and LSE per key range) and the merge. Ordered the usual way,
// the merge is launched once the split grid has drained, and its launch,
// block scheduling and prologue are time on the critical path of a step
// that takes ~10 us in all. With programmatic dependent launch the merge's
// blocks start while the split grid's last blocks run and wait there
// (griddepcontrol.wait) for its completion and memory. The wait must come
// before the program's first global memory access, read or write: the
// grid before it may still be reading what this one overwrites (a
// stream-ordered workspace reused from the previous step).
//
//===----------------------------------------------------------------------===//
#include "Programs.h"

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Transforms/Passes.h"
#include "attn/runtime/KernelABI.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNCHAINGRIDS
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

struct ChainGridsPass
    : public mlir::attn::impl::AttnChainGridsBase<ChainGridsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    if (failed(checkProgramsOption(ctx, programs)))
      return failure();
    chained.assign(programs.begin(), programs.end());
    if (chained.empty())
      chained = {::attn::programName(::attn::Program::SplitKV),
                 ::attn::programName(::attn::Program::MergeSplits)};
    return success();
  }

  void runOnOperation() override {
    getOperation()->walk([&](scf::ForallOp grid) {
      // Only a program's grid: a forall inside one is a loop of it.
      if (grid->getParentOfType<scf::ForallOp>())
        return;
      auto target = grid->getAttrOfType<TargetAttr>(kTargetAttrName);
      if (!target || !target.hasGridDependencyControl())
        return;
      if (!llvm::is_contained(chained, gridProgram(grid)))
        return;
      Block *body = grid.getBody();
      if (!body->getOps<WaitPriorGridsOp>().empty())
        return;
      // First in the body: before any address is formed from memory, any
      // copy is issued or any ring is set up (an mbarrier is shared
      // memory, but its wait-free prologue is too short to matter).
      OpBuilder b = OpBuilder::atBlockBegin(body);
      WaitPriorGridsOp::create(b, grid.getLoc());
      LaunchDependentsOp::create(b, grid.getLoc());
    });
  }

  std::vector<std::string> chained;
};

} // namespace
