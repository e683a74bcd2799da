//===- WarpgroupDotToNVVM.cpp - attn.dot on Hopper's warpgroup MMA -*- C++ -*-//
//
//   attn.dot  acc[M,N] += lhs[M,K] · rhs   (#attn.mma<version = 3>, f32)
//
// Warpgroup G (warps 4G .. 4G+3) owns accumulator rows [64G, 64G + 64); one
// wgmma.mma_async.m64nNk16 per k-step kk (16 columns of lhs) and per chunk
// of at most 256 accumulator columns:
//
//   lhs in #attn.shared<slab = 128> (Q): a shared-memory descriptor of rows
//     64G.. (K-major: 16 elements of each row per k-step)
//   lhs in #attn.mma<version = 3> (P, 16-bit): four registers per k-step,
//     n-tiles 2kk and 2kk+1 of the thread's elements packed in pairs (the
//     register A operand has mma.sync's A-fragment layout per warp). MLIR's
//     nvvm.wgmma.mma_async takes descriptors only: this form is one
//     wgmma instruction in an llvm.inline_asm.
//   fp8 (e4m3, k = 32): both operands K-major (wgmma reads 8-bit operands
//     only so: V arrives transposed); a k-step is 32 bytes of a row, as for
//     16-bit elements, so the descriptors step alike. A P from registers is
//     regrouped within each quad (fp8RegisterA).
//   rhs in #attn.shared<slab = 128>: rhs_transposed ([N, K], K) K-major,
//     else ([K, N], V) N-major (imm-trans-b = 1)
//   lhs_transposed (a [K, M] tile in #attn.shared<slab = 128>, Kᵀ of
//     dQᵀ = Kᵀ·dS): M-major (imm-trans-a = 1), read like an N-major rhs;
//     warpgroup G's 64 rows of M are slab G, k-step kk 16 rows further
//
// Descriptors (PTX ISA "Matrix Descriptor Format"; 64-bit): bits 0-13 start
// address >> 4, 16-29 leading byte offset >> 4, 32-45 stride byte offset >> 4,
// 62-63 swizzle (1 = 128 bytes, 2 = 64). In a tile of slabs of S bytes (128
// or 64) every 8 rows of a slab form one swizzle atom of 8·S bytes:
//   K-major  (Q, K): stride offset 8·S (next 8 rows); the leading offset is
//            unused (K stays inside one slab row per k-step: 32 bytes);
//            k-step kk starts at slab kk / (S/32), byte 32·(kk % (S/32)) of
//            the row
//   N-major  (V):    stride offset 8·S (next 8 rows of K), leading offset
//            rows·S (next slab: the next S/2 16-bit columns of N, PTX's
//            "MN-major, swizzled" layout ((T, S/16, m), (8, k)) :
//            ((1, T, LBO), (S/2, SBO)) in elements, T = 8); k-step kk
//            starts 16 rows = 16·S bytes further
//
// The sequence per dot: wgmma.fence (the accumulator registers were
// written by ordinary instructions), the wgmma of every k-step, one
// commit_group, wait_group 0 (the result is read right after). A zero
// constant accumulator is not read: the first wgmma runs with scale-d = 0.
//
//===----------------------------------------------------------------------===//
#include "PatternsCommon.h"

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::gpu_lowering;

namespace {

/// The shared-memory matrix descriptors of a slab tile: one base per dot
/// (the tile's address), a constant byte offset per k-step.
///   desc(base + off) = desc(base) + (off >> 4)
/// since the start address field (bits 0-13, address >> 4) cannot carry:
/// shared addresses stay below 2^18 (sm_90 gives a block at most 227 KiB,
/// and the kernel's allocation is checked against the target). The add is
/// on the low 32 bits (the high word, the stride offset and the swizzle, is
/// constant): one integer add per wgmma instead of rebuilding the
/// descriptor (CUTLASS's descriptor iterator does the same).
struct Descriptors {
  Value lo;        // i32: start address >> 4 | leading offset >> 4 << 16
  uint32_t hi = 0; // stride offset >> 4 | swizzle (1: 128 B, 2: 64) << 30

