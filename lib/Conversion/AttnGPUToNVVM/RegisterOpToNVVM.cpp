//===- RegisterOpToNVVM.cpp - tile ops on registers -------------*- C++ -*-===//
//
// Ops on tiles in register layouts, where a tile is the vector of the
// elements the thread holds:
//
//   arith / math op, tensor.splat   the same op on the vectors (a constant
//                                   or splat becomes a vector splat)
//   arith.mulf by a broadcast row   the same, skipped by a branch when all
//     vector (A·α)                  of the thread's row factors are 1 (the
//                                   online softmax's α in a block that
//                                   leaves the row maxima where they were)
//   attn.reduce                     row r of the thread: fold its elements
//                                   of the row, then shfl.bfly 1, 2 across
//                                   the quad that shares the row; into
//                                   column groups of whole n-tiles: the
//                                   thread's fold only
//   attn.broadcast                  a register permutation: element (t,n,e)
//                                   takes row value (t, e/2)
//   attn.iota                       a per-thread base plus each element's
//                                   constant row or column offset
//   attn.gather                     one load per element, addressed from
//                                   its indices
//   attn.mask                       hidden = kj >= kv_len, or (causal)
//                                   kj > qi + (kv_len − q_len), with qi, kj
//                                   each element's (row, column) from the
//                                   layout, tested as a constant offset
//                                   against a per-thread scalar; hidden
//                                   scores become −inf
//
//===----------------------------------------------------------------------===//
#include "PatternsCommon.h"

#include "attn/Dialect/Attn/IR/Philox.h"
#include "attn/runtime/Philox.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::gpu_lowering;

namespace {

bool hasLaidOutTile(Operation *op) {
  auto laid = [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && rt.getEncoding();
  };
  return llvm::any_of(op->getOperandTypes(), laid) ||
         llvm::any_of(op->getResultTypes(), laid);
}

/// Any arith/math op (and tensor.splat) on laid-out tiles: the same op on
/// the per-thread vectors.
struct ElementwiseLowering : public ConversionPattern {
  ElementwiseLowering(TileTypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    bool elementwise =
        isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<tensor::SplatOp>(op);
    if (!elementwise || !hasLaidOutTile(op) || op->getNumRegions())
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return rewriter.notifyMatchFailure(op, "result type has no layout");
    if (auto splat = dyn_cast<tensor::SplatOp>(op)) {
      rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, types[0],
                                                       operands[0]);
      return success();
    }
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
      if (!dense || !dense.isSplat())
        return op->emitError("unsupported: a non-splat tile constant on the "
                             "GPU (each thread would need its own part)");
      auto vt = cast<VectorType>(types[0]);
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, vt, DenseElementsAttr::get(vt, dense.getSplatValue<Attribute>()));
      return success();
    }
    // Operands must all be per-thread vectors of one length, or scalars.
    for (Value o : operands)
      if (isa<RankedTensorType>(o.getType()))
        return rewriter.notifyMatchFailure(op, "operand not converted");
    OperationState st(op->getLoc(), op->getName());
    st.addOperands(operands);
    st.addTypes(types);
    st.addAttributes(op->getAttrs());
    rewriter.replaceOp(op, rewriter.create(st)->getResults());
    return success();
  }
};

/// P8 = truncf(P) to f8E4M3FN on a register tile: cvt.rn.satfinite.e4m3x2
/// per pair of elements (FlashAttention-3's rounding of P: out-of-range
/// values saturate to ±448, NaN stays NaN), the bytes in the tile's element
/// order (the wgmma lowering regroups them into its A fragment). The
/// vector is the pairs' 16-bit values bitcast to bytes, so that a user
/// taking two pairs as one 32-bit word sees the conversions themselves
/// (ptxas then merges the second into the first's upper half: no byte
/// moves between the conversion and the word).
struct TruncFToFp8Lowering : public OpConversionPattern<arith::TruncFOp> {
  TruncFToFp8Lowering(TileTypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern<arith::TruncFOp>(tc, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = dyn_cast<RankedTensorType>(op.getType());
    if (!t || !isa<Float8E4M3FNType>(t.getElementType()) ||
        !isa_and_nonnull<MmaLayoutAttr>(t.getEncoding()))
      return failure();
    auto in = dyn_cast<VectorType>(adaptor.getIn().getType());
    if (!in || !in.getElementType().isF32() || in.getNumElements() % 2)
      return op.emitError() << "unsupported: truncf to " << t
                            << " from anything but an f32 register tile";
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    auto i8 = rewriter.getI8Type();
    auto i16 = rewriter.getI16Type();
    auto pairTy = VectorType::get({2}, i8);
    Type f8 = Float8E4M3FNType::get(rewriter.getContext());
    SmallVector<Value> pairs;
    for (int64_t i = 0; i < in.getNumElements(); i += 2) {
      // The vector form holds cvt(b) in byte 0 and cvt(a) in byte 1.
      Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
          rewriter, loc, pairTy, e.extract(adaptor.getIn(), i + 1),
          e.extract(adaptor.getIn(), i), NVVM::FPRoundingMode::RN,
          NVVM::SaturationMode::SATFINITE, /*relu=*/false, f8);
      pairs.push_back(LLVM::BitcastOp::create(rewriter, loc, i16, pair));
    }
    Value packed =
        e.fromElements(VectorType::get({in.getNumElements() / 2}, i16), pairs);
    rewriter.replaceOp(
        op, LLVM::BitcastOp::create(rewriter, loc,
                                    VectorType::get({in.getNumElements()}, i8),
                                    packed));
    return success();
  }
};

