//===- FuseOnlineSoftmax.cpp - one-pass online softmax ----------*- C++ -*-===//
//
// The tiling pass leaves each program in the naive tiled form: loops tagged
// attn.softmax_pass = "max", "sum", "pv" (one loop per key/value segment and
// pass, each pass chained across segments). This pass replaces them with one
// loop per segment carrying (m, l, A):
//
//   m' = max(m, rowmax(S))
//   P  = exp2((S − m')·c)                   c = scale·log2(e)
//   α  = exp2((m − m')·c)                   rescales what was summed so far
//   l' = α·l + rowsum(P)
//   A' = α·A + P·V
//
// and, after the last segment, O = A / l (deferred normalisation). With
// rescale-threshold τ > 0, m' = (mb − m)·c > τ ? mb : m (mb the max above):
// the reference max lags the true one by at most τ/c, P <= 2^τ, and α = 1
// in every block that does not move it (see the pass description). A
// constant scale comes from the loops' attn.softmax_scale and c is folded
// into constant tiles; a run-time scale s (loops without the attribute) is
// read from the sum and pv passes' exp(tensor.splat(s)·(S − m)), and c is
// computed once, before the loops, as s·log2(e) and splat where the
// constant tiles would be. The
// differences are taken before scaling: S − m' <= 0 and m − m' <= 0 stay
// small, while S·c and m'·c overflow f32 for a large (valid) scale and
// inf − inf would give NaN. The scores
// S and the V tile are taken from the "max" and "pv" loops by cloning their
// computation, so whatever masking or loading the tiling emitted is kept.
//
// The pass rewrites only what it has read: the tags say which loop is which,
// but every body it replaces is checked to compute what the fused loop will
// (the same S in all three passes, l = Σ exp(scale·(S − m)) from the max
// pass's m, P = exp(scale·(S − m)) / l from the sum pass's l, the initial
// values −inf, 0, 0, and nothing written to memory). Between P and the P·V
// product the pv pass may scale P by ops linear in it (dropout's
// select(keep, P·f, 0)); they commute with the deferred division, so the
// fused loop applies them to its unnormalised P. Anything else is an error
// at the loop that differs, never a silently different kernel.
//
//===----------------------------------------------------------------------===//
#include "attn/Transforms/Passes.h"

#include <cstdio>

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include <cmath>

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNFUSEONLINESOFTMAX
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

/// The naive form of one program: for each segment, its max, sum and pv
/// loops, and the scale: `dynamicScale` (an f32 value) when it is known only
/// at run time, else the constant `scale`.
struct NaiveSoftmax {
  SmallVector<scf::ForOp> maxLoops, sumLoops, pvLoops;
  float scale = 0;
  Value dynamicScale;
};

StringRef passOf(scf::ForOp loop) {
  if (auto s = loop->getAttrOfType<StringAttr>(kSoftmaxPassAttrName))
    return s.getValue();
  return {};
}

Value splat(OpBuilder &b, Location loc, RankedTensorType type, double v) {
  return arith::ConstantOp::create(
      b, loc, type,
      DenseElementsAttr::get(type, b.getFloatAttr(type.getElementType(), v)));
}

/// In a "sum" or "pv" loop of the tiling pass with a run-time scale, the one
/// math.exp takes mulf(x, tensor.splat(s)) (either operand order): returns
/// the f32 scalar s, or null if the loop has no such exp.
Value runtimeScaleOf(scf::ForOp loop) {
  SmallVector<math::ExpOp> exps;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto e = dyn_cast<math::ExpOp>(op))
      exps.push_back(e);
  if (exps.size() != 1)
    return {};
  auto mul = exps[0].getOperand().getDefiningOp<arith::MulFOp>();
  if (!mul)
    return {};
  for (Value operand : {mul.getRhs(), mul.getLhs()}) {
    auto sp = operand.getDefiningOp<tensor::SplatOp>();
    if (sp && sp.getInput().getType().isF32())
      return sp.getInput();
  }
  return {};
}

