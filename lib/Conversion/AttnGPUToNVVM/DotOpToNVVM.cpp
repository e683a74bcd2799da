//===- DotOpToNVVM.cpp - attn.dot and convert_layout on tensor cores -*- C++
//-*-=//
//
//   attn.dot  acc[M,N] += lhs[M,K] · rhs     (#attn.mma accumulators, f32)
//     per k-step kk (16 columns of lhs):
//       A(t, kk)   lhs in #attn.shared: ldmatrix.x4 at rows 16t.. of the
//                  warp, chunks 2kk, 2kk+1; lhs in #attn.mma (16-bit): the
//                  thread's elements of n-tiles 2kk, 2kk+1 packed in pairs
//       B(kk, p)   rhs in #attn.shared, one ldmatrix.x4 per pair of n-tiles:
//                  rhs_transposed ([N, K], e.g. K): plain; else ([K, N],
//                  e.g. V): .trans
//       acc(t, n) = mma.sync.m16n8k16.row.col.f32(A(t, kk), B(kk, n), acc)
//     Each B fragment serves all MT m-tiles of the warp, so MT = 2 halves
//     the shared-memory traffic per mma.
//   attn.convert_layout #shared -> #mma: the A fragments of every (t, kk),
//     i.e. what the dot reads from shared memory, once, into registers.
//
//===----------------------------------------------------------------------===//
#include "PatternsCommon.h"

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::gpu_lowering;

namespace {

/// Reads A fragments (m16 x k16, four i32 registers) of a tile in shared
/// memory, for the rows the warp owns in an mma layout.
struct SharedAFragments {
  SharedTile tile;
  SharedTile::LaneBase lb;
  SharedAFragments(Emitter &e, RankedTensorType t, Value ptr, Value warpRow0)
      : tile(t) {
    // ldmatrix.x4: lanes 0-15 give rows 0-15 at column 16kk, lanes 16-31
    // the same rows at 16kk + 8: matrices (r0-7,k0) (r8-15,k0) (r0-7,k8)
    // (r8-15,k8), the a0..a3 registers of mma.m16n8k16.
    Value lane = e.lane();
    lb = tile.laneBase(e, ptr, e.add(warpRow0, e.urem(lane, e.c32(16))),
                       e.udiv(lane, e.c32(16)));
  }
  SmallVector<Value, 4> get(Emitter &e, int64_t t, int64_t kk) {
    return ldmatrix4(e, tile.at(e, lb, 16 * t, 2 * kk), /*trans=*/false);
  }
};

struct DotLowering : public OpConversionPattern<DotOp> {
  DotLowering(TileTypeConverter &tc, const KernelInfo &info, MLIRContext *ctx)
      : OpConversionPattern<DotOp>(tc, ctx), info(info) {}
  const KernelInfo &info;

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto lhsTy = cast<RankedTensorType>(op.getLhs().getType());
    auto rhsTy = cast<RankedTensorType>(op.getRhs().getType());
    auto accTy = cast<RankedTensorType>(op.getAcc().getType());
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(accTy.getEncoding());
    if (mma && mma.isWarpgroup())
      return rewriter.notifyMatchFailure(op, "wgmma accumulator");
    if (op.getAsync())
      return op.emitError("unsupported: an asynchronous attn.dot on mma.sync "
                          "(only wgmma products run asynchronously)");
    Type et = lhsTy.getElementType();
    if (!mma || !isa_and_nonnull<SharedLayoutAttr>(rhsTy.getEncoding()) ||
        !(et.isBF16() || et.isF16()))
      return op.emitError()
             << "unsupported: attn.dot on the mma.sync path needs f16/bf16 "
                "operands, the rhs in shared memory and #attn.mma "
                "accumulators, got "
             << lhsTy << ", " << rhsTy << ", " << accTy;
    if (op.getLhsTransposed())
      return op.emitError("unsupported: attn.dot with lhs_transposed on "
                          "mma.sync (only wgmma reads a transposed lhs)");
    bool lhsShared = isa_and_nonnull<SharedLayoutAttr>(lhsTy.getEncoding());
    if (!lhsShared && !isa_and_nonnull<MmaLayoutAttr>(lhsTy.getEncoding()))
      return op.emitError() << "unsupported: attn.dot lhs layout " << lhsTy;
    int64_t M = accTy.getDimSize(0), N = accTy.getDimSize(1),
            K = lhsTy.getDimSize(1);
    if (N % 16 || K % 16)
      return op.emitError() << "unsupported: attn.dot on mma.sync m16n8k16 "
                               "needs N and K in multiples of 16, got N = "
                            << N << ", K = " << K;
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    MLIRContext *ctx = rewriter.getContext();
    const int64_t MT = mma.getMTiles(M), NT = N / 8, KS = K / 16;
    Value lane = e.lane();
    Value warpRow0 = e.mul(e.warp(), e.c32(16 * MT));