/// A' = A·broadcast(α) on an #attn.mma tile, α a row vector in its slice,
/// marked attn.skip_unit_factors (by attn-assign-layouts, where it pays):
/// each thread multiplies its elements by its rows' factors only if one of
/// them is not 1 (x·1 = x for every float, so skipping is exact). With the
/// online softmax's lazy rescaling α is 1 in most key blocks, and the
/// branch saves one FMUL per element of O.
struct RowScaleLowering : public OpConversionPattern<arith::MulFOp> {
  RowScaleLowering(TileTypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern<arith::MulFOp>(tc, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(arith::MulFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op->hasAttr(kSkipUnitFactorsAttrName))
      return rewriter.notifyMatchFailure(op, "not marked");
    auto t = dyn_cast<RankedTensorType>(op.getType());
    if (!t || !isa_and_nonnull<MmaLayoutAttr>(t.getEncoding()))
      return op.emitError()
             << "unsupported: " << kSkipUnitFactorsAttrName << " on "
             << op.getType() << " (expected an #attn.mma tile)";
    // Which operand is the broadcast row vector.
    BroadcastOp bcast;
    Value factors, other; // per element: α of its row, and A
    for (auto [i, v] : llvm::enumerate(op->getOperands()))
      if (auto b = v.getDefiningOp<BroadcastOp>()) {
        bcast = b;
        factors = adaptor.getOperands()[i];
        other = adaptor.getOperands()[1 - i];
        break;
      }
    if (!bcast)
      return op.emitError() << "unsupported: " << kSkipUnitFactorsAttrName
                            << " without an attn.broadcast operand";
    Value rows = rewriter.getRemappedValue(bcast.getInput());
    if (!rows || !isa<VectorType>(rows.getType()) ||
        !isa<VectorType>(factors.getType()) ||
        !isa<VectorType>(other.getType()))
      return rewriter.notifyMatchFailure(op, "operands not converted");
    Location loc = op.getLoc();
    auto rowsTy = cast<VectorType>(rows.getType());
    // any(α_r != 1) over the thread's rows (unordered: a NaN factor
    // multiplies, so that it propagates).
    Value one = arith::ConstantOp::create(
        rewriter, loc, rowsTy,
        DenseElementsAttr::get(rowsTy, rewriter.getF32FloatAttr(1.0f)));
    Value differs = arith::CmpFOp::create(rewriter, loc,
                                          arith::CmpFPredicate::UNE, rows, one);
    Value any = vector::ReductionOp::create(rewriter, loc,
                                            vector::CombiningKind::OR, differs);
    auto ifOp = scf::IfOp::create(
        rewriter, loc, any,
        [&](OpBuilder &b, Location l) {
          // One scalar multiplication per element, not one vector op: LLVM
          // speculates a single (vector) instruction out of the branch,
          // and the branch would save nothing.
          Emitter e(b, l);
          auto vt = cast<VectorType>(other.getType());
          SmallVector<Value> prods;
          for (int64_t i = 0; i < vt.getNumElements(); ++i)
            prods.push_back(arith::MulFOp::create(b, l, e.extract(factors, i),
                                                  e.extract(other, i),
                                                  op.getFastmathAttr()));
          scf::YieldOp::create(b, l, e.fromElements(vt, prods));
        },
        [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, other); });
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

/// E = (x − broadcast(m))·c on an #attn.mma tile, c a splat, marked
/// attn.fused_exponent (the online softmax's exponent, attn-assign-layouts).
/// A thread whose rows all have |m·c| <= 2^12 computes
///   E = fma(x, c, −(m·c))                    one FFMA per element
/// (m·c rounded once per row: the exponent moves by at most 2^12 · 2^-24 =
/// 2^-12, below bf16's and f16's rounding of P); any other thread (huge
/// scores or scales, or a NaN) the exact E = fl((x − m)·c).
///
/// On warpgroup tiles every thread computes E = fma(x', c, off) after a
/// branch that only chooses x' = x, off = −(m·c) or x' = x − m, off = 0
/// (fma(x − m, c, 0) is the exact form): the FFMAs and the exponentials
/// after them are one block, which ptxas interleaves, where with the
/// FFMAs inside the branch every FFMA issued before the first ex2 (H200,
/// bf16: +0..2%). On mma.sync tiles the branch holds the whole exponent:
/// the FFMAs after the join spilled 8-16 bytes in the D = 128 paged
/// kernels (sm_80).
struct FusedExponentLowering : public OpConversionPattern<arith::MulFOp> {
  FusedExponentLowering(TileTypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern<arith::MulFOp>(tc, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(arith::MulFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op->hasAttr(kFusedExponentAttrName))
      return rewriter.notifyMatchFailure(op, "not marked");
    auto t = dyn_cast<RankedTensorType>(op.getType());
    auto sub = op.getLhs().getDefiningOp<arith::SubFOp>();
    auto bcast = sub ? sub.getRhs().getDefiningOp<BroadcastOp>() : nullptr;
    if (!t || !isa_and_nonnull<MmaLayoutAttr>(t.getEncoding()) || !bcast)
      return op.emitError() << "unsupported: " << kFusedExponentAttrName
                            << " on " << op.getType()
                            << " (expected (x − attn.broadcast m)·c on an "
                               "#attn.mma tile)";
    Value x = rewriter.getRemappedValue(sub.getLhs());
    Value mElems = rewriter.getRemappedValue(bcast.getResult());
    Value mRows = rewriter.getRemappedValue(bcast.getInput());
    Value cElems = adaptor.getRhs();
    if (!x || !mElems || !mRows || !isa<VectorType>(x.getType()) ||
        !isa<VectorType>(mElems.getType()) ||
        !isa<VectorType>(mRows.getType()) || !isa<VectorType>(cElems.getType()))
      return rewriter.notifyMatchFailure(op, "operands not converted");
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    // c is a splat: every element holds it.
    Value c = e.extract(cElems, 0);
    auto rowsTy = cast<VectorType>(mRows.getType());
    // all(|m_r·c| <= 2^12) over the thread's rows (ordered: NaN fails).
    Value limit = arith::ConstantOp::create(
        rewriter, loc, rowsTy,
        DenseElementsAttr::get(rowsTy, rewriter.getF32FloatAttr(4096.0f)));
    Value cRows = vector::BroadcastOp::create(rewriter, loc, rowsTy, c);
    Value mc = arith::MulFOp::create(rewriter, loc, mRows, cRows);
    // −2^12 <= m·c <= 2^12 as two comparisons: an absolute value would
    // become a libdevice call, and the kernel must not depend on libdevice.
    Value negLimit = arith::NegFOp::create(rewriter, loc, limit);
    Value small = arith::AndIOp::create(
        rewriter, loc,
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OLE, mc,
                              limit),
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OGE, mc,
                              negLimit));
    Value fused = vector::ReductionOp::create(
        rewriter, loc, vector::CombiningKind::AND, small);
    auto vt = cast<VectorType>(x.getType());
    auto fm = op.getFastmathAttr();
    // −(m·c): the same row's m is one value, so one product a row.
    auto negProduct = [&](OpBuilder &b, Location l, Value mi) -> Value {
      return arith::NegFOp::create(b, l,
                                   arith::MulFOp::create(b, l, mi, c, fm));
    };
    // Scalar operations per element in each branch: LLVM would speculate a
    // single vector instruction out of it. yieldEach(f) yields the vector
    // of f(i) over the thread's elements.
    auto yieldEach = [&](OpBuilder &b, Location l,
                         function_ref<Value(Emitter &, int64_t)> f) {
      Emitter be(b, l);
      SmallVector<Value> out;
      for (int64_t i = 0; i < vt.getNumElements(); ++i)
        out.push_back(f(be, i));
      scf::YieldOp::create(b, l, be.fromElements(vt, out));
    };
    // x − m, element i.
    auto shiftedBy = [&](Emitter &be, int64_t i) -> Value {
      return arith::SubFOp::create(be.b, be.loc, be.extract(x, i),
                                   be.extract(mElems, i), fm);
    };
    if (!cast<MmaLayoutAttr>(t.getEncoding()).isWarpgroup()) {
      auto ifOp = scf::IfOp::create(
          rewriter, loc, fused,
          [&](OpBuilder &b, Location l) {
            yieldEach(b, l, [&](Emitter &be, int64_t i) {
              return be.fma(be.extract(x, i), c,
                            negProduct(b, l, be.extract(mElems, i)));
            });
          },
          [&](OpBuilder &b, Location l) {
            yieldEach(b, l, [&](Emitter &be, int64_t i) -> Value {
              return arith::MulFOp::create(b, l, shiftedBy(be, i), c, fm);
            });
          });
      rewriter.replaceOp(op, ifOp.getResults());
      return success();
    }
    // Warpgroup tiles: the rare threads' x − m in the branch, the FFMAs
    // after it.
    Value exact = arith::XOrIOp::create(
        rewriter, loc, fused,
        arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true)));
    auto ifOp = scf::IfOp::create(
        rewriter, loc, exact,
        [&](OpBuilder &b, Location l) { yieldEach(b, l, shiftedBy); },
        [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, x); });
    Value shifted = ifOp.getResult(0);
    // off = −(m·c) on the fused path, 0 on the exact one.
    Value zero = e.cf(0.0f);
    SmallVector<Value> out;
    for (int64_t i = 0; i < vt.getNumElements(); ++i) {
      Value off = arith::SelectOp::create(
          rewriter, loc, fused, negProduct(rewriter, loc, e.extract(mElems, i)),
          zero);
      out.push_back(e.fma(e.extract(shifted, i), c, off));
    }
    rewriter.replaceOp(op, e.fromElements(vt, out));
    return success();
  }
};