/// Finds the run-time scale of loops without attn.softmax_scale: every sum
/// and pv loop must multiply by a splat of the same value, or the fused
/// loop would use one pass's scale for all three.
LogicalResult findRuntimeScale(NaiveSoftmax &n, scf::ForOp first) {
  for (auto loops : {&n.maxLoops, &n.sumLoops, &n.pvLoops})
    for (scf::ForOp loop : *loops)
      if (loop->hasAttr(kSoftmaxScaleAttrName))
        return loop.emitError()
               << "cannot fuse the softmax: passes disagree on the scale (this "
                  "loop has '"
               << kSoftmaxScaleAttrName << "', the first loop has none)";
  n.dynamicScale = runtimeScaleOf(n.sumLoops.front());
  if (!n.dynamicScale)
    return first.emitError()
           << "cannot fuse the softmax: loop has no '" << kSoftmaxScaleAttrName
           << "', and the 'sum' pass has no run-time scale (math.exp of "
              "arith.mulf by a tensor.splat of an f32)";
  for (auto loops : {&n.sumLoops, &n.pvLoops}) {
    for (scf::ForOp loop : *loops) {
      Value s = runtimeScaleOf(loop);
      if (s != n.dynamicScale)
        return loop.emitError()
               << "cannot fuse the softmax: passes disagree on the scale ("
               << (s ? "this loop's run-time scale is another value"
                     : "this loop has no run-time scale: math.exp of "
                       "arith.mulf by a tensor.splat of an f32")
               << ")";
    }
  }
  return success();
}

/// Checks the shape of the naive form; on failure, says why at the loop.
LogicalResult verifyNaive(NaiveSoftmax &n) {
  size_t segs = n.maxLoops.size();
  scf::ForOp first = n.maxLoops.empty()
                         ? n.sumLoops.empty() ? n.pvLoops[0] : n.sumLoops[0]
                         : n.maxLoops[0];
  if (segs == 0 || n.sumLoops.size() != segs || n.pvLoops.size() != segs)
    return first.emitError()
           << "cannot fuse the softmax: expected as many 'max', 'sum' and 'pv' "
              "loops, got "
           << n.maxLoops.size() << ", " << n.sumLoops.size() << " and "
           << n.pvLoops.size();
  auto scaleAttr = first->getAttrOfType<FloatAttr>(kSoftmaxScaleAttrName);
  if (scaleAttr)
    n.scale = static_cast<float>(scaleAttr.getValueAsDouble());
  else if (failed(findRuntimeScale(n, first)))
    return failure();
  for (auto loops : {&n.maxLoops, &n.sumLoops, &n.pvLoops}) {
    for (size_t i = 0; i < segs; ++i) {
      scf::ForOp loop = (*loops)[i];
      if (loop.getNumRegionIterArgs() != 1)
        return loop.emitError()
               << "cannot fuse the softmax: each pass loop carries one value";
      auto s = loop->getAttrOfType<FloatAttr>(kSoftmaxScaleAttrName);
      if (scaleAttr &&
          (!s || s.getValueAsDouble() != scaleAttr.getValueAsDouble()))
        return loop.emitError()
               << "cannot fuse the softmax: passes disagree on the scale";
      scf::ForOp ref = n.maxLoops[i];
      auto same = [](Value a, Value b) {
        return isEqualConstantIntOrValue(OpFoldResult(a), OpFoldResult(b));
      };
      if (!same(loop.getLowerBound(), ref.getLowerBound()) ||
          !same(loop.getUpperBound(), ref.getUpperBound()) ||
          !same(loop.getStep(), ref.getStep()))
        return loop.emitError() << "cannot fuse the softmax: segment " << i
                                << " of the passes has different bounds";
      if (i > 0 && loop.getInitArgs()[0] != (*loops)[i - 1].getResult(0))
        return loop.emitError() << "cannot fuse the softmax: segment " << i
                                << " does not continue segment " << i - 1;
    }
  }
  if (!n.maxLoops.back()->isBeforeInBlock(n.sumLoops.front()) ||
      !n.sumLoops.back()->isBeforeInBlock(n.pvLoops.front()))
    return first.emitError()
           << "cannot fuse the softmax: passes must run max, sum, pv in order";
  // m and l are f32 row vectors [Br] and A an f32 tile [Br, D]: the fused
  // loop carries exactly these.
  auto rowType =
      dyn_cast<RankedTensorType>(n.maxLoops[0].getResult(0).getType());
  auto accType =
      dyn_cast<RankedTensorType>(n.pvLoops[0].getResult(0).getType());
  if (!rowType || rowType.getRank() != 1 || !rowType.getElementType().isF32() ||
      n.sumLoops[0].getResult(0).getType() != rowType || !accType ||
      accType.getRank() != 2 || !accType.getElementType().isF32() ||
      accType.getDimSize(0) != rowType.getDimSize(0))
    return first.emitError()
           << "cannot fuse the softmax: the 'max' and 'sum' passes must carry "
              "the same f32 row vector tensor<Br x f32> and the 'pv' pass an "
              "f32 tile tensor<Br x D x f32>";
  // Nothing writes memory between the first pass and the last: the fused
  // loop replaces them all where the first pass was, so a write between
  // passes would move after every pass (and a later pass reading what it
  // wrote would read it before it is written).
  for (Operation *op = n.maxLoops.front()->getNextNode();
       op && op != n.pvLoops.back().getOperation(); op = op->getNextNode()) {
    auto loop = dyn_cast<scf::ForOp>(op);
    if ((loop && loop->hasAttr(kSoftmaxPassAttrName)) || isMemoryEffectFree(op))
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || !effects.onlyHasEffect<MemoryEffects::Read>())
      return op->emitError()
             << "cannot fuse the softmax: '" << op->getName()
             << "' between the passes may write memory; the fused loop would "
                "move it after all of them";
  }
  // Nothing but reads in the bodies: the fused loop keeps only the values
  // the passes yield, so a write would be dropped.
  for (auto loops : {&n.maxLoops, &n.sumLoops, &n.pvLoops})
    for (scf::ForOp loop : *loops)
      for (Operation &op : loop.getBody()->without_terminator()) {
        if (isMemoryEffectFree(&op))
          continue;
        auto effects = dyn_cast<MemoryEffectOpInterface>(&op);
        if (!effects || !effects.onlyHasEffect<MemoryEffects::Read>())
          return op.emitError()
                 << "cannot fuse the softmax: '" << op.getName() << "' in a '"
                 << passOf(loop)
                 << "' pass may write memory; the fused loop would drop it";
      }
  return success();
}