    // A fragments.
    std::optional<SharedAFragments> aShared;
    if (lhsShared)
      aShared.emplace(e, lhsTy, adaptor.getLhs(), warpRow0);
    Value lhsVec = adaptor.getLhs();
    int64_t lhsNT = K / 8;
    auto aFrag = [&](int64_t t, int64_t kk) -> SmallVector<Value, 4> {
      if (aShared)
        return aShared->get(e, t, kk);
      auto at = [&](int64_t n, int64_t el) { return (t * lhsNT + n) * 4 + el; };
      return {e.pack2(lhsVec, at(2 * kk, 0), at(2 * kk, 1)),
              e.pack2(lhsVec, at(2 * kk, 2), at(2 * kk, 3)),
              e.pack2(lhsVec, at(2 * kk + 1, 0), at(2 * kk + 1, 1)),
              e.pack2(lhsVec, at(2 * kk + 1, 2), at(2 * kk + 1, 3))};
    };

    // B fragments: ldmatrix lanes for Kᵀ (matrices (n0,k0) (n0,k8) (n8,k0)
    // (n8,k8) of a [N, K] tile) or V (.trans; (k0,n0) (k8,n0) (k0,n8)
    // (k8,n8) of a [K, N] tile).
    SharedTile rhs(rhsTy);
    bool trans = !op.getRhsTransposed();
    Value l8 = e.urem(lane, e.c32(8)),
          l8b = e.urem(e.udiv(lane, e.c32(8)), e.c32(2)),
          l16 = e.udiv(lane, e.c32(16));
    SharedTile::LaneBase rlb =
        trans ? rhs.laneBase(e, adaptor.getRhs(),
                             e.add(l8, e.mul(l8b, e.c32(8))), l16)
              : rhs.laneBase(e, adaptor.getRhs(),
                             e.add(l8, e.mul(l16, e.c32(8))), l8b);

