//===- PipelineKVLoop.cpp - multi-stage K/V loads through rings -*- C++ -*-===//
//
// A laid-out program loads each K and V block into shared memory with a
// synchronous attn.load_tile at the point of use, so the tensor cores idle
// while the block travels from global memory. This pass turns every such
// load of a key/value loop into a ring of S slots filled S − 1 blocks ahead:
//
//   %ring = attn.alloc_ring                        (start of the grid body)
//   for i in [0, S − 1):                           (prologue)
//     if (lb + i < ub) async_load_tile block lb + i -> slot (lb + i) mod S
//     async_commit
//   scf.for j = lb to ub step 1 {
//     async_wait S − 2          block j landed; iteration j − 1 is done
//     if (j + S − 1 < ub) async_load_tile block j + S − 1
//                                   -> slot (j + S − 1) mod S = (j − 1) mod S
//     async_commit
//     ... attn.ring_slot %ring[j mod S] replaces the load of block j ...
//   }
//
// Group accounting: the prologue commits S − 1 groups and every iteration
// one more, always (possibly empty), so block lb + k is in the k-th group
// committed by the loop; at the wait of iteration k, S − 1 + k groups are
// committed and leaving S − 2 pending completes groups 0..k, i.e. block j.
// Groups complete in order, so groups committed before the loop (by an
// earlier loop or a synchronous load) do not disturb the count.
//
// Slot reuse: the wait also synchronises the program, so every thread is
// done with iteration j − 1 and its slot (j − 1) mod S may be refilled. The
// S − 2 groups still in flight hold blocks j + 1 .. j + S − 2, none in slot
// j mod S or (j − 1) mod S.
//
// S = 1 (one slot per load, FlashAttention-2's schedule): the loads are
// grouped into phases by where their tiles are read (K by S = Q·Kᵀ, then V
// by O += P·V), and each phase's next block travels while the phases before
// it compute. With phases P_1 .. P_n (n >= 2) in body order:
//
//   if (lb < ub) async_load_tile P_1 block lb          (prologue)
//   async_commit
//   scf.for j = lb to ub step 1 {
//     async_wait 0                  P_1 block j landed; iteration j − 1 done
//     async_load_tile P_2 block j;  async_commit
//     ... reads of P_1's slots (S = Q·Kᵀ) ...
//     async_wait 0                  P_2 block j landed; P_1's reads done
//     if (j + 1 < ub) async_load_tile P_1 block j + 1;  async_commit   (n = 2)
//     ... reads of P_2's slots (O += P·V) ...
//   }
//
// Exactly one group is in flight at each wait, so every wait is `0`. A
// phase's slots are refilled right after the first wait that follows its
// last read in the iteration (P_n's at the top of the next one), so no
// thread can still be reading them. Half the shared memory of S = 2: where
// that admits a second program per SM (D = 256), the other program's
// tensor-core work hides both the loads and the prologue and epilogue.
//
//===----------------------------------------------------------------------===//
#include "attn/Transforms/Passes.h"
#include "attn/runtime/KernelABI.h"

#include "LoopUtils.h"
#include "Programs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNPIPELINEKVLOOP
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

/// One ring per loaded memref and tile type (per grid body), and per
/// occurrence in a loop: two loads of the same memref in one iteration (say
/// two different rows) each need their own slots. The n-th such load of one
/// loop shares its ring with the n-th of the next.
using RingKey = std::tuple<Value, Type, unsigned>;

/// What pipelining one loop needs, gathered before any IR changes so that
/// the barrier analysis sees every loop's plan.
struct LoopPlan {
  scf::ForOp loop;
  /// The loads of the loop's body that become ring loads, in body order.
  SmallVector<LoadTileOp> loads;
  /// Their rings.
  SmallVector<RingKey> keys;
  /// The body ops that compute their indices and rows, in body order: cloned
  /// with the induction variable replaced to address a later block.
  SmallVector<Operation *> slice;
  /// The block that holds the rings (grid or function body).
  Block *gridBody = nullptr;
  /// Whether the prologue must wait for all copies and all threads first.
  bool leadingWait = false;
  /// One slot per load (S = 1): indices into `loads` per phase, in body
  /// order, and the body op after which each phase's last read is done.
  std::vector<SmallVector<unsigned, 2>> phases;
  std::vector<Operation *> phaseEnd;

  bool usesRing(const RingKey &k) const { return llvm::is_contained(keys, k); }
  bool sharesRingWith(const LoopPlan &o) const {
    return llvm::any_of(keys, [&](const RingKey &k) { return o.usesRing(k); });
  }
  bool sameRingsAs(const LoopPlan &o) const {
    return llvm::all_of(keys,
                        [&](const RingKey &k) { return o.usesRing(k); }) &&
           llvm::all_of(o.keys, [&](const RingKey &k) { return usesRing(k); });
  }
};

/// The grid op the rings of `loop` live in: the enclosing scf.forall (one
/// program), else the enclosing function (or other isolated op).
Operation *gridOpOf(Operation *loop) {
  if (auto grid = loop->getParentOfType<scf::ForallOp>())
    return grid;
  return loop->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
}

Block *gridBodyOf(Operation *grid) {
  if (auto forall = dyn_cast<scf::ForallOp>(grid))
    return forall.getBody();
  if (grid->getNumRegions() == 0 || grid->getRegion(0).empty())
    return nullptr;
  return &grid->getRegion(0).front();
}