/// Structural equality of values computed in the bodies of two pass loops:
/// the same ops with the same attributes on equal operands, the loops'
/// induction variables equal to each other, values from outside the loops
/// equal only to themselves. A value that reads the loop's carried value is
/// equal to nothing.
class BodyEquivalence {
public:
  BodyEquivalence(scf::ForOp a, scf::ForOp b) : la(a), lb(b) {}

  bool equal(Value a, Value b) {
    if (a == b)
      return a.getParentBlock() != la.getBody();
    auto known = pairs.find(a);
    if (known != pairs.end())
      return known->second == b;
    if (a == la.getInductionVar() || b == lb.getInductionVar())
      return a == la.getInductionVar() && b == lb.getInductionVar();
    auto ra = dyn_cast<OpResult>(a), rb = dyn_cast<OpResult>(b);
    if (!ra || !rb || ra.getOwner()->getBlock() != la.getBody() ||
        rb.getOwner()->getBlock() != lb.getBody() ||
        ra.getResultNumber() != rb.getResultNumber())
      return false;
    bool same = OperationEquivalence::isEquivalentTo(
        ra.getOwner(), rb.getOwner(),
        [&](Value x, Value y) { return success(equal(x, y)); },
        /*markEquivalent=*/nullptr, OperationEquivalence::IgnoreLocations);
    if (same)
      pairs[a] = b;
    return same;
  }

private:
  scf::ForOp la, lb;
  DenseMap<Value, Value> pairs;
};

/// A splat constant tile of `v`.
bool isSplatOf(Value t, double v) {
  DenseFPElementsAttr attr;
  if (!matchPattern(t, m_Constant(&attr)) || !attr.isSplat())
    return false;
  return attr.getSplatValue<APFloat>().convertToDouble() == v;
}

/// `v` is `base`, or its guarded form select(base == from, to, base) (the
/// tiling pass's −inf → 0 guard on m and 0 → 1 guard on l).
bool isGuardOf(Value v, Value base, double from, double to) {
  if (v == base)
    return true;
  auto sel = v.getDefiningOp<arith::SelectOp>();
  if (!sel || sel.getFalseValue() != base || !isSplatOf(sel.getTrueValue(), to))
    return false;
  auto cmp = sel.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpFPredicate::OEQ)
    return false;
  return (cmp.getLhs() == base && isSplatOf(cmp.getRhs(), from)) ||
         (cmp.getRhs() == base && isSplatOf(cmp.getLhs(), from));
}

/// The scale tile of the passes' exp: a splat of the run-time scale, else a
/// constant splat of the attribute's scale.
bool isScaleTile(Value t, NaiveSoftmax &n) {
  if (n.dynamicScale) {
    auto sp = t.getDefiningOp<tensor::SplatOp>();
    return sp && sp.getInput() == n.dynamicScale;
  }
  return isSplatOf(t, n.scale);
}