    // Accumulators, element by element: (t, n, e) at (t·NT + n)·4 + e.
    SmallVector<Value> acc;
    for (int64_t i = 0; i < MT * NT * 4; ++i)
      acc.push_back(e.extract(adaptor.getAcc(), i));
    Type f32 = e.f32();
    auto resTy = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
    auto ptxTy = et.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    auto operand = [&](Value r) -> Value {
      // f16 operands are typed f16x2; bf16 ones are plain b32.
      if (et.isF16())
        return LLVM::BitcastOp::create(rewriter, loc, VectorType::get({2}, et),
                                       r);
      return r;
    };
    auto mmaSync = [&](ArrayRef<Value> a, Value b0, Value b1, int64_t t,
                       int64_t n) {
      SmallVector<Value> av, bv = {operand(b0), operand(b1)}, cv;
      for (Value x : a)
        av.push_back(operand(x));
      for (int64_t el = 0; el < 4; ++el)
        cv.push_back(acc[(t * NT + n) * 4 + el]);
      Value r = NVVM::MmaOp::create(
          rewriter, loc, resTy, av, bv, cv, ArrayRef<int64_t>{16, 8, 16},
          std::nullopt, std::nullopt,
          std::array<NVVM::MMATypes, 2>{ptxTy, ptxTy},
          std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                         NVVM::MMALayout::col});
      for (int64_t el = 0; el < 4; ++el)
        acc[(t * NT + n) * 4 + el] =
            LLVM::ExtractValueOp::create(rewriter, loc, r, el);
    };
    // Steps s = (kk, p) in order: one B ldmatrix.x4 (n-tiles 2p, 2p + 1 of
    // k-step kk), then its 2·MT mma.sync. The loads of step s + ahead are
    // issued before the mma of step s (the A fragments of k-step kk with
    // the load of (kk, 0)), so that ldmatrix's latency overlaps mma.
    const int64_t pairs = NT / 2, steps = KS * pairs;
    const int64_t ahead = std::clamp<int64_t>(info.fragmentPrefetch, 0, steps);
    SmallVector<SmallVector<Value, 4>> bq(steps);
    SmallVector<SmallVector<SmallVector<Value, 4>>> a(KS);
    auto load = [&](int64_t s) {
      int64_t kk = s / pairs, p = s % pairs;
      if (p == 0)
        for (int64_t t = 0; t < MT; ++t)
          a[kk].push_back(aFrag(t, kk));
      bq[s] = trans ? ldmatrix4(e, rhs.at(e, rlb, 16 * kk, 2 * p), true)
                    : ldmatrix4(e, rhs.at(e, rlb, 16 * p, 2 * kk), false);
    };
    for (int64_t s = 0; s < ahead; ++s)
      load(s);
    for (int64_t s = 0; s < steps; ++s) {
      if (s + ahead < steps)
        load(s + ahead);
      int64_t kk = s / pairs, p = s % pairs;
      for (int64_t t = 0; t < MT; ++t) {
        mmaSync(a[kk][t], bq[s][0], bq[s][1], t, 2 * p);
        mmaSync(a[kk][t], bq[s][2], bq[s][3], t, 2 * p + 1);
      }
    }
    rewriter.replaceOp(
        op, e.fromElements(getTypeConverter()->convertType(accTy), acc));
    return success();
  }
};

