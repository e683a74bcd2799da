//===- RotateKVLoop.cpp - softmax of block j under Q·K_{j+1}ᵀ ----*- C++
//-*-===//
//
// After attn-pipeline-kv-loop a wgmma key/value loop runs, per block j,
//
//   A(j):  S_j = Q·K_jᵀ;  m, l, α, P_j = softmax step(S_j);  Õ = α·O
//   B(j):  O = Õ + P_j·V_j
//
// and the tensor cores idle while a warpgroup computes its softmax. Rotating
// the loop by half an iteration lets the softmax of one block run under the
// products of the next (FlashAttention-3's intra-warpgroup overlap):
//
//   if (lb < ub) A(lb)                           (prologue: m, l, Õ, P)
//   scf.for j = lb + 1 to ub  iter_args(m, l, Õ, P_prev) {
//     S' = attn.dot Q, K_j {async}              issue S_j
//     O' = attn.dot P_prev, V_{j-1}, Õ {async}  issue B(j − 1) behind it
//     S  = attn.dot_wait S' {pending = 1}       S_j done, P·V may run on
//     m, l, α, P̃_j = softmax step(S)           ... under B(j − 1)
//     O  = attn.dot_wait O' {pending = 0}
//     P_j = truncf P̃_j                        (not into P_prev's registers)
//     release V_{j-1};  refill V's ring
//     Õ  = α·O
//   }
//   if (lb < ub) O = Õ + P·V_{ub-1}              (epilogue: B(ub − 1))
//
// The math is the loop's own, reassociated in time only: Õ_j = α_j ·
// (Õ_{j-1} + P_{j-1}·V_{j-1}) is what iteration j of the original computes
// as α_j·O_{j-1} with O_{j-1} = Õ_{j-1} + P_{j-1}·V_{j-1}.
//
// Rings: V's slot of block j − 1 is now read in iteration j, so its refill
// (block j + S − 1, the same slot for S = 2) moves from the top of the
// iteration to after that release; K's refill stays where it was. This is
// sound only with per-slot barriers (a refill waits for the slot's
// release): loops on copy groups, whose refills rely on iteration j − 1
// being over at the top of iteration j, are left alone.
//
//===----------------------------------------------------------------------===//
#include "attn/Transforms/Passes.h"

#include "LoopUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNROTATEKVLOOP
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

bool isWarpgroupAccumulator(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  auto mma = rt ? dyn_cast_or_null<MmaLayoutAttr>(rt.getEncoding()) : nullptr;
  return mma && mma.isWarpgroup();
}

bool usesRingValue(Operation *op, Value ring) {
  return llvm::is_contained(op->getOperands(), ring);
}

bool isRingOp(Operation *op) {
  return llvm::any_of(op->getOperandTypes(),
                      [](Type t) { return isa<RingType>(t); });
}

/// One loop's rotation: the two products, V's ring ops (phase B), and the
/// ops of A that read O (Õ = α·O), which must wait for B(j − 1).
struct Rotation {
  scf::ForOp loop;
  DotOp sDot, pvDot;
  unsigned oIdx = 0;
  Value vRing;
  Operation *vWait = nullptr, *vSlot = nullptr, *vRelease = nullptr;
  /// A's ops that depend on O, in body order.
  llvm::SetVector<Operation *> rescale;
  /// The scalar ops of the body that address V's slot (cloned for j − 1).
  llvm::SetVector<Operation *> vIndex;
  /// Prefetch ifs that fill V's ring.
  llvm::SmallPtrSet<Operation *, 2> vFills;

  bool inPhaseB(Operation *op) const {
    return op == vWait || op == vSlot || op == pvDot || op == vRelease;
  }
};

