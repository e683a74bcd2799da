//===- AttnToLinalg.cpp - attn tile ops to linalg ---------------*- C++ -*-===//
//
// The CPU path. Tiles are tensors; each tile op becomes linalg on tensors,
// and memory accesses become subviews wrapped in bufferization ops, so that
// one-shot bufferization and linalg-to-loops finish the job.
//
//===----------------------------------------------------------------------===//
#include "attn/Conversion/Passes.h"
#include "attn/Dialect/Attn/IR/Philox.h"
#include "attn/runtime/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::attn {
#define GEN_PASS_DEF_CONVERTATTNTOLINALG
#include "attn/Conversion/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

/// The rank-reduced subview of `mem` holding the tile at `indices` with
/// `rows` rows: offsets (indices..., 0...), sizes (1..., rows, trailing...).
Value tileSubview(OpBuilder &b, Location loc, Value mem, ValueRange indices,
                  Value rows, RankedTensorType tile) {
  auto memType = cast<MemRefType>(mem.getType());
  int64_t r = memType.getRank(), t = tile.getRank();
  SmallVector<OpFoldResult> offsets, sizes, strides(r, b.getIndexAttr(1));
  for (Value i : indices)
    offsets.push_back(i);
  for (int64_t d = indices.size(); d < r; ++d)
    offsets.push_back(b.getIndexAttr(0));
  for (int64_t d = 0; d < r - t; ++d)
    sizes.push_back(b.getIndexAttr(1));
  sizes.push_back(rows);
  for (int64_t d = r - t + 1; d < r; ++d)
    sizes.push_back(b.getIndexAttr(memType.getDimSize(d)));
  SmallVector<int64_t> reducedShape = {ShapedType::kDynamic};
  for (int64_t d = r - t + 1; d < r; ++d)
    reducedShape.push_back(memType.getDimSize(d));
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      reducedShape, memType, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(viewType), mem,
                                   offsets, sizes, strides);
}

/// Sizes (rows, trailing static dims...) of the valid part of a tile.
SmallVector<OpFoldResult> validSizes(OpBuilder &b, Value rows,
                                     RankedTensorType tile) {
  SmallVector<OpFoldResult> sizes = {rows};
  for (int64_t d = 1; d < tile.getRank(); ++d)
    sizes.push_back(b.getIndexAttr(tile.getDimSize(d)));
  return sizes;
}

Value filled(OpBuilder &b, Location loc, RankedTensorType type,
             Attribute value) {
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  Value v = arith::ConstantOp::create(b, loc, cast<TypedAttr>(value));
  return linalg::FillOp::create(b, loc, v, empty).getResult(0);
}

/// GQA packing is a GPU schedule: the CPU path's tiling runs the heads one
/// by one and never emits packed rows.
constexpr const char *kGroupedRowsOnCpu =
    "unsupported: packed (position, head) rows (group) on the CPU path "
    "(its tiling does not pack query heads)";