/// In a "sum" or "pv" loop: `e` = exp((S − m̂)·scale) with S computed as the
/// "max" loop computes `scores` and m̂ the max pass's result `mFinal` (or
/// its guarded form).
LogicalResult checkExpScaled(Value e, scf::ForOp loop, scf::ForOp maxLoop,
                             Value scores, Value mFinal, NaiveSoftmax &n) {
  auto fail = [&](StringRef what) {
    return loop.emitError()
           << "cannot fuse the softmax: '" << passOf(loop)
           << "' loop must compute exp((S - m)·scale) " << what;
  };
  auto exp = e.getDefiningOp<math::ExpOp>();
  if (!exp)
    return fail("(no math.exp)");
  auto mul = exp.getOperand().getDefiningOp<arith::MulFOp>();
  if (!mul)
    return fail("(the exp's operand is not arith.mulf)");
  Value diff = mul.getLhs();
  if (!isScaleTile(mul.getRhs(), n)) {
    diff = mul.getRhs();
    if (!isScaleTile(mul.getLhs(), n))
      return fail("with the passes' scale");
  }
  auto sub = diff.getDefiningOp<arith::SubFOp>();
  auto mB = sub ? sub.getRhs().getDefiningOp<BroadcastOp>() : BroadcastOp();
  if (!sub || !mB)
    return fail("(no S - broadcast(m))");
  if (!isGuardOf(mB.getInput(), mFinal, -INFINITY, 0.0))
    return fail("with m the max pass's result");
  if (!BodyEquivalence(maxLoop, loop).equal(scores, sub.getLhs()))
    return fail("with S computed as in the 'max' loop");
  return success();
}