  /// A tile of `slabBytes` (128 or 64) slabs: stride offset 8 slab rows.
  Descriptors(Emitter &e, Value base, int64_t leadingBytes, int64_t slabBytes) {
    const int64_t strideBytes = 8 * slabBytes;
    const uint32_t swizzle = slabBytes == 128 ? 1 : 2;
    OpBuilder &b = e.b;
    Value a = LLVM::PtrToIntOp::create(b, e.loc, b.getI32Type(), base);
    Value start = LLVM::LShrOp::create(
        b, e.loc, LLVM::AndOp::create(b, e.loc, a, e.c32(0x3FFFF)), e.c32(4));
    lo = LLVM::OrOp::create(
        b, e.loc, start, e.c32(int32_t(((leadingBytes >> 4) & 0x3FFF) << 16)));
    hi = uint32_t((strideBytes >> 4) & 0x3FFF) | (swizzle << 30);
  }

  /// The descriptor of the tile `offsetBytes` (a multiple of 16) past the
  /// base.
  Value at(Emitter &e, int64_t offsetBytes) const {
    OpBuilder &b = e.b;
    Type i64 = b.getI64Type();
    Value l = offsetBytes ? LLVM::AddOp::create(
                                b, e.loc, lo, e.c32(int32_t(offsetBytes >> 4)))
                          : lo;
    Value wide = LLVM::ZExtOp::create(b, e.loc, i64, l);
    return LLVM::OrOp::create(
        b, e.loc, wide,
        LLVM::ConstantOp::create(
            b, e.loc, i64,
            // (Unsigned: the 64-byte swizzle's bit 63 is the sign bit.)
            b.getI64IntegerAttr(static_cast<int64_t>(uint64_t(hi) << 32))));
  }
};

/// Inline-asm constraints for `n` f32 outputs tied to the first `n` inputs
/// ("=f,...,0,1,..."), then `rest` (without a leading comma; may be empty).
std::string tiedF32Constraints(int64_t n, StringRef rest) {
  std::string c;
  for (int64_t i = 0; i < n; ++i)
    c += "=f,";
  for (int64_t i = 0; i < n; ++i)
    c += std::to_string(i) + (i + 1 < n || !rest.empty() ? "," : "");
  return c + rest.str();
}

/// Replaces each of `f32s` and `b32s` by its value passed through one
/// empty side-effecting inline asm with tied operands: their definitions
/// stay above the point where it is emitted.
void pinRegisters(Emitter &e, MutableArrayRef<Value> f32s,
                  MutableArrayRef<Value> b32s) {
  const size_t n = f32s.size() + b32s.size();
  if (!n)
    return;
  SmallVector<Type> types;
  SmallVector<Value> operands;
  std::string constraints;
  for (Value v : f32s) {
    types.push_back(v.getType());
    operands.push_back(v);
    constraints += "=f,";
  }
  for (Value v : b32s) {
    types.push_back(v.getType());
    operands.push_back(v);
    constraints += "=r,";
  }
  for (size_t i = 0; i < n; ++i)
    constraints += std::to_string(i) + (i + 1 < n ? "," : "");
  auto structTy = LLVM::LLVMStructType::getLiteral(e.b.getContext(), types);
  Value pinned =
      LLVM::InlineAsmOp::create(e.b, e.loc, structTy, operands, "", constraints,
                                /*has_side_effects=*/true,
                                /*is_align_stack=*/false,
                                LLVM::tailcallkind::TailCallKind::None,
                                /*asm_dialect=*/LLVM::AsmDialectAttr(),
                                /*operand_attrs=*/ArrayAttr())
          .getResult(0);
  size_t i = 0;
  for (Value &v : f32s)
    v = LLVM::ExtractValueOp::create(e.b, e.loc, pinned, i++);
  for (Value &v : b32s)
    v = LLVM::ExtractValueOp::create(e.b, e.loc, pinned, i++);
}

/// The wgmma A fragment of 8-bit elements for k-step kk from a thread's
/// bytes in the accumulator's order (element 4·n + e of n-tile n: rows g
/// (e = 0, 1) and g + 8 (e = 2, 3), columns 8n + 2q + e % 2).
///
/// The A fragment (mma.sync's m16n8k32 8-bit A per warp) wants, per row
/// r in {g, g + 8}, the k-step's columns 4q..4q+3 in register 2·0 + r and
/// 16 + 4q..16 + 4q + 3 in register 2·1 + r. The thread holds columns
/// 2q, 2q+1 of each n-tile instead: n-tiles 4kk..4kk+3 are the pairs
/// A, B, C, D at columns 2q, 8 + 2q, 16 + 2q, 24 + 2q of the k-step.
/// Columns 4q..4q+3 are pairs A (q < 2) or B (q >= 2) of quad lanes
/// 2q mod 4 and 2q+1 mod 4, and columns 16 + 4q.. the C or D pairs of the
/// same lanes. So each lane packs U = A | C << 16 and V = B | D << 16 and
/// two shuffles move them: in the first an even lane sends U and an odd
/// one V, in the second the other way round; lane q reads lane
/// s1 = ((q & 1) << 1) | (q >> 1) first and s1 ^ 1 second, which gives
/// lanes 0, 1 the U of lanes 2q and 2q+1 (in that order) and lanes 2, 3
/// the V of lanes 2(q−2)+1 and 2(q−2) (swapped). With (lo, hi) the two in
/// column order, register 0 is lo[0:16] | hi[0:16] << 16 and register 1
/// lo[16:32] | hi[16:32] << 16: one byte permute each of the two received
/// words, its selector chosen per lane (FlashAttention-3's form), where
/// selects, masks and shifts took six instructions.
SmallVector<Value, 4> fp8RegisterA(Emitter &e, Value bytes, int64_t kk) {
  OpBuilder &b = e.b;
  Type i32 = e.i32();
  Value lane = e.lane();
  Value q = e.urem(lane, e.c32(4));
  Value even = e.cmp(arith::CmpIPredicate::eq,
                     arith::AndIOp::create(b, e.loc, q, e.c32(1)), e.c32(0));
  Value low = e.cmp(arith::CmpIPredicate::ult, q, e.c32(2));
  Value quad = arith::AndIOp::create(b, e.loc, lane, e.c32(~3));
  Value s1 = arith::OrIOp::create(
      b, e.loc,
      arith::ShLIOp::create(
          b, e.loc, arith::AndIOp::create(b, e.loc, q, e.c32(1)), e.c32(1)),
      arith::ShRUIOp::create(b, e.loc, q, e.c32(1)));
  Value src1 = arith::OrIOp::create(b, e.loc, quad, s1);
  Value src2 = arith::OrIOp::create(b, e.loc, quad, e.xori(s1, e.c32(1)));
  // prmt's bytes 0-3 are the first word's, 4-7 the second's; a selector's
  // nibbles name the result's bytes from the lowest: (lo, hi) = (first,
  // second) on lanes 0, 1 and (second, first) on lanes 2, 3.
  Value lowHalves = e.select(low, e.c32(0x5410), e.c32(0x1054));
  Value highHalves = e.select(low, e.c32(0x7632), e.c32(0x3276));
  // The thread's elements as 16-bit pairs: pair 2n + r holds row r's two
  // columns of n-tile n (elements 4n + 2r, 4n + 2r + 1), as truncf's
  // lowering converted them.
  auto bytesTy = cast<VectorType>(bytes.getType());
  Value pairs = LLVM::BitcastOp::create(
      b, e.loc, VectorType::get({bytesTy.getNumElements() / 2}, b.getI16Type()),
      bytes);
  auto word = [&](int64_t p0, int64_t p1) -> Value {
    Value v = vector::ShuffleOp::create(b, e.loc, pairs, pairs,
                                        ArrayRef<int64_t>{p0, p1});
    return LLVM::BitcastOp::create(b, e.loc, i32, v);
  };
  auto shfl = [&](Value v, Value src) -> Value {
    return NVVM::ShflOp::create(b, e.loc, i32, e.c32(-1), v, src, e.c32(0x1f),
                                NVVM::ShflKind::idx, UnitAttr());
  };
  auto prmt = [&](Value first, Value second, Value selector) -> Value {
    return NVVM::PermuteOp::create(b, e.loc, i32, first, second, selector,
                                   NVVM::PermuteMode::DEFAULT);
  };
  SmallVector<Value, 4> regs(4);
  for (int64_t r = 0; r < 2; ++r) {
    int64_t nA = 4 * kk, nB = nA + 1, nC = nA + 2, nD = nA + 3;
    Value u = word(2 * nA + r, 2 * nC + r);
    Value v = word(2 * nB + r, 2 * nD + r);
    Value r1 = shfl(e.select(even, u, v), src1);
    Value r2 = shfl(e.select(even, v, u), src2);
    // register r: lo[0:16] | hi[0:16] << 16; register 2 + r: the high
    // halves.
    regs[r] = prmt(r1, r2, lowHalves);
    regs[2 + r] = prmt(r1, r2, highHalves);
  }
  return regs;
}

bool isZeroConstant(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  if (!cst)
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
  return dense && dense.isSplat() && dense.getSplatValue<APFloat>().isPosZero();
}

struct WarpgroupDotLowering : public OpConversionPattern<DotOp> {
  WarpgroupDotLowering(TileTypeConverter &tc, const KernelInfo &info,
                       MLIRContext *ctx)
      : OpConversionPattern<DotOp>(tc, ctx, /*benefit=*/2), info(info) {}
  const KernelInfo &info;

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto lhsTy = cast<RankedTensorType>(op.getLhs().getType());
    auto rhsTy = cast<RankedTensorType>(op.getRhs().getType());
    auto accTy = cast<RankedTensorType>(op.getAcc().getType());
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(accTy.getEncoding());
    if (!mma || !mma.isWarpgroup())
      return rewriter.notifyMatchFailure(op, "not a warpgroup accumulator");
    auto slab = [](RankedTensorType t) {
      auto s = dyn_cast_or_null<SharedLayoutAttr>(t.getEncoding());
      return s && s.getSlab();
    };
    Type et = lhsTy.getElementType();
    auto lhsRegs = dyn_cast_or_null<MmaLayoutAttr>(lhsTy.getEncoding());
    const bool fp8 = isa<Float8E4M3FNType>(et);
    if (!(et.isBF16() || et.isF16() || fp8) || rhsTy.getElementType() != et ||
        !accTy.getElementType().isF32() || !slab(rhsTy) ||
        !(slab(lhsTy) || lhsRegs == mma))
      return op.emitError()
             << "unsupported: attn.dot on wgmma needs f16/bf16/f8E4M3FN "
                "operands, the rhs in #attn.shared slabs, the lhs there or in "
                "the accumulator's layout, and f32 accumulators, got "
             << lhsTy << ", " << rhsTy << ", " << accTy;
    // A k-step is 32 bytes of a row: 16 16-bit or 32 8-bit elements.
    const int64_t kStep = fp8 ? 32 : 16;
    const bool mMajorA = op.getLhsTransposed();
    const int64_t N = accTy.getDimSize(1),
                  K = lhsTy.getDimSize(mMajorA ? 0 : 1);
    // A transposed lhs is read from shared memory only, 16-bit only.
    if (mMajorA &&
        (lhsRegs || fp8 ||
         cast<SharedLayoutAttr>(lhsTy.getEncoding()).getSlab() != 128))
      return op.emitError() << "unsupported: attn.dot with lhs_transposed on "
                               "wgmma needs a 16-bit lhs in #attn.shared "
                               "slabs of 128 bytes, got "
                            << lhsTy;
    if (K % kStep || N % 8)
      return op.emitError() << "unsupported: attn.dot on wgmma needs K in "
                               "multiples of "
                            << kStep
                            << " and N in multiples of 8, got "
                               "K = "
                            << K << ", N = " << N;
    // 8-bit operands are read K-major only (no transposed B).
    if (fp8 && !op.getRhsTransposed())
      return op.emitError() << "unsupported: an fp8 attn.dot with an N-major "
                               "rhs (wgmma reads 8-bit operands K-major "
                               "only: give the rhs transposed)";
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Emitter e(rewriter, loc);
    Type f32 = e.f32();
    const int64_t KS = K / kStep;
    const bool kMajorB = op.getRhsTransposed();
    SharedTile rhs(rhsTy);
    // This warpgroup's 64 rows of the lhs.
    Value wg = warpgroupOf(e, info);