struct LoadTileLowering : OpRewritePattern<LoadTileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadTileOp op,
                                PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto tile = cast<RankedTensorType>(op.getType());
    // The CPU path's key blocks lie in one page (attn-tile-attention
    // shrinks its derived blocks to the page).
    if (op.getPages())
      return op.emitError("unsupported: a key block gathered from several "
                          "pages on the CPU path (its blocks lie in one "
                          "page)");
    if (op.getGroup())
      return op.emitError(kGroupedRowsOnCpu);
    Value view;
    SmallVector<OpFoldResult> valid = validSizes(rw, op.getRows(), tile);
    if (Value cols = op.getCols()) {
      // A window: [rows, cols] at (indices...) of the source's last two dims.
      auto memType = cast<MemRefType>(op.getSource().getType());
      int64_t r = memType.getRank();
      SmallVector<OpFoldResult> offsets(op.getIndices().begin(),
                                        op.getIndices().end());
      SmallVector<OpFoldResult> sizes(r - 2, rw.getIndexAttr(1));
      sizes.push_back(op.getRows());
      sizes.push_back(cols);
      SmallVector<OpFoldResult> strides(r, rw.getIndexAttr(1));
      auto viewType = memref::SubViewOp::inferRankReducedResultType(
          {ShapedType::kDynamic, ShapedType::kDynamic}, memType, offsets, sizes,
          strides);
      view = memref::SubViewOp::create(rw, loc, cast<MemRefType>(viewType),
                                       op.getSource(), offsets, sizes, strides);
      valid[1] = cols;
    } else {
      view = tileSubview(rw, loc, op.getSource(), op.getIndices(), op.getRows(),
                         tile);
    }
    auto validType = RankedTensorType::get(
        cast<MemRefType>(view.getType()).getShape(), tile.getElementType());
    // Read-only views of the inputs: `restrict` is sound since nothing
    // writes the source while the tile is live.
    Value validTile = bufferization::ToTensorOp::create(
        rw, loc, validType, view, /*restrict=*/true, /*writable=*/false);
    // Rows past `rows` are zero so that padded rows stay finite.
    Value zeros = filled(rw, loc, tile, rw.getZeroAttr(tile.getElementType()));
    SmallVector<OpFoldResult> offsets(tile.getRank(), rw.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(tile.getRank(), rw.getIndexAttr(1));
    rw.replaceOpWithNewOp<tensor::InsertSliceOp>(op, validTile, zeros, offsets,
                                                 valid, strides);
    return success();
  }
};

struct StoreTileLowering : OpRewritePattern<StoreTileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StoreTileOp op,
                                PatternRewriter &rw) const override {
    if (op.getGroup())
      return op.emitError(kGroupedRowsOnCpu);
    Location loc = op.getLoc();
    auto tile = cast<RankedTensorType>(op.getTile().getType());
    auto memType = cast<MemRefType>(op.getDest().getType());
    Value data = op.getTile();
    if (tile.getElementType() != memType.getElementType()) {
      // Round to nearest even into the destination's element type.
      tile = RankedTensorType::get(tile.getShape(), memType.getElementType());
      data = arith::TruncFOp::create(rw, loc, tile, data);
    }
    Value view =
        tileSubview(rw, loc, op.getDest(), op.getIndices(), op.getRows(), tile);
    SmallVector<OpFoldResult> offsets(tile.getRank(), rw.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(tile.getRank(), rw.getIndexAttr(1));
    auto sliceType = RankedTensorType::get(
        cast<MemRefType>(view.getType()).getShape(), tile.getElementType());
    Value slice = tensor::ExtractSliceOp::create(
        rw, loc, sliceType, data, offsets, validSizes(rw, op.getRows(), tile),
        strides);
    auto store = bufferization::MaterializeInDestinationOp::create(
        rw, loc, Type(), slice, view);
    store.setRestrict(true);
    store.setWritable(true);
    rw.eraseOp(op);
    return success();
  }
};

/// Element by element: dest[..., row + r, c] += tile[r, c] (or tile[c, r]
/// with `transposed`) for r < rows, each add atomic (memref.atomic_rmw),
/// since the OpenMP grid's programs may add into the same elements.
struct AccumulateTileLowering : OpRewritePattern<AccumulateTileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AccumulateTileOp op,
                                PatternRewriter &rw) const override {
    if (op.getStaging())
      return op.emitError("unsupported: attn.accumulate_tile via a shared "
                          "memory ring (a GPU schedule) on the CPU path");
    Location loc = op.getLoc();
    auto tile = cast<RankedTensorType>(op.getTile().getType());
    bool t = op.getTransposed();
    int64_t rank = tile.getRank();
    int64_t tileRows = tile.getDimSize(t ? 1 : 0);
    int64_t cols = rank == 2 ? tile.getDimSize(t ? 0 : 1) : 1;
    Value c0 = arith::ConstantIndexOp::create(rw, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rw, loc, 1);
    Value rows = arith::MinSIOp::create(
        rw, loc, op.getRows(),
        arith::ConstantIndexOp::create(rw, loc, tileRows));
    Value nCols = arith::ConstantIndexOp::create(rw, loc, cols);
    SmallVector<Value> prefix(op.getIndices().begin(), op.getIndices().end());
    Value row0 = prefix.pop_back_val();
    Value tileV = op.getTile(), dest = op.getDest();
    scf::ForOp::create(
        rw, loc, c0, rows, c1, ValueRange{},
        [&](OpBuilder &b, Location l, Value r, ValueRange) {
          scf::ForOp::create(
              b, l, c0, nCols, c1, ValueRange{},
              [&](OpBuilder &ib, Location il, Value c, ValueRange) {
                SmallVector<Value> at = {r};
                if (rank == 2)
                  at = t ? SmallVector<Value>{c, r} : SmallVector<Value>{r, c};
                Value x = tensor::ExtractOp::create(ib, il, tileV, at);
                SmallVector<Value> idx(prefix);
                idx.push_back(arith::AddIOp::create(ib, il, row0, r));
                if (rank == 2)
                  idx.push_back(c);
                memref::AtomicRMWOp::create(ib, il, arith::AtomicRMWKind::addf,
                                            x, dest, idx);
                scf::YieldOp::create(ib, il);
              });
          scf::YieldOp::create(b, l);
        });
    rw.eraseOp(op);
    return success();
  }
};