template <typename OpTy>
struct RegisterPattern : public OpConversionPattern<OpTy> {
  RegisterPattern(TileTypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern<OpTy>(tc, ctx) {}
};

struct ReduceLowering : public RegisterPattern<ReduceOp> {
  using RegisterPattern::RegisterPattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto out = cast<RankedTensorType>(op.getType());
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(in.getEncoding());
    auto slice = dyn_cast_or_null<SliceLayoutAttr>(out.getEncoding());
    bool groups = out.getRank() == 2 && out.getEncoding() == mma &&
                  out.getDimSize(1) % 8 == 0;
    if (!mma || !(groups ||
                  (slice && slice.getParent() == mma && !slice.isPerColumn())))
      return op.emitError()
             << "unsupported: attn.reduce from " << in << " to " << out
             << " (the GPU lowering reduces #attn.mma rows into their "
                "#attn.slice, or into column groups of whole n-tiles in "
                "the same #attn.mma)";
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    bool isMax = op.getKind() == ReduceKind::Max;
    auto combine = [&](Value x, Value y) -> Value {
      // maxnum (max.f32): scores are finite or -inf, never NaN. As the
      // LLVM intrinsic: arith.maxnumf would become a libdevice call, and
      // the kernel must not depend on finding libdevice.
      if (isMax)
        return LLVM::MaxNumOp::create(rewriter, loc, x, y);
      return arith::AddFOp::create(rewriter, loc, x, y);
    };
    int64_t MT = mma.getMTiles(in.getDimSize(0)), NT = in.getDimSize(1) / 8;
    Value v = adaptor.getInput();
    if (groups) {
      // Column groups of whole n-tiles: element (t, n', e) of the result
      // folds the thread's elements (t, n' + G·k, e), G = W / 8 n-tiles per
      // group. All in-thread: no shuffles.
      int64_t G = out.getDimSize(1) / 8;
      SmallVector<Value> parts;
      for (int64_t t = 0; t < MT; ++t)
        for (int64_t n0 = 0; n0 < G; ++n0)
          for (int64_t el = 0; el < 4; ++el) {
            Value acc;
            for (int64_t n = n0; n < NT; n += G) {
              Value x = e.extract(v, (t * NT + n) * 4 + el);
              acc = acc ? combine(acc, x) : x;
            }
            parts.push_back(acc);
          }
      rewriter.replaceOp(
          op, e.fromElements(getTypeConverter()->convertType(out), parts));
      return success();
    }
    SmallVector<Value> rows;
    for (int64_t t = 0; t < MT; ++t)
      for (int64_t h = 0; h < 2; ++h) {
        // In-thread: the thread's 2·NT elements of row (t, h), folded as a
        // balanced tree (depth log2(2·NT) instead of a chain of 2·NT − 1
        // dependent instructions: the row max sits between the Q·Kᵀ wait
        // and the exponentials).
        SmallVector<Value> xs;
        for (int64_t n = 0; n < NT; ++n)
          for (int64_t el = 0; el < 2; ++el)
            xs.push_back(e.extract(v, (t * NT + n) * 4 + 2 * h + el));
        while (xs.size() > 1) {
          SmallVector<Value> next;
          for (size_t i = 0; i + 1 < xs.size(); i += 2)
            next.push_back(combine(xs[i], xs[i + 1]));
          if (xs.size() % 2)
            next.push_back(xs.back());
          xs = std::move(next);
        }
        Value acc = xs.front();
        // Across the quad: lanes 4g .. 4g+3 hold the row's other columns.
        for (int64_t off : {1, 2}) {
          Value o = NVVM::ShflOp::create(rewriter, loc, e.f32(), e.c32(-1), acc,
                                         e.c32(off), e.c32(0x1f),
                                         NVVM::ShflKind::bfly, UnitAttr());
          acc = combine(acc, o);
        }
        rows.push_back(acc);
      }
    rewriter.replaceOp(
        op, e.fromElements(getTypeConverter()->convertType(out), rows));
    return success();
  }
};

