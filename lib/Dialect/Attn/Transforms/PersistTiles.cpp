//===- PersistTiles.cpp - programs that loop over the grid's tiles --------===//
//
// A warp-specialised program runs one (batch, head, query block) tile and
// ends: the next thread block on the multiprocessor starts only then, so
// its first copies travel while nothing computes, and each tile pays the
// prologue (Q and the first K/V blocks in flight) and the epilogue (O's
// normalisation and stores) in full. This pass makes the grid persistent
// (FlashAttention-3's tile scheduler): P = min(tiles, one per SM) programs,
// program p running tiles p, p + P, p + 2P, ... in the order of tileAt
// (TileOrder.h), each role (consumers, producer) looping over them on its
// own:
//
//   %tiles = B·H·Q;  %P = attn.num_programs %tiles
//   scf.forall (%p) in (%P) {attn.persistent, attn.grid = [... as before]} {
//     %rings = attn.alloc_ring ...
//     attn.warp_specialize {
//       scf.for %t = %p to %tiles step %P iter_args(%off_r = 0, ...) {
//         (%b, %h, %q) = tileAt(%t)
//         the tile's program, each ring op at its position + %off_r
//         scf.yield %off_r + count_r        (attn.ring_fills %r count count_r)
//       }
//     } producer { the same loop over the producer's program }
//   }
//
// A ring's fills continue across tiles: the op at position p of a tile (slot
// s, fill f, p = f·S + s) moves to position p + off:
//   slot' = (s + off) mod S,  fill' = f + (s + off) div S
// where off counts the ring's fills in the program's earlier tiles. So the
// producer fills the next tile's first K/V blocks as soon as the consumers
// release the slots, while they still finish the current tile.
//
// A ring filled once a tile and never released (Q) gets the release and
// acquire its reuse needs: the consumers release it after the last op of
// the tile that reads it, and the producer acquires it before each fill.
//
// Where the one-thread producer fits, tiles are claimed at run time instead
// (FlashAttention-3's dynamic scheduler): causal tiles are of unequal cost
// (query block q sees q + 1 key blocks), and equal ones claimed ran as
// fast as a static schedule or faster (H200). A program runs tile p first, and
// at the start of each tile the producer claims the launch's next unclaimed
// tile (P + an atomic counter) and posts it into a tile queue of two slots,
// from which every thread of the program takes its next tile:
//
//   attn.post_tile %queue[0] fill 0, %p                  (producer only)
//   scf.while (%k = 0, %off_r = 0, ...) {
//     %t = attn.take_tile %queue[%k mod 2] fill %k div 2
//     scf.condition(%t < %tiles) %t, %k, %off_r, ...
//   } do {
//     attn.claim_tile %queue[(%k+1) mod 2] fill (%k+1) div 2  (producer only)
//     the tile's program, as above
//     scf.yield %k + 1, %off_r + count_r, ...
//   }
//
// A program thus asks for more work when it has run what it took, as the
// hardware's block scheduler hands out thread blocks, and the order of
// claims is tileAt's longest-first order.
//
//===----------------------------------------------------------------------===//
#include "attn/Transforms/Passes.h"

#include "attn/Dialect/Attn/IR/TileOrder.h"

#include "LoopUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNPERSISTTILES
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

/// The ring an op of the ring protocol names, or null.
Value ringOperand(Operation *op) {
  if (auto o = dyn_cast<RingWaitOp>(op))
    return o.getRing();
  if (auto o = dyn_cast<RingAcquireOp>(op))
    return o.getRing();
  if (auto o = dyn_cast<RingReleaseOp>(op))
    return o.getRing();
  if (auto o = dyn_cast<RingSlotOp>(op))
    return o.getRing();
  if (auto o = dyn_cast<AsyncLoadTileOp>(op))
    return o.getRing();
  if (auto o = dyn_cast<AsyncArriveOp>(op))
    return o.getRing();
  if (auto o = dyn_cast<RingFillsOp>(op))
    return o.getRing();
  return Value();
}