/// The rotation of `loop`, or nothing when it is not a wgmma key/value
/// loop of the shape above on per-slot barriers.
std::optional<Rotation> planRotation(scf::ForOp loop, int64_t minColumns) {
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!loop.getInductionVar().getType().isIndex() || !step || *step != 1)
    return std::nullopt;
  Block *body = loop.getBody();
  // A loop of masked blocks (the causal diagonal, a ragged end) runs a
  // trip or two: peeling A and B out of it leaves little or nothing to
  // overlap, and its copies of the softmax cost code size.
  if (llvm::any_of(body->getOperations(),
                   [](Operation &op) { return isa<MaskOp>(op); }))
    return std::nullopt;
  Operation *yield = body->getTerminator();
  Rotation r;
  r.loop = loop;
  SmallVector<DotOp> dots;
  bool nestedDot = false;
  for (Operation &op : body->without_terminator()) {
    if (auto d = dyn_cast<DotOp>(op))
      dots.push_back(d);
    else if (op.getNumRegions())
      op.walk([&](DotOp) { nestedDot = true; });
  }
  if (dots.size() != 2 || nestedDot)
    return std::nullopt;
  r.sDot = dots[0];
  r.pvDot = dots[1];
  for (DotOp d : dots)
    if (d.getAsync() || !isWarpgroupAccumulator(d.getType()))
      return std::nullopt;
  if (r.pvDot.getType().getDimSize(1) < minColumns)
    return std::nullopt;
  // The rotated loop holds O with two score tiles (S_j and P_{j-1}'s
  // source) per thread: O's Dv/2 and S's Bc/2 f32 twice. Past 192 of the
  // consumer's 232 registers ptxas spills: fp8 at D = 256 with Bc = 128
  // (128 + 128) spilled 16 bytes, and its unrotated loop ran 4-9% faster
  // (H100, 891-965 against 826-900 TFLOP/s); bf16 at D = 256, Bc = 64
  // (128 + 64) rotates spill-free.
  int64_t dv = r.pvDot.getType().getDimSize(1);
  int64_t bc = r.sDot.getType().getDimSize(1);
  if (dv / 2 + bc > 192)
    return std::nullopt;
  // O = P·V + Õ is carried to the next iteration and read nowhere else.
  if (!r.pvDot->hasOneUse() || r.pvDot->use_begin()->getOwner() != yield)
    return std::nullopt;
  r.oIdx = r.pvDot->use_begin()->getOperandNumber();
  Value oArg = loop.getRegionIterArg(r.oIdx);

  // Phase B: ring_wait, ring_slot, P·V, ring_release on V's ring.
  auto slot = r.pvDot.getRhs().getDefiningOp<RingSlotOp>();
  if (!slot || slot->getBlock() != body || !slot->hasOneUse())
    return std::nullopt;
  r.vSlot = slot;
  r.vRing = slot.getRing();
  for (Operation &op : body->without_terminator()) {
    if (&op == slot)
      continue;
    if (auto w = dyn_cast<RingWaitOp>(op); w && w.getRing() == r.vRing) {
      if (r.vWait)
        return std::nullopt;
      r.vWait = w;
    } else if (auto rel = dyn_cast<RingReleaseOp>(op);
               rel && rel.getRing() == r.vRing) {
      if (r.vRelease)
        return std::nullopt;
      r.vRelease = rel;
    } else if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      // A refill of V's ring: split off below; only direct children of its
      // then-block may touch the ring, and the if yields nothing.
      bool fills = false, nestedUse = false;
      ifOp.walk([&](Operation *inner) {
        if (!usesRingValue(inner, r.vRing))
          return;
        if (inner->getParentOp() == ifOp &&
            inner->getBlock() == ifOp.thenBlock())
          fills = true;
        else
          nestedUse = true;
      });
      if (nestedUse || (fills && (ifOp.getNumResults() || ifOp.elseBlock())))
        return std::nullopt;
      if (fills)
        r.vFills.insert(ifOp);
    } else if (usesRingValue(&op, r.vRing) || op.getNumRegions()) {
      return std::nullopt;
    }
  }
  // No barriers (copy groups): not ours to reorder.
  if (!r.vWait || !r.vRelease)
    return std::nullopt;
  if (!r.sDot->isBeforeInBlock(r.vWait) || !r.vWait->isBeforeInBlock(slot) ||
      !slot->isBeforeInBlock(r.pvDot) || !r.pvDot->isBeforeInBlock(r.vRelease))
    return std::nullopt;

  // Õ = α·O: the pure ops of the body that read O, ending in P·V's
  // accumulator and nowhere else.
  SmallVector<Value> worklist{oArg};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (user == r.pvDot && use.getOperandNumber() == 2)
        continue;
      if (user->getBlock() != body || user == yield || user->getNumRegions() ||
          !isMemoryEffectFree(user))
        return std::nullopt;
      if (r.rescale.insert(user))
        llvm::append_range(worklist, user->getResults());
    }
  }
  for (Operation *op : r.rescale)
    for (Operation *user : op->getUsers())
      if (user != r.pvDot && !r.rescale.contains(user))
        return std::nullopt;
  if (r.pvDot.getAcc() != oArg &&
      !r.rescale.contains(r.pvDot.getAcc().getDefiningOp()))
    return std::nullopt;

  // V's slot and fill numbers as functions of the induction variable only.
  SmallVector<Value> indices;
  for (Operation *op : {r.vWait, r.vSlot, r.vRelease})
    for (Value v : op->getOperands())
      if (v != r.vRing)
        indices.push_back(v);
  llvm::SmallPtrSet<Operation *, 8> slice;
  while (!indices.empty()) {
    Value v = indices.pop_back_val();
    if (v == loop.getInductionVar() || loop.isDefinedOutsideOfLoop(v))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != body || !isClonableScalar(def))
      return std::nullopt;
    if (slice.insert(def).second)
      llvm::append_range(indices, def->getOperands());
  }
  for (Operation &op : body->without_terminator())
    if (slice.contains(&op))
      r.vIndex.insert(&op);
  // P·V's left operand (P) is carried one iteration: it must be a value of
  // A, not of phase B or the rescale.
  if (Operation *p = r.pvDot.getLhs().getDefiningOp())
    if (p->getBlock() == body && (r.inPhaseB(p) || r.rescale.contains(p)))
      return std::nullopt;
  return r;
}