/// Whether `load` has a valid async form: attn.load_tile also accepts 1-d
/// tiles, and does not check the shared layout's shape rules, which the
/// ring type does (2-d, 16-bit elements, rows and columns in multiples of 8).
bool fitsRing(LoadTileOp load) {
  auto mem = cast<MemRefType>(load.getSource().getType());
  auto tile = cast<RankedTensorType>(load.getType());
  // Whole rows, or a column window (fp8's transposed V; a score bias's
  // block in slabs, attn-assign-layouts' stage-windows), which only bulk
  // copies fill.
  unsigned bits = tile.getElementType().getIntOrFloatBitWidth();
  bool window = static_cast<bool>(load.getCols());
  bool wholeRows = !window && !mem.isDynamicDim(mem.getRank() - 1) &&
                   mem.getDimSize(mem.getRank() - 1) == tile.getDimSize(1);
  return tile.getRank() == 2 && mem.getRank() >= 2 && mem.isStrided() &&
         (bits == 16 || bits == 8 || (bits == 32 && window)) &&
         (wholeRows || window) && tile.getDimSize(0) % 8 == 0 &&
         tile.getDimSize(1) % 8 == 0;
}

/// The body ops (direct children of `body`) that read `tile` in shared
/// memory: its users, and the users of shared-memory tiles made from it.
SmallVector<Operation *> sharedReaders(Value tile, Block *body) {
  SmallVector<Operation *> readers;
  SmallVector<Value> worklist{tile};
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (!seen.insert(user).second)
        continue;
      if (Operation *a = body->findAncestorOpInBlock(*user))
        readers.push_back(a);
      for (Value r : user->getResults())
        if (auto t = dyn_cast<RankedTensorType>(r.getType()))
          if (isa_and_nonnull<SharedLayoutAttr>(t.getEncoding()))
            worklist.push_back(r);
    }
  }
  return readers;
}

/// Groups the loads of `plan` into phases for one slot per load: loads
/// whose reads interleave in the body share a phase; phases follow each
/// other in body order. False (the loop is left alone) where a load is never
/// read or fewer than two phases remain: one phase could only be refilled
/// after an extra barrier at the end of the body, and would overlap nothing.
bool planPhases(LoopPlan &plan) {
  Block *body = plan.loop.getBody();
  DenseMap<Operation *, unsigned> pos;
  for (auto [i, op] : llvm::enumerate(*body))
    pos[&op] = i;
  struct Range {
    unsigned first, last, load;
  };
  SmallVector<Range> ranges;
  for (auto [i, load] : llvm::enumerate(plan.loads)) {
    SmallVector<Operation *> readers = sharedReaders(load.getResult(), body);
    if (readers.empty() || llvm::is_contained(readers, body->getTerminator()))
      return false;
    Range r{~0u, 0, unsigned(i)};
    for (Operation *op : readers) {
      r.first = std::min(r.first, pos[op]);
      r.last = std::max(r.last, pos[op]);
    }
    ranges.push_back(r);
  }
  llvm::stable_sort(
      ranges, [](const Range &a, const Range &b) { return a.first < b.first; });
  SmallVector<Operation *> ops =
      llvm::map_to_vector(*body, [](Operation &op) { return &op; });
  unsigned last = 0;
  for (const Range &r : ranges) {
    if (plan.phases.empty() || r.first > last) {
      plan.phases.emplace_back();
      last = r.last;
    } else {
      last = std::max(last, r.last);
    }
    plan.phases.back().push_back(r.load);
    plan.phaseEnd.resize(plan.phases.size());
    plan.phaseEnd.back() = ops[last];
  }
  return plan.phases.size() >= 2;
}

