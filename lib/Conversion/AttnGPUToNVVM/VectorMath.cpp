//===- VectorMath.cpp - math on vectors to special functions ----*- C++ -*-===//
//
// The last step of convert-attn-gpu-to-nvvm: the math the per-op patterns
// left on vectors of a thread's elements, element by element on the GPU's
// special-function unit.
//
//===----------------------------------------------------------------------===//
#include "PatternsCommon.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::gpu_lowering;

namespace {
/// 2^x on the FMA pipe, for x <= 127 or NaN (the softmax's exponents are
/// at most the lazy rescale's threshold):
///   x' = max(x, −127)                  (NaN stays NaN: max.NaN)
///   r  = x' + 1.5·2^23, rounded down   (bits(r) = bits(1.5·2^23) + ⌊x'⌋)
///   f  = x' − (r − 1.5·2^23)           (in [0, 1); both steps exact)
///   p  = 1 + f·(c1 + f·(c2 + f·c3))    (2^f, relative error < 9e-5)
///   2^x = p · float((bits(r) + 127) << 23)
/// The shift keeps ⌊x'⌋ + 127 in [0, 254] as the exponent field (0 for
/// x' = −127: 2^x is 0 there, as ex2.approx.ftz's result); a NaN x
/// makes p NaN, which the product keeps. Nine FMA-pipe instructions: the
/// degree-3 coefficients minimise the relative error of 2^f on [0, 1)
/// with p(0) = 1.
Value polynomialExp2(OpBuilder &b, Location loc, Value x) {
  Emitter e(b, loc);
  Value clamped = arith::MaximumFOp::create(b, loc, x, e.cf(-127.0f));
  const float roundInt = 12582912.0f; // 1.5·2^23
  Value rounded = LLVM::CallIntrinsicOp::create(
                      b, loc, e.f32(), b.getStringAttr("llvm.nvvm.add.rm.f"),
                      ValueRange{clamped, e.cf(roundInt)})
                      .getResult(0);
  Value whole = arith::SubFOp::create(b, loc, rounded, e.cf(roundInt));
  Value frac = arith::SubFOp::create(b, loc, clamped, whole);
  Value p = e.fma(frac, e.cf(0.0770660192f), e.cf(0.227646112f));
  p = e.fma(frac, p, e.cf(0.695116520f));
  p = e.fma(frac, p, e.cf(1.0f));
  // (bits(r) + 127)·2^23 in 32-bit arithmetic: the high bits of bits(r)
  // shift out.
  Value bits = arith::BitcastOp::create(b, loc, e.i32(), rounded);
  Value biased = arith::AddIOp::create(b, loc, bits, e.c32(127));
  Value field = arith::ShLIOp::create(b, loc, biased, e.c32(23));
  Value scale = arith::BitcastOp::create(b, loc, e.f32(), field);
  return arith::MulFOp::create(b, loc, p, scale);
}

/// exp2, exp, log and tanh of f32 (scalars or vectors) on the
/// special-function unit (ex2.approx.ftz, lg2.approx.ftz, rcp.approx.ftz;
/// ~2 ulp; tanh.approx under `afn`), element by element; absi and f32 absf
/// by integer ops;
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
    // |x| by integer ops (the NVVM lowering sends absi and absf to
    // libdevice, which a kernel must not need): integers as
    // max(x, 0 − x), f32 by clearing the sign bit.
    bool abs = isa<math::AbsIOp>(op) || (et.isF32() && isa<math::AbsFOp>(op));
    bool special =
        abs || (et.isF32() &&
                isa<math::Exp2Op, math::ExpOp, math::LogOp, math::TanhOp>(op));
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
      if (isa<math::AbsIOp>(op)) {
        Location loc = op->getLoc();
        Value zero = arith::ConstantOp::create(rewriter, loc, et,
                                               rewriter.getIntegerAttr(et, 0));
        return arith::MaxSIOp::create(
            rewriter, loc, x, arith::SubIOp::create(rewriter, loc, zero, x));
      }
      if (isa<math::AbsFOp>(op)) {
        Location loc = op->getLoc();
        Value bits = arith::BitcastOp::create(rewriter, loc, e.i32(), x);
        return arith::BitcastOp::create(
            rewriter, loc, e.f32(),
            arith::AndIOp::create(rewriter, loc, bits, e.c32(0x7fffffff)));
      }
      // exp(x) = 2^(x·log2 e);  log(x) = log2(x)·ln 2.
      if (isa<math::Exp2Op>(op))
        return intrinsic("llvm.nvvm.ex2.approx.ftz.f32", x);
      if (isa<math::TanhOp>(op)) {
        // With `afn` (approximate functions allowed): tanh.approx.f32, one
        // special-function op (FlashAttention-3's soft-cap; relative error
        // <= 2^-11, the rounding of an f16 P). H100, bf16 D = 128 causal
        // soft-cap, 4k / 16k: 420 / 464-483 TFLOP/s against 332 / 359-376
        // for the form below and 204 / 221 with a divide.
        if (arith::bitEnumContainsAll(cast<math::TanhOp>(op).getFastmath(),
                                      arith::FastMathFlags::afn)) {
          // llvm.tanh with afn: the NVPTX backend emits tanh.approx.f32.
          auto call = LLVM::CallIntrinsicOp::create(
              rewriter, op->getLoc(), e.f32(),
              rewriter.getStringAttr("llvm.tanh.f32"), ValueRange{x});
          call.setFastmathFlagsAttr(LLVM::FastmathFlagsAttr::get(
              rewriter.getContext(), LLVM::FastmathFlags::afn));
          return call.getResult(0);
        }
        // Otherwise, for |x| >= 1/8,
        // tanh(x) = sign(x)·(1 − 2·rcp(2^(2·|x|·log2 e) + 1)): no
        // cancellation for large |x| (2^... -> inf gives ±1), an absolute
        // error of ~1e-7 (a few ulp from 1/8 on); below 1/8,
        // tanh(x) = x − x³/3 + 2x⁵/15 (the next term, 17x⁷/315, is below
        // 2e-7 of x), so that small arguments keep their relative
        // accuracy. |x| and the sign by bit operations (the NVVM lowering
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
        Value r =
            intrinsic("llvm.nvvm.rcp.approx.ftz.f",
                      arith::AddFOp::create(rewriter, loc, e2, e.cf(1.0f)));
        Value t = arith::SubFOp::create(
            rewriter, loc, e.cf(1.0f),
            arith::MulFOp::create(rewriter, loc, r, e.cf(2.0f)));
        Value sign =
            arith::AndIOp::create(rewriter, loc, bits, e.c32(INT32_MIN));
        Value tBits = arith::BitcastOp::create(rewriter, loc, i32, t);
        Value large = arith::BitcastOp::create(
            rewriter, loc, e.f32(),
            arith::OrIOp::create(rewriter, loc, tBits, sign));
        // x + x·x²·(−1/3 + x²·2/15)
        Value x2 = arith::MulFOp::create(rewriter, loc, x, x);
        Value inner = arith::AddFOp::create(
            rewriter, loc, e.cf(float(-1.0 / 3.0)),
            arith::MulFOp::create(rewriter, loc, x2, e.cf(float(2.0 / 15.0))));
        Value small = arith::AddFOp::create(
            rewriter, loc, x,
            arith::MulFOp::create(rewriter, loc,
                                  arith::MulFOp::create(rewriter, loc, x, x2),
                                  inner));
        Value isSmall = arith::CmpFOp::create(
            rewriter, loc, arith::CmpFPredicate::OLT, ax, e.cf(0.125f));
        return arith::SelectOp::create(rewriter, loc, isSmall, small, large);
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
    // attn.polynomial_exp2 = k: elements k − 1, 2k − 1, ... on the FMA pipe,
    // spread through the vector so that both pipes stay busy.
    int64_t polyEvery = 0;
    if (auto k = op->getAttrOfType<IntegerAttr>(kPolynomialExp2AttrName);
        k && isa<math::Exp2Op>(op) && et.isF32())
      polyEvery = k.getInt();
    SmallVector<Value> elems;
    for (int64_t i = 0; i < vt.getNumElements(); ++i) {
      SmallVector<Value> args;
      for (Value o : op->getOperands())
        args.push_back(e.extract(o, i));
      if (polyEvery > 0 && i % polyEvery == polyEvery - 1)
        elems.push_back(polynomialExp2(rewriter, op->getLoc(), args[0]));
      else
        elems.push_back(scalarOp(args));
    }
    rewriter.replaceOp(op, e.fromElements(vt, elems));
    return success();
  }
};
/// A vector x·1 + C: vector.broadcast of an integer scalar x plus a constant
/// vector C (what attn.iota lowers to: a thread's base position plus each
/// element's offset in the layout), or a broadcast alone (C = 0).
struct AffineVector {
  Value base;
  SmallVector<int64_t> offsets;
};
std::optional<AffineVector> matchAffine(Value v) {
  auto vt = dyn_cast<VectorType>(v.getType());
  if (!vt || !vt.getElementType().isInteger(32))
    return std::nullopt;
  if (auto b = v.getDefiningOp<vector::BroadcastOp>()) {
    if (isa<VectorType>(b.getSource().getType()))
      return std::nullopt;
    return AffineVector{b.getSource(),
                        SmallVector<int64_t>(vt.getNumElements(), 0)};
  }
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add)
    return std::nullopt;
  for (auto [x, c] : {std::pair{add.getLhs(), add.getRhs()},
                      std::pair{add.getRhs(), add.getLhs()}}) {
    auto b = x.getDefiningOp<vector::BroadcastOp>();
    DenseIntElementsAttr cst;
    if (!b || isa<VectorType>(b.getSource().getType()) ||
        !matchPattern(c, m_Constant(&cst)))
      continue;
    AffineVector a{b.getSource(), {}};
    for (const APInt &o : cst.getValues<APInt>())
      a.offsets.push_back(o.getSExtValue());
    return a;
  }
  return std::nullopt;
}

