//===- CarryQuotients.cpp - induction-variable divisions carried ----------===//
//
// A flat loop walks a two-level index space with one induction variable:
// step j of the backward's key-major loop over (query head, query block)
// pairs visits head j / n and block j mod n. On the GPU an unsigned
// division by a run-time value is a sequence of some twenty instructions
// (there is no divide unit), paid every step on the way to the step's
// addresses. With a step of 1 the pair moves by one each iteration:
//
//   r_{j+1} = r_j + 1 == n ? 0 : r_j + 1
//   q_{j+1} = r_j + 1 == n ? q_j + 1 : q_j
//
// so both are carried as iter_args, divided once before the loop from the
// lower bound. Applies to arith.divui and arith.remui anywhere in the body
// (nested regions too) whose dividend is the induction variable plus a
// constant c >= 0 (iv + c: a prefetch's or a producer's next step, each c
// its own pair) and whose divisor is defined outside the loop and not a
// constant, in scf.for loops of constant step 1 over `index`. The pair before
// the loop divides by max(n, 1): a loop that runs divides by n >= 1 anyway (n =
// 0 would have been undefined), and one that does not must not divide by zero
// either.
//
//===----------------------------------------------------------------------===//
#include "attn/Transforms/Passes.h"

#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNCARRYQUOTIENTS
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

/// The divisions and remainders of iv + `offset` by one `divisor`.
struct Pair {
  int64_t offset;
  Value divisor;
  SmallVector<Operation *> quotients, remainders;
};

/// c if `x` is `iv` (0) or `iv + c` with a constant c >= 0.
std::optional<int64_t> offsetFrom(Value x, Value iv) {
  if (x == iv)
    return 0;
  auto add = x.getDefiningOp<arith::AddIOp>();
  if (!add)
    return std::nullopt;
  Value other = add.getLhs() == iv   ? add.getRhs()
                : add.getRhs() == iv ? add.getLhs()
                                     : Value();
  std::optional<int64_t> c = other ? getConstantIntValue(other) : std::nullopt;
  if (!c || *c < 0)
    return std::nullopt;
  return c;
}

struct CarryQuotientsPass
    : public attn::impl::AttnCarryQuotientsBase<CarryQuotientsPass> {
  using Base::Base;

  void carry(scf::ForOp loop) {
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    Value iv = loop.getInductionVar();
    if (!step || *step != 1 || !iv.getType().isIndex())
      return;
    SmallVector<Pair> pairs;
    loop.getBody()->walk([&](Operation *op) {
      if (!isa<arith::DivUIOp, arith::RemUIOp>(op))
        return;
      // A constant divisor is LLVM's to strength-reduce (a power of two is
      // a shift and a mask).
      Value divisor = op->getOperand(1);
      std::optional<int64_t> c = offsetFrom(op->getOperand(0), iv);
      if (!c || !loop.isDefinedOutsideOfLoop(divisor) ||
          getConstantIntValue(divisor))
        return;
      auto it = llvm::find_if(pairs, [&](const Pair &p) {
        return p.offset == *c && p.divisor == divisor;
      });
      if (it == pairs.end()) {
        pairs.push_back({*c, divisor, {}, {}});
        it = std::prev(pairs.end());
      }
      (isa<arith::DivUIOp>(op) ? it->quotients : it->remainders)
          .push_back(op);
    });
    if (pairs.empty())
      return;

    // Before the loop: q = (lb + c) / max(n, 1), r = (lb + c) mod max(n, 1).
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    SmallVector<Value> inits;
    SmallVector<Value> divisors;
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    for (const Pair &p : pairs) {
      Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           p.divisor, zero);
      Value safe = arith::SelectOp::create(b, loc, isZero, one, p.divisor);
      Value start = loop.getLowerBound();
      if (p.offset) {
        Value c = arith::ConstantIndexOp::create(b, loc, p.offset);
        start = arith::AddIOp::create(b, loc, start, c);
      }
      inits.push_back(arith::DivUIOp::create(b, loc, start, safe));
      inits.push_back(arith::RemUIOp::create(b, loc, start, safe));
      divisors.push_back(p.divisor);
    }
    IRRewriter rewriter(loop.getContext());
    unsigned carried = loop.getNumRegionIterArgs();
    auto grown = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &yb, Location l, ArrayRef<BlockArgument> args) {
          // At the end of the step: r' = r + 1, wrapping to 0 (q' = q + 1)
          // at n.
          SmallVector<Value> next;
          for (auto [i, n] : llvm::enumerate(divisors)) {
            Value q = args[2 * i], r = args[2 * i + 1];
            Value r1 = arith::AddIOp::create(yb, l, r, one);
            Value wrap = arith::CmpIOp::create(
                yb, l, arith::CmpIPredicate::eq, r1, n);
            Value q1 = arith::AddIOp::create(yb, l, q, one);
            next.push_back(arith::SelectOp::create(yb, l, wrap, q1, q));
            next.push_back(arith::SelectOp::create(yb, l, wrap, zero, r1));
          }
          return next;
        }));
    for (auto [i, p] : llvm::enumerate(pairs)) {
      Value q = grown.getRegionIterArgs()[carried + 2 * i];
      Value r = grown.getRegionIterArgs()[carried + 2 * i + 1];
      for (Operation *op : p.quotients) {
        op->getResult(0).replaceAllUsesWith(q);
        op->erase();
      }
      for (Operation *op : p.remainders) {
        op->getResult(0).replaceAllUsesWith(r);
        op->erase();
      }
    }
  }

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      carry(loop);
  }
};

} // namespace
