//===- VectorizeCPUTiles.cpp - the CPU path's tiles as vector code -------===//
//
// convert-attn-to-linalg leaves the tile program as linalg ops on static
// tiles (Br×Bc scores, Br×D accumulator). Lowered to loops they run one
// scalar at a time (about 1 GFLOP/s). This pass gives them the shape of a
// CPU kernel, from the same ops:
//
//   1. elementwise chains fuse into one op per tile (S − broadcast(m), ·c,
//      exp2 read S once and write P once);
//   2. a contraction C[m,n] += A[m,k]·B[k,n] is tiled to register tiles
//      TM×TN (k stepped by TK) and each tile becomes vector.contract →
//      outer products → FMAs; with TM×TN = 4×16 f32 the accumulator is 8
//      AVX2 registers, and every k step loads 2 B vectors and broadcasts 4
//      A scalars. S = Q·Kᵀ reads B as [n, k]: K is transposed once per block
//      (8×8 tiles, shuffles) so that the micro-tiles read rows;
//   3. everything else (row max/sum, the fused softmax steps, α·A) is tiled
//      to one row and vectorised along it;
//   4. exp2/exp on vectors become polynomial approximations: exp2(x) =
//      exp(x·ln 2), exp by range reduction and a polynomial (FMAs, no libm
//      call per element).
//
//===----------------------------------------------------------------------===//
#include "CPUContractions.h"
#include "attn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorTransforms.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <functional>

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNVECTORIZECPUTILES
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

/// A static-shaped 3-loop contraction (m, n parallel; k reduction) whose
/// operands are A[m,k], B[k,n] or B[n,k] (transposed), C[m,n].
struct Contraction {
  linalg::GenericOp op;
  bool rhsTransposed;
};

std::optional<Contraction> asContraction(linalg::GenericOp g) {
  if (!linalg::isaContractionOpInterface(g) || !g.hasPureTensorSemantics() ||
      g.hasDynamicShape())
    return std::nullopt;
  if (std::optional<bool> transposed = matmulRhsTransposed(g))
    return Contraction{g, *transposed};
  return std::nullopt;
}

/// Whether the contraction takes the pair-interleaved bf16 products (AMX
/// tiles or vdpbf16ps, attn-lower-cpu-bf16-contractions): bf16 operands, an f32
/// accumulator, M and N multiples of 16 (tile rows and f32 columns), K of 32 (a
/// bf16 tile row).
bool takesPairedProducts(const Contraction &c) {
  linalg::GenericOp g = c.op;
  auto type = [&](OpOperand *o) {
    return cast<RankedTensorType>(o->get().getType());
  };
  RankedTensorType a = type(g.getDpsInputOperand(0));
  RankedTensorType b = type(g.getDpsInputOperand(1));
  RankedTensorType acc = type(g.getDpsInitOperand(0));
  return a.getElementType().isBF16() && b.getElementType().isBF16() &&
         acc.getElementType().isF32() && acc.getDimSize(0) % 16 == 0 &&
         acc.getDimSize(1) % 16 == 0 && a.getDimSize(1) % 32 == 0;
}

/// A narrower input tile (bf16/f16 Q, K, V or P) widened to `elem` once
/// (the op goes to `created`, to vectorise by rows): the micro-kernel then
/// runs on f32 only, instead of widening each element again for every
/// register tile that reads it — and Kᵀ is taken of f32, whose 8×8
/// shuffles the host has.
/// If `v` is `truncf(x)` to bf16 of an f32 tile x (P rounded as the tensor
/// cores take it), returns x.
Value bf16RoundedSource(Value v) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g->getNumResults() != 1 ||
      !g.hasPureTensorSemantics() ||
      !cast<RankedTensorType>(v.getType()).getElementType().isBF16() ||
      !llvm::all_of(g.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return {};
  Block &body = g.getRegion().front();
  auto tr = dyn_cast<arith::TruncFOp>(&body.front());
  auto y = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!tr || &*std::next(body.begin()) != y.getOperation() ||
      y.getOperand(0) != tr.getResult() ||
      tr.getIn() != body.getArgument(0) || !tr.getIn().getType().isF32() ||
      tr.getRoundingmodeAttr())
    return {};
  return g.getDpsInputOperand(0)->get();
}