    // Accumulator chunks of at most 256 columns (one instruction's N).
    SmallVector<int64_t> chunkCols;
    for (int64_t n0 = 0; n0 < N; n0 += 256)
      chunkCols.push_back(std::min<int64_t>(256, N - n0));

    bool zeroAcc = isZeroConstant(op.getAcc());
    Value accVec = adaptor.getAcc();
    SmallVector<Value> acc; // the thread's N/2 accumulators, (n, e) order
    for (int64_t i = 0; i < N / 2; ++i)
      acc.push_back(zeroAcc ? e.cf(0.0f) : e.extract(accVec, i));

    auto ptxType = fp8           ? NVVM::WGMMATypes::e4m3
                   : et.isBF16() ? NVVM::WGMMATypes::bf16
                                 : NVVM::WGMMATypes::f16;
    // A from registers: per k-step kk the n-tiles 2kk, 2kk+1 of the
    // thread's elements (rows g, g + 8; columns 2q, 2q + 1 and + 8),
    // packed in pairs; 8-bit elements regrouped in the quad.
    SmallVector<Value> aRegs;
    if (lhsRegs && fp8) {
      for (int64_t kk = 0; kk < KS; ++kk)
        llvm::append_range(aRegs, fp8RegisterA(e, adaptor.getLhs(), kk));
    } else if (lhsRegs) {
      Value lhsVec = adaptor.getLhs();
      auto at = [&](int64_t n, int64_t el) { return n * 4 + el; };
      for (int64_t kk = 0; kk < KS; ++kk)
        for (int64_t n : {2 * kk, 2 * kk + 1})
          for (int64_t el : {0, 2})
            aRegs.push_back(e.pack2(lhsVec, at(n, el), at(n, el + 1)));
    }
    // Every register a wgmma reads is written before the wgmma.fence that
    // opens its sequence: ptxas serialises the asynchronous products where
    // an ordinary instruction defines one of their input registers between
    // the fence and the wgmma (warning C7513). LLVM would sink the packs
    // and the accumulator's rescale below the fence, so their values pass
    // through an empty side-effecting inline asm ahead of it (a compiler
    // barrier on those registers, no instruction: CUTLASS's
    // warpgroup_fence_operand).
    // A zero accumulator too: with scale-d = 0 its registers are still the
    // instruction's inputs, and the zeros' moves would land after the fence.
    pinRegisters(e, acc, aRegs);
    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);

