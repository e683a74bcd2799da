//===- SpecializeWarpgroups.cpp - a producer warpgroup for the copies -----===//
//
// After attn-pipeline-kv-loop every warpgroup of a wgmma program both copies
// the next key/value blocks into the rings and computes: a warpgroup that
// refills a slot waits there until every warpgroup released it, so the
// consumers are tied to each other through the ring (H100, D = 128: 7% of
// the stall samples at the ring's waits, 4.4% at V's acquire alone). This
// pass gives the copies to one more warpgroup (FlashAttention-3's producer):
//
//   %rings = attn.alloc_ring ...                     (hoisted, shared)
//   attn.warp_specialize registers(consumers = C, producer = P) {
//     the program without its ring_acquire / async_load_tile / async_arrive
//   } producer {
//     the same control flow (loops, guards) with only those copies and the
//     index arithmetic they need; no loop-carried values
//   }
//
// The producer runs ahead of the consumers by up to a ring's depth; each
// consumer warpgroup waits only for the fills it reads. The producer's
// registers go to the consumers (setmaxnreg). setmaxnreg moves registers
// within the block's allocation, R = floor8(65536 / T) per thread of the T
// launched: a request beyond it waits forever. So
//   C = floor8((R·T − 128·P) / consumer threads), at most 256.
// P = 80 for a producer of cp.async copies: 128x128 tiles spilled at 72
// (4 bytes; each thread keeps its 32 copy addresses), 56 and 24 (456
// bytes); two consumer warpgroups then get 208. With bulk tensor copies
// (TMA: one thread issues a copy per slab of a tile, completing on
// the slot's barrier) the producer needs few registers: P = 24, C = 240.
//
//===----------------------------------------------------------------------===//
#include "attn/Transforms/Passes.h"

#include "LoopUtils.h"
#include "Programs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNSPECIALIZEWARPGROUPS
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

bool isProducerOp(Operation *op) {
  return isa<RingAcquireOp, AsyncLoadTileOp, AsyncArriveOp>(op);
}

/// Whether every copy of the program goes into a ring synchronised per
/// slot: no copy groups, no program-wide waits, no tile loaded straight
/// into shared memory (each of those synchronises all threads, and the
/// producer would not take part).
bool copiesOnSlotBarriers(scf::ForallOp grid) {
  bool anyFill = false;
  WalkResult r = grid.getBody()->walk([&](Operation *op) {
    if (isa<AsyncCommitOp, AsyncWaitOp, WarpSpecializeOp>(op))
      return WalkResult::interrupt();
    if (auto load = dyn_cast<LoadTileOp>(op))
      if (isa_and_nonnull<SharedLayoutAttr>(load.getType().getEncoding()))
        return WalkResult::interrupt();
    anyFill |= isa<AsyncArriveOp>(op);
    return WalkResult::advance();
  });
  return !r.wasInterrupted() && anyFill;
}

/// Whether `load` may be one bulk tensor copy per slab: a 16-bit tile of
/// 128- or 64-byte slabs (8-bit: 128) from a source of rank 2 to 5 whose
/// rows (and with a column window, columns) are whole blocks or reach the
/// source's end (readsToEnd).
bool bulkCopyable(AsyncLoadTileOp load) {
  // A gathered (paged) block, or packed (position, head) rows, have an
  // address per row.
  if (load.getPages() || load.getGroup())
    return false;
  RankedTensorType tile = cast<RingType>(load.getRing().getType()).getTile();
  auto mem = cast<MemRefType>(load.getSource().getType());
  if (!AsyncLoadTileOp::bulkCopyRefusal(tile, mem).empty())
    return false;
  // Without a window the last index is the row; with one, the last two are
  // the row and the first column.
  ValueRange idx = load.getIndices();
  int64_t rank = mem.getRank();
  Value cols = load.getCols();
  if (cols && !readsToEnd(load.getSource(), cols, idx.back(), rank - 1,
                          tile.getDimSize(1)))
    return false;
  return readsToEnd(load.getSource(), load.getRows(),
                    cols ? idx[idx.size() - 2] : idx.back(), rank - 2,
                    tile.getDimSize(0));
}

struct Specializer {
  Region &consumers;
  llvm::SetVector<Operation *> keep;