/// extf(truncf(x)) for bf16, in f32 registers: round x to the nearest bf16
/// (ties to even) by integer ops on its bits,
///   b = bits(x);  b' = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
/// (an overflow rounds to inf, as truncf does), NaN kept as it is. On a host
/// without bf16 the bf16 tile in between would cost a call per element.
Value roundToBF16InF32(OpBuilder &b, Location l, Value x) {
  Type i32 = b.getI32Type();
  auto cst = [&](int64_t v) {
    return arith::ConstantOp::create(b, l, b.getI32IntegerAttr(v));
  };
  Value bits = arith::BitcastOp::create(b, l, i32, x);
  Value lsb = arith::AndIOp::create(
      b, l, arith::ShRUIOp::create(b, l, bits, cst(16)), cst(1));
  Value up = arith::AddIOp::create(
      b, l, bits, arith::AddIOp::create(b, l, lsb, cst(0x7FFF)));
  Value kept = arith::AndIOp::create(b, l, up, cst(int32_t(0xFFFF0000u)));
  Value rounded = arith::BitcastOp::create(b, l, x.getType(), kept);
  Value nan = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
  return arith::SelectOp::create(b, l, nan, x, rounded);
}

Value widen(RewriterBase &rw, Location loc, Value v, Type elem,
            SmallVectorImpl<linalg::LinalgOp> &created) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getElementType() == elem || !isa<FloatType>(t.getElementType()) ||
      t.getElementType().getIntOrFloatBitWidth() >=
          elem.getIntOrFloatBitWidth())
    return v;
  // One elementwise op over the tile, f32 out: the bf16 round trip of P
  // straight from its f32 source, else extf.
  Value src = v;
  std::function<Value(OpBuilder &, Location, Value)> body =
      [&](OpBuilder &b, Location l, Value x) -> Value {
    return arith::ExtFOp::create(b, l, elem, x);
  };
  if (Value x = bf16RoundedSource(v); x && elem.isF32()) {
    src = x;
    body = roundToBF16InF32;
  }
  Value init = tensor::EmptyOp::create(rw, loc, t.getShape(), elem);
  AffineMap id = rw.getMultiDimIdentityMap(t.getRank());
  auto op = linalg::GenericOp::create(
      rw, loc, init.getType(), ValueRange{src}, ValueRange{init},
      ArrayRef<AffineMap>{id, id},
      SmallVector<utils::IteratorType>(t.getRank(),
                                       utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, body(b, l, args[0]));
      });
  created.push_back(op);
  return op.getResult(0);
}

/// The contraction as linalg.matmul C += A·B (the named op vectorises
/// straight to vector.contract), its inputs widened to C's type and a
/// transposed B (S = Q·Kᵀ reads K as [n, k]) transposed once per block:
/// the register tiles then read B by rows. The transpose goes to
/// `transposes` (tiled 8×8), the widening ops to `widened`.
linalg::MatmulOp toMatmul(RewriterBase &rw, const Contraction &c,
                          SmallVectorImpl<linalg::LinalgOp> &widened,
                          SmallVectorImpl<Operation *> &transposes) {
  linalg::GenericOp g = c.op;
  rw.setInsertionPoint(g);
  Location loc = g.getLoc();
  Value acc = g.getDpsInitOperand(0)->get();
  Type elem = cast<RankedTensorType>(acc.getType()).getElementType();
  Value a = widen(rw, loc, g.getDpsInputOperand(0)->get(), elem, widened);
  Value b = widen(rw, loc, g.getDpsInputOperand(1)->get(), elem, widened);
  if (c.rhsTransposed) {
    auto bType = cast<RankedTensorType>(b.getType());
    Value init = tensor::EmptyOp::create(
        rw, loc, ArrayRef<int64_t>{bType.getDimSize(1), bType.getDimSize(0)},
        elem);
    auto t = linalg::TransposeOp::create(rw, loc, b, init,
                                         ArrayRef<int64_t>{1, 0});
    transposes.push_back(t);
    b = t->getResult(0);
  }
  auto mm = linalg::MatmulOp::create(rw, loc, g.getResultTypes(),
                                     ValueRange{a, b}, ValueRange{acc});
  rw.replaceOp(g, mm->getResults());
  return mm;
}

/// Tiles `op` with `sizes` (0: that loop is not tiled) into scf.for loops
/// and replaces it; returns the tiled op, or null if tiling failed.
Operation *tile(RewriterBase &rw, TilingInterface op,
                ArrayRef<int64_t> sizes) {
  scf::SCFTilingOptions opts;
  opts.setTileSizes(getAsIndexOpFoldResult(op.getContext(), sizes));
  opts.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
  rw.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> r = scf::tileUsingSCF(rw, op, opts);
  if (failed(r))
    return nullptr;
  rw.replaceOp(op, r->replacements);
  return r->tiledOps.empty() ? nullptr : r->tiledOps.front();
}