/// Erases the ops of `block` that nothing uses and that have no effects,
/// last first, so chains go in one sweep.
void eraseDeadOps(Block &block) {
  SmallVector<Operation *> ops = llvm::map_to_vector(
      block.without_terminator(), [](Operation &op) { return &op; });
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      op->erase();
}

/// Clones a refill `ifOp` keeping only the copies into V's ring
/// (`keepV`) or only the others; drops the clone if nothing is left.
void cloneFill(OpBuilder &b, scf::IfOp ifOp, IRMapping &map, Value vRing,
               bool keepV) {
  auto clone = cast<scf::IfOp>(b.clone(*ifOp, map));
  Block *then = clone.thenBlock();
  for (Operation &op : llvm::make_early_inc_range(then->without_terminator()))
    if (isRingOp(&op) && usesRingValue(&op, vRing) != keepV)
      op.erase();
  eraseDeadOps(*then);
  if (then->without_terminator().empty())
    clone.erase();
}

/// Emits phase B for block `block` at `b`: V's wait and slot, P·V with the
/// given left operand and accumulator (async or not), and returns the dot;
/// `map` receives the clones of V's index ops.
DotOp emitPhaseB(OpBuilder &b, Rotation &r, IRMapping &map, Value block,
                 Value p, Value acc, bool async) {
  map.map(r.loop.getInductionVar(), block);
  for (Operation *op : r.vIndex)
    b.clone(*op, map);
  b.clone(*r.vWait, map);
  b.clone(*r.vSlot, map);
  map.map(r.pvDot.getLhs(), p);
  map.map(r.pvDot.getAcc(), acc);
  auto dot = cast<DotOp>(b.clone(*r.pvDot, map));
  dot.setAsync(async);
  return dot;
}