  /// The producer's ops: the copies, every op their operands come from,
  /// and the loops and guards around them (with their bounds and
  /// conditions, not their loop-carried values).
  LogicalResult collect() {
    SmallVector<Operation *> work;
    auto add = [&](Operation *op) {
      if (keep.insert(op))
        work.push_back(op);
    };
    // The fill counts go to both roles (each continues its own count in a
    // persistent program).
    consumers.walk([&](Operation *op) {
      if (isProducerOp(op) || isa<RingFillsOp>(op))
        add(op);
    });
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      for (Operation *p = op->getParentOp(); p != consumers.getParentOp();
           p = p->getParentOp()) {
        if (!isa<scf::ForOp, scf::IfOp>(p))
          return op->emitError("unsupported: a copy inside '")
                 << p->getName()
                 << "' (the producer follows scf.for and scf.if)";
        add(p);
      }
      SmallVector<Value> operands;
      if (auto loop = dyn_cast<scf::ForOp>(op))
        operands = {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()};
      else if (auto guard = dyn_cast<scf::IfOp>(op))
        operands = {guard.getCondition()};
      else
        operands = llvm::to_vector(op->getOperands());
      // A scalar region op is cloned whole: the values its regions use from
      // above are its operands too.
      if (isClonableScalarRegion(op)) {
        llvm::SetVector<Value> above;
        getUsedValuesDefinedAbove(op->getRegions(), above);
        operands.append(above.begin(), above.end());
      }
      for (Value v : operands) {
        if (auto arg = dyn_cast<BlockArgument>(v)) {
          Operation *owner = arg.getOwner()->getParentOp();
          if (!consumers.isAncestor(arg.getParentRegion()))
            continue;
          auto loop = dyn_cast<scf::ForOp>(owner);
          if (!loop || arg != loop.getInductionVar())
            return op->emitError(
                "unsupported: a copy whose operands depend on a value "
                "carried by a loop (the producer keeps no loop state)");
          add(loop);
          continue;
        }
        Operation *def = v.getDefiningOp();
        if (!consumers.isAncestor(def->getParentRegion()))
          continue;
        if (!isClonableScalar(def) && !isClonableScalarRegion(def) &&
            !isProducerOp(def))
          return op->emitError("unsupported: a copy whose operands come from '")
                 << def->getName()
                 << "' (the producer computes only scalar arithmetic)";
        add(def);
      }
    }
    return success();
  }

  /// Clones the kept ops of `src`, in order, at `b`: loops without their
  /// loop-carried values, guards without results.
  void cloneKept(Block &src, OpBuilder &b, IRMapping &map) {
    for (Operation &op : src) {
      if (!keep.contains(&op))
        continue;
      if (isClonableScalarRegion(&op)) {
        b.clone(op, map);
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        auto copy = scf::ForOp::create(
            b, loop.getLoc(), map.lookupOrDefault(loop.getLowerBound()),
            map.lookupOrDefault(loop.getUpperBound()),
            map.lookupOrDefault(loop.getStep()), ValueRange(), nullptr,
            loop.getUnsignedCmp());
        map.map(loop.getInductionVar(), copy.getInductionVar());
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPoint(copy.getBody()->getTerminator());
        cloneKept(*loop.getBody(), b, map);
        continue;
      }
      if (auto guard = dyn_cast<scf::IfOp>(op)) {
        bool elseKept =
            !guard.getElseRegion().empty() &&
            llvm::any_of(guard.getElseRegion().front(),
                         [&](Operation &o) { return keep.contains(&o); });
        auto copy = scf::IfOp::create(b, guard.getLoc(), TypeRange(),
                                      map.lookupOrDefault(guard.getCondition()),
                                      elseKept);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPoint(copy.thenBlock()->getTerminator());
        cloneKept(*guard.thenBlock(), b, map);
        if (elseKept) {
          b.setInsertionPoint(copy.elseBlock()->getTerminator());
          cloneKept(*guard.elseBlock(), b, map);
        }
        continue;
      }
      b.clone(op, map);
    }
  }
};