/// A load tile pads a block of `rows` ≤ R source rows with zeros:
///   insert_slice %src[0, 0] [rows, C] into (fill %pad : tensor<R×C>)
/// As buffers that is a fill and a strided copy through the runtime's
/// generic memrefCopy, per block. Instead, one vector row at a time:
///   row r = src[r, :] for r < rows, splat(%pad) after
/// (explicit loops: a transfer_read checks bounds only along its vector's
/// dims, and the unit row dim is dropped by later patterns).
/// The fill of a block's zero-padded load
///   insert_slice %src[0, 0] [rows, C] into (fill %pad : tensor<R×C>)
/// (static R×C, whole rows of %src), else null.
linalg::FillOp paddedLoadFill(tensor::InsertSliceOp ins) {
  auto fill = ins.getDest().getDefiningOp<linalg::FillOp>();
  RankedTensorType dst = ins.getDestType();
  RankedTensorType src = ins.getSourceType();
  if (!fill || !dst.hasStaticShape() || dst.getRank() != 2 ||
      src.getRank() != 2 || ShapedType::isDynamic(src.getDimSize(1)) ||
      src.getDimSize(1) != dst.getDimSize(1) ||
      !llvm::all_of(ins.getMixedOffsets(), isZeroInteger) ||
      !llvm::all_of(ins.getMixedStrides(), isOneInteger))
    return {};
  return fill;
}