struct BroadcastLowering : public RegisterPattern<BroadcastOp> {
  using RegisterPattern::RegisterPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto out = cast<RankedTensorType>(op.getType());
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(out.getEncoding());
    auto slice = dyn_cast_or_null<SliceLayoutAttr>(in.getEncoding());
    if (!mma || !slice || slice.getParent() != mma ||
        slice.isPerColumn() != op.getPerColumn())
      return op.emitError() << "unsupported: attn.broadcast"
                            << (op.getPerColumn() ? " {per_column}" : "")
                            << " from " << in << " to " << out;
    // Element i of the thread (m-tile t, n-tile nt, e) takes its row's value,
    // slice element 2·t + e/2, or with per_column its column's, slice
    // element 2·nt + e%2.
    int64_t NT = out.getDimSize(1) / 8;
    int64_t n = mma.getElementsPerThread(out.getShape());
    SmallVector<int64_t> mask;
    for (int64_t i = 0; i < n; ++i) {
      int64_t t = i / 4 / NT, nt = (i / 4) % NT, el = i % 4;
      mask.push_back(op.getPerColumn() ? 2 * nt + el % 2 : 2 * t + el / 2);
    }
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(op, adaptor.getInput(),
                                                   adaptor.getInput(), mask);
    return success();
  }
};