/// Plans `loop`, or returns nothing when it is left alone: not a unit-step
/// index loop, no shared-memory load that streams with the induction
/// variable, or such a load whose next block cannot be addressed ahead of
/// time.
std::optional<LoopPlan> planLoop(scf::ForOp loop, bool singleSlot) {
  Value iv = loop.getInductionVar();
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!iv.getType().isIndex() || !step || *step != 1)
    return std::nullopt;
  Operation *grid = gridOpOf(loop);
  Block *gridBody = grid ? gridBodyOf(grid) : nullptr;
  if (!gridBody)
    return std::nullopt;

  Block *body = loop.getBody();
  LoopPlan plan;
  plan.loop = loop;
  plan.gridBody = gridBody;
  llvm::SmallPtrSet<Operation *, 16> sliceSet;
  // Only loads directly in the body: one under an scf.if or an inner loop
  // does not run exactly once per iteration, so prefetching it once per
  // iteration would read blocks the program never asked for.
  for (Operation &op : body->without_terminator()) {
    auto load = dyn_cast<LoadTileOp>(op);
    if (!load ||
        !isa_and_nonnull<SharedLayoutAttr>(load.getType().getEncoding()) ||
        !loop.isDefinedOutsideOfLoop(load.getSource()) ||
        (load.getPages() && !loop.isDefinedOutsideOfLoop(load.getPages())) ||
        (load.getGroup() && !loop.isDefinedOutsideOfLoop(load.getGroup())) ||
        !fitsRing(load))
      continue;

    // The backward slice of the indices and rows inside the body.
    llvm::SmallPtrSet<Operation *, 16> slice;
    SmallVector<Value> worklist(load.getIndices());
    worklist.push_back(load.getRows());
    if (Value cols = load.getCols())
      worklist.push_back(cols);
    bool dependsOnIV = false, predictable = true;
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      if (v == iv) {
        dependsOnIV = true;
        continue;
      }
      if (loop.isDefinedOutsideOfLoop(v))
        continue;
      Operation *def = v.getDefiningOp();
      if (!def) { // an iter_arg: its next value is not known yet
        predictable = false;
        continue;
      }
      if (!slice.insert(def).second)
        continue;
      if (!isClonableScalar(def))
        predictable = false;
      // Keep walking through unclonable ops, only to tell a loop-invariant
      // address from one that varies.
      llvm::append_range(worklist, def->getOperands());
      if (def->getNumRegions() != 0)
        def->walk([&](Operation *nested) {
          if (llvm::is_contained(nested->getOperands(), iv))
            dependsOnIV = true;
        });
    }
    // A loop-invariant address is not a stream of blocks (and hoisting it is
    // LICM's business).
    if (!dependsOnIV && predictable)
      continue;
    // An address that varies in a way we cannot replay for a later block
    // (through an iter_arg, a memory read, a region): the loop is left
    // alone rather than half pipelined.
    if (!predictable)
      return std::nullopt;
    // The slot is refilled once the next iteration starts: the tile must not
    // be carried into it.
    if (llvm::any_of(load->getUsers(), [&](Operation *user) {
          return user == body->getTerminator();
        }))
      return std::nullopt;
    unsigned occurrence = llvm::count_if(plan.loads, [&](LoadTileOp l) {
      return l.getSource() == load.getSource() && l.getType() == load.getType();
    });
    plan.loads.push_back(load);
    plan.keys.emplace_back(load.getSource(), load.getType(), occurrence);
    sliceSet.insert(slice.begin(), slice.end());
  }
  if (plan.loads.empty())
    return std::nullopt;
  if (singleSlot && !planPhases(plan))
    return std::nullopt;
  // Slice ops are direct children of the body (they feed direct children),
  // so body order is a valid cloning order.
  for (Operation &op : body->without_terminator())
    if (sliceSet.contains(&op))
      plan.slice.push_back(&op);
  return plan;
}

/// Whether the prologue of `plan`'s loop may fill its slots without first
/// waiting for every thread, given the plans of all loops.
///
/// Invariant: when a pipelined loop P ends, no copy into its rings is in
/// flight (the groups after the last wait hold blocks >= ub, never loaded)
/// and every thread is done with all of P's iterations but possibly the last
/// one, which reads slot (ub − 1) mod S: the last wait came after the reads
/// of all earlier iterations. A zero-trip P issues no copy and reads nothing,
/// so it keeps whatever held at its start. If the loop L comes next on the
/// same rings and starts where P ended (lb == P's ub, as the masked loop
/// continues the unmasked one), its prologue writes slots (lb + i) mod S,
/// i in [0, S − 1): S − 1 consecutive slots that never include
/// (lb − 1) mod S, for any S >= 2; slot (lb − 1) mod S is refilled only
/// after L's first wait. Without an earlier user the rings are fresh. In
/// any other case (an enclosing loop whose earlier trips used the rings,
/// another start block, another ring user in between) the prologue first
/// waits for everything.
bool startsClean(const LoopPlan &plan,
                 const DenseMap<Operation *, const LoopPlan *> &plans) {
  Operation *cur = plan.loop;
  while (true) {
    for (Operation *prev = cur->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      bool touches = false;
      prev->walk([&](scf::ForOp f) {
        if (const LoopPlan *p = plans.lookup(f))
          touches |= p->sharesRingWith(plan);
      });
      if (!touches)
        continue;
      const LoopPlan *p = plans.lookup(prev);
      if (!p || !p->sameRingsAs(plan))
        return false;
      // One slot per load: P's last phase may still be read when P ends;
      // L's prologue fills its first phase's slots.
      if (!plan.phases.empty() &&
          llvm::any_of(plan.phases.front(), [&](unsigned i) {
            return llvm::any_of(p->phases.back(), [&](unsigned k) {
              return p->keys[k] == plan.keys[i];
            });
          }))
        return false;
      scf::ForOp prevLoop = p->loop, loop = plan.loop;
      return prevLoop.getUpperBound() == loop.getLowerBound();
    }
    if (cur->getBlock() == plan.gridBody)
      return true;
    // An scf.if runs its region at most once: look on before it. Any other
    // region (a loop body, another block of a function) may have run ring
    // users we cannot see by walking backwards.
    Operation *parent = cur->getParentOp();
    if (!isa<scf::IfOp>(parent))
      return false;
    cur = parent;
  }
}

