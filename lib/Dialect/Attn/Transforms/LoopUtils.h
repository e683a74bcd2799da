//===- LoopUtils.h - helpers shared by the key/value loop passes -*- C++
//-*-===//
//
// Private to MLIRAttnTransforms.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_DIALECT_ATTN_TRANSFORMS_LOOPUTILS_H
#define ATTN_LIB_DIALECT_ATTN_TRANSFORMS_LOOPUTILS_H

#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>

namespace mlir::attn {

/// Whether a copy's `extent` along source dim `axis`, from `index`, is what
/// a bulk copy reads: the tile's `tileExtent` (a whole block) or
/// min(dim(source, axis) − index, tileExtent), possibly clamped by max(·, 0)
/// (a block wholly past the end, as a block mask's last sub-blocks can be:
/// the copy reads zeros only). A bulk copy reads as zero only what lies
/// past the source's end.
inline bool readsToEnd(Value source, Value extent, Value index, int64_t axis,
                       int64_t tileExtent) {
  std::optional<int64_t> whole = getConstantIntValue(extent);
  if (whole)
    return *whole == tileExtent;
  if (auto clamp = extent.getDefiningOp<arith::MaxSIOp>()) {
    std::optional<int64_t> lo = getConstantIntValue(clamp.getRhs());
    if (!lo || *lo != 0)
      return false;
    extent = clamp.getLhs();
  }
  auto min = extent.getDefiningOp<arith::MinSIOp>();
  if (!min)
    return false;
  for (auto [left, bound] : {std::pair{min.getLhs(), min.getRhs()},
                             std::pair{min.getRhs(), min.getLhs()}}) {
    std::optional<int64_t> c = getConstantIntValue(bound);
    auto sub = left.getDefiningOp<arith::SubIOp>();
    if (!c || *c != tileExtent || !sub || sub.getRhs() != index)
      continue;
    auto dim = sub.getLhs().getDefiningOp<memref::DimOp>();
    std::optional<int64_t> d = dim ? dim.getConstantIndex() : std::nullopt;
    if (dim && dim.getSource() == source && d && *d == axis)
      return true;
  }
  return false;
}

/// The outermost scf.forall around `op` (its program's grid), or null.
inline Operation *outermostGrid(Operation *op) {
  Operation *grid = nullptr;
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (isa<scf::ForallOp>(p))
      grid = p;
  return grid;
}

/// A scalar memref.load from a memref that no op of its program writes (a
/// KV cache's page table or sequence lengths; block lists that an earlier
/// grid wrote): reading it again for another block, or in another
/// warpgroup, reads the same value. Grids run one after another (a kernel
/// each on one stream, or a parallel loop each on the CPU), so only writes
/// in the load's own grid count; outside every grid, any write does.
inline bool isInvariantLoad(Operation *op) {
  auto load = dyn_cast<memref::LoadOp>(op);
  if (!load)
    return false;
  Value m = load.getMemRef();
  Operation *grid = outermostGrid(op);
  return llvm::none_of(m.getUsers(), [&](Operation *user) {
    return user != op && (!grid || grid->isAncestor(user)) &&
           mightHaveEffect<MemoryEffects::Write, MemoryEffects::Free>(user, m);
  });
}

/// Ops that may be re-evaluated for another block (another value of a
/// loop's induction variable): no memory effects (or an invariant load), no
/// regions, scalar results. Where they are cloned under a "block exists"
/// guard, a division or a table read runs only where the original would
/// have.
inline bool isClonableScalar(Operation *op) {
  if (op->getNumRegions() != 0 || op->hasTrait<OpTrait::IsTerminator>() ||
      !(isMemoryEffectFree(op) || isInvariantLoad(op)))
    return false;
  return llvm::all_of(op->getResultTypes(), [](Type t) {
    return isa<IndexType, IntegerType, FloatType>(t);
  });
}

/// Whether `op` is an scf.if or scf.while of scalar results whose regions
/// hold only clonable scalar ops and such region ops (a scan over a block
/// list): a producer clones it whole.
inline bool isClonableScalarRegion(Operation *op) {
  auto scalar = [](Operation *o) {
    return llvm::all_of(o->getResultTypes(), [](Type t) {
      return isa<IndexType, IntegerType, FloatType>(t);
    });
  };
  if (!isa<scf::IfOp, scf::WhileOp>(op) || op->getNumResults() == 0 ||
      !scalar(op))
    return false;
  return !op->walk([&](Operation *inner) {
              if (inner == op || isa<scf::YieldOp, scf::ConditionOp>(inner) ||
                  isClonableScalar(inner) ||
                  (isa<scf::IfOp, scf::WhileOp>(inner) && scalar(inner)))
                return WalkResult::advance();
              return WalkResult::interrupt();
            }).wasInterrupted();
}

/// The warps of a program's wgmma accumulators, or 0 (no warpgroup dot).
inline int64_t wgmmaWarps(scf::ForallOp grid) {
  int64_t warps = 0;
  grid.getBody()->walk([&](DotOp dot) {
    auto t = cast<RankedTensorType>(dot.getType());
    if (auto m = dyn_cast_or_null<MmaLayoutAttr>(t.getEncoding()))
      if (m.isWarpgroup())
        warps = std::max(warps, m.getWarps());
  });
  return warps;
}

/// The registers each consumer thread of a warp-specialised program may
/// raise itself to while the producer warpgroup keeps `producerRegs`.
/// setmaxnreg moves registers within the block's allocation, R =
/// floor8(65536 / T) per thread (at most 255) of the T launched (consumers
/// and 128 producer threads); asking for more waits forever:
///   C = floor8((R·T − 128·P) / consumer threads), at most 256 (0 without
/// consumer warps)
inline int64_t consumerRegisterBudget(int64_t consumerWarps,
                                      int64_t producerRegs) {
  if (consumerWarps <= 0)
    return 0;
  int64_t consumerThreads = 32 * consumerWarps;
  int64_t threads = consumerThreads + 128;
  int64_t launchRegs = std::min<int64_t>(255, 65536 / threads / 8 * 8);
  return std::min<int64_t>(256, (launchRegs * threads - 128 * producerRegs) /
                                    consumerThreads / 8 * 8);
}

/// How many memrefs name the rows the grid's copies read (block lists: a
/// key block is an entry of `indices`, and of `full_indices` where there
/// are full blocks): the memrefs of the memref.loads inside the grid that
/// some attn.async_load_tile's coordinates are computed from. A listed
/// program's tiles are as long as their lists, which differ from tile to
/// tile.
inline int64_t listedRowSources(scf::ForallOp grid) {
  llvm::SmallPtrSet<Value, 4> sources;
  grid.getBody()->walk([&](AsyncLoadTileOp load) {
    SmallVector<Value> worklist(load.getIndices());
    worklist.push_back(load.getRows());
    llvm::SmallPtrSet<Operation *, 16> seen;
    while (!worklist.empty()) {
      Operation *def = worklist.pop_back_val().getDefiningOp();
      if (!def || !grid->isProperAncestor(def) || !seen.insert(def).second)
        continue;
      if (auto l = dyn_cast<memref::LoadOp>(def))
        sources.insert(l.getMemRef());
      llvm::append_range(worklist, def->getOperands());
    }
  });
  return sources.size();
}

/// Whether the grid's copies read rows named by memory (listedRowSources).
inline bool copiesListedRows(scf::ForallOp grid) {
  return listedRowSources(grid) > 0;
}

} // namespace mlir::attn

#endif // ATTN_LIB_DIALECT_ATTN_TRANSFORMS_LOOPUTILS_H