    // lhs in shared memory: this warpgroup's rows start 64 rows into every
    // slab (K-major), or are slab G (M-major: 64 columns of M a slab).
    std::optional<SharedTile> lhsTile;
    std::optional<Descriptors> lhsDescs;
    if (!lhsRegs) {
      lhsTile.emplace(lhsTy);
      Value first = mMajorA ? e.mul(wg, e.c32(lhsTile->slabBytes(1)))
                            : e.mul(wg, e.c32(64 * lhsTile->rowBytes));
      lhsDescs.emplace(e, e.gepBytes(adaptor.getLhs(), first),
                       /*leadingBytes=*/
                       mMajorA ? lhsTile->slabBytes(1) : 0,
                       lhsTile->layout.getSlab());
    }
    // rhs: K-major ([N, K]) keeps each k-step inside one slab row (no
    // leading offset); N-major ([K, N]) finds the next columns of N one
    // slab further.
    Descriptors rhsDescs(e, adaptor.getRhs(), kMajorB ? 0 : rhs.slabBytes(1),
                         rhs.layout.getSlab());
    // k-steps of 32 bytes in a slab row; 16-bit columns of N in a slab.
    auto kStepsPerSlab = [](const SharedTile &t) {
      return t.layout.getSlab() / 32;
    };
    const int64_t rhsSlabCols = rhs.layout.getSlab() / 2;