Value affineValue(PatternRewriter &rw, Location loc, VectorType vt, Value base,
                  ArrayRef<int64_t> offsets) {
  SmallVector<int32_t> c(offsets.begin(), offsets.end());
  return arith::AddIOp::create(
      rw, loc, vector::BroadcastOp::create(rw, loc, vt, base),
      arith::ConstantOp::create(rw, loc, vt, DenseIntElementsAttr::get(vt, c)));
}

/// (x + C) ± (y + D) = (x ± y) + (C ± D): the difference of two position
/// vectors (a score_mod's j − i) stays one scalar and constants, with no
/// per-element integer op.
struct FoldAffineAddSub : public RewritePattern {
  FoldAffineAddSub(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rw) const override {
    if (!isa<arith::AddIOp, arith::SubIOp>(op))
      return failure();
    auto a = matchAffine(op->getOperand(0));
    auto b = matchAffine(op->getOperand(1));
    // An add whose one side is a constant is itself the affine form.
    if (!a || !b)
      return failure();
    bool sub = isa<arith::SubIOp>(op);
    auto vt = cast<VectorType>(op->getResult(0).getType());
    SmallVector<int64_t> offs;
    for (auto [x, y] : llvm::zip(a->offsets, b->offsets)) {
      int64_t r = sub ? x - y : x + y;
      if (r < INT32_MIN || r > INT32_MAX)
        return failure();
      offs.push_back(r);
    }
    Location loc = op->getLoc();
    Value base = sub ? Value(arith::SubIOp::create(rw, loc, a->base, b->base))
                     : Value(arith::AddIOp::create(rw, loc, a->base, b->base));
    rw.replaceOp(op, affineValue(rw, loc, vt, base, offs));
    return success();
  }
};