/// In a "sum" loop: yield(addf(carried, attn.reduce sum exp((S − m)·scale))).
LogicalResult checkSumLoop(scf::ForOp sumLoop, scf::ForOp maxLoop, Value scores,
                           NaiveSoftmax &n) {
  auto yield = cast<scf::YieldOp>(sumLoop.getBody()->getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  Value iter = sumLoop.getRegionIterArg(0);
  ReduceOp red;
  if (add) {
    Value other = add.getLhs() == iter   ? add.getRhs()
                  : add.getRhs() == iter ? add.getLhs()
                                         : Value();
    red = other ? other.getDefiningOp<ReduceOp>() : ReduceOp();
  }
  if (!red || red.getKind() != ReduceKind::Sum)
    return sumLoop.emitError() << "cannot fuse the softmax: 'sum' loop must "
                                  "yield carried + attn.reduce sum P";
  return checkExpScaled(red.getInput(), sumLoop, maxLoop, scores,
                        n.maxLoops.back().getResult(0), n);
}

/// Whether `v` is computed without `x` (no op of `loop`'s body between
/// them).
bool independentOf(scf::ForOp loop, Value v, Value x) {
  SetVector<Operation *> slice;
  BackwardSliceOptions opts;
  opts.inclusive = true;
  opts.filter = [&](Operation *op) {
    return op->getParentRegion() == &loop.getRegion();
  };
  Operation *def = v.getDefiningOp();
  if (!def || failed(getBackwardSlice(def, &slice, opts)))
    return v != x;
  Operation *xDef = x.getDefiningOp();
  return v != x && !(xDef && slice.contains(xDef));
}

/// One op of a scalingChain and the operand number of its P.
struct ChainOp {
  Operation *op;
  unsigned pOperand;
};

/// The ops that scale the normalised probabilities on their way to the
/// P·V product (dropout's), innermost first, and the value they start
/// from (`p` on return). Each is linear in its P operand X, so it commutes
/// with the deferred normalisation (f(P / l) = f(P) / l):
///   X·k or k·X                   (k computed without X)
///   select(c, X, 0)              (c computed without X)
/// The fused loop applies them to the unnormalised P.
SmallVector<ChainOp> scalingChain(scf::ForOp loop, Value &p) {
  SmallVector<ChainOp> chain;
  while (Operation *def = p.getDefiningOp()) {
    std::optional<unsigned> x;
    if (auto mul = dyn_cast<arith::MulFOp>(def)) {
      if (independentOf(loop, mul.getRhs(), mul.getLhs()))
        x = 0;
      else if (independentOf(loop, mul.getLhs(), mul.getRhs()))
        x = 1;
    } else if (auto sel = dyn_cast<arith::SelectOp>(def)) {
      if (isSplatOf(sel.getFalseValue(), 0.0) &&
          independentOf(loop, sel.getCondition(), sel.getTrueValue()))
        x = 1;
    }
    // The scaled value must be a tile the chain alone consumes.
    Value xv = x ? def->getOperand(*x) : Value();
    if (!xv || !isa<RankedTensorType>(xv.getType()) || !xv.hasOneUse())
      break;
    chain.push_back({def, *x});
    p = xv;
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

/// In a "pv" loop, the dot's P: [truncf] f(exp((S − m)·scale) /
/// broadcast(l̂)) with l̂ the sum pass's result (or its guarded form) and f
/// a scalingChain.
LogicalResult checkPvLoop(scf::ForOp pvLoop, DotOp pvDot, scf::ForOp maxLoop,
                          Value scores, NaiveSoftmax &n) {
  Value p = pvDot.getLhs();
  if (auto t = p.getDefiningOp<arith::TruncFOp>())
    p = t.getIn();
  (void)scalingChain(pvLoop, p);
  auto div = p.getDefiningOp<arith::DivFOp>();
  auto lB = div ? div.getRhs().getDefiningOp<BroadcastOp>() : BroadcastOp();
  if (!lB ||
      !isGuardOf(lB.getInput(), n.sumLoops.back().getResult(0), 0.0, 1.0))
    return pvLoop.emitError()
           << "cannot fuse the softmax: 'pv' loop must use P = exp((S - "
              "m)·scale) / broadcast(l) with l the sum pass's result";
  return checkExpScaled(div.getLhs(), pvLoop, maxLoop, scores,
                        n.maxLoops.back().getResult(0), n);
}

/// In a "max" loop: yield(maximumf(iter, reduce max S)); returns S.
FailureOr<Value> scoresOf(scf::ForOp maxLoop) {
  auto yield = cast<scf::YieldOp>(maxLoop.getBody()->getTerminator());
  auto mx = yield.getOperand(0).getDefiningOp<arith::MaximumFOp>();
  if (!mx)
    return maxLoop.emitError()
           << "cannot fuse the softmax: 'max' loop must yield arith.maximumf";
  Value iter = maxLoop.getRegionIterArg(0);
  Value other = mx.getLhs() == iter ? mx.getRhs() : mx.getLhs();
  auto red = other.getDefiningOp<ReduceOp>();
  if (!red || red.getKind() != ReduceKind::Max ||
      (mx.getLhs() != iter && mx.getRhs() != iter))
    return maxLoop.emitError() << "cannot fuse the softmax: 'max' loop must "
                                  "yield max(carried, attn.reduce max S)";
  return red.getInput();
}

/// In a "pv" loop: yield(attn.dot(P, V, iter)) (V as [Bc, Dv], or
/// transposed as [Dv, Bc]: fp8's layout); returns the dot.
FailureOr<DotOp> pvDotOf(scf::ForOp pvLoop) {
  auto yield = cast<scf::YieldOp>(pvLoop.getBody()->getTerminator());
  auto dot = yield.getOperand(0).getDefiningOp<DotOp>();
  if (!dot || dot.getAcc() != pvLoop.getRegionIterArg(0))
    return pvLoop.emitError() << "cannot fuse the softmax: 'pv' loop must "
                                 "yield attn.dot(P, V, carried)";
  return dot;
}

/// Clones into `b` the ops of `loop`'s body that `root` depends on, mapping
/// the loop's induction variable to `iv`. Fails if the slice reads the
/// loop's carried value or a value that does not dominate `insertBefore`.
LogicalResult cloneSlice(OpBuilder &b, scf::ForOp loop, Value root, Value iv,
                         Operation *insertBefore, DominanceInfo &dom,
                         IRMapping &map) {
  map.map(loop.getInductionVar(), iv);
  SetVector<Operation *> slice;
  BackwardSliceOptions opts;
  opts.inclusive = true;
  opts.filter = [&](Operation *op) {
    return op->getParentRegion() == &loop.getRegion();
  };
  if (Operation *def = root.getDefiningOp())
    if (failed(getBackwardSlice(def, &slice, opts)))
      return loop.emitError() << "cannot fuse the softmax: cannot slice";
  for (Operation *op : slice) {
    for (Value operand : op->getOperands()) {
      if (map.contains(operand) ||
          operand.getParentRegion() == &loop.getRegion())
        continue;
      if (operand == loop.getRegionIterArg(0) ||
          !dom.properlyDominates(operand, insertBefore))
        return loop.emitError() << "cannot fuse the softmax: the loop body "
                                   "reads a value defined after the first pass";
    }
  }
  // Keep block order so that defs precede uses.
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : ordered)
    b.clone(*op, map);
  return success();
}

/// Checks, before anything is rewritten, that every pass computes what the
/// fused loop will.
LogicalResult checkBodies(NaiveSoftmax &n, DominanceInfo &dom) {
  // c = s·log2(e) goes where the max pass starts: s must be defined there.
  if (n.dynamicScale && !dom.properlyDominates(n.dynamicScale, n.maxLoops[0]))
    return n.maxLoops[0].emitError() << "cannot fuse the softmax: the "
                                        "run-time scale is defined after the "
                                        "max pass";
  for (size_t i = 0; i < n.maxLoops.size(); ++i) {
    FailureOr<Value> scores = scoresOf(n.maxLoops[i]);
    if (failed(scores))
      return failure();
    FailureOr<DotOp> pvDot = pvDotOf(n.pvLoops[i]);
    if (failed(pvDot))
      return failure();
    if (failed(checkSumLoop(n.sumLoops[i], n.maxLoops[i], *scores, n)) ||
        failed(checkPvLoop(n.pvLoops[i], *pvDot, n.maxLoops[i], *scores, n)))
      return failure();
  }
  // The fused loop starts from m = −inf, l = 0, A = 0 (the first α is then 0
  // and drops the initial l and A): other starting values would mean
  // something the fused loop does not compute.
  if (!isSplatOf(n.maxLoops[0].getInitArgs()[0], -INFINITY) ||
      !isSplatOf(n.sumLoops[0].getInitArgs()[0], 0.0) ||
      !isSplatOf(n.pvLoops[0].getInitArgs()[0], 0.0))
    return n.maxLoops[0].emitError()
           << "cannot fuse the softmax: the passes must start from m = -inf, "
              "l = 0 and A = 0 (constant splats)";
  return success();
}

/// With lazy rescaling (τ > 0) the fused loop's running max m lags the row
/// max by up to τ/c; it is exact only together with the row sum l, which is
/// relative to the same m (as in LSE = s·m + log l). So every use of the max
/// pass's result outside the passes must reach memory or the program's end
/// only through values that also depend on the sum pass's result.
LogicalResult checkLaggingMax(NaiveSoftmax &n, double tau) {
  if (tau <= 0)
    return success();
  Value m = n.maxLoops.back().getResult(0);
  Operation *sumLoop = n.sumLoops.back();
  auto dependsOnSum = [&](Value v) {
    SetVector<Operation *> slice;
    BackwardSliceOptions opts;
    opts.inclusive = true;
    (void)getBackwardSlice(v, &slice, opts);
    return slice.contains(sumLoop);
  };
  SmallVector<Value> work = {m};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second || dependsOnSum(v))
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      // Inside the passes m is what they are fused from.
      bool inPass = false;
      for (Operation *p = user; p; p = p->getParentOp())
        if (auto f = dyn_cast<scf::ForOp>(p))
          inPass |= f->hasAttr(kSoftmaxPassAttrName) &&
                    f->getBlock() == n.maxLoops.front()->getBlock();
      if (inPass)
        continue;
      if (isMemoryEffectFree(user) && user->getNumRegions() == 0 &&
          !user->hasTrait<OpTrait::IsTerminator>()) {
        for (Value r : user->getResults())
          work.push_back(r);
        continue;
      }
      return user->emitError()
             << "cannot fuse the softmax with rescale-threshold > 0: the row "
                "max reaches '"
             << user->getName()
             << "' without the row sum; the fused loop's running max lags the "
                "row max (use rescale-threshold=0)";
    }
  }
  return success();
}