LogicalResult vectorizePaddedLoad(RewriterBase &rw, tensor::InsertSliceOp ins) {
  linalg::FillOp fill = paddedLoadFill(ins);
  if (!fill)
    return failure();
  RankedTensorType dst = ins.getDestType();
  Location loc = ins.getLoc();
  rw.setInsertionPoint(ins);
  int64_t rows = dst.getDimSize(0), cols = dst.getDimSize(1);
  Value c0 = arith::ConstantIndexOp::create(rw, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(rw, loc, 1);
  Value cR = arith::ConstantIndexOp::create(rw, loc, rows);
  Value init = tensor::EmptyOp::create(rw, loc, dst.getShape(),
                                       dst.getElementType());
  auto rowType = VectorType::get({cols}, dst.getElementType());
  Value pad = fill.getDpsInputOperand(0)->get();
  Value valid = tensor::DimOp::create(rw, loc, ins.getSource(), 0);
  // Rows [0, valid) from the source, rows [valid, R) the pad: two loops, so
  // that no value selects between the two (a bf16 vector phi or select is
  // promoted to f32 by LLVM on hosts without bf16, with a call per element).
  auto copy = scf::ForOp::create(
      rw, loc, c0, valid, c1, ValueRange{init},
      [&](OpBuilder &b, Location l, Value r, ValueRange args) {
        Value v = vector::TransferReadOp::create(
            b, l, rowType, ins.getSource(), ValueRange{r, c0}, pad,
            ArrayRef<bool>{true});
        Value t = vector::TransferWriteOp::create(b, l, v, args[0],
                                                  ValueRange{r, c0},
                                                  ArrayRef<bool>{true})
                      .getResult();
        scf::YieldOp::create(b, l, t);
      });
  auto loop = scf::ForOp::create(
      rw, loc, valid, cR, c1, ValueRange{copy.getResult(0)},
      [&](OpBuilder &b, Location l, Value r, ValueRange args) {
        Value v = vector::BroadcastOp::create(b, l, rowType, pad);
        Value t = vector::TransferWriteOp::create(b, l, v, args[0],
                                                  ValueRange{r, c0},
                                                  ArrayRef<bool>{true})
                      .getResult();
        scf::YieldOp::create(b, l, t);
      });
  rw.replaceOp(ins, loop.getResults());
  return success();
}

/// A tile store writes the first `rows` rows of a tile into a strided view
/// of the output:
///   materialize_in_destination (extract_slice %tile[0, 0] [rows, C]) in %view
/// As buffers that is a memref.copy of a dynamic-shaped strided view, which
/// finalize-memref-to-llvm turns into a call of the runtime's generic
/// element-by-element memrefCopy (2% of an f32 D = 128 kernel's time).
/// Instead, one vector row at a time:
///   for r < rows: %view[r, :] = %tile[r, :]
LogicalResult vectorizeTileStore(RewriterBase &rw,
                                 bufferization::MaterializeInDestinationOp st) {
  auto slice = st.getSource().getDefiningOp<tensor::ExtractSliceOp>();
  auto view = dyn_cast<TypedValue<MemRefType>>(st.getDest());
  if (!slice || !view || view.getType().getRank() != 2)
    return failure();
  RankedTensorType tile = slice.getSourceType();
  if (!tile.hasStaticShape() || tile.getRank() != 2 ||
      slice.getResultType().getRank() != 2)
    return failure();
  int64_t cols = tile.getDimSize(1);
  if (slice.getResultType().getDimSize(1) != cols ||
      view.getType().getDimSize(1) != cols ||
      !llvm::all_of(slice.getMixedOffsets(), isZeroInteger) ||
      !llvm::all_of(slice.getMixedStrides(), isOneInteger))
    return failure();
  Location loc = st.getLoc();
  rw.setInsertionPoint(st);
  Value c0 = arith::ConstantIndexOp::create(rw, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(rw, loc, 1);
  Value rows = tensor::DimOp::create(rw, loc, slice.getResult(), 0);
  auto rowType = VectorType::get({cols}, tile.getElementType());
  Value pad =
      arith::ConstantOp::create(rw, loc, rw.getZeroAttr(tile.getElementType()));
  scf::ForOp::create(rw, loc, c0, rows, c1, ValueRange{},
                     [&](OpBuilder &b, Location l, Value r, ValueRange) {
                       Value v = vector::TransferReadOp::create(
                           b, l, rowType, slice.getSource(), ValueRange{r, c0},
                           pad, ArrayRef<bool>{true});
                       vector::TransferWriteOp::create(b, l, v, view,
                                                       ValueRange{r, c0},
                                                       ArrayRef<bool>{true});
                       scf::YieldOp::create(b, l);
                     });
  rw.eraseOp(st);
  return success();
}

/// exp2 on f32 vectors of a multiple of 16 lanes with AVX-512's vscalefps,
/// 16 lanes at a time:
///   n = roundeven(x),  f = x − n ∈ [−½, ½]
///   2^f ≈ 1 + f·P(f)   (Cephes' exp2f polynomial, degree 6, rel. error
///                        below 2e-7: six FMAs)
///   exp2(x) = scalef(2^f, n) = 2^f · 2^n
/// vscalefps takes the exponent as a float and gets the ends right with no
/// clamp: n = −inf or far below −126 gives 0 (denormals on the way), +inf
/// or above 128 gives inf, NaN gives NaN. For x = ±inf, f = x − n is NaN
/// and is replaced by 0 (2^0 = 1, then scaled by ±inf); NaN x keeps n NaN.
/// 11 instructions a vector where the generic expansion (exp(x·ln 2), the
/// range reduction with NaN-preserving clamps) takes ~25.
struct Exp2ViaScaleF : public OpRewritePattern<math::Exp2Op> {
  Exp2ViaScaleF(MLIRContext *ctx)
      : OpRewritePattern<math::Exp2Op>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rw) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || !type.getElementType().isF32() || type.isScalable() ||
        type.getNumElements() % 16 != 0)
      return failure();
    Location loc = op.getLoc();
    int64_t total = type.getNumElements();
    auto flat = VectorType::get({total}, rw.getF32Type());
    auto lanes = VectorType::get({16}, rw.getF32Type());
    auto splat = [&](double v) {
      return arith::ConstantOp::create(
          rw, loc, lanes, DenseElementsAttr::get(lanes, rw.getF32FloatAttr(v)));
    };
    // Cephes exp2f: 2^f = 1 + f·(((((c0·f + c1)·f + c2)·f + c3)·f + c4)·f +
    // c5).
    const double coeffs[] = {1.535336188319500e-4, 1.339887440266574e-3,
                             9.618437357674640e-3, 5.550332471162809e-2,
                             2.402264791363012e-1, 6.931472028550421e-1};
    Value zero = splat(0.0), one = splat(1.0);
    Value allLanes =
        arith::ConstantOp::create(rw, loc, rw.getI16IntegerAttr(-1));
    // _MM_FROUND_CUR_DIRECTION: the rounding of MXCSR (nearest even).
    Value curDirection =
        arith::ConstantOp::create(rw, loc, rw.getI32IntegerAttr(4));
    Value x = vector::ShapeCastOp::create(rw, loc, flat, op.getOperand());
    Value result = arith::ConstantOp::create(
        rw, loc, flat, DenseElementsAttr::get(flat, rw.getF32FloatAttr(0.0)));
    for (int64_t at = 0; at < total; at += 16) {
      Value v = vector::ExtractStridedSliceOp::create(
          rw, loc, x, ArrayRef<int64_t>{at}, ArrayRef<int64_t>{16},
          ArrayRef<int64_t>{1});
      Value n = math::RoundEvenOp::create(rw, loc, v);
      Value f = arith::SubFOp::create(rw, loc, v, n);
      Value finite =
          arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::ORD, f, f);
      f = arith::SelectOp::create(rw, loc, finite, f, zero);
      Value q = splat(coeffs[0]);
      for (double c : ArrayRef<double>(coeffs).drop_front())
        q = math::FmaOp::create(rw, loc, q, f, splat(c));
      Value p = math::FmaOp::create(rw, loc, q, f, one);
      // MLIR 22 passes the op's operands to llvm.x86.avx512.mask.scalef
      // in their order, (src, a, b) -> (a, b, passthrough): scalef(p, n) is
      // written src = p, a = n (the passthrough is unused: every lane set).
      Value r = x86vector::MaskScaleFOp::create(rw, loc, lanes, p, n, p,
                                                allLanes, curDirection);
      result = vector::InsertStridedSliceOp::create(
          rw, loc, r, result, ArrayRef<int64_t>{at}, ArrayRef<int64_t>{1});
    }
    rw.replaceOpWithNewOp<vector::ShapeCastOp>(op, type, result);
    return success();
  }
};