/// The operand that holds `op`'s slot, and its fill where it has one.
std::pair<OpOperand *, OpOperand *> slotAndFill(Operation *op) {
  if (auto o = dyn_cast<RingWaitOp>(op))
    return {&o.getSlotMutable(), &o.getFillMutable()};
  if (auto o = dyn_cast<RingAcquireOp>(op))
    return {&o.getSlotMutable(), &o.getFillMutable()};
  if (auto o = dyn_cast<RingReleaseOp>(op))
    return {&o.getSlotMutable(), nullptr};
  if (auto o = dyn_cast<RingSlotOp>(op))
    return {&o.getSlotMutable(), nullptr};
  if (auto o = dyn_cast<AsyncLoadTileOp>(op))
    return {&o.getSlotMutable(), nullptr};
  if (auto o = dyn_cast<AsyncArriveOp>(op))
    return {&o.getSlotMutable(), nullptr};
  return {nullptr, nullptr};
}

/// p where `v` is p mod `stages` (or p div `stages` with `quotient`).
Value positionOf(Value v, int64_t stages, bool quotient = false) {
  Operation *op = v.getDefiningOp();
  if (!op || !(quotient ? isa<arith::DivUIOp>(op) : isa<arith::RemUIOp>(op)))
    return Value();
  std::optional<int64_t> d = getConstantIntValue(op->getOperand(1));
  return d && *d == stages ? op->getOperand(0) : Value();
}

/// Whether `a` and `b` are one value, or two pure ops computing it alike
/// from the same operands (the pipelining pass emits a slot's and a fill's
/// p − base separately).
bool samePosition(Value a, Value b) {
  if (!a || !b)
    return false;
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  return x && y && isPure(x) &&
         OperationEquivalence::isEquivalentTo(
             x, y, OperationEquivalence::IgnoreLocations);
}