SmallVector<utils::IteratorType> iterators(ArrayRef<bool> reduction) {
  SmallVector<utils::IteratorType> it;
  for (bool r : reduction)
    it.push_back(r ? utils::IteratorType::reduction
                   : utils::IteratorType::parallel);
  return it;
}

struct DotLowering : OpRewritePattern<DotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DotOp op, PatternRewriter &rw) const override {
    if (op.getAsync())
      return op.emitError("unsupported: an asynchronous attn.dot (a Hopper "
                          "GPU schedule) on the CPU path");
    MLIRContext *ctx = rw.getContext();
    AffineExpr i, j, k;
    bindDims(ctx, i, j, k);
    auto lhsMap = op.getLhsTransposed() ? AffineMap::get(3, 0, {k, i}, ctx)
                                        : AffineMap::get(3, 0, {i, k}, ctx);
    auto rhsMap = op.getRhsTransposed() ? AffineMap::get(3, 0, {j, k}, ctx)
                                        : AffineMap::get(3, 0, {k, j}, ctx);
    auto accMap = AffineMap::get(3, 0, {i, j}, ctx);
    // acc[i, j] += f32(lhs[., .]) · f32(rhs[., .])
    rw.replaceOpWithNewOp<linalg::GenericOp>(
        op, op.getType(), ValueRange{op.getLhs(), op.getRhs()},
        ValueRange{op.getAcc()}, ArrayRef<AffineMap>{lhsMap, rhsMap, accMap},
        iterators({false, false, true}),
        [](OpBuilder &b, Location loc, ValueRange args) {
          Type f32 = b.getF32Type();
          Value x = args[0], y = args[1];
          if (x.getType() != f32) {
            x = arith::ExtFOp::create(b, loc, f32, x);
            y = arith::ExtFOp::create(b, loc, f32, y);
          }
          Value prod = arith::MulFOp::create(b, loc, x, y);
          linalg::YieldOp::create(
              b, loc, Value(arith::AddFOp::create(b, loc, args[2], prod)));
        });
    return success();
  }
};