/// `tile` = insert_slice %src[0, 0] [rows, C] into (fill 0 : R×C): the
/// zero-padded load of a block. Returns %src, else null.
Value zeroPaddedSource(Value tile) {
  auto ins = tile.getDefiningOp<tensor::InsertSliceOp>();
  linalg::FillOp fill = ins ? paddedLoadFill(ins) : linalg::FillOp();
  if (!fill ||
      !matchPattern(fill.getDpsInputOperand(0)->get(), m_AnyZeroFloat()))
    return {};
  return ins.getSource();
}

/// Row `row` of `src` as a vector of `width` elements from column `col`, the
/// element bits as `bits`-bit integers, or zeros where row >= valid (the
/// padding of a partial block; a transfer_read checks bounds only along its
/// vector's dims, so the row check is explicit). Integer lanes: a bf16 value
/// across the branch would be widened to f32 on hosts without bf16.
Value rowBitsOrZero(OpBuilder &b, Location l, Value src, Value row, Value col,
                    Value valid, int64_t width, unsigned bits) {
  auto bf = VectorType::get({width}, b.getBF16Type());
  auto ints = VectorType::get({width * 16 / bits}, b.getIntegerType(bits));
  Value inRange =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, row, valid);
  auto branch = scf::IfOp::create(
      b, l, inRange,
      [&](OpBuilder &b, Location l) {
        Value pad =
            arith::ConstantOp::create(b, l, b.getZeroAttr(b.getBF16Type()));
        Value v = vector::TransferReadOp::create(
            b, l, bf, src, ValueRange{row, col}, pad, ArrayRef<bool>{true});
        scf::YieldOp::create(
            b, l, vector::BitCastOp::create(b, l, ints, v).getResult());
      },
      [&](OpBuilder &b, Location l) {
        scf::YieldOp::create(
            b, l,
            arith::ConstantOp::create(b, l, b.getZeroAttr(ints)).getResult());
      });
  return branch.getResult(0);
}

/// B (bf16 [K, N], or [N, K] when `transposed`) in the pair-interleaved form
/// the AMX tile product reads, Bp[r][2n + j] = B[2r + j][n], as a
/// [K/2, 2N + 32] tensor (the first 2N columns; see kPadCols). When B is a
/// zero-padded block load, the pack reads the block's source rows directly (its
/// copy into the padded tile is skipped; rows past the source are zero in Bp):
///   B [K, N] (V): packed row r = interleave(B[2r], B[2r + 1]);
///   B [N, K] (K): as 32-bit pairs Bp32[r][n] = B32[n][r], 16×16 transposes.
Value packForAMX(OpBuilder &b, Location loc, Value bTile, bool transposed,
                 int64_t k, int64_t n) {
  Value src = zeroPaddedSource(bTile);
  if (!src)
    src = bTile;
  auto idx = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value valid = tensor::DimOp::create(b, loc, src, 0);
  // Rows of 2N bf16 are 512 B or 1 KB apart: the 16 rows of a tile load
  // would share 4-8 of L1's 64 sets with the other tiles' rows. One spare
  // cache line per row spreads them (median of paired runs 0.95× the
  // unpadded time, bf16 D = 128, N = 2k, Xeon, 8 rounds).
  constexpr int64_t kPadCols = 32;
  auto packedType =
      RankedTensorType::get({k / 2, 2 * n + kPadCols}, b.getBF16Type());
  Value init =
      tensor::EmptyOp::create(b, loc, packedType.getShape(), b.getBF16Type());
  if (!transposed) {
    auto loop = scf::ForOp::create(
        b, loc, idx(0), idx(k / 2), idx(1), ValueRange{init},
        [&](OpBuilder &b, Location l, Value r, ValueRange args) {
          Value even = arith::MulIOp::create(b, l, r, idx(2));
          Value odd = arith::AddIOp::create(b, l, even, idx(1));
          Value x0 = rowBitsOrZero(b, l, src, even, idx(0), valid, n, 16);
          Value x1 = rowBitsOrZero(b, l, src, odd, idx(0), valid, n, 16);
          Value pairs = vector::InterleaveOp::create(b, l, x0, x1);
          pairs = vector::BitCastOp::create(
              b, l, VectorType::get({2 * n}, b.getBF16Type()), pairs);
          Value t = vector::TransferWriteOp::create(b, l, pairs, args[0],
                                                    ValueRange{r, idx(0)},
                                                    ArrayRef<bool>{true})
                        .getResult();
          scf::YieldOp::create(b, l, t);
        });
    return loop.getResult(0);
  }
  auto block = VectorType::get({16, 16}, b.getI32Type());
  auto bfRow = VectorType::get({32}, b.getBF16Type());
  auto outer = scf::ForOp::create(
      b, loc, idx(0), idx(n), idx(16), ValueRange{init},
      [&](OpBuilder &b, Location l, Value n0, ValueRange outerArgs) {
        auto inner = scf::ForOp::create(
            b, l, idx(0), idx(k / 2), idx(16), ValueRange{outerArgs[0]},
            [&](OpBuilder &b, Location l, Value r0, ValueRange args) {
              Value col = arith::MulIOp::create(b, l, r0, idx(2));
              Value m = arith::ConstantOp::create(b, l, b.getZeroAttr(block));
              for (int64_t i = 0; i < 16; ++i) {
                Value row = arith::AddIOp::create(b, l, n0, idx(i));
                Value x = rowBitsOrZero(b, l, src, row, col, valid, 32, 32);
                m = vector::InsertOp::create(b, l, x, m, ArrayRef<int64_t>{i});
              }
              Value t =
                  vector::TransposeOp::create(b, l, m, ArrayRef<int64_t>{1, 0});
              Value outCol = arith::MulIOp::create(b, l, n0, idx(2));
              Value acc = args[0];
              for (int64_t i = 0; i < 16; ++i) {
                Value y =
                    vector::ExtractOp::create(b, l, t, ArrayRef<int64_t>{i});
                y = vector::BitCastOp::create(b, l, bfRow, y);
                Value row = arith::AddIOp::create(b, l, r0, idx(i));
                acc = vector::TransferWriteOp::create(b, l, y, acc,
                                                      ValueRange{row, outCol},
                                                      ArrayRef<bool>{true})
                          .getResult();
              }
              scf::YieldOp::create(b, l, acc);
            });
        scf::YieldOp::create(b, l, inner.getResult(0));
      });
  return outer.getResult(0);
}

