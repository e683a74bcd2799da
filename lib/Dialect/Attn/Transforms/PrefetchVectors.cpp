//===- PrefetchVectors.cpp - per-column vectors loaded a step ahead -------===//
//
// A key-major step of the backward reads two vectors from global memory, one
// entry per query column of its tile: LSE (for P = exp2(S·c − L)) and Δ (for
// dS = P∘(dP − Δ)). Each is a few scalar loads a thread whose latency (L2,
// ~600+ cycles under load) is longer than the product that runs before the
// first use, so the consumer warps stall on them every step. Issued one step
// ahead, the latency hides behind a whole step:
//
//   v_0 = lb < ub ? load(f(lb)) : 0
//   for j = lb .. ub:                         (v carried)
//     v_next = j + step < ub ? load(f(j + step)) : v
//     ... uses of load(f(j)) read v ...
//     yield v_next
//
// f is the load's operands as computed in the body from j and values defined
// outside the loop (ops without memory effects; cloned, not moved). No op of
// the loop may write the loaded memref (nor write memory it does not name). The
// guard keeps the last step from reading the block after the last, which may
// lie past the memref. Applies to attn.load_tile of 1-d register vectors laid
// out per column (#attn.slice<..., dim = 1>) from a memref defined outside the
// loop, at most `max-loads` a loop in body order (each costs its vector's
// registers for the whole step), in wgmma programs (warpgroup layouts) of at
// least `min-warps` warps (the mma.sync kernels' registers are not measured for
// it) without a mask. With `windows`, also one 2-d register window of 16-bit
// elements a loop (attn.load_tile ... cols in a warpgroup layout: a score
// bias's [Br, Bc] block, read beside the scores), the same way.
//
//===----------------------------------------------------------------------===//
#include "attn/Transforms/Passes.h"

#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNPREFETCHVECTORS
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

/// The ops of `loop`'s body that `load`'s operands are computed from, in
/// body order, if they are all pure and read only the induction variable,
/// values defined outside the loop and each other; none otherwise.
std::optional<SmallVector<Operation *>> operandSlice(scf::ForOp loop,
                                                     LoadTileOp load) {
  Block *body = loop.getBody();
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work(load->getOperands());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == loop.getInductionVar())
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == body)
        return std::nullopt; // a loop-carried value
      continue;
    }
    Operation *def = v.getDefiningOp();
    Operation *inBody = body->findAncestorOpInBlock(*def);
    if (!inBody)
      continue; // defined outside the loop
    if (inBody != def || !isMemoryEffectFree(def) || def->getNumRegions())
      return std::nullopt;
    if (slice.insert(def))
      llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  return ordered;
}

/// `load` with its operand slice cloned at `b`'s point for induction
/// variable `iv`, under `iv < ub`; `otherwise` where not.
Value guardedLoad(OpBuilder &b, Location loc, scf::ForOp loop,
                  ArrayRef<Operation *> slice, LoadTileOp load, Value iv,
                  Value otherwise) {
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv,
                                        loop.getUpperBound());
  Type type = load.getResult().getType();
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{type}, inRange,
                                /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    IRMapping map;
    map.map(loop.getInductionVar(), iv);
    for (Operation *op : slice)
      b.clone(*op, map);
    Value v = b.clone(*load, map)->getResult(0);
    scf::YieldOp::create(b, loc, v);
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, otherwise);
  }
  return ifOp.getResult(0);
}