    int64_t n0 = 0;
    for (int64_t cols : chunkCols) {
      // Elements (n, e) of this chunk: n-tiles n0/8 .. (n0 + cols)/8.
      int64_t first = n0 / 2, count = cols / 2;
      auto structTy =
          LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(count, f32));
      for (int64_t kk = 0; kk < KS; ++kk) {
        // rhs k-step kk, columns n0 .. n0 + cols (p = S/32 k-steps a slab):
        //   [N, K] (K-major): rows n0.., slab kk/p, 32 bytes per k-step in
        //                     the row
        //   [K, N] (N-major): rows 16kk.., slab n0/(S/2)
        const int64_t p = kStepsPerSlab(rhs);
        Value bDesc = rhsDescs.at(
            e, kMajorB
                   ? n0 * rhs.rowBytes + rhs.slabBytes(kk / p) + 32 * (kk % p)
                   : 16 * kk * rhs.rowBytes + rhs.slabBytes(n0 / rhsSlabCols));
        bool scaleD = !(zeroAcc && kk == 0);
        SmallVector<Value> in(acc.begin() + first, acc.begin() + first + count);
        Value result;
        if (!lhsRegs) {
          // K-major: slab kk/p, 32 bytes per k-step in the row; M-major:
          // rows 16kk.. of the warpgroup's slab.
          const int64_t p = kStepsPerSlab(*lhsTile);
          Value aDesc = lhsDescs->at(e, mMajorA ? 16 * kk * lhsTile->rowBytes
                                                : lhsTile->slabBytes(kk / p) +
                                                      32 * (kk % p));
          Value inout = LLVM::PoisonOp::create(rewriter, loc, structTy);
          for (int64_t i = 0; i < count; ++i)
            inout = LLVM::InsertValueOp::create(rewriter, loc, inout, in[i], i);
          result = NVVM::WgmmaMmaAsyncOp::create(
              rewriter, loc, structTy, inout, aDesc, bDesc,
              NVVM::MMAShapeAttr::get(ctx, 64, cols, kStep),
              NVVM::WGMMATypesAttr::get(ctx, ptxType),
              NVVM::WGMMATypesAttr::get(ctx, ptxType),
              NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
              NVVM::WGMMAScaleOutAttr::get(ctx,
                                           scaleD ? NVVM::WGMMAScaleOut::one
                                                  : NVVM::WGMMAScaleOut::zero),
              NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
              NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
              NVVM::MMALayoutAttr::get(ctx, mMajorA ? NVVM::MMALayout::col
                                                    : NVVM::MMALayout::row),
              NVVM::MMALayoutAttr::get(ctx, kMajorB ? NVVM::MMALayout::col
                                                    : NVVM::MMALayout::row),
              /*satfinite=*/nullptr);
        } else {
          ArrayRef<Value> a = ArrayRef<Value>(aRegs).slice(4 * kk, 4);
          // {d...}, {a0..a3}, b-desc, scale-d, imm-scale-a, imm-scale-b,
          // imm-trans-b: outputs $0..$count-1 (tied to the inputs of the
          // same number), then the A registers, the descriptor and the
          // scale-d predicate.
          std::string asmStr;
          llvm::raw_string_ostream os(asmStr);
          // (8-bit types take no transpose immediates: K-major only.)
          os << "wgmma.mma_async.sync.aligned.m64n" << cols << "k" << kStep
             << ".f32."
             << (fp8           ? "e4m3.e4m3"
                 : et.isBF16() ? "bf16.bf16"
                               : "f16.f16")
             << " {";
          for (int64_t i = 0; i < count; ++i)
            os << (i ? ", " : "") << "$" << i;
          os << "}, {$" << 2 * count << ", $" << 2 * count + 1 << ", $"
             << 2 * count + 2 << ", $" << 2 * count + 3 << "}, $"
             << 2 * count + 4 << ", $" << 2 * count + 5 << ", 1, 1";
          if (!fp8)
            os << ", " << (kMajorB ? 0 : 1);
          os << ";";
          std::string constraints = tiedF32Constraints(count, "r,r,r,r,l,b");
          SmallVector<Value> operands(in);
          operands.append(a.begin(), a.end());
          operands.push_back(bDesc);
          operands.push_back(
              LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                       rewriter.getBoolAttr(scaleD)));
          result = LLVM::InlineAsmOp::create(
                       rewriter, loc, structTy, operands, asmStr, constraints,
                       /*has_side_effects=*/true, /*is_align_stack=*/false,
                       LLVM::tailcallkind::TailCallKind::None,
                       /*asm_dialect=*/LLVM::AsmDialectAttr(),
                       /*operand_attrs=*/ArrayAttr())
                       .getResult(0);
        }
        for (int64_t i = 0; i < count; ++i)
          acc[first + i] =
              LLVM::ExtractValueOp::create(rewriter, loc, result, i);
      }
      n0 += cols;
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    // An async product's registers are in flight: attn.dot_wait waits.
    if (!op.getAsync())
      NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, 0);
    rewriter.replaceOp(
        op, e.fromElements(getTypeConverter()->convertType(accTy), acc));
    return success();
  }
};