struct MaskLowering : OpRewritePattern<MaskOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaskOp op, PatternRewriter &rw) const override {
    if (op.getGroup())
      return op.emitError(kGroupedRowsOnCpu);
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    MLIRContext *ctx = rw.getContext();
    auto id = AffineMap::getMultiDimIdentityMap(2, ctx);
    Value init = tensor::EmptyOp::create(rw, loc, type.getShape(),
                                         type.getElementType());
    // The window's bounds, -1 for none (causal: R = 0).
    int64_t left = op.getWindowLeft().value_or(-1);
    int64_t right = op.getCausal() ? 0 : op.getWindowRight().value_or(-1);
    Value qStart = op.getQStart(), qLen = op.getQLen();
    Value kvStart = op.getKvStart(), kvLen = op.getKvLen();
    rw.replaceOpWithNewOp<linalg::GenericOp>(
        op, type, ValueRange{op.getScores()}, ValueRange{init},
        ArrayRef<AffineMap>{id, id}, iterators({false, false}),
        [&](OpBuilder &b, Location l, ValueRange args) {
          // kj = kv_start + j; invisible iff kj >= kv_len, or, with
          // a = q_start + i + (kv_len - q_len) (the row's diagonal key),
          // kj > a + R or kj < a - L.
          // A transposed (key-major) tile has the keys along its rows.
          bool t = op.getTransposed();
          Value i = linalg::IndexOp::create(b, l, t ? 1 : 0);
          Value j = linalg::IndexOp::create(b, l, t ? 0 : 1);
          Value kj = arith::AddIOp::create(b, l, kvStart, j);
          Value hidden =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, kj, kvLen);
          Value diagKey;
          if (left >= 0 || right >= 0) {
            Value qi = arith::AddIOp::create(b, l, qStart, i);
            diagKey = arith::AddIOp::create(
                b, l, qi, arith::SubIOp::create(b, l, kvLen, qLen));
          }
          auto bound = [&](int64_t offset) -> Value {
            if (!offset)
              return diagKey;
            return arith::AddIOp::create(
                b, l, diagKey, arith::ConstantIndexOp::create(b, l, offset));
          };
          if (right >= 0) {
            Value above = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt,
                                                kj, bound(right));
            hidden = arith::OrIOp::create(b, l, hidden, above);
          }
          if (left >= 0) {
            Value before = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::slt, kj, bound(-left));
            hidden = arith::OrIOp::create(b, l, hidden, before);
          }
          auto ninf = APFloat::getInf(APFloat::IEEEsingle(), true);
          Value negInf = arith::ConstantOp::create(
              b, l, b.getFloatAttr(b.getF32Type(), ninf));
          linalg::YieldOp::create(
              b, l,
              Value(arith::SelectOp::create(b, l, hidden, negInf, args[0])));
        });
    return success();
  }
};

/// result[i, j] = i32(start + (dim == 0 ? i : j)); 1-d: result[k] =
/// i32(start + k).
struct IotaLowering : OpRewritePattern<IotaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IotaOp op, PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    unsigned rank = type.getRank();
    auto id = AffineMap::getMultiDimIdentityMap(rank, rw.getContext());
    Value init = tensor::EmptyOp::create(rw, loc, type.getShape(),
                                         type.getElementType());
    int64_t dim = op.getDim();
    Value start = op.getStart();
    // clamp(n): at most n − 1.
    Value last;
    if (Value n = op.getClamp())
      last = arith::SubIOp::create(rw, loc, n,
                                   arith::ConstantIndexOp::create(rw, loc, 1));
    rw.replaceOpWithNewOp<linalg::GenericOp>(
        op, type, ValueRange{}, ValueRange{init}, ArrayRef<AffineMap>{id},
        iterators(SmallVector<bool>(rank, false)),
        [&](OpBuilder &b, Location l, ValueRange) {
          Value pos = arith::AddIOp::create(b, l, start,
                                            linalg::IndexOp::create(b, l, dim));
          if (last)
            pos = arith::MinSIOp::create(b, l, pos, last);
          linalg::YieldOp::create(
              b, l,
              Value(arith::IndexCastOp::create(b, l, b.getI32Type(), pos)));
        });
    return success();
  }
};