struct MaskLowering : public RegisterPattern<MaskOp> {
  using RegisterPattern::RegisterPattern;
  LogicalResult
  matchAndRewrite(MaskOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<RankedTensorType>(op.getType());
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(t.getEncoding());
    if (!mma)
      return op.emitError() << "unsupported: attn.mask on " << t;
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    MmaCoords c = MmaCoords::get(e, mma, t.getDimSize(0));
    int64_t NT = t.getDimSize(1) / 8;
    int64_t n = mma.getElementsPerThread(t.getShape());
    // Each element's query and key offsets from the thread's bases: its row
    // and column, or with `transposed` (keys along the rows) its column and
    // row.
    const bool tr = op.getTransposed();
    SmallVector<int32_t> qOff, kOff;
    for (int64_t i = 0; i < n; ++i) {
      int32_t row = MmaCoords::rowOffset(i, NT),
              col = MmaCoords::colOffset(i, NT);
      qOff.push_back(tr ? col : row);
      kOff.push_back(tr ? row : col);
    }
    auto vi = VectorType::get({n}, e.i32());
    auto splat = [&](Value s) {
      return vector::BroadcastOp::create(rewriter, loc, vi, s).getResult();
    };
    auto constVec = [&](ArrayRef<int32_t> v) {
      return arith::ConstantOp::create(rewriter, loc, vi,
                                       DenseIntElementsAttr::get(vi, v))
          .getResult();
    };
    // Element i of the thread sits at qi = qBase + qOff[i] and
    // kj = kBase + kOff[i], with (rows, columns) based at warp row + g and
    // 2q: qBase = q_start + warp row + g and kBase = kv_start + 2q (swapped
    // when transposed). Both tests move the thread's scalars to one side, so
    // each element compares a compile-time constant against a scalar (an
    // immediate operand): no per-element row or column register lives
    // through the key/value loop.
    //   kj >= kv_len                  <=>  kOff[i] >= kv_len − kBase
    // (One op per statement: argument evaluation order is the compiler's.)
    Value rowBase = e.add(c.warpRow0, c.g);
    Value colBase = e.mul(c.q, e.c32(2));
    Value qStart = e.to32(adaptor.getQStart());
    Value qBase = e.add(qStart, tr ? colBase : rowBase);
    Value kvStart = e.to32(adaptor.getKvStart());
    Value kBase = e.add(kvStart, tr ? rowBase : colBase);
    Value kvLen = e.to32(adaptor.getKvLen());
    Value colsLeft = splat(e.sub(kvLen, kBase));
    Value colConst = constVec(kOff);
    Value hidden = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::sge, colConst, colsLeft);
    // The window's bounds, -1 for none (causal: R = 0).
    int64_t left = op.getWindowLeft().value_or(-1);
    int64_t right = op.getCausal() ? 0 : op.getWindowRight().value_or(-1);
    if ((left >= 0 || right >= 0) && adaptor.getGroup()) {
      if (tr)
        return op.emitError("unsupported: attn.mask with group on a "
                            "transposed tile");
      // Packed (position, head) rows: row r's position is (q_start + r) / G,
      // one scalar per distinct row of the thread (its m-tiles' two rows
      // each). Key kj is visible iff pos − L <= kj − (kv_len − q_len) <=
      // pos + R, i.e. with a_r = pos_r + (kv_len − q_len) − kBase hidden iff
      //   kOff[i] > a_r + R  or  kOff[i] < a_r − L.
      Value group = e.to32(adaptor.getGroup());
      Value diag = e.sub(kvLen, e.to32(adaptor.getQLen()));
      DenseMap<int32_t, Value> aOfRow;
      SmallVector<Value> upper, lower;
      for (int64_t i = 0; i < n; ++i) {
        Value &a = aOfRow[qOff[i]];
        if (!a) {
          Value row = e.add(qBase, e.c32(qOff[i]));
          Value pos = e.udiv(row, group);
          a = e.sub(e.add(pos, diag), kBase);
        }
        if (right >= 0)
          upper.push_back(right ? e.add(a, e.c32(int32_t(right))) : a);
        if (left >= 0)
          lower.push_back(e.sub(a, e.c32(int32_t(left))));
      }
      Value colConstK = constVec(kOff);
      if (right >= 0) {
        Value bound = vector::FromElementsOp::create(rewriter, loc, vi, upper);
        Value future = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::sgt, colConstK, bound);
        hidden = arith::OrIOp::create(rewriter, loc, hidden, future);
      }
      if (left >= 0) {
        Value bound = vector::FromElementsOp::create(rewriter, loc, vi, lower);
        Value past = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::slt, colConstK, bound);
        hidden = arith::OrIOp::create(rewriter, loc, hidden, past);
      }
    } else if (left >= 0 || right >= 0) {
      // Bottom-right aligned: key kj is visible to query qi iff
      //   qi + (kv_len − q_len) − L <= kj <= qi + (kv_len − q_len) + R,
      // i.e. with a = qBase + (kv_len − q_len) − kBase hidden iff
      //   kOff[i] − qOff[i] > a + R  or  kOff[i] − qOff[i] < a − L.
      SmallVector<int32_t> diff;
      for (int64_t i = 0; i < n; ++i)
        diff.push_back(kOff[i] - qOff[i]);
      Value diag = e.sub(kvLen, e.to32(adaptor.getQLen()));
      Value a = e.sub(e.add(qBase, diag), kBase);
      Value diffConst = constVec(diff);
      if (right >= 0) {
        Value bound = splat(right ? e.add(a, e.c32(int32_t(right))) : a);
        Value future = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::sgt, diffConst, bound);
        hidden = arith::OrIOp::create(rewriter, loc, hidden, future);
      }
      if (left >= 0) {
        Value bound = splat(e.sub(a, e.c32(int32_t(left))));
        Value past = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::slt, diffConst, bound);
        hidden = arith::OrIOp::create(rewriter, loc, hidden, past);
      }
    }
    auto vf = VectorType::get({n}, e.f32());
    Value ninf = arith::ConstantOp::create(
        rewriter, loc, vf,
        DenseElementsAttr::get(
            vf,
            rewriter.getF32FloatAttr(-std::numeric_limits<float>::infinity())));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, hidden, ninf,
                                                 adaptor.getScores());
    return success();
  }
};