/// The contraction in the pair-interleaved (VNNI) form the AMX tile product
/// computes, for attn-lower-cpu-bf16-contractions:
///   C[m][n] += Σ_{r,j} A[m][r][j] · Bp[r][n][j]
/// with A [M, K] viewed as [M, K/2, 2] and Bp packed by packForAMX.
void toPackedContraction(RewriterBase &rw, const Contraction &c) {
  linalg::GenericOp g = c.op;
  rw.setInsertionPoint(g);
  Location loc = g.getLoc();
  Value a = g.getDpsInputOperand(0)->get();
  Value bTile = g.getDpsInputOperand(1)->get();
  Value acc = g.getDpsInitOperand(0)->get();
  auto accType = cast<RankedTensorType>(acc.getType());
  int64_t m = accType.getDimSize(0), n = accType.getDimSize(1);
  int64_t k = cast<RankedTensorType>(a.getType()).getDimSize(1);
  Value packed = packForAMX(rw, loc, bTile, c.rhsTransposed, k, n);
  packed = tensor::ExtractSliceOp::create(
      rw, loc, RankedTensorType::get({k / 2, 2 * n}, rw.getBF16Type()), packed,
      ValueRange{}, ValueRange{}, ValueRange{}, rw.getDenseI64ArrayAttr({0, 0}),
      rw.getDenseI64ArrayAttr({k / 2, 2 * n}), rw.getDenseI64ArrayAttr({1, 1}));
  Type bf16 = rw.getBF16Type();
  Value a3 = tensor::ExpandShapeOp::create(
      rw, loc, RankedTensorType::get({m, k / 2, 2}, bf16), a,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}});
  Value b3 = tensor::ExpandShapeOp::create(
      rw, loc, RankedTensorType::get({k / 2, n, 2}, bf16), packed,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}});
  MLIRContext *ctx = rw.getContext();
  AffineExpr dm, dn, dr, dj;
  bindDims(ctx, dm, dn, dr, dj);
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {dm, dr, dj}, ctx),
                                 AffineMap::get(4, 0, {dr, dn, dj}, ctx),
                                 AffineMap::get(4, 0, {dm, dn}, ctx)};
  auto par = utils::IteratorType::parallel,
       red = utils::IteratorType::reduction;
  auto packedOp = linalg::GenericOp::create(
      rw, loc, TypeRange{accType}, ValueRange{a3, b3}, ValueRange{acc}, maps,
      ArrayRef<utils::IteratorType>{par, par, red, red},
      [&](OpBuilder &b, Location l, ValueRange args) {
        Type f32 = b.getF32Type();
        Value x = arith::ExtFOp::create(b, l, f32, args[0]);
        Value y = arith::ExtFOp::create(b, l, f32, args[1]);
        Value p = arith::MulFOp::create(b, l, x, y);
        linalg::YieldOp::create(
            b, l, ValueRange{arith::AddFOp::create(b, l, args[2], p)});
      });
  rw.replaceOp(g, packedOp->getResults());
}