struct ConvertLayoutLowering : public OpConversionPattern<ConvertLayoutOp> {
  ConvertLayoutLowering(TileTypeConverter &tc, const KernelInfo &,
                        MLIRContext *ctx)
      : OpConversionPattern<ConvertLayoutOp>(tc, ctx) {}

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto out = cast<RankedTensorType>(op.getType());
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(out.getEncoding());
    if (!isa_and_nonnull<SharedLayoutAttr>(in.getEncoding()) || !mma ||
        in.getDimSize(1) % (in.getElementType().isF32() ? 8 : 16))
      return op.emitError()
             << "unsupported: attn.convert_layout from " << in << " to " << out
             << " (the GPU lowering moves shared-memory tiles "
                "with 16k columns into #attn.mma only)";
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    int64_t MT = mma.getMTiles(in.getDimSize(0)), NT = in.getDimSize(1) / 8;
    Value warpRow0 = e.mul(e.warp(), e.c32(16 * MT));
    if (in.getElementType().isF32())
      return convertF32Slabs(op, adaptor, e, MT, NT, warpRow0, rewriter);
    SharedAFragments frags(e, in, adaptor.getInput(), warpRow0);
    auto vecTy = cast<VectorType>(getTypeConverter()->convertType(out));
    auto pairTy = VectorType::get({2}, in.getElementType());
    SmallVector<Value> elems(vecTy.getNumElements());
    for (int64_t t = 0; t < MT; ++t)
      for (int64_t kk = 0; kk < NT / 2; ++kk) {
        SmallVector<Value, 4> a = frags.get(e, t, kk);
        // a0: (n-tile 2kk, e0 e1), a1: (2kk, e2 e3), a2: (2kk+1, e0 e1),
        // a3: (2kk+1, e2 e3).
        for (int64_t r = 0; r < 4; ++r) {
          Value pair = LLVM::BitcastOp::create(rewriter, loc, pairTy, a[r]);
          int64_t n = 2 * kk + r / 2, first = (t * NT + n) * 4 + 2 * (r % 2);
          elems[first] = e.extract(pair, 0);
          elems[first + 1] = e.extract(pair, 1);
        }
      }
    rewriter.replaceOp(op, e.fromElements(vecTy, elems));
    return success();
  }

  /// An f32 tile of 128-byte slabs (32 columns a slab: a score bias's
  /// window staged by bulk copies) into the accumulator layout: thread
  /// (g, q) holds rows 16t + g and 16t + g + 8 of its warp, columns 8n + 2q
  /// and 8n + 2q + 1, i.e. the 8 bytes at 8·(q % 2) of 16-byte chunk
  ///   c = 2n + q / 2 of the row, at c' = (c % 8) ^ (row % 8) in slab c / 8
  /// (row % 8 = g: the warp's rows start at multiples of 8), one
  /// ld.shared.v2.f32 each. A warp's 32 loads of one (t, n, half) cover 8
  /// rows x 32 bytes in 8 different chunk positions: two wavefronts, the
  /// least for 256 bytes.
  LogicalResult convertF32Slabs(ConvertLayoutOp op, OpAdaptor adaptor,
                                Emitter &e, int64_t MT, int64_t NT,
                                Value warpRow0,
                                ConversionPatternRewriter &rewriter) const {
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto layout = cast<SharedLayoutAttr>(in.getEncoding());
    if (layout.getSlab() != 128)
      return op.emitError() << "unsupported: attn.convert_layout of f32 tile "
                            << in << " (f32 tiles move into registers from "
                            << "128-byte slabs only)";
    SharedTile st(in);
    Location loc = op.getLoc();
    Value lane = e.lane();
    Value g = e.udiv(lane, e.c32(4)), q = e.urem(lane, e.c32(4));
    // The thread's bytes: row warpRow0 + g, 8 bytes into its chunk pair.
    Value base = e.gepBytes(adaptor.getInput(),
                            e.add(e.mul(e.add(warpRow0, g), e.c32(128)),
                                  e.mul(e.urem(q, e.c32(2)), e.c32(8))));
    // Its swizzled chunk for each even chunk 2n % 8 of a slab: ((2n % 8) +
    // q / 2) ^ g, times 16 bytes.
    Value qHalf = e.udiv(q, e.c32(2));
    SmallVector<Value, 4> chunkBytes;
    for (int64_t k = 0; k < 4; ++k)
      chunkBytes.push_back(
          e.mul(e.xori(e.add(e.c32(2 * k), qHalf), g), e.c32(16)));
    auto vecTy =
        cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    auto pairTy = VectorType::get({2}, rewriter.getF32Type());
    SmallVector<Value> elems(vecTy.getNumElements());
    for (int64_t t = 0; t < MT; ++t)
      for (int64_t n = 0; n < NT; ++n)
        for (int64_t half = 0; half < 2; ++half) {
          int64_t rowBytes = (16 * t + 8 * half) * 128;
          Value at =
              e.gepBytes(base, e.add(chunkBytes[n % 4],
                                     e.c32(st.slabBytes(n / 4) + rowBytes)));
          Value pair = LLVM::LoadOp::create(rewriter, loc, pairTy, at, 8);
          int64_t first = (t * NT + n) * 4 + 2 * half;
          elems[first] = e.extract(pair, 0);
          elems[first + 1] = e.extract(pair, 1);
        }
    rewriter.replaceOp(op, e.fromElements(vecTy, elems));
    return success();
  }
};

} // namespace

void mlir::attn::gpu_lowering::populateDotOpPatterns(
    TileTypeConverter &tc, const KernelInfo &info,
    RewritePatternSet &patterns) {
  patterns.add<DotLowering, ConvertLayoutLowering>(tc, info,
                                                   patterns.getContext());
}