struct SpecializeWarpgroupsPass
    : public mlir::attn::impl::AttnSpecializeWarpgroupsBase<
          SpecializeWarpgroupsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    if (overlappedPrograms != 0 && overlappedPrograms != 1)
      return emitError(UnknownLoc::get(ctx))
             << "pass option overlapped-programs must be 0 or 1, got "
             << int64_t(overlappedPrograms);
    if (bulkCopies < -1 || bulkCopies > 1)
      return emitError(UnknownLoc::get(ctx))
             << "pass option bulk-copies must be -1, 0 or 1, got "
             << int64_t(bulkCopies);
    if (splitKvMaxTileBytes < 0)
      return emitError(UnknownLoc::get(ctx))
             << "pass option split-kv-max-tile-bytes must be >= 0, got "
             << int64_t(splitKvMaxTileBytes);
    if (warpgroups != 1)
      return emitError(UnknownLoc::get(ctx))
             << "unsupported: " << int64_t(warpgroups)
             << " producer warpgroups (pass option warpgroups; one is "
                "supported)";
    auto valid = [](int64_t n) { return n >= 24 && n <= 256 && n % 8 == 0; };
    if (!valid(producerRegisters) && producerRegisters != 0 &&
        producerRegisters != -1)
      return emitError(UnknownLoc::get(ctx))
             << "pass option producer-registers must be -1, 0 or a multiple "
                "of 8 in [24, 256], got "
             << int64_t(producerRegisters);
    if (!valid(consumerRegisters) && consumerRegisters != 0 &&
        consumerRegisters != -1)
      return emitError(UnknownLoc::get(ctx))
             << "pass option consumer-registers must be -1, 0 or a multiple "
                "of 8 in [24, 256], got "
             << int64_t(consumerRegisters);
    return success();
  }

  LogicalResult specialize(scf::ForallOp grid, int64_t warps) {
    Block *body = grid.getBody();
    // Bulk tensor copies where the target has them (sm_90 and later) and
    // every copy of the program qualifies; forced, every copy must.
    SmallVector<AsyncLoadTileOp> loads;
    body->walk([&](AsyncLoadTileOp load) { loads.push_back(load); });
    bool bulk = false;
    if (bulkCopies != 0) {
      auto target = grid->getAttrOfType<TargetAttr>(kTargetAttrName);
      bool hasTMA = target && target.hasBulkCopies();
      bool all = llvm::all_of(loads, bulkCopyable);
      if (bulkCopies == 1 && !all)
        for (AsyncLoadTileOp load : loads)
          if (!bulkCopyable(load))
            return load.emitError(
                "unsupported: a bulk copy of this load (bulk-copies=1): it "
                "needs a 16-bit tile of 128- or 64-byte slabs, a source of "
                "rank 2 to 5, and rows = min(rows left in the source, tile "
                "rows) or the tile's rows");
      bulk = bulkCopies == 1 || (hasTMA && all);
    }
    // The producer's registers: a bulk producer computes a few
    // coordinates; a cp.async one keeps its copies' addresses. The
    // backward's key-block grid runs one or two flat loops over (query
    // head, query block) pairs, a division and a remainder a step in 64
    // bits: at 24 its causal form spilled 48 bytes (sm_90a, D = 128); at
    // 32 nothing, its consumers at 232 instead of 240 ran as fast (H200,
    // ±1%), as the persistent grids' tile loops take 32 (attn-persist-tiles).
    // A producer that walks two block lists (the whole-block scan and the
    // full entries, then the partial ones) takes 32 as well: at 24 a
    // document mask with full lists spilled 12 bytes (D = 256, a block per
    // tile), at 32 nothing, as fast (H200, bf16, causal, mirrored: -1..+3%).
    // With one list 24 spill nothing, and the consumers' 240 ran 1-4%
    // faster at 16k than 232.
    int64_t producerRegs = producerRegisters;
    bool keyGrid =
        gridProgram(grid) == ::attn::programName(::attn::Program::GradKeyValue);
    if (producerRegs == -1)
      producerRegs =
          bulk ? (keyGrid || listedRowSources(grid) > 1 ? 32 : 24) : 80;
    // C = floor8((R·T − 128·P) / consumer threads), at most 256, with
    // R = floor8(65536 / T) the launch's registers per thread; none
    // raised where P is left as launched.
    int64_t consumerThreads = 32 * warps, threads = consumerThreads + 128;
    int64_t launchRegs = std::min<int64_t>(255, 65536 / threads / 8 * 8);
    int64_t budget = launchRegs * threads;
    int64_t consumerRegs = consumerRegisters;
    if (consumerRegs == -1)
      consumerRegs =
          producerRegs == 0 ? 0 : consumerRegisterBudget(warps, producerRegs);
    int64_t p = producerRegs ? producerRegs : launchRegs;
    int64_t c = consumerRegs ? consumerRegs : launchRegs;
    if (c * consumerThreads + 128 * p > budget)
      return grid.emitError()
             << "unsupported: " << c << " registers for each of "
             << consumerThreads << " consumer threads and " << p
             << " for each of 128 producer threads exceed the " << budget
             << " the launch of " << threads << " threads holds (" << launchRegs
             << " each; setmaxnreg would wait forever)";

    // The rings are shared by both roles: allocated before the split.
    OpBuilder b(grid.getContext());
    Operation *lastRing = nullptr;
    for (Operation &op : llvm::make_early_inc_range(*body)) {
      if (!isa<AllocRingOp>(op))
        continue;
      if (lastRing)
        op.moveAfter(lastRing);
      else
        op.moveBefore(body, body->begin());
      lastRing = &op;
    }
    Operation *first = nullptr;
    for (Operation &op : body->without_terminator())
      if (!isa<AllocRingOp>(op)) {
        first = &op;
        break;
      }
    b.setInsertionPoint(body->getTerminator());
    if (bulk)
      for (AsyncLoadTileOp load : loads)
        load.setBulk(true);
    auto ws =
        WarpSpecializeOp::create(b, grid.getLoc(), consumerRegs, producerRegs);
    Block *cBlock = b.createBlock(&ws.getConsumers());
    Block *pBlock = b.createBlock(&ws.getProducer());
    // Everything else (from the first op that is not a ring) is the
    // consumers' program.
    for (Operation *op = first; op && op != ws.getOperation();) {
      Operation *next = op->getNextNode();
      op->moveBefore(cBlock, cBlock->end());
      op = next;
    }

    Specializer s{ws.getConsumers(), {}};
    if (failed(s.collect()))
      return failure();
    IRMapping map;
    OpBuilder pb = OpBuilder::atBlockEnd(pBlock);
    s.cloneKept(*cBlock, pb, map);

    // The consumers lose the copies; what only they needed goes with them.
    SmallVector<Operation *> copies;
    ws.getConsumers().walk([&](Operation *op) {
      if (isProducerOp(op))
        copies.push_back(op);
    });
    for (Operation *op : copies)
      op->erase();
    IRRewriter rewriter(grid.getContext());
    (void)runRegionDCE(rewriter, ws.getConsumers());
    return success();
  }

  /// A split_kv program of one warpgroup (a decode step: 64 rows streaming
  /// K and V) whose ring slots exceed splitKvMaxTileBytes keeps its copies:
  /// H200, bf16, GQA 32:8, CUDA graphs, against the producer's bulk copies,
  /// the D = 128 split kernel's 32 KiB tiles (two slots) on cp.async in the
  /// consumers run B = 8 Nk = 64k 4143-4149 -> 4508-4568 GB/s (+9-10%),
  /// B = 1 64k +8-9%, B = 8 4k +4%, B = 1 16k +1%, B = 1 4k -5-6%. D = 64's
  /// 16 KiB tiles (three slots) lose 8-15% without the producer, and
  /// D = 256's two consumer warpgroups (32 KiB tiles) 0-5%. A causal or
  /// windowed split program (a chunk of queries) keeps its producer: the
  /// D = 128 one spilled 12 bytes without it (its masked loop beside the
  /// unmasked one, ptxas, sm_90a).
  bool keepsOwnCopies(scf::ForallOp grid, int64_t warps) {
    if (splitKvMaxTileBytes <= 0 || warps != 4 ||
        gridProgram(grid) != ::attn::programName(::attn::Program::SplitKV))
      return false;
    bool large = false, positional = false;
    grid.getBody()->walk([&](Operation *op) {
      if (auto ring = dyn_cast<AllocRingOp>(op))
        large |= ring.getType().getSlotBytes() > splitKvMaxTileBytes;
      if (auto mask = dyn_cast<MaskOp>(op))
        positional |=
            mask.getCausal() || mask.getWindowLeft() || mask.getWindowRight();
    });
    return large && !positional;
  }

  /// A program of packed (position, head) rows (GQA packing: Q loaded with
  /// `group`) keeps its copies: its Q tile is no bulk copy (an address per
  /// row), and a producer of cp.async copies spilled where the consumers
  /// keep their own spill-free (sm_90a, D = 128: the causal forward's 48
  /// bytes, the split program's 68).
  static bool packsRows(scf::ForallOp grid) {
    WalkResult r = grid.getBody()->walk([](Operation *op) {
      auto load = dyn_cast<AsyncLoadTileOp>(op);
      auto sync = dyn_cast<LoadTileOp>(op);
      return (load && load.getGroup()) || (sync && sync.getGroup())
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    return r.wasInterrupted();
  }

  void runOnOperation() override {
    SmallVector<std::pair<scf::ForallOp, int64_t>> grids;
    getOperation()->walk([&](scf::ForallOp grid) {
      int64_t warps = wgmmaWarps(grid);
      if (!warps || !copiesOnSlotBarriers(grid) ||
          keepsOwnCopies(grid, warps) || packsRows(grid))
        return;
      bool overlapped = false;
      grid.getBody()->walk([&](DotOp dot) { overlapped |= dot.getAsync(); });
      if (overlapped && overlappedPrograms == 0)
        return;
      grids.emplace_back(grid, warps);
    });
    for (auto [grid, warps] : grids)
      if (failed(specialize(grid, warps)))
        return signalPassFailure();
  }
};

} // namespace