void rotate(Rotation &r) {
  scf::ForOp loop = r.loop;
  Location loc = loop.getLoc();
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  Value iv = loop.getInductionVar();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  Value oArg = loop.getRegionIterArg(r.oIdx);
  Type pType = r.pvDot.getLhs().getType();

  OpBuilder b(loop);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value nonEmpty =
      arith::CmpIOp::create(b, loc,
                            loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                                  : arith::CmpIPredicate::slt,
                            lb, ub);

  // The carried values: the loop's, with Õ in O's place, and P.
  auto carried = [&](IRMapping &map) {
    SmallVector<Value> values;
    for (auto [i, v] : llvm::enumerate(yield.getOperands()))
      values.push_back(
          map.lookupOrDefault(i == r.oIdx ? r.pvDot.getAcc() : Value(v)));
    values.push_back(map.lookupOrDefault(r.pvDot.getLhs()));
    return values;
  };

  // Prologue: A(lb), the original iteration without phase B (its refills
  // whole: block lb + S − 1 of V goes to the slot released before the loop).
  SmallVector<Type> types(loop.getResultTypes());
  types.push_back(pType);
  auto prologue = scf::IfOp::create(b, loc, types, nonEmpty,
                                    /*addThenBlock=*/true,
                                    /*addElseBlock=*/true);
  {
    OpBuilder tb = OpBuilder::atBlockEnd(prologue.thenBlock());
    IRMapping map;
    map.map(iv, lb);
    map.map(loop.getRegionIterArgs(), loop.getInitArgs());
    for (Operation &op : body->without_terminator())
      if (!r.inPhaseB(&op))
        tb.clone(op, map);
    scf::YieldOp::create(tb, loc, carried(map));
    eraseDeadOps(*prologue.thenBlock());

    OpBuilder eb = OpBuilder::atBlockEnd(prologue.elseBlock());
    SmallVector<Value> empty(loop.getInitArgs());
    auto zero = DenseElementsAttr::get(
        cast<ShapedType>(pType),
        eb.getZeroAttr(cast<ShapedType>(pType).getElementType()));
    empty.push_back(arith::ConstantOp::create(eb, loc, zero));
    scf::YieldOp::create(eb, loc, empty);
  }

  // Steady state: j = lb + 1 .. ub − 1.
  Value lb1 = arith::AddIOp::create(b, loc, lb, one);
  auto rotated =
      scf::ForOp::create(b, loc, lb1, ub, loop.getStep(), prologue.getResults(),
                         nullptr, loop.getUnsignedCmp());
  rotated->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  {
    Block *nb = rotated.getBody();
    OpBuilder lbld = OpBuilder::atBlockEnd(nb);
    Value j = rotated.getInductionVar();
    Value oPrev = rotated.getRegionIterArg(r.oIdx);
    Value pPrev = rotated.getRegionIterArgs().back();
    IRMapping map, prev;
    map.map(iv, j);
    for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
      if (i != r.oIdx)
        map.map(arg, rotated.getRegionIterArg(i));
    DotOp pvAsync;
    for (Operation &op : body->without_terminator()) {
      if (r.inPhaseB(&op) || r.rescale.contains(&op))
        continue;
      if (r.vFills.contains(&op)) {
        cloneFill(lbld, cast<scf::IfOp>(op), map, r.vRing, /*keepV=*/false);
        continue;
      }
      Operation *clone = lbld.clone(op, map);
      if (&op != r.sDot)
        continue;
      // S_j issued; B(j − 1) right behind it; then wait for S_j alone.
      auto s = cast<DotOp>(clone);
      s.setAsync(true);
      Value jm1 = arith::SubIOp::create(lbld, loc, j, one);
      pvAsync = emitPhaseB(lbld, r, prev, jm1, pPrev, oPrev, /*async=*/true);
      auto sDone = DotWaitOp::create(lbld, loc, s.getType(), s.getResult(),
                                     lbld.getI64IntegerAttr(1));
      map.map(r.sDot.getResult(), sDone.getResult());
    }
    auto oDone =
        DotWaitOp::create(lbld, loc, pvAsync.getType(), pvAsync.getResult(),
                          lbld.getI64IntegerAttr(0));
    lbld.clone(*r.vRelease, prev);
    // Õ = α·O once B(j − 1) is done; then V's refill into the slot just
    // released.
    map.map(oArg, oDone.getResult());
    for (Operation *op : r.rescale)
      lbld.clone(*op, map);
    for (Operation &op : body->without_terminator())
      if (r.vFills.contains(&op))
        cloneFill(lbld, cast<scf::IfOp>(op), map, r.vRing, /*keepV=*/true);
    auto yield = scf::YieldOp::create(lbld, loc, carried(map));
    // P_j (the next iteration's register operand of P·V) is converted after
    // B(j − 1) is done: converted earlier, LLVM may give it the registers
    // of P_{j-1}, which the product in flight still reads, and ptxas then
    // serialises every wgmma of the loop (warning C7513).
    if (Operation *def = yield.getOperands().back().getDefiningOp())
      if (def->getBlock() == nb && def->hasOneUse() &&
          def->isBeforeInBlock(oDone))
        def->moveAfter(oDone);
    eraseDeadOps(*nb);
  }

  // Epilogue: B(ub − 1).
  b.setInsertionPointAfter(rotated);
  Value oCarried = rotated.getResult(r.oIdx);
  auto epilogue = scf::IfOp::create(b, loc, TypeRange{oCarried.getType()},
                                    nonEmpty, /*addThenBlock=*/true,
                                    /*addElseBlock=*/true);
  {
    OpBuilder tb = OpBuilder::atBlockEnd(epilogue.thenBlock());
    IRMapping map;
    Value last = arith::SubIOp::create(tb, loc, ub, one);
    DotOp pv = emitPhaseB(tb, r, map, last, rotated.getResults().back(),
                          oCarried, /*async=*/false);
    tb.clone(*r.vRelease, map);
    scf::YieldOp::create(tb, loc, pv.getResult());
    OpBuilder eb = OpBuilder::atBlockEnd(epilogue.elseBlock());
    scf::YieldOp::create(eb, loc, oCarried);
  }

  for (auto [i, res] : llvm::enumerate(loop.getResults()))
    res.replaceAllUsesWith(i == r.oIdx ? epilogue.getResult(0)
                                       : rotated.getResult(i));
  loop.erase();
}

struct RotateKVLoopPass
    : public attn::impl::AttnRotateKVLoopBase<RotateKVLoopPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    if (causalPrograms != 0 && causalPrograms != 1)
      return emitError(UnknownLoc::get(ctx))
             << "pass option causal-programs must be 0 or 1 (the pipelines' "
                "rotate: -1, 0 or 1), got "
             << int64_t(causalPrograms);
    return success();
  }
  void runOnOperation() override {
    SmallVector<Rotation> plans;
    getOperation()->walk([&](scf::ForOp loop) {
      if (isBackwardGrid(loop))
        return;
      if (causalPrograms == 0) {
        auto grid = loop->getParentOfType<scf::ForallOp>();
        bool causal = false;
        if (grid)
          grid.getBody()->walk([&](MaskOp m) { causal |= m.getCausal(); });
        if (causal)
          return;
      }
      if (std::optional<Rotation> r = planRotation(loop, minColumns))
        plans.push_back(std::move(*r));
    });
    for (Rotation &r : plans)
      rotate(r);
  }
};

} // namespace