/// attn.iota: element i of the thread holds start + (row or column of i),
/// i.e. a per-thread scalar base (start + warp row + g, or start + 2q) plus
/// the element's constant offset in the layout. A 1-d iota in a #attn.slice
/// layout holds the positions of the rows (or with dim = 1 the columns) the
/// thread holds of the parent tile, in the slice's order.
struct IotaLowering : public RegisterPattern<IotaOp> {
  using RegisterPattern::RegisterPattern;
  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<RankedTensorType>(op.getType());
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(t.getEncoding());
    auto slice = dyn_cast_or_null<SliceLayoutAttr>(t.getEncoding());
    if (!mma && !slice)
      return op.emitError() << "unsupported: attn.iota on " << t;
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    SmallVector<int32_t> offsets;
    bool rows;
    MmaCoords c;
    if (slice) {
      // Slice element i: row 16·(i / 2) + 8·(i % 2) (+ warp row + g), or
      // column 8·(i / 2) + i % 2 (+ 2·q).
      mma = slice.getParent();
      rows = !slice.isPerColumn();
      int64_t len = t.getDimSize(0);
      c = MmaCoords::get(e, mma, rows ? len : 16 * mma.getWarps());
      for (int64_t i = 0; i < slice.getElementsPerThread(len); ++i)
        offsets.push_back(rows ? MmaCoords::sliceRowOffset(i)
                               : 8 * (i / 2) + i % 2);
    } else {
      c = MmaCoords::get(e, mma, t.getDimSize(0));
      int64_t NT = t.getDimSize(1) / 8;
      rows = op.getDim() == 0;
      for (int64_t i = 0; i < mma.getElementsPerThread(t.getShape()); ++i)
        offsets.push_back(rows ? MmaCoords::rowOffset(i, NT)
                               : MmaCoords::colOffset(i, NT));
    }
    auto n = static_cast<int64_t>(offsets.size());
    Value start = e.to32(adaptor.getStart());
    Value base = rows ? e.add(start, e.add(c.warpRow0, c.g))
                      : e.add(start, e.mul(c.q, e.c32(2)));
    auto vi = VectorType::get({n}, e.i32());
    Value offs = arith::ConstantOp::create(
        rewriter, loc, vi, DenseIntElementsAttr::get(vi, offsets));
    Value pos = arith::AddIOp::create(
        rewriter, loc, vector::BroadcastOp::create(rewriter, loc, vi, base),
        offs);
    // clamp(n): min(pos, n − 1).
    if (Value n = adaptor.getClamp())
      pos = arith::MinSIOp::create(
          rewriter, loc, pos,
          vector::BroadcastOp::create(rewriter, loc, vi,
                                      e.sub(e.to32(n), e.c32(1))));
    rewriter.replaceOp(op, pos);
    return success();
  }
};