struct PersistTilesPass
    : public attn::impl::AttnPersistTilesBase<PersistTilesPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    if (grids != 1 && grids != 2)
      return emitError(UnknownLoc::get(ctx))
             << "pass option grids (attn-codegen's persistent) must be 1 "
                "(grids without a causal mask) or 2 (all), got "
             << int64_t(grids);
    if (causalGroupRounds < 0 || causalGroupRounds > 64)
      return emitError(UnknownLoc::get(ctx))
             << "pass option causal-group-rounds must be in [0, 64], got "
             << int64_t(causalGroupRounds);
    if (dynamic < 0 || dynamic > 2)
      return emitError(UnknownLoc::get(ctx))
             << "pass option dynamic must be 0 (no grid), 1 (causal grids) "
                "or 2 (every grid), got "
             << int64_t(dynamic);
    return success();
  }

  void runOnOperation() override {
    SmallVector<std::tuple<scf::ForallOp, WarpSpecializeOp, bool, bool>>
        targets;
    getOperation()->walk([&](scf::ForallOp grid) {
      // The launcher sizes a persistent grid from its tiles' description
      // (attn.grid): a grid without one keeps a block per tile.
      if (grid->hasAttr(kPersistentAttrName) || grid.getRank() != 3 ||
          !grid->hasAttr(kGridAttrName) || isBackwardGrid(grid))
        return;
      bool isCausal = false;
      grid.getBody()->walk([&](MaskOp m) { isCausal |= m.getCausal(); });
      if (isCausal && grids == 1)
        return;
      // Producers of bulk copies only: a cp.async producer (KV caches)
      // keeps its copies' addresses in its registers and spills once it
      // also loops over tiles (120-196 B at D = 128).
      // Split-KV programs (decoding) size their grid to one wave already,
      // and their producers spill 20-24 B when they loop over tiles.
      if (auto program = grid->getAttrOfType<StringAttr>(kProgramAttrName))
        if (program.getValue() != "attention")
          return;
      bool bulk = true;
      grid.getBody()->walk([&](AsyncLoadTileOp l) { bulk &= l.getBulk(); });
      if (!bulk)
        return;
      // Scores that read memory per element (a score_mod's attn.gather)
      // or, with the causal loop beside the unmasked one, draw random
      // numbers (dropout) need the 240 registers a block-per-tile producer
      // leaves the consumers: at the 232 a looping producer leaves, ptxas
      // spilled 56 B (relative bias, D = 128) and 16 B (dropout, causal,
      // D = 64), and none without persistence (sm_90a). Listed key blocks
      // are the exception: tiles as long as their lists are what claiming
      // pays for, and a document mask's gathers (ids of the row and of the
      // column) fit the consumers' 224 beside the lists' 48-register
      // producer (partial and full lists, D = 128, spill-free). H200, bf16
      // D = 128 causal, mirrored, the same documents for both: visited
      // work +0..+11% (2048-position documents at 2k / 4k / 16k, full
      // lists 497 / 706 / 2540 against 478-487 / 659-662 / 2553-2562
      // TFLOP/s at the dense causal count; 256-position 1331 / 4559
      // against 1233-1251 / 4503-4507 at 4k / 16k; partial lists only
      // +3..+11% at 2k and 4k, +0..+5% at 16k; D = 64 full lists +5..+13%).
      // Rows of four slabs (D = 256) leave no room: the partial lists'
      // program spilled 32 B there.
      bool gathers = false, draws = false;
      grid.getBody()->walk([&](Operation *op) {
        gathers |= isa<GatherOp>(op);
        draws |= isa<RandomOp>(op);
      });
      bool listed = copiesListedRows(grid);
      bool listedFits = listed && rowSlabs(grid) <= 2;
      if ((gathers && !listedFits) || (draws && isCausal))
        return;
      // Rows of four slabs (D = 256) keep a block per tile where lists
      // are walked: claimed, block_mask alone spilled 4 B (a value across
      // the consumers' setmaxnreg) and ran 0.86-0.94x a block per tile
      // (24/240 registers, spill-free) with 2048-position documents at 4k
      // and 16k, 1.01-1.03x with 256-position ones (H200, bf16, causal,
      // mirrored).
      if (listed && rowSlabs(grid) > 3)
        return;
      // Tiles claimed at run time where the one-thread producer gets its
      // registers (claimsFit); a causal grid that would claim but cannot
      // keeps a block per tile (static schedules of its tiles lose).
      bool claims = dynamic == 2 || (dynamic == 1 && isCausal);
      if (claims && !claimsFit(grid)) {
        if (isCausal)
          return;
        claims = false;
      }
      for (Operation &op : *grid.getBody())
        if (auto ws = dyn_cast<WarpSpecializeOp>(op))
          targets.emplace_back(grid, ws, isCausal, claims);
    });
    for (auto [grid, ws, causal, claims] : targets)
      if (failed(persist(grid, ws, causal, claims)))
        return signalPassFailure();
  }

  /// Registers of a producer that claims tiles: it runs in one thread
  /// (the GPU lowering's KernelInfo::producerThreads), which at 32
  /// registers spilled 4-16 B (D = 128 and 256). 40 suffice where a tile
  /// row is at most three slabs; with four (bf16 D = 256: one copy and its
  /// coordinates a slab) 40 spilled 16 B and 48 none. 48 leaves two
  /// consumer warpgroups 224, which measured +0..4% at D = 256 (H200).
  /// A producer that walks block lists (the whole-block scan, then each
  /// entry's key block) spilled 16 B at 40 (bf16 D = 128, causal, one list)
  /// and 28 B with a second list of full blocks; 48 spills nothing. So did
  /// one that copies a 16-bit column window beside K and V (a score bias's
  /// block: four coordinates and a column extent) at 40: 8 B (bf16
  /// D = 128); 48 spills nothing. Two consumer warpgroups over a 16-bit Q
  /// of 128 columns keep Q's descriptors in uniform registers (the GPU
  /// lowering computes their warpgroup index once, KernelInfo::
  /// warpgroupAtEntry, where the producer has 48): with 40 the producer
  /// spilled 12 B (bf16 D = 128).
  static int64_t claimingProducerRegisters(scf::ForallOp grid) {
    return copiesListedRows(grid) || rowSlabs(grid) > 3 ||
                   copiesWideWindow(grid) || twoGroupsOverWideQ(grid)
               ? 48
               : 40;
  }

  /// Two consumer warpgroups whose product reads a 16-bit shared lhs (Q)
  /// of 128 columns, and no other per-score register work: with dropout's
  /// random numbers (84 B) or a bias window read into registers (108 B) the
  /// consumers spilled at 224 with Q's descriptors hoisted.
  static bool twoGroupsOverWideQ(scf::ForallOp grid) {
    if (wgmmaWarps(grid) != 8)
      return false;
    bool busy = grid.getBody()
                    ->walk([](Operation *op) {
                      auto load = dyn_cast<LoadTileOp>(op);
                      return isa<RandomOp>(op) || (load && load.getCols())
                                 ? WalkResult::interrupt()
                                 : WalkResult::advance();
                    })
                    .wasInterrupted();
    if (busy)
      return false;
    return grid.getBody()
        ->walk([](DotOp dot) {
          auto lhs = cast<RankedTensorType>(dot.getLhs().getType());
          return isa_and_nonnull<SharedLayoutAttr>(lhs.getEncoding()) &&
                         lhs.getElementTypeBitWidth() == 16 &&
                         lhs.getDimSize(1) == 128
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        })
        .wasInterrupted();
  }

  /// Whether the grid copies a column window of 16- or 32-bit elements (a
  /// staged score bias; fp8's transposed V block is an 8-bit one).
  static bool copiesWideWindow(scf::ForallOp grid) {
    return grid.getBody()
        ->walk([](AsyncLoadTileOp load) {
          RankedTensorType t =
              cast<RingType>(load.getRing().getType()).getTile();
          return load.getCols() && t.getElementTypeBitWidth() >= 16
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        })
        .wasInterrupted();
  }

  /// The most slabs a row of one of the grid's shared-memory tiles spans.
  static int64_t rowSlabs(scf::ForallOp grid) {
    int64_t slabs = 0;
    grid.getBody()->walk([&](AllocRingOp ring) {
      RingType t = ring.getType();
      SharedLayoutAttr layout = t.getLayout();
      if (!layout || !layout.getSlab())
        return;
      RankedTensorType tile = t.getTile();
      int64_t rowBytes =
          tile.getShape().back() * tile.getElementTypeBitWidth() / 8;
      slabs = std::max(slabs, rowBytes / layout.getSlab());
    });
    return slabs;
  }

  /// Whether a grid's producer can claim its tiles: it then runs in one
  /// thread with claimingProducerRegisters, so only where the consumers
  /// keep their registers or 224 (two consumer warpgroups; three would go
  /// from 160 to 152, which spilled 64 B at D = 64), and not for sliding
  /// windows, whose one-thread producer spilled 24 B even at 40 (D = 128).
  static bool claimsFit(scf::ForallOp grid) {
    int64_t warps = wgmmaWarps(grid);
    if (!warps)
      return false;
    int64_t keep = consumerRegisterBudget(warps, kProducerRegisters);
    if (consumerRegisterBudget(warps, claimingProducerRegisters(grid)) <
        std::min(keep, kMinClaimingConsumerRegisters))
      return false;
    bool window = false;
    grid.getBody()->walk([&](MaskOp m) {
      window |= m.getWindowLeft().has_value() || m.getWindowRight().has_value();
    });
    return !window;
  }

  /// Producer registers of a persistent program: at 24 the producer's
  /// tile loop spills (44-48 B at D = 128 and 256) and the D = 256 causal
  /// kernel stalled for good within 650 launches in 2 of 2 runs (H100);
  /// at 40 nothing spilled and 6000 launches ran clean. 32 spills nothing
  /// either and leaves a three-warpgroup program's consumers the 160 they
  /// need (152 at 40 spills 64 B at D = 64).
  static constexpr int64_t kProducerRegisters = 32;
  /// The fewest registers a claiming grid leaves its consumers where the
  /// claiming producer takes some of theirs: two consumer warpgroups beside
  /// a 48-register producer (bf16 D = 256, spill-free and +0..4%).
  static constexpr int64_t kMinClaimingConsumerRegisters = 224;
  /// The tile queue's slots: the producer posts tile k + 1 while the
  /// program takes tile k.
  static constexpr int64_t kQueueSlots = 2;

  /// Raises `ws`'s producer registers to kProducerRegisters (or, for a
  /// producer that claims tiles, claimingProducerRegisters), taking them
  /// from the consumers where the launch has none to spare
  /// (consumerRegisterBudget).
  void giveProducerRegisters(scf::ForallOp grid, WarpSpecializeOp ws,
                             bool claims) {
    int64_t p = ws.getProducerRegisters();
    int64_t warps = wgmmaWarps(grid);
    int64_t want =
        claims ? claimingProducerRegisters(grid) : kProducerRegisters;
    if (p == 0 || p >= want)
      return;
    int64_t c = ws.getConsumerRegisters();
    if (c)
      c = std::min(c, consumerRegisterBudget(warps, want));
    ws.setProducerRegisters(want);
    ws.setConsumerRegisters(c);
  }

  LogicalResult persist(scf::ForallOp grid, WarpSpecializeOp ws, bool causal,
                        bool claims) {
    if (!grid.isNormalized() || !grid.getOutputs().empty())
      return grid.emitError("unsupported: a persistent grid of a forall "
                            "that is not normalized or has outputs");
    Block *body = grid.getBody();
    for (Operation &op : body->without_terminator())
      if (&op != ws.getOperation() && !isa<AllocRingOp>(op))
        return op.emitError("unsupported: a persistent grid whose body has '")
               << op.getName()
               << "' beside the rings and attn.warp_specialize (each role "
                  "loops over the tiles on its own)";
    // Every ring: counted (attn.ring_fills) in every role that names it.
    for (Region *r : {&ws.getConsumers(), &ws.getProducer()}) {
      llvm::SetVector<Value> named, counted;
      WalkResult walk = r->walk([&](Operation *op) {
        Value ring = ringOperand(op);
        if (!ring)
          return WalkResult::advance();
        named.insert(ring);
        if (isa<RingFillsOp>(op)) {
          if (op->getBlock() != &r->front()) {
            op->emitError("unsupported: attn.ring_fills inside a loop or "
                          "guard (a persistent program counts a tile's "
                          "fills at its end)");
            return WalkResult::interrupt();
          }
          counted.insert(ring);
        }
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return failure();
      for (Value ring : named)
        if (!counted.contains(ring))
          return ring.getDefiningOp()->emitError(
              "unsupported: a persistent program with a ring whose fills "
              "are not counted (attn.ring_fills; attn-pipeline-kv-loop "
              "with per-slot barriers counts them)");
    }

    // Turns (attn-alternate-warpgroups) continue across tiles: each
    // warpgroup takes as many turns in every tile, so the order carries on
    // and one start and one end serve the whole loop. Started and ended per
    // tile, a warpgroup's start of tile t + 1 could arrive at the named
    // barrier that warpgroup 0's end of tile t has not yet passed.
    WalkResult turns = ws.walk([&](Operation *op) {
      if (isa<StartTurnsOp, EndTurnsOp>(op) &&
          op->getBlock() != &ws.getConsumers().front()) {
        op->emitError("unsupported: a persistent program whose turns start "
                      "or end inside a loop or guard");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (turns.wasInterrupted())
      return failure();
    Location loc = grid.getLoc();
    OpBuilder hb(grid);
    SmallVector<Value> ubs = grid.getUpperBound(hb);
    // Tiles in the order of the grid's dims: (Z, Y, X) = (batch, heads,
    // query blocks), X varying fastest (tileAt).
    Value tiles = arith::MulIOp::create(
        hb, loc, arith::MulIOp::create(hb, loc, ubs[0], ubs[1]), ubs[2]);
    Value programs = NumProgramsOp::create(hb, loc, hb.getIndexType(), tiles);
    auto persistent = scf::ForallOp::create(
        hb, loc, ArrayRef<OpFoldResult>{programs}, ValueRange(), std::nullopt);
    for (NamedAttribute a : grid->getDiscardableAttrs())
      persistent->setAttr(a.getName(), a.getValue());
    persistent->setAttr(kPersistentAttrName, hb.getUnitAttr());
    Block *newBody = persistent.getBody();
    for (Operation &op : llvm::make_early_inc_range(body->without_terminator()))
      op.moveBefore(newBody->getTerminator());

    // Rings filled once a tile and never released (Q's).
    llvm::SetVector<Value> onceRings;
    ws.getConsumers().walk([&](RingFillsOp f) {
      bool released = false;
      ws.getConsumers().walk(
          [&](RingReleaseOp r) { released |= r.getRing() == f.getRing(); });
      if (!released)
        onceRings.insert(f.getRing());
    });

    // Tiles claimed at run time: a queue of tile indices (kQueueSlots).
    giveProducerRegisters(persistent, ws, claims);
    Value queue;
    if (claims) {
      OpBuilder qb(ws);
      queue = AllocRingOp::create(
          qb, loc, RingType::getTileQueue(qb.getContext(), kQueueSlots));
    }
    for (Region *r : {&ws.getConsumers(), &ws.getProducer()})
      loopOverTiles(*r, r == &ws.getConsumers(), grid, persistent, tiles,
                    programs, causal, onceRings, queue);
    grid.erase();
    return success();
  }

  /// Wraps the role `region`'s program in the loop over its tiles.
  void loopOverTiles(Region &region, bool consumers, scf::ForallOp grid,
                     scf::ForallOp persistent, Value tiles, Value programs,
                     bool causal, const llvm::SetVector<Value> &onceRings,
                     Value queue) {
    Block &blk = region.front();
    Location loc = grid.getLoc();
    // The rings in the order their counts appear.
    llvm::MapVector<Value, RingFillsOp> counts;
    for (auto f : blk.getOps<RingFillsOp>())
      counts[f.getRing()] = f;

    // Reuse of the rings filled once a tile: the consumers release after
    // the last op that reads the ring's slot, the producer acquires before
    // each fill (fill 0 of the tile: shifted below like every ring op).
    for (Value ring : onceRings) {
      if (!counts.count(ring))
        continue;
      if (consumers) {
        Operation *last = nullptr;
        for (Operation &op : blk) {
          bool reads = false;
          op.walk([&](Operation *inner) {
            for (Value v : inner->getOperands())
              if (auto slot = v.getDefiningOp<RingSlotOp>())
                reads |= slot.getRing() == ring;
          });
          if (reads)
            last = &op;
        }
        // A ring no op reads is released at the end of the tile: the
        // producer's acquire of the next tile's fill waits for it.
        OpBuilder b = OpBuilder::atBlockEnd(&blk);
        if (last)
          b.setInsertionPointAfter(last);
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        RingReleaseOp::create(b, loc, ring, zero);
      } else {
        SmallVector<AsyncLoadTileOp> fills;
        blk.walk([&](AsyncLoadTileOp l) {
          if (l.getRing() == ring)
            fills.push_back(l);
        });
        for (AsyncLoadTileOp l : fills) {
          OpBuilder b(l);
          Value zero = arith::ConstantIndexOp::create(b, loc, 0);
          RingAcquireOp::create(b, loc, ring, l.getSlot(), zero);
        }
      }
    }

    // The loop over the program's tiles, the program moved into it:
    //   static:  scf.for %t = %p to %tiles step %P iter_args(offsets)
    //   dynamic: scf.while over the tiles taken from the queue, carrying
    //            the queue's position %k and the offsets.
    OpBuilder b = OpBuilder::atBlockBegin(&blk);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value pid = persistent.getInductionVar(0);
    SmallVector<Value> inits(counts.size(), zero);
    Operation *loop;
    Block *loopBody;
    Value tile;         // the tile's linear index (index)
    ValueRange offsets; // each counted ring's offset
    Value position;     // dynamic: the queue's position k
    // Entry k of the queue: slot k mod S, fill k div S.
    auto queueSlot = [&](OpBuilder &qb, Value k) {
      Value n = arith::ConstantIndexOp::create(qb, loc, kQueueSlots);
      return std::pair<Value, Value>{arith::RemUIOp::create(qb, loc, k, n),
                                     arith::DivUIOp::create(qb, loc, k, n)};
    };
    if (!queue) {
      auto forOp =
          scf::ForOp::create(b, loc, pid, tiles, programs, inits,
                             [](OpBuilder &, Location, Value, ValueRange) {});
      loop = forOp;
      loopBody = forOp.getBody();
      tile = forOp.getInductionVar();
      offsets = forOp.getRegionIterArgs();
    } else {
      // The producer posts the program's first tile, p.
      if (!consumers)
        PostTileOp::create(b, loc, queue, zero, zero, pid);
      SmallVector<Value> whileInits = {zero};
      whileInits.append(inits);
      SmallVector<Type> carried(whileInits.size(), b.getIndexType());
      SmallVector<Type> results = {b.getIndexType()};
      results.append(carried);
      SmallVector<Location> locs(carried.size(), loc);
      auto whileOp = scf::WhileOp::create(b, loc, results, whileInits);
      {
        // %t = the next tile; on while %t < %tiles.
        Block *before = b.createBlock(&whileOp.getBefore(), {}, carried, locs);
        OpBuilder bb = OpBuilder::atBlockEnd(before);
        auto [slot, fill] = queueSlot(bb, before->getArgument(0));
        Value t =
            TakeTileOp::create(bb, loc, bb.getIndexType(), queue, slot, fill);
        Value more =
            arith::CmpIOp::create(bb, loc, arith::CmpIPredicate::ult, t, tiles);
        SmallVector<Value> forwarded = {t};
        forwarded.append(before->getArguments().begin(),
                         before->getArguments().end());
        scf::ConditionOp::create(bb, loc, more, forwarded);
      }
      SmallVector<Location> afterLocs(results.size(), loc);
      loopBody = b.createBlock(&whileOp.getAfter(), {}, results, afterLocs);
      b.setInsertionPointAfter(whileOp);
      loop = whileOp;
      tile = loopBody->getArgument(0);
      position = loopBody->getArgument(1);
      offsets = loopBody->getArguments().drop_front(2);
    }
    for (Operation &op : llvm::make_early_inc_range(blk)) {
      if (&op == loop || &op == zero.getDefiningOp() || isa<PostTileOp>(op))
        continue;
      if (isa<StartTurnsOp>(op)) {
        op.moveBefore(loop);
        continue;
      }
      if (isa<EndTurnsOp>(op))
        continue;
      op.moveBefore(loopBody, loopBody->end());
    }
    for (auto end : llvm::make_early_inc_range(blk.getOps<EndTurnsOp>()))
      end->moveAfter(loop);

    // The tile's coordinates.
    b.setInsertionPointToStart(loopBody);
    // Dynamic: the producer claims the tile after this one first, so the
    // atomic's round trip overlaps the tile.
    if (queue && !consumers) {
      Value next = arith::AddIOp::create(
          b, loc, position, arith::ConstantIndexOp::create(b, loc, 1));
      auto [slot, fill] = queueSlot(b, next);
      ClaimTileOp::create(b, loc, queue, slot, fill, tiles, programs);
    }
    Type i32 = b.getI32Type();
    auto u32 = [&](Value v) -> Value {
      return arith::IndexCastUIOp::create(b, loc, i32, v);
    };
    auto index = [&](Value v) -> Value {
      return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
    };
    SmallVector<Value> ubs = grid.getUpperBound(b);
    Value groupBlocks;
    if (causal) {
      // Causal: the longest query blocks first, in groups of heads of
      // causal-group-rounds · P tiles, or (0) one group of every head, whose
      // rounds of P tiles then hold one or two query-block lengths each.
      Value rounds = arith::ConstantOp::create(
          b, loc, b.getIntegerAttr(i32, causalGroupRounds));
      groupBlocks =
          causalGroupRounds > 0
              ? arith::MulIOp::create(b, loc, u32(programs), rounds).getResult()
              : u32(tiles);
    }
    // Static causal: odd rounds of P tiles backwards (snakeRounds), so that
    // every program gets a long and a short tile of each pair of rounds.
    // Dynamic: claims go in order, the longest first.
    Value linear =
        causal && !queue ? snakeRounds(b, loc, tile, programs, tiles) : tile;
    TileCoords t = tileAt(b, loc, u32(linear), u32(ubs[2]), u32(ubs[1]),
                          u32(ubs[0]), groupBlocks);
    Value coords[3] = {index(t.batch), index(t.head), index(t.qBlock)};
    for (int d = 0; d < 3; ++d)
      grid.getInductionVar(d).replaceUsesWithIf(coords[d], [&](OpOperand &u) {
        return loop->isAncestor(u.getOwner());
      });

    // Each ring op at its position plus the ring's offset.
    DenseMap<Value, unsigned> ringIndex;
    for (auto [i, entry] : llvm::enumerate(counts))
      ringIndex[entry.first] = i;
    loopBody->walk([&](Operation *op) {
      Value ring = ringOperand(op);
      auto [slot, fill] = slotAndFill(op);
      if (!ring || !slot)
        return;
      Value off = offsets[ringIndex.lookup(ring)];
      int64_t S = cast<RingType>(ring.getType()).getStages();
      OpBuilder ob(op);
      if (S == 1) {
        // slot' = 0,  fill' = f + off
        if (fill)
          fill->set(arith::AddIOp::create(ob, loc, fill->get(), off));
        return;
      }
      // slot' = (s + off) mod S,  fill' = f + (s + off) div S; where
      // s = p mod S and f = p div S (the pipelined loop's numbering) that is
      // slot' = (p + off) mod S, fill' = (p + off) div S: one add before
      // both instead of a chain of four.
      Value numSlots = arith::ConstantIndexOp::create(ob, loc, S);
      Value position = positionOf(slot->get(), S);
      if (fill && position &&
          !samePosition(positionOf(fill->get(), S, /*quotient=*/true),
                        position))
        position = Value();
      if (position) {
        Value sum = arith::AddIOp::create(ob, loc, position, off);
        if (fill)
          fill->set(arith::DivUIOp::create(ob, loc, sum, numSlots));
        slot->set(arith::RemUIOp::create(ob, loc, sum, numSlots));
        return;
      }
      Value sum = arith::AddIOp::create(ob, loc, slot->get(), off);
      if (fill)
        fill->set(arith::AddIOp::create(
            ob, loc, fill->get(),
            arith::DivUIOp::create(ob, loc, sum, numSlots)));
      slot->set(arith::RemUIOp::create(ob, loc, sum, numSlots));
    });

    // off_r + count_r for the next tile; the counts are spent.
    b.setInsertionPointToEnd(loopBody);
    SmallVector<Value> next;
    if (queue)
      next.push_back(arith::AddIOp::create(
          b, loc, position, arith::ConstantIndexOp::create(b, loc, 1)));
    for (auto [ring, f] : counts) {
      Value off = offsets[ringIndex.lookup(ring)];
      next.push_back(arith::AddIOp::create(b, loc, off, f.getCount()));
      f.erase();
    }
    scf::YieldOp::create(b, loc, next);
  }
};

} // namespace
