//===- FinishOpenMPGrid.cpp - the CPU grid loop on OpenMP threads --------===//
//
// After convert-scf-to-openmp, for each worksharing loop of the CPU path's
// grid (batch, head, query block):
// - schedule(dynamic): with a causal mask the query blocks' KV trip counts
//   differ up to Nk/block-kv fold, which static chunks would not balance;
// - the body's memref.alloca_scope (convert-scf-to-openmp wraps it in one)
//   becomes llvm.intr.stacksave/stackrestore around the body, as
//   finalize-memref-to-llvm would lower it. Canonicalize cannot inline it
//   (the deallocation helper's func.call counts as a potential alloca), and
//   scf-to-cf would leave it with several blocks, which it may not have;
// - a check that no memref.alloca from outside an omp.parallel is used
//   inside it: every thread would share that stack buffer.
//
//===----------------------------------------------------------------------===//
#include "attn/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNFINISHOPENMPGRID
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;

namespace {
struct FinishOpenMPGridPass
    : public attn::impl::AttnFinishOpenMPGridBase<FinishOpenMPGridPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    module.walk([](omp::WsloopOp loop) {
      loop.setScheduleKind(omp::ClauseScheduleKind::Dynamic);
    });
    SmallVector<memref::AllocaScopeOp> scopes;
    module.walk([&](memref::AllocaScopeOp scope) {
      if (isa<omp::LoopNestOp>(scope->getParentOp()) &&
          scope->getNumResults() == 0 && scope.getBodyRegion().hasOneBlock())
        scopes.push_back(scope);
    });
    for (memref::AllocaScopeOp scope : scopes) {
      OpBuilder b(scope);
      Location loc = scope.getLoc();
      Value sp = LLVM::StackSaveOp::create(
          b, loc, LLVM::LLVMPointerType::get(b.getContext()));
      Block &body = scope.getBodyRegion().front();
      Operation *ret = body.getTerminator();
      b.setInsertionPoint(ret);
      LLVM::StackRestoreOp::create(b, loc, sp);
      ret->erase();
      scope->getBlock()->getOperations().splice(
          Block::iterator(scope), body.getOperations());
      scope.erase();
    }
    WalkResult shared = module.walk([](omp::ParallelOp par) {
      return par.walk([&](Operation *op) {
        for (Value v : op->getOperands()) {
          Value root = v;
          while (auto view = root.getDefiningOp<ViewLikeOpInterface>())
            root = view.getViewSource();
          auto alloca = root.getDefiningOp<memref::AllocaOp>();
          if (alloca && !par->isAncestor(alloca)) {
            op->emitError("uses a stack buffer allocated outside the "
                          "parallel grid loop (every thread would share "
                          "it): allocate it inside the loop");
            return WalkResult::interrupt();
          }
        }
        return WalkResult::advance();
      });
    });
    if (shared.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