bool isStatic(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && !op.hasDynamicShape();
}

struct VectorizeCPUTilesPass
    : public attn::impl::AttnVectorizeCPUTilesBase<VectorizeCPUTilesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    if (tileM <= 0 || tileN <= 0 || tileK <= 0) {
      func.emitError() << "attn-vectorize-cpu-tiles: tile sizes must be "
                          "positive (tile-m="
                       << int64_t(tileM) << ", tile-n=" << int64_t(tileN)
                       << ", tile-k=" << int64_t(tileK) << ")";
      return signalPassFailure();
    }

    if (rowChunk < 0) {
      func.emitError() << "attn-vectorize-cpu-tiles: row-chunk must be >= 0 "
                          "(0: whole rows), got "
                       << int64_t(rowChunk);
      return signalPassFailure();
    }

    IRRewriter rw(ctx);
    // AMX's bf16 products first, while their right operands are still
    // recognisable zero-padded block loads: packed from the blocks' sources
    // and rewritten to the pair-interleaved contraction (a 4-loop generic the
    // steps below leave alone).
    if (vnni) {
      SmallVector<Contraction> forTiles;
      func.walk([&](linalg::GenericOp g) {
        if (!isStatic(g))
          return;
        if (std::optional<Contraction> c = asContraction(g);
            c && takesPairedProducts(*c))
          forTiles.push_back(*c);
      });
      for (Contraction &c : forTiles)
        toPackedContraction(rw, c);
      // The packs' 16×16 transposes as AVX-512 shuffles.
      RewritePatternSet p(ctx);
      vector::populateVectorTransposeLoweringPatterns(
          p, vector::VectorTransposeLowering::Shuffle16x16);
      vector::populateVectorShapeCastLoweringPatterns(p);
      if (failed(applyPatternsGreedily(func, std::move(p))))
        return signalPassFailure();
    }

    // 0. Zero-padded tile loads → row copies (before fills are generalised).
    SmallVector<tensor::InsertSliceOp> loads;
    func.walk([&](tensor::InsertSliceOp ins) { loads.push_back(ins); });
    for (tensor::InsertSliceOp ins : loads)
      (void)vectorizePaddedLoad(rw, ins);
    // ... and tile stores → row copies.
    SmallVector<bufferization::MaterializeInDestinationOp> stores;
    func.walk([&](bufferization::MaterializeInDestinationOp st) {
      stores.push_back(st);
    });
    for (bufferization::MaterializeInDestinationOp st : stores)
      (void)vectorizeTileStore(rw, st);

    // 1. Elementwise chains into one op per tile. A producer with several
    // users (P feeds the row sum and P·V) stays materialised, and so does
    // an operand of a contraction: fused into it (the backward's
    // dS = P∘(dP − Δ) into dK += dSᵀ·Q) the product is no longer a
    // contraction and would run as scalar loops (a backward at 2 GFLOP/s).
    {
      RewritePatternSet p(ctx);
      linalg::populateLinalgNamedOpsGeneralizationPatterns(p);
      linalg::populateElementwiseOpsFusionPatterns(p, [](OpOperand *use) {
        Operation *producer = use->get().getDefiningOp();
        auto consumer = dyn_cast<linalg::GenericOp>(use->getOwner());
        if (consumer && (asContraction(consumer) ||
                         linalg::isaContractionOpInterface(consumer)))
          return false;
        return producer && producer->hasOneUse();
      });
      if (failed(applyPatternsGreedily(func, std::move(p))))
        return signalPassFailure();
    }

    // 2. Contractions → register tiles; 3. row-wise ops → rows. Collected
    // first: tiling rewrites the function.
    SmallVector<Contraction> contractions;
    SmallVector<linalg::LinalgOp> rowOps;
    func.walk([&](linalg::LinalgOp op) {
      if (!isStatic(op))
        return;
      if (auto g = dyn_cast<linalg::GenericOp>(op.getOperation()))
        if (std::optional<Contraction> c = asContraction(g)) {
          contractions.push_back(*c);
          return;
        }
      if (op.getNumLoops() == 2 && op.getNumParallelLoops() >= 1 &&
          op.getIteratorTypesArray()[0] == utils::IteratorType::parallel)
        rowOps.push_back(op);
    });
    SmallVector<Operation *> toVectorize;
    // Register tiles vectorise to vector.contract directly (not to a
    // broadcast, multiply and multi-reduction) for the outer-product
    // lowering.
    DenseSet<Operation *> contractionTiles;
    for (Contraction &c : contractions) {
      SmallVector<linalg::LinalgOp> widened;
      SmallVector<Operation *> transposes;
      linalg::MatmulOp mm = toMatmul(rw, c, widened, transposes);
      for (linalg::LinalgOp w : widened)
        if (Operation *t = tile(rw, cast<TilingInterface>(w.getOperation()),
                                {1, 0}))
          toVectorize.push_back(t);
      for (Operation *tr : transposes)
        if (Operation *t = tile(rw, cast<TilingInterface>(tr), {8, 8}))
          toVectorize.push_back(t);
      if (Operation *tc = tile(rw, cast<TilingInterface>(mm.getOperation()),
                               {tileM, tileN, tileK})) {
        toVectorize.push_back(tc);
        contractionTiles.insert(tc);
      }
    }
    // Elementwise row ops in chunks of `row-chunk` columns: a whole row of
    // a 256-key block is 16 AVX-512 registers per value, and the exponent's
    // temporaries then spill.
    for (linalg::LinalgOp op : rowOps) {
      int64_t cols = op.getStaticLoopRanges()[1];
      bool elementwise = op.getNumParallelLoops() == op.getNumLoops() &&
                         rowChunk > 0 && cols > rowChunk &&
                         cols % rowChunk == 0;
      if (Operation *t = tile(rw, cast<TilingInterface>(op.getOperation()),
                              {1, elementwise ? int64_t(rowChunk) : 0}))
        toVectorize.push_back(t);
    }
    // 1-D ops (m, l, α) vectorise whole.
    func.walk([&](linalg::LinalgOp op) {
      if (isStatic(op) && op.getNumLoops() == 1)
        toVectorize.push_back(op);
    });
    for (Operation *op : toVectorize) {
      auto lop = dyn_cast<linalg::LinalgOp>(op);
      if (!lop || !isStatic(lop))
        continue;
      rw.setInsertionPoint(op);
      FailureOr<linalg::VectorizationResult> v = linalg::vectorize(
          rw, op, /*inputVectorSizes=*/{}, /*inputScalableVecDims=*/{},
          /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
          /*assumeDynamicDimsMatchVecSizes=*/false,
          /*createNamedContraction=*/contractionTiles.contains(op));
      if (succeeded(v))
        rw.replaceOp(op, v->replacements);
    }

    // 4. vector.contract → outer products → FMAs (first, before anything
    // else rewrites the contractions' operands).
    {
      RewritePatternSet p(ctx);
      tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(p);
      // A generic's vectorisation is broadcast · multiply · multi-reduction:
      // fold it back into vector.contract.
      vector::populateVectorReductionToContractPatterns(p);
      vector::populateVectorContractLoweringPatterns(
          p, vector::VectorContractLowering::OuterProduct);
      vector::populateVectorTransferPermutationMapLoweringPatterns(p);
      if (failed(applyPatternsGreedily(func, std::move(p))))
        return signalPassFailure();
    }
    // 5. The rest to 1-D vectors and shuffles; exp → polynomial.
    {
      RewritePatternSet p(ctx);
      vector::populateVectorOuterProductLoweringPatterns(p);
      vector::populateVectorTransferPermutationMapLoweringPatterns(p);
      vector::populateVectorMultiReductionLoweringPatterns(
          p, vector::VectorMultiReductionLowering::InnerReduction);
      vector::populateVectorTransposeLoweringPatterns(
          p, vector::VectorTransposeLowering::Shuffle1D);
      vector::populateVectorBroadcastLoweringPatterns(p);
      vector::populateVectorShapeCastLoweringPatterns(p);
      vector::populateCastAwayVectorLeadingOneDimPatterns(p);
      if (avx512)
        p.add<Exp2ViaScaleF>(ctx);
      math::populateExpansionPatterns(p, {"exp2"});
      populateMathPolynomialApproximationPatterns(p, [](StringRef name) {
        return name == math::ExpOp::getOperationName();
      });
      if (failed(applyPatternsGreedily(func, std::move(p))))
        return signalPassFailure();
    }
    // 6. Row maxima without NaN bookkeeping: a maximumf reduction keeps
    // NaN and orders −0 < +0, which x86 has no instruction for (LLVM emits
    // an unordered compare and a blend per step, and a scalar tail: 8% of
    // the AMX kernel's time). Neither matters here: a NaN score makes its
    // row's P NaN through exp2(S − m) whatever m is, and ±0 maxima give the
    // same exponentials. With nnan/nsz it is a tree of vmaxps.
    func.walk([&](vector::ReductionOp red) {
      if (red.getKind() == vector::CombiningKind::MAXIMUMF)
        red.setFastmathAttr(arith::FastMathFlagsAttr::get(
            ctx, red.getFastmath() | arith::FastMathFlags::nnan |
                     arith::FastMathFlags::nsz));
    });
  }
};

} // namespace