/// sitofp(x + C) = float(x) + float(C) for |C| < 2^24: one conversion a
/// thread (I2F runs at a quarter of the FP32 rate) and one FADD an element.
/// Exact while the positions are below 2^24; beyond, the two roundings may
/// differ by one unit of f32.
struct AffineToFloat : public OpRewritePattern<arith::SIToFPOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::SIToFPOp op,
                                PatternRewriter &rw) const override {
    auto vt = dyn_cast<VectorType>(op.getType());
    auto a = matchAffine(op.getIn());
    if (!vt || !vt.getElementType().isF32() || !a)
      return failure();
    SmallVector<float> offs;
    for (int64_t o : a->offsets) {
      if (o <= -(int64_t(1) << 24) || o >= (int64_t(1) << 24))
        return failure();
      offs.push_back(float(o));
    }
    Location loc = op.getLoc();
    Value base = arith::SIToFPOp::create(rw, loc, rw.getF32Type(), a->base);
    rw.replaceOpWithNewOp<arith::AddFOp>(
        op, vector::BroadcastOp::create(rw, loc, vt, base),
        arith::ConstantOp::create(rw, loc, vt,
                                  DenseElementsAttr::get(vt, ArrayRef(offs))));
    return success();
  }
};
/// a·(float(x) + C) = a·float(x) + a·C where the multiply may reassociate:
/// a scalar times a vector of positions in AffineToFloat's form (a
/// per-column bias a·j) becomes one FMA an element with the offsets as
/// immediates, fma(a, C, a·float(x)), instead of an FADD and an FMUL.
struct DistributeOverOffsets : public OpRewritePattern<arith::MulFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::MulFOp op,
                                PatternRewriter &rw) const override {
    auto vt = dyn_cast<VectorType>(op.getType());
    if (!vt || !vt.getElementType().isF32() ||
        !arith::bitEnumContainsAll(op.getFastmath(),
                                   arith::FastMathFlags::reassoc))
      return failure();
    auto scalarOf = [](Value v) -> Value {
      auto b = v.getDefiningOp<vector::BroadcastOp>();
      return b && !isa<VectorType>(b.getSource().getType()) ? b.getSource()
                                                            : Value();
    };
    for (auto [a, sum] : {std::pair{op.getLhs(), op.getRhs()},
                          std::pair{op.getRhs(), op.getLhs()}}) {
      Value scale = scalarOf(a);
      auto add = sum.getDefiningOp<arith::AddFOp>();
      if (!scale || !add)
        continue;
      for (auto [x, c] : {std::pair{add.getLhs(), add.getRhs()},
                          std::pair{add.getRhs(), add.getLhs()}}) {
        Value base = scalarOf(x);
        DenseElementsAttr offsets;
        if (!base || !matchPattern(c, m_Constant(&offsets)))
          continue;
        Location loc = op.getLoc();
        Value scaledBase =
            arith::MulFOp::create(rw, loc, scale, base, op.getFastmath());
        // (llvm.intr.fma: math.fma would become a libdevice call.)
        rw.replaceOpWithNewOp<LLVM::FMAOp>(
            op, a, c, vector::BroadcastOp::create(rw, loc, vt, scaledBase));
        return success();
      }
    }
    return failure();
  }
};
} // namespace

void mlir::attn::gpu_lowering::populateVectorMathPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerVectorMath, FoldAffineAddSub, AffineToFloat,
               DistributeOverOffsets>(patterns.getContext());
}