/// result[r, c] = the dropout value of query i = q_start + r, key
/// j = kv_start + c: a linalg.generic whose body computes the element's
/// own Philox4x32-10 call (the op's description) and picks its word and
/// half.
struct RandomLowering : OpRewritePattern<RandomOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RandomOp op,
                                PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto id = AffineMap::getMultiDimIdentityMap(2, rw.getContext());
    Value init = tensor::EmptyOp::create(rw, loc, type.getShape(),
                                         type.getElementType());
    auto [k0, k1] = philoxKey(rw, loc, op.getSeed());
    rw.replaceOpWithNewOp<linalg::GenericOp>(
        op, type, ValueRange{}, ValueRange{init}, ArrayRef<AffineMap>{id},
        iterators({false, false}), [&](OpBuilder &b, Location l, ValueRange) {
          Type i32 = b.getI32Type();
          auto c32 = [&](int32_t v) -> Value {
            return arith::ConstantOp::create(b, l, b.getI32IntegerAttr(v));
          };
          auto pos = [&](Value start, unsigned dim) -> Value {
            Value x = arith::AddIOp::create(b, l, start,
                                            linalg::IndexOp::create(b, l, dim));
            return arith::IndexCastOp::create(b, l, i32, x);
          };
          auto bit = [&](Value x, int32_t shift) -> Value {
            Value s = arith::ShRUIOp::create(b, l, x, c32(shift));
            return arith::AndIOp::create(b, l, s, c32(1));
          };
          // (transposed: rows are keys, columns queries)
          const unsigned qDim = op.getTransposed() ? 1 : 0;
          Value i = pos(op.getQStart(), qDim),
                j = pos(op.getKvStart(), 1 - qDim);
          // counter = (4·(j >> 4) + ((j >> 1) & 3), 8·(i >> 4) + (i & 7),
          //            stream, offset)
          Value jHi = arith::ShRUIOp::create(b, l, j, c32(4));
          Value jHi4 = arith::ShLIOp::create(b, l, jHi, c32(2));
          Value jMid = arith::ShRUIOp::create(b, l, j, c32(1));
          Value jLane = arith::AndIOp::create(b, l, jMid, c32(3));
          Value c0 = arith::OrIOp::create(b, l, jHi4, jLane);
          Value iHi = arith::ShRUIOp::create(b, l, i, c32(4));
          Value iHi8 = arith::ShLIOp::create(b, l, iHi, c32(3));
          Value iLo = arith::AndIOp::create(b, l, i, c32(7));
          Value c1 = arith::OrIOp::create(b, l, iHi8, iLo);
          SmallVector<std::pair<Value, Value>> keys;
          std::array<Value, 4> w = emitPhilox(
              b, l, {c0, c1, op.getStream(), op.getOffset()}, k0, k1, keys);
          // word 2·((i >> 3) & 1) + (j & 1); its upper half where
          // (j >> 3) & 1, else word << 16.
          Value one = c32(1);
          auto isSet = [&](Value x) -> Value {
            return arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, x,
                                         one);
          };
          Value colOdd = isSet(arith::AndIOp::create(b, l, j, one));
          Value lowerRows = isSet(bit(i, 3));
          Value upperHalf = isSet(bit(j, 3));
          Value top = arith::SelectOp::create(b, l, colOdd, w[1], w[0]);
          Value bottom = arith::SelectOp::create(b, l, colOdd, w[3], w[2]);
          Value word = arith::SelectOp::create(b, l, lowerRows, bottom, top);
          Value shifted =
              arith::ShLIOp::create(b, l, word, c32(::attn::kDropoutBits));
          Value value = arith::SelectOp::create(b, l, upperHalf, word, shifted);
          linalg::YieldOp::create(b, l, value);
        });
    return success();
  }
};

/// result[r, c] = source[idx_0, ...]: a linalg.generic over the index
/// tiles whose body loads one element (scalar indices used as they are).
struct GatherLowering : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto id = AffineMap::getMultiDimIdentityMap(2, rw.getContext());
    Value init = tensor::EmptyOp::create(rw, loc, type.getShape(),
                                         type.getElementType());
    SmallVector<Value> tileIndices;
    for (Value idx : op.getIndices())
      if (isa<RankedTensorType>(idx.getType()))
        tileIndices.push_back(idx);
    SmallVector<AffineMap> maps(tileIndices.size() + 1, id);
    SmallVector<utils::IteratorType> iters = iterators({false, false});
    Value source = op.getSource();
    SmallVector<Value> indices(op.getIndices());
    rw.replaceOpWithNewOp<linalg::GenericOp>(
        op, type, tileIndices, ValueRange{init}, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> at;
          unsigned next = 0;
          for (Value idx : indices)
            at.push_back(isa<RankedTensorType>(idx.getType())
                             ? Value(arith::IndexCastOp::create(
                                   b, l, b.getIndexType(), args[next++]))
                             : idx);
          linalg::YieldOp::create(
              b, l, Value(memref::LoadOp::create(b, l, source, at)));
        });
    return success();
  }
};

