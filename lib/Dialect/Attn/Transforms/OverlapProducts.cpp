//===- OverlapProducts.cpp - start warpgroup products early ---------------===//
//
// A synchronous warpgroup product (attn.dot lowered to wgmma followed by
// wgmma.wait_group 0) keeps its warpgroup waiting while the tensor cores
// run, and the tensor cores idle while the warpgroup then computes on the
// result. Where a loop body holds products that do not depend on each
// other's results in program order, each can start as soon as its operands
// exist and be waited for only where its value is read:
//
//   Sᵀ  = K·Qᵀ            (async)          Sᵀ  = K·Qᵀ   ─┐ tensor cores
//   dPᵀ = V·dOᵀ           (async, hoisted)  dPᵀ = V·dOᵀ  ─┤
//   wait Sᵀ {pending 1}                     Pᵀ = exp(…)   │ under dPᵀ
//   Pᵀ = exp(scale·Sᵀ − LSE)                              │
//   dV += Pᵀ·dO           (async)          dV += Pᵀ·dO  ─┤
//   wait dPᵀ {pending 1}                    dSᵀ = …       │ under dV
//   dSᵀ = Pᵀ∘(dPᵀ − Δ)                                    │
//   dK += dSᵀ·Q           (async)          dK += dSᵀ·Q  ─┘
//   wait dV {pending 1}; wait dK {pending 0}
//
// wgmma groups complete in the order they were committed, so a product is
// done once at most the number of products started after it are pending.
//
// Memory: a product reads its shared-memory operands until its wait. So it
// never moves above an op that may write memory (a copy into the slot it
// reads, a barrier), and its wait comes before the next such op (a slot's
// release, a refill): the reads end where they ended before.
//
// Whether it pays is a property of the program, not of this rewrite: the
// GPU pipeline runs it on the backward's query-major grid only (the example
// above, the key-major grid, measured slower: Pipelines.cpp).
//
//===----------------------------------------------------------------------===//
#include "Programs.h"

#include "attn/Transforms/Passes.h"
#include "attn/runtime/KernelABI.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNOVERLAPPRODUCTS
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

/// Whether `op` (and every op nested in it) at most reads memory: a product
/// may start above it and stay in flight across it.
bool atMostReads(Operation *op) {
  if (isMemoryEffectFree(op))
    return true;
  if (auto iface = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    if (!llvm::all_of(effects, [](const MemoryEffects::EffectInstance &e) {
          return isa<MemoryEffects::Read>(e.getEffect());
        }))
      return false;
    if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return true;
  } else if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
    return false;
  }
  for (Region &r : op->getRegions())
    for (Operation &inner : r.getOps())
      if (!atMostReads(&inner))
        return false;
  return true;
}

bool isWarpgroupDot(DotOp dot) {
  auto m = dyn_cast_or_null<MmaLayoutAttr>(dot.getType().getEncoding());
  return m && m.isWarpgroup();
}

/// The synchronous warpgroup products of `body`, or none where the body is
/// not one this pass rewrites (an asynchronous product or a turn already
/// there, a product nested in a region).
SmallVector<DotOp> productsToOverlap(Block *body) {
  SmallVector<DotOp> dots;
  for (Operation &op : *body) {
    if (isa<DotWaitOp, AwaitTurnOp, PassTurnOp>(op))
      return {};
    if (auto dot = dyn_cast<DotOp>(op)) {
      if (dot.getAsync() || !isWarpgroupDot(dot))
        return {};
      dots.push_back(dot);
      continue;
    }
    for (Region &r : op.getRegions())
      if (r.walk([](DotOp) {
             return WalkResult::interrupt();
           }).wasInterrupted())
        return {};
  }
  return dots;
}

/// Moves `dot` up to just after the last of: the op defining one of its
/// operands in this block, an op that may write memory, `floor` (the
/// product issued before it).
void hoist(DotOp dot, Operation *floor) {
  Operation *after = nullptr;
  for (Operation *op = dot->getPrevNode(); op; op = op->getPrevNode()) {
    bool definesOperand = llvm::any_of(
        dot->getOperands(), [&](Value v) { return v.getDefiningOp() == op; });
    if (op == floor || definesOperand || !atMostReads(op)) {
      after = op;
      break;
    }
  }
  if (after)
    dot->moveAfter(after);
  else
    dot->moveBefore(&dot->getBlock()->front());
}

/// The first op after `dot` in its block that reads its value (itself or in
/// a nested region) or may write memory; the terminator at the latest.
Operation *waitPoint(DotOp dot) {
  Block *body = dot->getBlock();
  for (Operation *op = dot->getNextNode(); op; op = op->getNextNode()) {
    if (op->hasTrait<OpTrait::IsTerminator>())
      return op;
    // Other products and their waits neither write memory nor read this
    // product's registers unless they take its value.
    bool reads = llvm::any_of(dot->getUsers(), [&](Operation *user) {
      return body->findAncestorOpInBlock(*user) == op;
    });
    if (reads || (!isa<DotOp, DotWaitOp>(op) && !atMostReads(op)))
      return op;
  }
  return body->getTerminator();
}

struct OverlapProductsPass
    : public mlir::attn::impl::AttnOverlapProductsBase<OverlapProductsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    if (minProducts < 1)
      return emitError(UnknownLoc::get(ctx))
             << "pass option min-products must be at least 1, got "
             << int64_t(minProducts);
    return checkProgramsOption(ctx, programs);
  }

  void runOnOperation() override {
    SmallVector<Block *> bodies;
    getOperation()->walk([&](scf::ForOp loop) {
      auto grid = loop->getParentOfType<scf::ForallOp>();
      if (!grid)
        return;
      if (!programs.empty() && !llvm::is_contained(programs, gridProgram(grid)))
        return;
      bodies.push_back(loop.getBody());
    });
    for (Block *body : bodies) {
      SmallVector<DotOp> dots = productsToOverlap(body);
      if (static_cast<int64_t>(dots.size()) < minProducts)
        continue;
      // Issued in the order their values are needed (the wait of the first
      // one needed then waits for no product needed later), each as early
      // as its operands allow.
      DenseMap<Operation *, int64_t> position;
      for (auto [i, op] : llvm::enumerate(*body))
        position[&op] = i;
      llvm::stable_sort(dots, [&](DotOp a, DotOp b) {
        return position[waitPoint(a)] < position[waitPoint(b)];
      });
      Operation *floor = nullptr;
      for (DotOp dot : dots) {
        hoist(dot, floor);
        floor = dot;
      }
      SmallVector<DotWaitOp> waits;
      for (DotOp dot : dots) {
        OpBuilder b(waitPoint(dot));
        auto wait = DotWaitOp::create(b, dot.getLoc(), dot.getType(),
                                      dot.getResult(), b.getI64IntegerAttr(0));
        dot.getResult().replaceAllUsesExcept(wait.getResult(), wait);
        dot.setAsync(true);
        waits.push_back(wait);
      }
      // pending = the products started between the product and its wait.
      for (auto [dot, wait] : llvm::zip(dots, waits)) {
        int64_t later = 0;
        for (Operation *op = dot->getNextNode(); op != wait;
             op = op->getNextNode())
          later += isa<DotOp>(op);
        wait.setPending(later);
      }
    }
  }
};

} // namespace