struct PrefetchVectorsPass
    : public attn::impl::AttnPrefetchVectorsBase<PrefetchVectorsPass> {
  using Base::Base;

  /// Whether some op of `loop` may write `mem` (or writes memory it does
  /// not name, or has effects it does not declare): then a load of step
  /// j + 1 may not move ahead of step j's body.
  static bool mayWrite(scf::ForOp loop, Value mem) {
    return loop.getBody()
        ->walk([&](Operation *op) {
          if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
            return WalkResult::advance(); // its nested ops are walked
          // attn.ring_slot names a slot's tile: no access of its own.
          if (isa<RingSlotOp>(op))
            return WalkResult::advance();
          auto iface = dyn_cast<MemoryEffectOpInterface>(op);
          if (!iface)
            return WalkResult::interrupt();
          SmallVector<MemoryEffects::EffectInstance> effects;
          iface.getEffects(effects);
          for (const MemoryEffects::EffectInstance &e : effects)
            if (isa<MemoryEffects::Write>(e.getEffect()) &&
                (!e.getValue() || e.getValue() == mem))
              return WalkResult::interrupt();
          return WalkResult::advance();
        })
        .wasInterrupted();
  }

  bool isCandidate(scf::ForOp loop, LoadTileOp load) const {
    auto t = dyn_cast<RankedTensorType>(load.getResult().getType());
    auto slice = t ? dyn_cast_or_null<SliceLayoutAttr>(t.getEncoding())
                   : SliceLayoutAttr();
    return slice && slice.isPerColumn() && t.getRank() == 1 &&
           slice.getParent().isWarpgroup() &&
           slice.getParent().getWarps() >= minWarps &&
           loop.isDefinedOutsideOfLoop(load.getSource()) &&
           !mayWrite(loop, load.getSource());
  }

  /// A 2-d window of 16-bit elements read into registers beside the scores
  /// (a score bias's block), in a warpgroup layout. (An f32 one holds twice
  /// the registers a step: bf16 D = 128 with an f32 bias at 64-key blocks
  /// spilled 88 bytes with it ahead, none without.)
  bool isWindow(scf::ForOp loop, LoadTileOp load) const {
    auto t = dyn_cast<RankedTensorType>(load.getResult().getType());
    auto mma =
        t ? dyn_cast_or_null<MmaLayoutAttr>(t.getEncoding()) : MmaLayoutAttr();
    return windows && mma && mma.isWarpgroup() && t.getRank() == 2 &&
           t.getElementType().getIntOrFloatBitWidth() == 16 && load.getCols() &&
           mma.getWarps() >= minWarps &&
           loop.isDefinedOutsideOfLoop(load.getSource()) &&
           !mayWrite(loop, load.getSource());
  }

  void prefetch(scf::ForOp loop) {
    SmallVector<std::pair<LoadTileOp, SmallVector<Operation *>>> loads;
    int64_t vectors = 0, windowLoads = 0;
    for (Operation &op : loop.getBody()->without_terminator()) {
      auto load = dyn_cast<LoadTileOp>(op);
      if (!load)
        continue;
      bool vector = isCandidate(loop, load) && vectors < maxLoads;
      bool window = !vector && isWindow(loop, load) && windowLoads < 1;
      if (!vector && !window)
        continue;
      if (std::optional<SmallVector<Operation *>> s =
              operandSlice(loop, load)) {
        loads.emplace_back(load, std::move(*s));
        ++(vector ? vectors : windowLoads);
      }
    }
    if (loads.empty())
      return;
    Location loc = loop.getLoc();
    // The first step's vectors, before the loop.
    OpBuilder b(loop);
    SmallVector<Value> first;
    for (auto &[load, slice] : loads) {
      auto t = cast<RankedTensorType>(load.getResult().getType());
      auto zero = arith::ConstantOp::create(b, loc, t,
                                            cast<TypedAttr>(b.getZeroAttr(t)));
      first.push_back(guardedLoad(b, loc, loop, slice, load,
                                  loop.getLowerBound(), zero));
    }
    IRRewriter rewriter(loop.getContext());
    unsigned carried = loop.getNumRegionIterArgs();
    auto grown = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
        rewriter, first, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &yb, Location l, ArrayRef<BlockArgument> args) {
          // The next step's vectors, first thing in the body.
          scf::ForOp self =
              cast<scf::ForOp>(args.front().getOwner()->getParentOp());
          OpBuilder nb = OpBuilder::atBlockBegin(self.getBody());
          Value next = arith::AddIOp::create(nb, l, self.getInductionVar(),
                                             self.getStep());
          // The slices still read the old loop's induction variable (its
          // body moves into the new loop after this callback): `loop`'s is
          // the one to map.
          SmallVector<Value> out;
          for (auto [i, entry] : llvm::enumerate(loads))
            out.push_back(guardedLoad(nb, l, loop, entry.second, entry.first,
                                      next, args[i]));
          return out;
        }));
    for (auto [i, entry] : llvm::enumerate(loads)) {
      LoadTileOp load = entry.first;
      load.getResult().replaceAllUsesWith(
          grown.getRegionIterArgs()[carried + i]);
      load.erase();
    }
  }

  void runOnOperation() override {
    if (maxLoads < 0) {
      emitError(UnknownLoc::get(&getContext()))
          << "pass option max-loads must be >= 0, got " << int64_t(maxLoads);
      return signalPassFailure();
    }
    if (!maxLoads && !windows)
      return;
    // Loops with a mask (the causal diagonal's few steps) keep their loads
    // unless `masked-loops`; so do loops whose steps keep a score
    // modifier's derivative tile (attn.score_grad_tile).
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kScoreGradTileAttrName))
        return;
      if (maskedLoops || !loop.getBody()
                              ->walk([](MaskOp) {
                                return WalkResult::interrupt();
                              })
                              .wasInterrupted())
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      prefetch(loop);
  }
};

} // namespace