/// attn.dot_wait: wgmma.wait_group N as one inline instruction that takes
/// the product's registers as tied operands, so that no read of them can be
/// scheduled above the wait.
struct DotWaitLowering : public OpConversionPattern<DotWaitOp> {
  DotWaitLowering(TileTypeConverter &tc, const KernelInfo &, MLIRContext *ctx)
      : OpConversionPattern<DotWaitOp>(tc, ctx) {}

  LogicalResult
  matchAndRewrite(DotWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto vecTy = dyn_cast<VectorType>(adaptor.getInput().getType());
    if (!vecTy || !vecTy.getElementType().isF32())
      return op.emitError() << "unsupported: attn.dot_wait on " << op.getType()
                            << " (expected a wgmma accumulator)";
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    int64_t n = vecTy.getNumElements();
    SmallVector<Value> in;
    for (int64_t i = 0; i < n; ++i)
      in.push_back(e.extract(adaptor.getInput(), i));
    std::string constraints = tiedF32Constraints(n, "");
    auto structTy = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), SmallVector<Type>(n, e.f32()));
    Value r =
        LLVM::InlineAsmOp::create(rewriter, loc, structTy, in,
                                  "wgmma.wait_group.sync.aligned " +
                                      std::to_string(op.getPending()) + ";",
                                  constraints, /*has_side_effects=*/true,
                                  /*is_align_stack=*/false,
                                  LLVM::tailcallkind::TailCallKind::None,
                                  LLVM::AsmDialectAttr(), ArrayAttr())
            .getResult(0);
    SmallVector<Value> out;
    for (int64_t i = 0; i < n; ++i)
      out.push_back(LLVM::ExtractValueOp::create(rewriter, loc, r, i));
    rewriter.replaceOp(op, e.fromElements(vecTy, out));
    return success();
  }
};

} // namespace

void mlir::attn::gpu_lowering::populateWarpgroupDotPatterns(
    TileTypeConverter &tc, const KernelInfo &info,
    RewritePatternSet &patterns) {
  patterns.add<WarpgroupDotLowering, DotWaitLowering>(tc, info,
                                                      patterns.getContext());
}