LogicalResult fuse(NaiveSoftmax &n, DominanceInfo &dom, double tau) {
  if (failed(verifyNaive(n)) || failed(checkBodies(n, dom)) ||
      failed(checkLaggingMax(n, tau)))
    return failure();
  scf::ForOp firstLoop = n.maxLoops.front();
  Location loc = firstLoop.getLoc();
  OpBuilder b(firstLoop);

  // The fused loop starts where the max pass started, so its initial values
  // must be available there: the later passes' inits (usually constants
  // created between the passes) are rematerialised.
  auto initAtStart = [&](scf::ForOp loop) -> FailureOr<Value> {
    Value v = loop.getInitArgs()[0];
    if (dom.properlyDominates(v, firstLoop))
      return v;
    Operation *def = v.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>())
      return b.clone(*def)->getResult(0);
    return loop.emitError() << "cannot fuse the softmax: the initial value "
                               "of this pass is computed after the max pass";
  };
  FailureOr<Value> m0 = initAtStart(n.maxLoops.front());
  FailureOr<Value> l0 = initAtStart(n.sumLoops.front());
  FailureOr<Value> acc0 = initAtStart(n.pvLoops.front());
  if (failed(m0) || failed(l0) || failed(acc0))
    return failure();
  Value m = *m0, l = *l0, acc = *acc0;
  auto rowType = cast<RankedTensorType>(m.getType());
  auto accType = cast<RankedTensorType>(acc.getType());

  // exp(scale·x) = exp2(c·x) with c = scale·log2(e): the scale folds into
  // the exponent's multiplier, and exp2 is the cheap hardware instruction.
  double c = static_cast<double>(n.scale) * M_LOG2E;
  // A run-time scale s: c = s·log2(e) in f32, once, ahead of the loops (the
  // fused loops start where the max pass did, so s must be defined there).
  Value cDynamic;
  if (n.dynamicScale) {
    Value log2e = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(M_LOG2E));
    cDynamic = arith::MulFOp::create(b, loc, n.dynamicScale, log2e);
  }
  // A tile of c: a splat of the run-time c, else a constant.
  auto cTile = [&](OpBuilder &tb, Location tl, RankedTensorType t) -> Value {
    if (cDynamic)
      return tensor::SplatOp::create(tb, tl, t, cDynamic);
    return splat(tb, tl, t, c);
  };

  for (size_t i = 0; i < n.maxLoops.size(); ++i) {
    scf::ForOp maxLoop = n.maxLoops[i], pvLoop = n.pvLoops[i];
    FailureOr<Value> scores = scoresOf(maxLoop);
    if (failed(scores))
      return failure();
    FailureOr<DotOp> pvDot = pvDotOf(pvLoop);
    if (failed(pvDot))
      return failure();
    auto scoreType = cast<RankedTensorType>(scores->getType());
    auto pType = cast<RankedTensorType>(pvDot->getLhs().getType());

    LogicalResult status = success();
    auto fused = scf::ForOp::create(
        b, loc, maxLoop.getLowerBound(), maxLoop.getUpperBound(),
        maxLoop.getStep(), ValueRange{m, l, acc},
        [&](OpBuilder &lb, Location bl, Value kb, ValueRange args) {
          Value mOld = args[0], lOld = args[1], accOld = args[2];
          IRMapping map;
          // S for this key/value block, exactly as the max pass computed it.
          if (failed(cloneSlice(lb, maxLoop, *scores, kb, firstLoop, dom, map)))
            status = failure();
          Value s = map.lookupOrDefault(*scores);
          // m' = max(m, rowmax(S))
          Value rowMax = ReduceOp::create(lb, bl, rowType, ReduceKind::Max, s);
          Value mNew = arith::MaximumFOp::create(lb, bl, mOld, rowMax);
          if (tau > 0) {
            // Lazy rescaling: m' = (mb − m)·c > τ ? mb : m with
            // mb = max(m, rowmax(S)). A row keeps its reference max m while
            // its scores stay below m + τ/c, so P = exp2((S − m)·c) <= 2^τ
            // and α = exp2(0) = 1. The first key seen always moves it
            // ((mb − (−inf))·c = +inf > τ); a row with no key yet stays at
            // −inf ((−inf − (−inf))·c is NaN, and NaN > τ is false).
            // One statement per op: the IR's order must not depend on the
            // compiler's argument evaluation order.
            Value cRow = cTile(lb, bl, rowType);
            Value tauRow = splat(lb, bl, rowType, tau);
            Value rise = arith::SubFOp::create(lb, bl, mNew, mOld);
            Value riseC = arith::MulFOp::create(lb, bl, rise, cRow);
            Value grow = arith::CmpFOp::create(
                lb, bl, arith::CmpFPredicate::OGT, riseC, tauRow);
            mNew = arith::SelectOp::create(lb, bl, grow, mNew, mOld);
          }
          // mSafe' = (m' == -inf) ? 0 : m'  (no key seen yet: keep exp2 of
          // masked scores at exp2(-inf) = 0 rather than NaN).
          auto ninf = APFloat::getInf(APFloat::IEEEsingle(), true);
          Value negInf = arith::ConstantOp::create(
              lb, bl, rowType,
              DenseElementsAttr::get(rowType,
                                     lb.getFloatAttr(lb.getF32Type(), ninf)));
          Value noKey = arith::CmpFOp::create(lb, bl, arith::CmpFPredicate::OEQ,
                                              mNew, negInf);
          Value mSafe = arith::SelectOp::create(
              lb, bl, noKey, splat(lb, bl, rowType, 0.0), mNew);
          // P = exp2((S − mSafe')·c): subtract, then scale, so that the
          // exponent is <= 0 (or -inf for a masked score) and never
          // inf − inf.
          Value mB = BroadcastOp::create(lb, bl, scoreType, mSafe);
          Value sDiff = arith::SubFOp::create(lb, bl, s, mB);
          Value p = math::Exp2Op::create(
              lb, bl,
              arith::MulFOp::create(lb, bl, sDiff, cTile(lb, bl, scoreType)));
          // α = exp2((m − mSafe')·c): 0 while m = -inf (nothing summed yet),
          // whether or not m' is still -inf (mSafe' is then 0, and
          // (-inf − 0)·c = -inf).
          Value mDiff = arith::SubFOp::create(lb, bl, mOld, mSafe);
          Value alpha = math::Exp2Op::create(
              lb, bl,
              arith::MulFOp::create(lb, bl, mDiff, cTile(lb, bl, rowType)));
          // l' = α·l + rowsum(P)
          Value rowSum = ReduceOp::create(lb, bl, rowType, ReduceKind::Sum, p);
          Value lNew = arith::AddFOp::create(
              lb, bl, arith::MulFOp::create(lb, bl, alpha, lOld), rowSum);
          // A' = α·A + P·V, with P in the element type the pv pass used.
          Value alphaB = BroadcastOp::create(lb, bl, accType, alpha);
          Value accScaled = arith::MulFOp::create(lb, bl, alphaB, accOld);
          // f(P) for the pv pass's scaling chain f (dropout): each op with
          // its other operand computed as the pv pass did.
          Value pv = pvDot->getLhs();
          if (auto t = pv.getDefiningOp<arith::TruncFOp>())
            pv = t.getIn();
          Value pScaled = p;
          for (ChainOp c : scalingChain(pvLoop, pv)) {
            IRMapping cmap;
            for (auto [i, operand] : llvm::enumerate(c.op->getOperands()))
              if (i != c.pOperand && failed(cloneSlice(lb, pvLoop, operand, kb,
                                                       firstLoop, dom, cmap)))
                status = failure();
            cmap.map(c.op->getOperand(c.pOperand), pScaled);
            pScaled = lb.clone(*c.op, cmap)->getResult(0);
          }
          Value pCast = pScaled;
          if (pType.getElementType() != scoreType.getElementType())
            pCast = arith::TruncFOp::create(lb, bl, pType, pScaled);
          IRMapping vmap;
          if (failed(cloneSlice(lb, pvLoop, pvDot->getRhs(), kb, firstLoop, dom,
                                vmap)))
            status = failure();
          Value v = vmap.lookupOrDefault(pvDot->getRhs());
          Value accNew = DotOp::create(lb, bl, accType, pCast, v, accScaled,
                                       pvDot->getRhsTransposed());
          scf::YieldOp::create(lb, bl, ValueRange{mNew, lNew, accNew});
        });
    if (failed(status)) {
      fused.erase();
      return failure();
    }
    fused->setAttr(kOnlineSoftmaxAttrName, b.getUnitAttr());
    // A run-time scale has no attribute to give: consumers of the fused form
    // that need the scale as a constant find none and say so.
    if (!n.dynamicScale)
      fused->setAttr(kSoftmaxScaleAttrName, b.getF32FloatAttr(n.scale));
    m = fused.getResult(0);
    l = fused.getResult(1);
    acc = fused.getResult(2);
  }

  // O = A / l, once, after the last block (a row that saw no key has l = 0
  // and A = 0: divide by 1 to give O = 0).
  Value zero = splat(b, loc, rowType, 0.0);
  Value lZero =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, zero);
  Value lSafe =
      arith::SelectOp::create(b, loc, lZero, splat(b, loc, rowType, 1.0), l);
  Value lB = BroadcastOp::create(b, loc, accType, lSafe);
  Value out = arith::DivFOp::create(b, loc, acc, lB);

  n.maxLoops.back().getResult(0).replaceAllUsesWith(m);
  n.sumLoops.back().getResult(0).replaceAllUsesWith(l);
  n.pvLoops.back().getResult(0).replaceAllUsesWith(out);
  for (auto loops : {&n.pvLoops, &n.sumLoops, &n.maxLoops})
    for (scf::ForOp loop : llvm::reverse(*loops))
      loop.erase();
  return success();
}