/// attn.random on an mma/wgmma accumulator layout. The thread's eight
/// elements of m-tile t and n-tiles 2·u + s (s = 0, 1) sit at rows i0,
/// i0 + 8 and columns j0 + 8·s, j0 + 8·s + 1 with i0 = q_start + warp row +
/// 16·t + g and j0 = kv_start + 16·u + 2·q: with q_start and kv_start
/// ≡ 0 (mod 16) (the op's GPU precondition) they share the counter
///   (4·(j0 >> 4) + ((j0 >> 1) & 3), 8·(i0 >> 4) + (i0 & 7), stream, offset)
///   = ((kv_start >> 2) + q + 4·u, (q_start + warp row) / 2 + g + 8·t, ..)
/// and element e of n-tile 2·u + s takes word e, s ? w : w << 16: one
/// Philox call per eight elements.
struct RandomLowering : public RegisterPattern<RandomOp> {
  using RegisterPattern::RegisterPattern;
  LogicalResult
  matchAndRewrite(RandomOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<RankedTensorType>(op.getType());
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(t.getEncoding());
    if (!mma)
      return op.emitError() << "unsupported: attn.random on " << t;
    if (t.getDimSize(1) % 16)
      return op.emitError()
             << "unsupported: attn.random on " << t
             << " (the GPU lowering pairs n-tiles: columns a multiple of 16)";
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    MmaCoords c = MmaCoords::get(e, mma, t.getDimSize(0));
    int64_t NT = t.getDimSize(1) / 8;
    int64_t n = mma.getElementsPerThread(t.getShape());
    auto [k0, k1] = philoxKey(rewriter, loc, adaptor.getSeed());
    // One statement per op: the IR's order must not depend on the host
    // compiler's argument evaluation order.
    Value qStart = e.to32(adaptor.getQStart());
    Value rows = e.add(qStart, c.warpRow0);
    Value rowHalf = arith::ShRUIOp::create(rewriter, loc, rows, e.c32(1));
    Value c1Base = e.add(rowHalf, c.g);
    Value kvStart = e.to32(adaptor.getKvStart());
    Value kvQuarter = arith::ShRUIOp::create(rewriter, loc, kvStart, e.c32(2));
    Value c0Base = e.add(kvQuarter, c.q);
    Value half = e.c32(::attn::kDropoutBits);
    SmallVector<std::pair<Value, Value>> keys;
    SmallVector<Value> elems(static_cast<size_t>(n));
    if (op.getTransposed()) {
      lowerTransposed(op, adaptor, rewriter, e, c, NT, n, k0, k1, elems);
      auto vt = VectorType::get({n}, e.i32());
      rewriter.replaceOp(op, e.fromElements(vt, elems));
      return success();
    }
    for (int64_t mt = 0; mt < n / 4 / NT; ++mt)
      for (int64_t u = 0; u < NT / 2; ++u) {
        Value c0 = e.add(c0Base, e.c32(4 * u));
        Value c1 = e.add(c1Base, e.c32(8 * mt));
        std::array<Value, 4> w = emitPhilox(
            rewriter, loc, {c0, c1, adaptor.getStream(), adaptor.getOffset()},
            k0, k1, keys);
        for (int64_t el = 0; el < 4; ++el) {
          // Element el of n-tile 2u (lower half) and of 2u + 1 (upper).
          int64_t lo = 4 * (mt * NT + 2 * u) + el, hi = lo + 4;
          elems[size_t(lo)] =
              arith::ShLIOp::create(rewriter, loc, w[size_t(el)], half);
          elems[size_t(hi)] = w[size_t(el)];
        }
      }
    auto vt = VectorType::get({n}, e.i32());
    rewriter.replaceOp(op, e.fromElements(vt, elems));
    return success();
  }