struct ReduceLowering : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    MLIRContext *ctx = rw.getContext();
    bool isMax = op.getKind() == ReduceKind::Max;
    // max starts from -inf (so a fully masked row stays -inf), sum from 0.
    Attribute init =
        isMax ? rw.getFloatAttr(rw.getF32Type(),
                                APFloat::getInf(APFloat::IEEEsingle(), true))
              : rw.getZeroAttr(rw.getF32Type());
    Value acc = filled(rw, loc, type, init);
    auto body = [&](OpBuilder &b, Location l, ValueRange args) {
      Value r = isMax ? Value(arith::MaximumFOp::create(b, l, args[1], args[0]))
                      : Value(arith::AddFOp::create(b, l, args[1], args[0]));
      linalg::YieldOp::create(b, l, r);
    };
    if (type.getRank() == 2) {
      // result[i, w] = reduce_k input[i, w + W·k]: the input seen as
      // [R, C/W, W] (column k·W + w at (k, w)), reduced over loop k.
      auto in = cast<RankedTensorType>(op.getInput().getType());
      int64_t width = type.getDimSize(1);
      auto split = RankedTensorType::get(
          {in.getDimSize(0), in.getDimSize(1) / width, width},
          in.getElementType());
      Value groups = tensor::ExpandShapeOp::create(
          rw, loc, split, op.getInput(),
          ArrayRef<ReassociationIndices>{{0}, {1, 2}});
      AffineExpr i, k, w;
      bindDims(ctx, i, k, w);
      rw.replaceOpWithNewOp<linalg::GenericOp>(
          op, type, ValueRange{groups}, ValueRange{acc},
          ArrayRef<AffineMap>{AffineMap::get(3, 0, {i, k, w}, ctx),
                              AffineMap::get(3, 0, {i, w}, ctx)},
          iterators({false, true, false}), body);
      return success();
    }
    AffineExpr i, j;
    bindDims(ctx, i, j);
    rw.replaceOpWithNewOp<linalg::GenericOp>(
        op, type, ValueRange{op.getInput()}, ValueRange{acc},
        ArrayRef<AffineMap>{AffineMap::get(2, 0, {i, j}, ctx),
                            AffineMap::get(2, 0, {i}, ctx)},
        iterators({false, true}), body);
    return success();
  }
};

struct BroadcastLowering : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rw) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value init = tensor::EmptyOp::create(rw, op.getLoc(), type.getShape(),
                                         type.getElementType());
    // The added dim: the columns (result[i, j] = input[i]), or with
    // per_column the rows (result[i, j] = input[j]).
    int64_t added = op.getPerColumn() ? 0 : 1;
    rw.replaceOpWithNewOp<linalg::BroadcastOp>(op, op.getInput(), init,
                                               ArrayRef<int64_t>{added});
    return success();
  }
};

struct ConvertAttnToLinalgPass
    : public mlir::attn::impl::ConvertAttnToLinalgBase<
          ConvertAttnToLinalgPass> {
  void runOnOperation() override {
    WalkResult leftover = getOperation()->walk([](AttentionOp op) {
      op.emitError() << "attn.attention must be tiled before "
                        "convert-attn-to-linalg (run attn-tile-attention)";
      return WalkResult::interrupt();
    });
    if (leftover.wasInterrupted())
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    patterns.add<LoadTileLowering, StoreTileLowering, AccumulateTileLowering,
                 DotLowering, MaskLowering, IotaLowering, GatherLowering,
                 RandomLowering, ReduceLowering, BroadcastLowering>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    WalkResult left = getOperation()->walk([](Operation *op) {
      if (isa<AttnDialect>(op->getDialect())) {
        op->emitError() << "could not lower to linalg";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