struct PipelineKVLoopPass
    : public mlir::attn::impl::AttnPipelineKVLoopBase<PipelineKVLoopPass> {
  using Base::Base;

  /// The ring's slots: the option, or with stages=0 the automatic choice.
  int64_t numStages = 2;

  /// stages=0: two slots, or more where the tiles are small and the
  /// program streams keys and values (decoding): a split_kv program's time
  /// is its bytes in flight per SM. Every ring tile at most 4 KiB (16-row
  /// key blocks of a paged cache with pages of 16 rows): eight slots (H100,
  /// with 64-row query blocks: 1.1-1.7x the throughput of two). Every
  /// plan in split_kv wgmma programs with tiles of at most 16 KiB: three
  /// (H200, bf16, against two, mirrored in one lease: D = 64's 128-key
  /// tiles in CUDA graphs B = 1 64k +6%, B = 8 4k +4%, 64k +6%, B = 1 4k /
  /// 16k -2%; D = 128's 64-key KV-cache tiles B = 8 64k +2% / +4% with
  /// per-sequence lengths / pages of 128; 8 KiB tiles, e.g. pages of 32,
  /// unmeasured). The dense D = 128 split kernel's 32 KiB tiles lose 1-5%
  /// with three; on mma.sync the paged D = 128 split kernel spilled 24
  /// bytes with three. The count is the module's: a module that also holds
  /// other programs keeps two.
  static int64_t autoStages(const std::vector<LoopPlan> &plans) {
    int64_t largest = 0;
    bool split = !plans.empty();
    for (const LoopPlan &p : plans) {
      // The program's grid: the outermost forall.
      auto grid = p.loop->getParentOfType<scf::ForallOp>();
      while (grid && grid->getParentOfType<scf::ForallOp>())
        grid = grid->getParentOfType<scf::ForallOp>();
      split &= grid && gridProgram(grid) ==
                           ::attn::programName(::attn::Program::SplitKV);
      // Measured on wgmma programs only: mma.sync split programs (sm_80,
      // 32-key blocks at D = 128) spill the third slot's addresses (24
      // bytes over a paged cache).
      bool wgmma = false;
      if (grid)
        grid.getBody()->walk([&](DotOp dot) {
          auto mma = dyn_cast_or_null<MmaLayoutAttr>(
              cast<RankedTensorType>(dot.getType()).getEncoding());
          wgmma |= mma && mma.isWarpgroup();
        });
      split &= wgmma;
      for (LoadTileOp load : p.loads) {
        auto t = cast<RankedTensorType>(load.getType());
        largest = std::max<int64_t>(
            largest, t.getNumElements() * t.getElementTypeBitWidth() / 8);
      }
    }
    if (plans.empty())
      return 2;
    if (largest <= 4096)
      return 8;
    return split && largest <= 16384 ? 3 : 2;
  }

  LogicalResult initialize(MLIRContext *ctx) override {
    // One slot per load (phases), or one slot read while the others fill;
    // the ring type allows 8.
    if (stages < 0 || stages > 8)
      return emitError(UnknownLoc::get(ctx))
             << "pass option stages must be 0 (auto) or in [1, 8], got "
             << int64_t(stages);
    if (mbarriers < -1 || mbarriers > 1)
      return emitError(UnknownLoc::get(ctx))
             << "pass option mbarriers must be -1 (heuristic), 0 or 1, got "
             << int64_t(mbarriers);
    if (mbarriers == 1 && stages == 1)
      return emitError(UnknownLoc::get(ctx))
             << "unsupported: mbarriers=1 with stages=1 (per-slot barriers "
                "serve rings of two or more slots)";
    return success();
  }

  /// The backward's key-block grid (grad_kv) at head dims up to 64 keeps
  /// its Q and dO loads synchronous on mma.sync: pipelined, it ran 5%
  /// slower, 17% with the causal mask (H100, bf16, 4k-16k); on wgmma
  /// pipelining gains 7-21% without the mask and 6-8% with it when the
  /// masked loop is left out (-27% with it; H100/H200). At D = 128
  /// pipelining gains 3-17% on mma.sync, and in the query-block grid
  /// (grad_q) 8-25%. The masked (diagonal) loop of a causal grad_kv stays
  /// synchronous where its warps also copy: pipelined too, mma.sync spills
  /// 16 bytes at D = 128 (sm_80, sm_90a) and one wgmma warpgroup runs 27%
  /// (D = 64) slower. A grid of two or more warpgroups on wgmma (D = 128's
  /// flat loops) pipelines it as well, so that every copy is on per-slot
  /// barriers and a producer warpgroup takes them: grad_kv 6.93 -> 5.41 ms
  /// at 16k (H200; pipelined without the producer it ran 9-10% slower).
  static bool skipsPipelining(scf::ForOp loop) {
    auto grid = loop->getParentOfType<scf::ForallOp>();
    auto program =
        grid ? grid->getAttrOfType<StringAttr>(kProgramAttrName) : nullptr;
    if (!program || program.getValue() != ::attn::programName(
                                               ::attn::Program::GradKeyValue))
      return false;
    int64_t headDim = 0, warps = 0;
    bool wgmma = false;
    grid.getBody()->walk([&](DotOp dot) {
      auto acc = cast<RankedTensorType>(dot.getType());
      auto mma = dyn_cast_or_null<MmaLayoutAttr>(acc.getEncoding());
      wgmma |= mma && mma.isWarpgroup();
      if (mma)
        warps = std::max(warps, mma.getWarps());
      if (!headDim)
        headDim = cast<RankedTensorType>(dot.getLhs().getType()).getDimSize(1);
    });
    auto masked = [](Operation *op) {
      return op->walk([](MaskOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
    };
    if (headDim <= 64 && !wgmma)
      return true;
    if (wgmma && warps > 4)
      return false;
    return masked(loop);
  }

  /// Each program (outermost scf.forall) on its own: how its rings
  /// synchronise depends on its warps, not on the other programs of the
  /// module (the backward's two grids: grad_q's one warpgroup keeps copy
  /// groups where grad_kv's two take per-slot barriers). The stage count
  /// stays one for the module. Loops outside every grid (hand-written IR)
  /// form one more scope.
  void runOnOperation() override {
    std::vector<LoopPlan> all;
    getOperation()->walk([&](scf::ForOp loop) {
      if (skipsPipelining(loop))
        return;
      if (std::optional<LoopPlan> p = planLoop(loop, stages == 1))
        all.push_back(std::move(*p));
    });
    numStages = stages ? int64_t(stages) : autoStages(all);
    // The plans by program (outermost scf.forall, each one a scope even
    // without plans; null: outside every grid).
    llvm::MapVector<Operation *, std::vector<LoopPlan>> byScope;
    getOperation()->walk([&](scf::ForallOp grid) {
      if (!grid->getParentOfType<scf::ForallOp>())
        byScope[grid];
    });
    for (LoopPlan &p : all) {
      Operation *grid = p.loop->getParentOfType<scf::ForallOp>();
      while (grid && grid->getParentOfType<scf::ForallOp>())
        grid = grid->getParentOfType<scf::ForallOp>();
      byScope[grid].push_back(std::move(p));
    }
    for (auto &[grid, plans] : byScope)
      if (failed(runOnScope(grid ? grid : getOperation(),
                            /*outsideGrids=*/!grid, std::move(plans))))
        return signalPassFailure();
  }

  /// Pipelines the loops `plans` of `scope` (with outsideGrids, the loops
  /// in no scf.forall).
  LogicalResult runOnScope(Operation *scope, bool outsideGrids,
                           std::vector<LoopPlan> plans) {
    useBarriers = false;
    pipelinedLoops.clear();
    ringBase.clear();
    lastLoop.clear();
    DenseMap<Operation *, const LoopPlan *> byLoop;
    for (const LoopPlan &p : plans)
      byLoop[p.loop] = &p;
    // A loop nested in a pipelined loop on the same ring would refill the
    // slot the outer iteration is still reading: leave the inner one alone.
    std::vector<LoopPlan> kept;
    for (LoopPlan &p : plans) {
      bool clash = false;
      for (Operation *a = p.loop->getParentOp(); a && !clash;
           a = a->getParentOp())
        if (const LoopPlan *outer = byLoop.lookup(a))
          clash = outer->sharesRingWith(p);
      if (!clash)
        kept.push_back(std::move(p));
    }
    byLoop.clear();
    for (const LoopPlan &p : kept)
      byLoop[p.loop] = &p;
    for (LoopPlan &p : kept)
      p.leadingWait = !startsClean(p, byLoop);

    // Per-slot barriers: wgmma programs (slab tiles) by default. Fill
    // numbers count from the first loop on a ring, so every loop must
    // continue where the one before it on its rings ended (no leading
    // wait), and a ring must not serve loops of two grids.
    // They pay where a program has several warpgroups (measured on an H100,
    // N = 4k / 16k: +4–10% at D = 128 and 256 with two); a program of one
    // warpgroup (D = 64) has no other warpgroup to drift from and loses
    // 2–6% to the barrier waits. A split-KV program of one warpgroup takes
    // them too: its loop is a few blocks long, and the barriers bring the
    // producer warpgroup that issues every block's copies from the start
    // (decoding, bf16, H200: D = 128 on 64 query rows +3..7% back to back
    // and +4..19% in CUDA graphs at B = 1, KV caches +7..24% at B = 8;
    // D = 64 0 / +6 / +13% at B = 1, Nk = 4k / 16k / 64k, +10..11% at B = 8).
    bool slabs = llvm::any_of(kept, [](const LoopPlan &p) {
      return llvm::any_of(p.loads, [](LoadTileOp l) {
        auto enc = cast<SharedLayoutAttr>(l.getType().getEncoding());
        return enc.getSlab() != 0;
      });
    });
    int64_t warps = 0;
    for (LoopPlan &p : kept)
      p.loop->walk([&](Operation *op) {
        for (Type t : op->getResultTypes())
          if (auto rt = dyn_cast<RankedTensorType>(t))
            if (auto m = dyn_cast_or_null<MmaLayoutAttr>(rt.getEncoding()))
              warps = std::max(warps, m.getWarps());
      });
    bool splitProgram = llvm::any_of(kept, [](const LoopPlan &p) {
      auto grid = p.loop->getParentOfType<scf::ForallOp>();
      auto program =
          grid ? grid->getAttrOfType<StringAttr>(kProgramAttrName) : nullptr;
      return program && program.getValue() ==
                            ::attn::programName(::attn::Program::SplitKV);
    });
    useBarriers = numStages >= 2 &&
                  (mbarriers == 1 ||
                   (mbarriers == -1 && slabs && (warps > 4 || splitProgram)));
    if (useBarriers &&
        llvm::any_of(kept, [](const LoopPlan &p) { return p.leadingWait; })) {
      if (mbarriers == 1)
        return kept.front().loop.emitError(
            "unsupported: per-slot barriers (mbarriers=1) where a key/value "
            "loop does not continue the previous one on its rings");
      useBarriers = false;
    }

    Rings rings;
    for (LoopPlan &p : kept)
      pipeline(p, rings);
    if (useBarriers)
      countFills();
    prefetchLoopInvariantLoads(scope, outsideGrids);
    return success();
  }

  /// A shared-memory load outside the loops (Q) whose every use is inside a
  /// pipelined loop becomes asynchronous too: its copy is issued where the
  /// load was and committed as a group of its own, before the loops'
  /// prologues, so it travels together with the first K/V blocks instead of
  /// ahead of them. The first wait of the first loop that reads it leaves
  /// S − 2 groups pending, all committed later (the prologue's), so the
  /// load's group has completed, and the wait's barrier makes it visible.
  /// (Measured on an H200, D = 128: +4–10% over the synchronous load, which
  /// exposed one more global-memory latency per program.)
  void prefetchLoopInvariantLoads(Operation *scope, bool outsideGrids) {
    SmallVector<LoadTileOp> loads;
    scope->walk([&](LoadTileOp load) {
      auto t = cast<RankedTensorType>(load.getType());
      if ((outsideGrids && load->getParentOfType<scf::ForallOp>()) ||
          !isa_and_nonnull<SharedLayoutAttr>(t.getEncoding()) ||
          !fitsRing(load) || load->getParentOfType<scf::ForOp>() ||
          load->use_empty())
        return;
      // Every use sits in a pipelined loop of the same block, which starts
      // with its wait.
      bool ok = llvm::all_of(load->getUses(), [&](OpOperand &use) {
        auto loop = use.getOwner()->getParentOfType<scf::ForOp>();
        while (loop && loop->getBlock() != load->getBlock())
          loop = loop->getParentOfType<scf::ForOp>();
        return loop &&
               (useBarriers ? pipelinedLoops.contains(loop)
                            : isa<AsyncWaitOp>(loop.getBody()->front()));
      });
      if (ok)
        loads.push_back(load);
    });
    for (LoadTileOp load : loads) {
      OpBuilder b(load);
      Location loc = load.getLoc();
      auto type = RingType::get(load.getContext(), 1, load.getType());
      Value ring = AllocRingOp::create(b, loc, type);
      Value slot = arith::ConstantIndexOp::create(b, loc, 0);
      AsyncLoadTileOp::create(b, loc, load.getSource(), load.getIndices(),
                              load.getRows(), load.getCols(), load.getPages(),
                              load.getGroup(), ring, slot, /*bulk=*/nullptr);
      if (!useBarriers) {
        AsyncCommitOp::create(b, loc);
      } else {
        // Its only fill (0): every thread signs after its copies; each loop
        // that reads it waits for it first (after the loop's prologue).
        AsyncArriveOp::create(b, loc, ring, slot);
        RingFillsOp::create(b, loc, ring,
                            arith::ConstantIndexOp::create(b, loc, 1));
        llvm::SmallSetVector<Operation *, 2> readers;
        for (Operation *user : load->getUsers()) {
          auto loop = user->getParentOfType<scf::ForOp>();
          while (loop->getBlock() != load->getBlock())
            loop = loop->getParentOfType<scf::ForOp>();
          readers.insert(loop);
        }
        for (Operation *loop : readers) {
          OpBuilder wb(loop);
          RingWaitOp::create(wb, loc, ring, slot, slot);
        }
      }
      load.replaceAllUsesWith(
          RingSlotOp::create(b, loc, load.getType(), ring, slot).getResult());
      load.erase();
    }
  }

private:
  /// Whether the rings are synchronised per slot (mbarriers).
  bool useBarriers = false;
  /// The loops pipelined so far, and for each ring the lower bound of the
  /// first loop that used it (fill numbers count from there).
  llvm::SmallPtrSet<Operation *, 4> pipelinedLoops;
  DenseMap<Value, Value> ringBase;
  /// The last loop on each ring (rings synchronised per slot).
  llvm::MapVector<Value, Operation *> lastLoop;

  /// The rings created so far, by grid body and key, and the last ring op of
  /// each grid body (new rings go after it, in creation order).
  struct Rings {
    DenseMap<std::pair<Block *, RingKey>, Value> byKey;
    DenseMap<Block *, Operation *> last;
  };

  Value getRing(Rings &rings, Block *gridBody, const RingKey &key,
                LoadTileOp load) {
    Value &ring = rings.byKey[{gridBody, key}];
    if (ring)
      return ring;
    OpBuilder b(load.getContext());
    if (Operation *last = rings.last.lookup(gridBody))
      b.setInsertionPointAfter(last);
    else
      b.setInsertionPointToStart(gridBody);
    auto type = RingType::get(load.getContext(), numStages, load.getType());
    auto alloc = AllocRingOp::create(b, load.getLoc(), type);
    rings.last[gridBody] = alloc;
    ring = alloc;
    return ring;
  }

  /// Emits, at `b`'s insertion point, the copies of block `block` into slot
  /// `block mod S` of each ring (of the loads `which`, default all), guarded
  /// by `block < ub` unless `guarded` is false (block j inside the loop).
  void emitPrefetch(OpBuilder &b, LoopPlan &plan, ArrayRef<Value> ringOf,
                    Value block, Value numSlots,
                    std::optional<ArrayRef<unsigned>> which = std::nullopt,
                    bool guarded = true) {
    scf::ForOp loop = plan.loop;
    Location loc = loop.getLoc();
    OpBuilder::InsertionGuard g(b);
    if (guarded) {
      auto pred = loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                        : arith::CmpIPredicate::slt;
      Value exists =
          arith::CmpIOp::create(b, loc, pred, block, loop.getUpperBound());
      auto guard = scf::IfOp::create(b, loc, exists, /*withElseRegion=*/false);
      b.setInsertionPoint(guard.thenBlock()->getTerminator());
    }
    IRMapping map;
    map.map(loop.getInductionVar(), block);
    for (Operation *op : plan.slice)
      b.clone(*op, map);
    // Blocks are >= 0 (lb >= 0), so the unsigned remainder is exact.
    SmallVector<Value> slots =
        numStages == 1
            ? SmallVector<Value>(
                  ringOf.size(),
                  arith::ConstantIndexOp::create(b, loc, 0).getResult())
            : slotsOf(b, loc, ringOf, block, numSlots);
    for (auto [i, load] : llvm::enumerate(plan.loads)) {
      if (which && !llvm::is_contained(*which, unsigned(i)))
        continue;
      Value slot = slots[i];
      SmallVector<Value> indices = llvm::map_to_vector(
          load.getIndices(), [&](Value v) { return map.lookupOrDefault(v); });
      if (useBarriers)
        RingAcquireOp::create(b, load.getLoc(), ringOf[i], slot,
                              fillOf(b, loc, ringOf[i], block, numSlots));
      Value cols = load.getCols(), pages = load.getPages(),
            group = load.getGroup();
      AsyncLoadTileOp::create(b, load.getLoc(), load.getSource(), indices,
                              map.lookupOrDefault(load.getRows()),
                              cols ? map.lookupOrDefault(cols) : Value(),
                              pages ? map.lookupOrDefault(pages) : Value(),
                              group ? map.lookupOrDefault(group) : Value(),
                              ringOf[i], slot, /*bulk=*/nullptr);
      if (useBarriers)
        AsyncArriveOp::create(b, load.getLoc(), ringOf[i], slot);
    }
  }

  /// Fill number of block `block` in its slot: (block − base) / S.
  Value fillOf(OpBuilder &b, Location loc, Value ring, Value block,
               Value numSlots) {
    Value base = ringBase.lookup(ring);
    assert(base && "ring without a first loop");
    return arith::DivUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, block, base), numSlots);
  }

  /// Slot of block `block`: (block − base) mod S with per-slot barriers,
  /// so that fill·S + slot is the block's position in the ring's sequence
  /// of fills (attn.ring_fills counts them); block mod S with copy groups.
  /// The two agree where the first loop starts at 0. All rings of one loop
  /// share its lower bound, so `ring` may be any of them.
  Value slotOf(OpBuilder &b, Location loc, Value ring, Value block,
               Value numSlots) {
    if (!useBarriers)
      return arith::RemUIOp::create(b, loc, block, numSlots);
    Value base = ringBase.lookup(ring);
    assert(base && "ring without a first loop");
    return arith::RemUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, block, base), numSlots);
  }

  /// slotOf for each ring of `ringOf`, one value per distinct base.
  SmallVector<Value> slotsOf(OpBuilder &b, Location loc, ArrayRef<Value> ringOf,
                             Value block, Value numSlots) {
    DenseMap<Value, Value> byBase;
    SmallVector<Value> slots;
    for (Value ring : ringOf) {
      Value &slot = byBase[useBarriers ? ringBase.lookup(ring) : Value()];
      if (!slot)
        slot = slotOf(b, loc, ring, block, numSlots);
      slots.push_back(slot);
    }
    return slots;
  }

  /// With per-slot barriers: after the last loop on each ring, how many
  /// times the program filled it (positions base .. ub − 1 of its loops,
  /// which continue one another).
  void countFills() {
    for (auto [ring, loop] : lastLoop) {
      scf::ForOp l = cast<scf::ForOp>(loop);
      OpBuilder b(l.getContext());
      b.setInsertionPointAfter(l);
      Location loc = l.getLoc();
      Value count = arith::SubIOp::create(b, loc, l.getUpperBound(),
                                          ringBase.lookup(ring));
      count = arith::MaxSIOp::create(b, loc, count,
                                     arith::ConstantIndexOp::create(b, loc, 0));
      RingFillsOp::create(b, loc, ring, count);
    }
  }

  /// S = 1: the phase schedule of the file comment.
  void pipelineSingleSlot(LoopPlan &plan, ArrayRef<Value> ringOf) {
    scf::ForOp loop = plan.loop;
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    if (plan.leadingWait)
      AsyncWaitOp::create(b, loc, 0);
    emitPrefetch(b, plan, ringOf, loop.getLowerBound(), Value(),
                 plan.phases.front());
    AsyncCommitOp::create(b, loc);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);

    Value iv = loop.getInductionVar();
    size_t n = plan.phases.size();
    for (size_t p = 0; p < n; ++p) {
      // Phase p's wait: at the top for the first, else after the last read
      // of the phase before it.
      if (p == 0)
        b.setInsertionPointToStart(loop.getBody());
      else
        b.setInsertionPointAfter(plan.phaseEnd[p - 1]);
      AsyncWaitOp::create(b, loc, 0);
      if (p + 1 < n) {
        emitPrefetch(b, plan, ringOf, iv, Value(), plan.phases[p + 1],
                     /*guarded=*/false);
      } else {
        Value next = arith::AddIOp::create(b, loc, iv, one);
        emitPrefetch(b, plan, ringOf, next, Value(), plan.phases.front());
      }
      AsyncCommitOp::create(b, loc);
      Value slot = arith::ConstantIndexOp::create(b, loc, 0);
      // The slots are read from here on (the phase's first read comes
      // later); the original address computation is left to DCE.
      for (unsigned i : plan.phases[p]) {
        LoadTileOp load = plan.loads[i];
        Value tile = RingSlotOp::create(b, load.getLoc(), load.getType(),
                                        ringOf[i], slot);
        load.replaceAllUsesWith(tile);
      }
    }
    // (Erased only now: the last phase's refill of the first phase reads
    // their addresses.)
    for (LoadTileOp load : plan.loads)
      load.erase();
  }

  /// S >= 2. With copy groups (the file comment):
  ///
  ///   prologue: for i in [0, S − 1): fill(lb + i); async_commit
  ///   scf.for j {
  ///     async_wait S − 2;  fill(j + S − 1);  async_commit
  ///     ... reads of slot(j) ...
  ///   }
  ///   fill(b): if (b < ub) async_load_tile block b -> slot(b)
  ///
  /// With per-slot barriers (the pass description) there are no commits
  /// and no program-wide wait: fill(b) is ring_acquire slot(b) fill
  /// (b − base)/S, the copies, async_arrive; each load's tile is waited for
  /// (ring_wait) where it was loaded and released (ring_release) after its
  /// last reader. The refill of block j + S − 1 goes to the slot of block
  /// j − 1, which every thread released in iteration j − 1.
  void pipeline(LoopPlan &plan, Rings &rings) {
    scf::ForOp loop = plan.loop;
    Location loc = loop.getLoc();
    SmallVector<Value> ringOf;
    for (auto [load, key] : llvm::zip_equal(plan.loads, plan.keys))
      ringOf.push_back(getRing(rings, plan.gridBody, key, load));

    if (numStages == 1)
      return pipelineSingleSlot(plan, ringOf);
    pipelinedLoops.insert(loop);
    for (Value ring : ringOf) {
      if (!ringBase.count(ring))
        ringBase[ring] = loop.getLowerBound();
      lastLoop[ring] = loop;
    }

    OpBuilder b(loop);
    Value numSlots = arith::ConstantIndexOp::create(b, loc, numStages);
    if (plan.leadingWait)
      AsyncWaitOp::create(b, loc, 0);
    // Prologue. With groups the commit is unconditional: a loop shorter
    // than S − 1 blocks still commits S − 1 groups, which keeps the in-loop
    // count of S − 2 pending groups exact.
    Value lb = loop.getLowerBound();
    for (int64_t i = 0; i < numStages - 1; ++i) {
      Value block = lb;
      if (i != 0)
        block = arith::AddIOp::create(
            b, loc, lb, arith::ConstantIndexOp::create(b, loc, i));
      emitPrefetch(b, plan, ringOf, block, numSlots);
      if (!useBarriers)
        AsyncCommitOp::create(b, loc);
    }
    Value ahead = arith::ConstantIndexOp::create(b, loc, numStages - 1);

    // Steady state, at the top of iteration j.
    Value iv = loop.getInductionVar();
    b.setInsertionPointToStart(loop.getBody());
    if (!useBarriers)
      AsyncWaitOp::create(b, loc, numStages - 2);
    Value next = arith::AddIOp::create(b, loc, iv, ahead);
    emitPrefetch(b, plan, ringOf, next, numSlots);
    if (!useBarriers)
      AsyncCommitOp::create(b, loc);
    // One slot value per first-loop bound (rings of one loop may have
    // started in different loops).
    SmallVector<Value> slotOfLoad = slotsOf(b, loc, ringOf, iv, numSlots);
    Block *body = loop.getBody();
    DenseMap<Operation *, unsigned> pos;
    for (auto [i, op] : llvm::enumerate(*body))
      pos[&op] = i;
    // The slot is read where the block was loaded; the original address
    // computation is left to DCE when nothing else uses it.
    for (auto [load, ring, slot] :
         llvm::zip_equal(plan.loads, ringOf, slotOfLoad)) {
      // The last direct child of the body that reads the tile.
      Operation *lastReader = nullptr;
      if (useBarriers)
        for (Operation *r : sharedReaders(load.getResult(), body))
          if (!lastReader || pos[r] > pos[lastReader])
            lastReader = r;
      b.setInsertionPoint(load);
      if (useBarriers)
        RingWaitOp::create(b, load.getLoc(), ring, slot,
                           fillOf(b, loc, ring, iv, numSlots));
      Value tile =
          RingSlotOp::create(b, load.getLoc(), load.getType(), ring, slot);
      load.replaceAllUsesWith(tile);
      if (useBarriers) {
        if (lastReader)
          b.setInsertionPointAfter(lastReader);
        else
          b.setInsertionPoint(body->getTerminator());
        RingReleaseOp::create(b, load.getLoc(), ring, slot);
      }
      load.erase();
    }
  }
};

} // namespace
