//===- VectorMath.cpp - math on vectors to special functions ----*- C++ -*-===//
//
// The last step of convert-attn-gpu-to-nvvm: the math the per-op patterns
// left on vectors of a thread's elements, element by element on the GPU's
// special-function unit.
//
//===----------------------------------------------------------------------===//
#include "PatternsCommon.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::gpu_lowering;

namespace {
/// exp2, exp and log of f32 (scalars or vectors) on the special-function
/// unit (ex2.approx.ftz, lg2.approx.ftz; ~2 ulp), element by element;
/// other math ops on vectors are unrolled to scalars, which the NVVM
/// lowering maps to libdevice. The kernel must not depend on libdevice for
/// the hot loop.
struct LowerVectorMath : public RewritePattern {
  LowerVectorMath(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<math::MathDialect>(op->getDialect()) || op->getNumResults() != 1)
      return failure();
    Type t = op->getResult(0).getType();
    auto vt = dyn_cast<VectorType>(t);
    Type et = vt ? vt.getElementType() : t;
    bool special =
        et.isF32() &&
        isa<math::Exp2Op, math::ExpOp, math::LogOp, math::TanhOp>(op);
    if (!vt && !special)
      return failure();
    Emitter e(rewriter, op->getLoc());
    auto scalarOp = [&](ValueRange args) -> Value {
      if (!special) {
        OperationState st(op->getLoc(), op->getName());
        st.addOperands(args);
        st.addTypes(et);
        st.addAttributes(op->getAttrs());
        return rewriter.create(st)->getResult(0);
      }
      auto intrinsic = [&](StringRef name, Value x) {
        return LLVM::CallIntrinsicOp::create(rewriter, op->getLoc(), e.f32(),
                                             rewriter.getStringAttr(name),
                                             ValueRange{x})
            .getResult(0);
      };
      Value x = args[0];
      // exp(x) = 2^(x·log2 e);  log(x) = log2(x)·ln 2.
      if (isa<math::Exp2Op>(op))
        return intrinsic("llvm.nvvm.ex2.approx.ftz.f32", x);
      if (isa<math::TanhOp>(op)) {
        // tanh(x) = sign(x)·(1 − 2 / (2^(2·|x|·log2 e) + 1)): no cancellation
        // for large |x| (2^... -> inf gives ±1); near 0 the absolute error
        // stays ~1e-7. |x| and the sign by bit operations (the NVVM lowering
        // sends fabs/copysign to libdevice).
        Location loc = op->getLoc();
        Type i32 = e.i32();
        Value bits = arith::BitcastOp::create(rewriter, loc, i32, x);
        Value ax = arith::BitcastOp::create(
            rewriter, loc, e.f32(),
            arith::AndIOp::create(rewriter, loc, bits, e.c32(0x7fffffff)));
        Value e2 = intrinsic(
            "llvm.nvvm.ex2.approx.ftz.f32",
            arith::MulFOp::create(rewriter, loc, ax, e.cf(float(2 * M_LOG2E))));
        Value q = arith::DivFOp::create(
            rewriter, loc, e.cf(2.0f),
            arith::AddFOp::create(rewriter, loc, e2, e.cf(1.0f)));
        Value t = arith::SubFOp::create(rewriter, loc, e.cf(1.0f), q);
        Value sign =
            arith::AndIOp::create(rewriter, loc, bits, e.c32(INT32_MIN));
        Value tBits = arith::BitcastOp::create(rewriter, loc, i32, t);
        return arith::BitcastOp::create(
            rewriter, loc, e.f32(),
            arith::OrIOp::create(rewriter, loc, tBits, sign));
      }
      if (isa<math::ExpOp>(op))
        return intrinsic("llvm.nvvm.ex2.approx.ftz.f32",
                         arith::MulFOp::create(rewriter, op->getLoc(), x,
                                               e.cf(float(M_LOG2E))));
      return arith::MulFOp::create(rewriter, op->getLoc(),
                                   intrinsic("llvm.nvvm.lg2.approx.ftz.f", x),
                                   e.cf(float(M_LN2)));
    };
    if (!vt) {
      rewriter.replaceOp(op, scalarOp(op->getOperands()));
      return success();
    }
    SmallVector<Value> elems;
    for (int64_t i = 0; i < vt.getNumElements(); ++i) {
      SmallVector<Value> args;
      for (Value o : op->getOperands())
        args.push_back(e.extract(o, i));
      elems.push_back(scalarOp(args));
    }
    rewriter.replaceOp(op, e.fromElements(vt, elems));
    return success();
  }
};
} // namespace

void mlir::attn::gpu_lowering::populateVectorMathPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerVectorMath>(patterns.getContext());
}