struct FuseOnlineSoftmaxPass
    : public attn::impl::AttnFuseOnlineSoftmaxBase<FuseOnlineSoftmaxPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    // P <= 2^τ feeds the P·V product in the input's element type: 2^15
    // is the largest power of two below f16's 65504.
    if (!(rescaleThreshold >= 0 && rescaleThreshold <= 15)) {
      char text[32];
      std::snprintf(text, sizeof(text), "%g", double(rescaleThreshold));
      return emitError(UnknownLoc::get(ctx))
             << "pass option rescale-threshold must be in [0, 15], got "
             << text;
    }
    return success();
  }

  void runOnOperation() override {
    // Group the tagged loops by the block they live in (one block per
    // program of the tiled grid).
    llvm::MapVector<Block *, NaiveSoftmax> groups;
    getOperation()->walk([&](scf::ForOp loop) {
      StringRef pass = passOf(loop);
      if (pass.empty())
        return;
      NaiveSoftmax &n = groups[loop->getBlock()];
      if (pass == "max")
        n.maxLoops.push_back(loop);
      else if (pass == "sum")
        n.sumLoops.push_back(loop);
      else
        n.pvLoops.push_back(loop);
    });
    DominanceInfo dom(getOperation());
    for (auto &[block, n] : groups) {
      if (failed(fuse(n, dom, rescaleThreshold)))
        return signalPassFailure();
      // The naive form's between-pass values (such as its l == 0 guard) may
      // now be dead.
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*block)))
        if (isOpTriviallyDead(&op))
          op.erase();
    }
  }
};

} // namespace