  /// Transposed (rows are keys j, columns queries i: the backward's
  /// key-major tiles). Element el = 2·hr + cb of n-tile nt = 2·u + s in
  /// m-tile mt is key j = kv_start + warp row + 16·mt + g + 8·hr and query
  /// i = q_start + 8·nt + 2·q + cb; with both starts ≡ 0 (mod 16) its
  /// counter is
  ///   (4·(j >> 4) + ((j >> 1) & 3), 8·(i >> 4) + (i & 7), stream, offset)
  ///   = ((kv_start + warp row) / 4 + 4·mt + g / 2,
  ///      q_start / 2 + 8·u + 2·q + cb, ..),
  /// its word 2·s + (g & 1) and its half hr ? w : w << 16. A thread holds
  /// the keys of one parity (g & 1) and needs the calls of both columns cb;
  /// the lane of the other parity (lane ^ 4: same q, same g / 2, so the
  /// same calls) needs the other words of the same two calls. So each lane
  /// makes the call of column cb = g & 1, keeps its words 2·s + (g & 1)
  /// and swaps the words 2·s + 1 − (g & 1) with its partner (one shuffle
  /// per word kept): one call per eight elements, as query-major tiles.
  static void lowerTransposed(RandomOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter, Emitter &e,
                              const MmaCoords &c, int64_t NT, int64_t n,
                              Value k0, Value k1,
                              SmallVectorImpl<Value> &elems) {
    Location loc = op.getLoc();
    Value kvStart = e.to32(adaptor.getKvStart());
    Value keyRows = e.add(kvStart, c.warpRow0);
    Value keyQuarter = arith::ShRUIOp::create(rewriter, loc, keyRows, e.c32(2));
    Value gHalf = arith::ShRUIOp::create(rewriter, loc, c.g, e.c32(1));
    Value c0Base = e.add(keyQuarter, gHalf);
    Value qStart = e.to32(adaptor.getQStart());
    Value qHalf = arith::ShRUIOp::create(rewriter, loc, qStart, e.c32(1));
    Value q2 = arith::ShLIOp::create(rewriter, loc, c.q, e.c32(1));
    Value gBit = arith::AndIOp::create(rewriter, loc, c.g, e.c32(1));
    Value gOdd = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                       gBit, e.c32(0));
    // The call of this lane's column cb = g & 1.
    Value c1Cols = e.add(qHalf, q2);
    Value c1Base = e.add(c1Cols, gBit);
    Value half = e.c32(::attn::kDropoutBits);
    // (One op a statement: the IR's order must not depend on the host
    // compiler's argument evaluation order.)
    Value allLanes = e.c32(-1);
    Value partnerLane = e.c32(4);
    Value clamp = e.c32(0x1f);
    SmallVector<std::pair<Value, Value>> keys;
    for (int64_t mt = 0; mt < n / 4 / NT; ++mt)
      for (int64_t u = 0; u < NT / 2; ++u) {
        Value c0 = e.add(c0Base, e.c32(4 * mt));
        Value c1 = e.add(c1Base, e.c32(8 * u));
        std::array<Value, 4> w = emitPhilox(
            rewriter, loc, {c0, c1, adaptor.getStream(), adaptor.getOffset()},
            k0, k1, keys);
        for (int64_t s = 0; s < 2; ++s) {
          Value even = w[size_t(2 * s)], odd = w[size_t(2 * s + 1)];
          // Mine: word 2·s + (g & 1); the partner's: 2·s + 1 − (g & 1).
          Value mine = arith::SelectOp::create(rewriter, loc, gOdd, odd, even);
          Value theirs =
              arith::SelectOp::create(rewriter, loc, gOdd, even, odd);
          // The partner's call is this lane's other column's: it sends
          // this lane's parity of it.
          Value other = NVVM::ShflOp::create(rewriter, loc, e.i32(), allLanes,
                                             theirs, partnerLane, clamp,
                                             NVVM::ShflKind::bfly, UnitAttr());
          // Column 0 is this lane's call where g is even, else the
          // partner's.
          Value col0 =
              arith::SelectOp::create(rewriter, loc, gOdd, other, mine);
          Value col1 =
              arith::SelectOp::create(rewriter, loc, gOdd, mine, other);
          int64_t base = 4 * (mt * NT + 2 * u + s);
          for (auto [cb, word] : {std::pair<int64_t, Value>{0, col0},
                                  std::pair<int64_t, Value>{1, col1}}) {
            elems[size_t(base + cb)] =
                arith::ShLIOp::create(rewriter, loc, word, half);
            elems[size_t(base + cb + 2)] = word;
          }
        }
      }
  }
};

/// attn.gather: element i of the thread loads source[idx_0[i], ...]; the
/// scalar indices' part of the address is computed once, each tile index
/// adds idx[i]·stride (64-bit). Elements with equal indices (a row's
/// positions repeat along the row) load the same address, which LLVM
/// merges.
struct GatherLowering : public RegisterPattern<GatherOp> {
  using RegisterPattern::RegisterPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<RankedTensorType>(op.getType());
    if (!isa_and_nonnull<MmaLayoutAttr>(t.getEncoding()))
      return op.emitError() << "unsupported: attn.gather into " << t;
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    auto vt = cast<VectorType>(getTypeConverter()->convertType(t));
    Value source = adaptor.getSource();
    Type et = t.getElementType();
    GlobalMemref m = globalMemref(e, source);
    // The scalar indices and the memref's offset: one base a thread.
    Value off = m.offset;
    SmallVector<std::pair<Value, Value>> perElement; // (i32 vector, stride)
    for (auto [k, idx] : llvm::enumerate(adaptor.getIndices())) {
      Value stride = m.strides[k];
      if (isa<VectorType>(idx.getType()))
        perElement.push_back({idx, stride});
      else
        off = e.add(off, e.mul(e.to64(idx), stride));
    }
    Value base = e.gep(e.gptr(), et, m.ptr, off);
    SmallVector<Value> elems;
    for (int64_t i = 0; i < vt.getNumElements(); ++i) {
      Value ptrI = base;
      for (auto [v, stride] : perElement) {
        Value x = arith::ExtSIOp::create(rewriter, loc, rewriter.getI64Type(),
                                         e.extract(v, i));
        ptrI = e.gep(e.gptr(), et, ptrI, e.mul(x, stride));
      }
      elems.push_back(LLVM::LoadOp::create(rewriter, loc, et, ptrI));
    }
    rewriter.replaceOp(op, e.fromElements(vt, elems));
    return success();
  }
};

} // namespace

void mlir::attn::gpu_lowering::populateRegisterOpPatterns(
    TileTypeConverter &tc, const KernelInfo &, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ElementwiseLowering, ReduceLowering, BroadcastLowering,
               MaskLowering, IotaLowering, GatherLowering, RandomLowering,
               RowScaleLowering, FusedExponentLowering, TruncFToFp8Lowering>(
      tc, ctx);
}
