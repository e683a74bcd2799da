//===- AttnGPUToNVVM.cpp - laid-out tile programs to GPU kernels -*- C++ -*-=//
//
// The pass of the GPU backend that turns each laid-out tile grid into a
// kernel: (1) outline the grid body into a gpu.func taking the enclosing
// function's arguments, with the grid indices read from the block index,
// and launch it; (2) give shared memory to the ops that own some; (3) run
// the per-op conversion patterns (MemoryOpToNVVM.cpp, DotOpToNVVM.cpp,
// RegisterOpToNVVM.cpp) over the kernel body; (4) lower the math the
// patterns left on vectors to the GPU's special-function instructions.
//
//===----------------------------------------------------------------------===//
#include "PatternsCommon.h"

#include "attn/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::attn {
#define GEN_PASS_DEF_CONVERTATTNGPUTONVVM
#include "attn/Conversion/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::gpu_lowering;

//===----------------------------------------------------------------------===//
// Shared pieces (PatternsCommon.h)
//===----------------------------------------------------------------------===//

TileTypeConverter::TileTypeConverter(MLIRContext *ctx) {
  addConversion([](Type t) { return t; });
  addConversion([ctx](RankedTensorType t) -> std::optional<Type> {
    Attribute enc = t.getEncoding();
    if (!enc)
      return std::nullopt; // a tile without a layout cannot be lowered
    if (auto mma = dyn_cast<MmaLayoutAttr>(enc))
      return VectorType::get({mma.getElementsPerThread(t.getShape())},
                             t.getElementType());
    if (auto slice = dyn_cast<SliceLayoutAttr>(enc))
      return VectorType::get({slice.getElementsPerThread(t.getDimSize(0))},
                             t.getElementType());
    if (isa<SharedLayoutAttr>(enc))
      return LLVM::LLVMPointerType::get(ctx, 3);
    return std::nullopt;
  });
  addConversion(
      [ctx](RingType) -> Type { return LLVM::LLVMPointerType::get(ctx, 3); });
  // Values crossing between converted and unconverted ops (none remain in a
  // successful conversion) are bridged by casts.
  auto cast = [](OpBuilder &b, Type t, ValueRange in, Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, t, in).getResult(0);
  };
  addSourceMaterialization(cast);
  addTargetMaterialization(cast);
}

Value Emitter::pack2(Value vec, int64_t i, int64_t j) {
  Value pair =
      vector::ShuffleOp::create(b, loc, vec, vec, ArrayRef<int64_t>{i, j});
  return LLVM::BitcastOp::create(b, loc, i32(), pair);
}

Value Emitter::smemAt(Operation *anchor, int64_t offset) {
  auto gm = anchor->getParentOfType<gpu::GPUModuleOp>();
  auto global = gm.lookupSymbol<LLVM::GlobalOp>(kSmemSymbol);
  Value base = LLVM::AddressOfOp::create(b, loc, global);
  return offset ? gepBytes(base, c32(offset)) : base;
}

MmaCoords MmaCoords::get(Emitter &e, MmaLayoutAttr layout, int64_t rows) {
  MmaCoords c;
  c.mTiles = layout.getMTiles(rows);
  Value lane = e.lane();
  c.warpRow0 = e.mul(e.warp(), e.c32(16 * c.mTiles));
  c.g = e.udiv(lane, e.c32(4));
  c.q = e.urem(lane, e.c32(4));
  return c;
}

SharedTile::SharedTile(RankedTensorType t)
    : layout(cast<SharedLayoutAttr>(t.getEncoding())), rows(t.getDimSize(0)),
      cols(t.getDimSize(1)),
      rowBytes(layout.getRowBytes(
          cols, t.getElementType().getIntOrFloatBitWidth() / 8)) {}

int64_t SharedTile::chunkGroupBytes(int64_t group) const {
  // Chunks 8g .. 8g + 7: slab g, or bytes 128g .. of the row.
  return group * (layout.getSlab() ? rows * layout.getSlab() : 128);
}

Value SharedTile::offset(Emitter &e, Value row, Value chunk) const {
  Value rowOff = e.mul(row, e.c32(rowBytes));
  if (layout.getSlab()) {
    // Slab chunk / 8, rows of 128 bytes in it, chunk' = (chunk % 8) ^ (row %
    // 8).
    Value slabOff = e.mul(e.udiv(chunk, e.c32(8)), e.c32(chunkGroupBytes(1)));
    Value sw = e.xori(e.urem(chunk, e.c32(8)), e.urem(row, e.c32(8)));
    return e.add(e.add(slabOff, rowOff), e.mul(sw, e.c32(16)));
  }
  if (!layout.getSwizzle())
    return e.add(rowOff, e.mul(chunk, e.c32(16)));
  // chunk' = chunk ^ (row % 8): ldmatrix's 8 rows hit 8 bank groups.
  Value sw = e.xori(chunk, e.urem(row, e.c32(8)));
  return e.add(rowOff, e.mul(sw, e.c32(16)));
}

SharedTile::LaneBase SharedTile::laneBase(Emitter &e, Value tile, Value laneRow,
                                          Value laneChunk) const {
  Value rowOff = e.mul(laneRow, e.c32(rowBytes));
  LaneBase lb;
  if (!layout.getSwizzle()) {
    // Padded rows: one lane base, everything else is an immediate.
    lb.ptr.push_back(
        e.gepBytes(tile, e.add(rowOff, e.mul(laneChunk, e.c32(16)))));
    return lb;
  }
  Value y = e.xori(laneChunk, e.urem(laneRow, e.c32(8)));
  for (int64_t k = 0; k < 4; ++k)
    lb.ptr.push_back(e.gepBytes(
        tile, e.add(rowOff, e.mul(e.xori(y, e.c32(2 * k)), e.c32(16)))));
  return lb;
}

Value SharedTile::at(Emitter &e, const LaneBase &lb, int64_t row,
                     int64_t chunk) const {
  assert(row % 8 == 0 && chunk % 2 == 0 && "constant part misaligned");
  if (!layout.getSwizzle())
    return e.gepBytes(lb.ptr[0], e.c32(row * rowBytes + chunk * 16));
  int64_t imm = row * rowBytes + chunkGroupBytes(chunk / 8);
  return e.gepBytes(lb.ptr[(chunk & 7) / 2], e.c32(imm));
}

bool mlir::attn::gpu_lowering::ringHasBarriers(AllocRingOp ring) {
  return llvm::any_of(ring->getUsers(), [](Operation *user) {
    return isa<AsyncArriveOp, RingWaitOp, RingReleaseOp, RingAcquireOp>(user);
  });
}

SmallVector<Value, 4> mlir::attn::gpu_lowering::ldmatrix4(Emitter &e, Value ptr,
                                                          bool trans) {
  MLIRContext *ctx = e.b.getContext();
  Type i32 = e.i32();
  auto st = LLVM::LLVMStructType::getLiteral(ctx, {i32, i32, i32, i32});
  Value r = NVVM::LdMatrixOp::create(
      e.b, e.loc, st, ptr, 4,
      trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
      NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8), NVVM::LdStMatrixEltType::B16);
  SmallVector<Value, 4> regs;
  for (int64_t i = 0; i < 4; ++i)
    regs.push_back(LLVM::ExtractValueOp::create(e.b, e.loc, r, i));
  return regs;
}

GlobalRows mlir::attn::gpu_lowering::globalRows(Emitter &e, Value source,
                                                ValueRange indices) {
  OpBuilder &b = e.b;
  auto meta = memref::ExtractStridedMetadataOp::create(b, e.loc, source);
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(b, e.loc, source);
  Value a64 = arith::IndexCastUIOp::create(b, e.loc, b.getI64Type(), aligned);
  Value ptr = LLVM::IntToPtrOp::create(b, e.loc, e.gptr(), a64);
  Type elemTy = cast<MemRefType>(source.getType()).getElementType();
  // Element offset of [indices..., 0], in 64 bits: the memref's offset plus
  // every index (the row's too) times its stride.
  Value off = e.to64(meta.getOffset());
  for (size_t i = 0; i < indices.size(); ++i) {
    // One statement each: the order of the ops must not depend on the
    // compiler's order of evaluating arguments.
    Value index = e.to64(indices[i]);
    Value stride = e.to64(meta.getStrides()[i]);
    off = e.add(off, e.mul(index, stride));
  }
  GlobalRows g;
  g.base = e.gep(e.gptr(), elemTy, ptr, off);
  g.row0 = e.c32(0);
  g.stride = e.to32(meta.getStrides()[indices.size() - 1]);
  return g;
}

void mlir::attn::gpu_lowering::emitTileCopy(Emitter &e, const KernelInfo &info,
                                            const SharedTile &st, Type elemTy,
                                            Value gBase, Value stride,
                                            Value row0, Value valid,
                                            Value sTile) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  // In a warp-specialised program only the producer copies: its threads
  // count from 0 here.
  int64_t threads = info.copyThreads();
  int64_t chunksPerRow = st.cols / 8;
  int64_t total = st.rows * chunksPerRow;
  Value tid = e.tid();
  if (info.producerWarps)
    tid = e.sub(tid, e.c32(32 * info.warps));
  // A constant row count that covers the tile (the key/value blocks of an
  // unmasked segment): every row is in range, no per-row bound to test or
  // keep in a register.
  Value v = valid;
  while (v.getDefiningOp<arith::IndexCastOp>() ||
         v.getDefiningOp<arith::TruncIOp>())
    v = v.getDefiningOp()->getOperand(0);
  std::optional<int64_t> constRows = getConstantIntValue(v);
  bool whole = constRows && *constRows >= st.rows;
  auto copyChunk = [&](Value r, Value chunk, Value dst) {
    Value gOff = e.add(e.mul(e.add(row0, r), stride), e.mul(chunk, e.c32(8)));
    if (whole) {
      NVVM::CpAsyncOp::create(b, loc, dst, e.gep(e.gptr(), elemTy, gBase, gOff),
                              16, NVVM::LoadCacheModifierKind::CG, Value());
      return;
    }
    // Out-of-range rows read 0 bytes (zero-fill) from the tile's base.
    Value inRange = e.cmp(arith::CmpIPredicate::slt, r, valid);
    Value src =
        e.gep(e.gptr(), elemTy, gBase, e.select(inRange, gOff, e.c32(0)));
    NVVM::CpAsyncOp::create(b, loc, dst, src, 16,
                            NVVM::LoadCacheModifierKind::CG,
                            e.select(inRange, e.c32(16), e.c32(0)));
  };
  if (threads % chunksPerRow == 0) {
    // Each thread copies one chunk column of rows r0, r0 + rowsPerPass, ...
    int64_t rowsPerPass = threads / chunksPerRow;
    Value r0 = e.udiv(tid, e.c32(chunksPerRow));
    Value chunk = e.urem(tid, e.c32(chunksPerRow));
    int64_t passes = llvm::divideCeil(st.rows, rowsPerPass);
    // Pass p's shared address, row r = r0 + p·R (R = rowsPerPass):
    //   off(r) = r·rowBytes + (chunk ^ (r mod 8))·16
    //          = off(r0 + k) + (p·R − k)·rowBytes,   k = p·R mod 8,
    // since (r0 + p·R) mod 8 = (r0 + k) mod 8: one lane base per k and an
    // immediate per pass. Used where R is not a multiple of 8 (4-row passes:
    // 64x256 tiles over 128 threads): the swizzle's XOR is then not the
    // same in every pass, and with one address per pass kept live across
    // the key/value loop (16 x 64 bits) ptxas spilled 560 bytes. Where R is
    // a multiple of 8 (every default kernel) the per-pass form is kept: the
    // lane bases measured the same there (H100, D = 128/256, ±2%) and ptxas,
    // at 255 registers, then spilled 8-52 bytes in three other kernels
    // (results/PERF-NOTES.md, v11).
    bool laneBases = st.layout.getSwizzle() && rowsPerPass % 8 != 0;
    DenseMap<int64_t, Value> laneDst;
    for (int64_t p = 0; p < passes; ++p) {
      Value r = e.add(r0, e.c32(p * rowsPerPass));
      Value dst;
      if (laneBases) {
        int64_t k = (p * rowsPerPass) % 8;
        Value &base = laneDst[k];
        if (!base)
          base = e.gepBytes(sTile, st.offset(e, e.add(r0, e.c32(k)), chunk));
        dst = e.gepBytes(base, e.c32((p * rowsPerPass - k) * st.rowBytes));
      }
      OpBuilder::InsertionGuard guard(b);
      if (st.rows % rowsPerPass) {
        // More threads than chunks: the extra threads idle.
        auto inTile = scf::IfOp::create(
            b, loc, e.cmp(arith::CmpIPredicate::slt, r, e.c32(st.rows)), false);
        b.setInsertionPointToStart(inTile.thenBlock());
      }
      if (!dst)
        dst = e.gepBytes(sTile, st.offset(e, r, chunk));
      copyChunk(r, chunk, dst);
    }
    return;
  }
  // A row's chunks do not divide the threads (D = 96, ...): pass p copies
  // chunk i = tid + p·threads of the tile, at row i / (D/8).
  int64_t passes = llvm::divideCeil(total, threads);
  for (int64_t p = 0; p < passes; ++p) {
    Value i = e.add(tid, e.c32(p * threads));
    OpBuilder::InsertionGuard guard(b);
    if ((p + 1) * threads > total) {
      auto inTile = scf::IfOp::create(
          b, loc, e.cmp(arith::CmpIPredicate::slt, i, e.c32(total)), false);
      b.setInsertionPointToStart(inTile.thenBlock());
    }
    Value r = e.udiv(i, e.c32(chunksPerRow)),
          chunk = e.urem(i, e.c32(chunksPerRow));
    copyChunk(r, chunk, e.gepBytes(sTile, st.offset(e, r, chunk)));
  }
}

//===----------------------------------------------------------------------===//
// Special functions on vectors
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {

/// Whether `t` is a tile with a GPU layout.
bool isLaidOut(Type t) {
  // A ring holds shared-memory tiles: a program that allocates one is a
  // GPU program, whatever else it does.
  if (auto ring = dyn_cast<RingType>(t))
    return isLaidOut(ring.getTile());
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && rt.getEncoding() &&
         isa<MmaLayoutAttr, SliceLayoutAttr, SharedLayoutAttr>(
             rt.getEncoding());
}

struct ConvertAttnGPUToNVVMPass
    : public attn::impl::ConvertAttnGPUToNVVMBase<ConvertAttnGPUToNVVMPass> {
  using Base::Base;

  gpu::GPUModuleOp kernelModule(ModuleOp top) {
    if (auto m = top.lookupSymbol<gpu::GPUModuleOp>("attn_kernels"))
      return m;
    OpBuilder b = OpBuilder::atBlockEnd(top.getBody());
    top->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                 b.getUnitAttr());
    auto gm = gpu::GPUModuleOp::create(b, top.getLoc(), "attn_kernels");
    OpBuilder mb = OpBuilder::atBlockEnd(gm.getBody());
    LLVM::GlobalOp::create(mb, top.getLoc(),
                           LLVM::LLVMArrayType::get(mb.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External,
                           kSmemSymbol, Attribute(), /*alignment=*/16,
                           /*addrSpace=*/3);
    return gm;
  }

  /// The memref a tile load or store reads or writes (null for other ops);
  /// `copied`: whether it is a copy into shared memory (attn.load_tile to
  /// #attn.shared, attn.async_load_tile), as opposed to registers.
  static Value tileMemref(Operation *op, bool *copied = nullptr) {
    bool toShared = false;
    Value mem;
    if (auto l = dyn_cast<LoadTileOp>(op)) {
      mem = l.getSource();
      toShared = isa_and_nonnull<SharedLayoutAttr>(
          cast<RankedTensorType>(l.getType()).getEncoding());
    } else if (auto s = dyn_cast<StoreTileOp>(op)) {
      mem = s.getDest();
    } else if (auto a = dyn_cast<AsyncLoadTileOp>(op)) {
      mem = a.getSource();
      toShared = true;
    }
    if (copied)
      *copied = toShared;
    return mem;
  }

  /// Every tile load and store addresses a row as consecutive elements
  /// (16-byte cp.async chunks, element pairs): the memref's innermost stride
  /// must be 1, known when the kernel is compiled. A strided innermost
  /// dimension would be read as if it were contiguous.
  LogicalResult checkRowAccess(scf::ForallOp grid) {
    WalkResult r = grid.getBody()->walk([&](Operation *op) {
      Value mem = tileMemref(op);
      auto t = mem ? dyn_cast<MemRefType>(mem.getType()) : MemRefType();
      if (t && !t.isLastDimUnitStride()) {
        op->emitError() << "unsupported: " << t
                        << " on the GPU: the innermost stride must be 1 "
                           "(statically); rows are read and written as "
                           "consecutive elements";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return failure(r.wasInterrupted());
  }

  /// Whether a tile the grid copies into shared memory comes from a memref
  /// whose row stride (the second-innermost) is unknown when the kernel is
  /// compiled.
  static bool hasDynamicRowStride(scf::ForallOp grid) {
    bool dynamic = false;
    grid.getBody()->walk([&](Operation *op) {
      bool copied = false;
      Value mem = tileMemref(op, &copied);
      auto t = copied ? dyn_cast<MemRefType>(mem.getType()) : MemRefType();
      if (!t || t.getRank() < 2)
        return;
      SmallVector<int64_t> strides;
      int64_t offset;
      dynamic |= failed(t.getStridesAndOffset(strides, offset)) ||
                 ShapedType::isDynamic(strides[strides.size() - 2]);
    });
    return dynamic;
  }

  /// The warps of the program's mma layout (every register tile has it).
  FailureOr<int64_t> programWarps(scf::ForallOp grid) {
    int64_t warps = 0;
    WalkResult r = grid.getBody()->walk([&](Operation *op) {
      for (Type t : op->getResultTypes()) {
        auto rt = dyn_cast<RankedTensorType>(t);
        if (!rt)
          continue;
        if (!isLaidOut(rt)) {
          op->emitError() << "unsupported: tile " << rt
                          << " has no GPU layout (run attn-assign-layouts)";
          return WalkResult::interrupt();
        }
        MmaLayoutAttr m;
        if (auto mm = dyn_cast<MmaLayoutAttr>(rt.getEncoding()))
          m = mm;
        else if (auto s = dyn_cast<SliceLayoutAttr>(rt.getEncoding()))
          m = s.getParent();
        if (!m)
          continue;
        if (warps && warps != m.getWarps()) {
          op->emitError() << "unsupported: layouts of " << warps << " and "
                          << m.getWarps() << " warps in one program";
          return WalkResult::interrupt();
        }
        warps = m.getWarps();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return failure();
    if (!warps)
      return grid.emitError("unsupported: a GPU program without register "
                            "tiles (#attn.mma)");
    return warps;
  }

  /// Gives each shared-memory owner its byte offset (128-byte aligned, no
  /// reuse: everything lives for the whole program). Returns the total.
  int64_t allocateSharedMemory(gpu::GPUFuncOp fn) {
    int64_t top = 0, maxAlign = 16;
    OpBuilder b(fn.getContext());
    fn.walk([&](Operation *op) {
      int64_t bytes = 0, align = 128;
      if (auto ring = dyn_cast<AllocRingOp>(op)) {
        auto t = cast<RingType>(ring.getType());
        bytes = t.getStages() * t.getSlotBytes();
        // Two mbarriers (8 bytes each) per slot after the slots.
        if (ringHasBarriers(ring))
          bytes += 16 * t.getStages();
        align = t.getLayout().getBaseAlignment();
      } else if (auto load = dyn_cast<LoadTileOp>(op)) {
        auto t = cast<RankedTensorType>(load.getType());
        if (!isa_and_nonnull<SharedLayoutAttr>(t.getEncoding()))
          return;
        int64_t eb = t.getElementType().getIntOrFloatBitWidth() / 8;
        auto layout = cast<SharedLayoutAttr>(t.getEncoding());
        bytes = layout.getTileBytes(t.getDimSize(0), t.getDimSize(1), eb);
        align = layout.getBaseAlignment();
      } else {
        return;
      }
      top = llvm::alignTo(top, align);
      maxAlign = std::max(maxAlign, align);
      op->setAttr(kSmemOffsetAttr, b.getI64IntegerAttr(top));
      top += llvm::alignTo(bytes, 128);
    });
    // The offsets are relative to the dynamic shared memory's base: it
    // must be as aligned as the most aligned tile (a slab tile's swizzle
    // atoms are 1024-byte aligned in the address the hardware swizzles).
    auto global =
        fn->getParentOfType<gpu::GPUModuleOp>().lookupSymbol<LLVM::GlobalOp>(
            kSmemSymbol);
    if (global.getAlignment().value_or(0) < uint64_t(maxAlign))
      global.setAlignment(maxAlign);
    return top;
  }

  /// Clones into the kernel (at `b`) the computation of a scalar the grid
  /// reads from outside: side-effect-free ops on the function's arguments.
  FailureOr<Value> recompute(Value v, IRMapping &map, OpBuilder &b,
                             Operation *user) {
    if (Value m = map.lookupOrNull(v))
      return m;
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumRegions() || !isMemoryEffectFree(def)) {
      // memref.dim reads only the descriptor: allowed.
      if (!isa_and_nonnull<memref::DimOp>(def))
        return user->emitError("unsupported: the GPU grid reads a value the "
                               "kernel cannot recompute from the function's "
                               "arguments");
    }
    for (Value o : def->getOperands())
      if (failed(recompute(o, map, b, user)))
        return failure();
    b.clone(*def, map);
    return map.lookup(v);
  }

  /// Maps the grid's (batch, head, query block) indices to what thread
  /// block L = x + X·(y + Y·z) runs (the hardware starts blocks in order of
  /// L). `groupBlocks` > 0: heads in groups of about that many blocks, each
  /// group's query blocks longest (last) first.
  void mapGridIndices(OpBuilder &b, Location loc, scf::ForallOp grid,
                      IRMapping &map, int64_t groupBlocks) {
    auto blockId = [&](gpu::Dimension d) -> Value {
      return gpu::BlockIdOp::create(b, loc, d);
    };
    auto gridDim = [&](gpu::Dimension d) -> Value {
      return gpu::GridDimOp::create(b, loc, d);
    };
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value bx = blockId(gpu::Dimension::x), by = blockId(gpu::Dimension::y),
          bz = blockId(gpu::Dimension::z);
    Value nx = gridDim(gpu::Dimension::x);
    if (groupBlocks <= 0) {
      // Query blocks of one head together (they share its K and V in L2),
      // the last first: with a causal mask it sees the most keys.
      Value last = arith::SubIOp::create(b, loc, nx, cst(1));
      map.map(grid.getInductionVar(0), bz);
      map.map(grid.getInductionVar(1), by);
      map.map(grid.getInductionVar(2), arith::SubIOp::create(b, loc, last, bx));
      return;
    }
    // In 32 bits (grid dimensions are below 2^31): the results stay live to
    // the epilogue, and 64-bit values would take two registers each.
    Emitter e(b, loc);
    auto u32 = [&](Value v) -> Value {
      return arith::IndexCastUIOp::create(b, loc, e.i32(), v);
    };
    auto index = [&](Value v) -> Value {
      return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
    };
    // Causal: query block t costs t + 1 key blocks. Longest first inside
    // equal groups of G heads (T = X query blocks a head, Y·Z heads):
    //   L = x + X·(y + Y·z),  G = ceil(Y·Z / ceil(Y·Z / ceil(blocks / T)))
    //   g = L / (G·T),  r = L % (G·T),  Gg = min(G, Y·Z - g·G)
    //   t = T - 1 - r / Gg,  n = g·G + r % Gg,  (batch, head) = (n/Y, n%Y)
    Value x = u32(bx), y = u32(by), z = u32(bz), nx32 = u32(nx);
    Value ny = u32(gridDim(gpu::Dimension::y));
    Value nz = u32(gridDim(gpu::Dimension::z));
    Value heads = e.mul(ny, nz);
    Value linear = e.add(x, e.mul(nx32, e.add(y, e.mul(ny, z))));
    Value groups = e.uceilDiv(
        heads,
        e.uceilDiv(e.c32(std::min<int64_t>(groupBlocks, INT32_MAX)), nx32));
    Value groupHeads = e.uceilDiv(heads, groups);
    Value groupSize = e.mul(groupHeads, nx32);
    Value g = e.udiv(linear, groupSize);
    Value r = e.urem(linear, groupSize);
    Value firstHead = e.mul(g, groupHeads);
    Value headsHere = e.umin(groupHeads, e.sub(heads, firstHead));
    Value n = e.add(firstHead, e.urem(r, headsHere));
    map.map(grid.getInductionVar(0), index(e.udiv(n, ny)));
    map.map(grid.getInductionVar(1), index(e.urem(n, ny)));
    map.map(grid.getInductionVar(2),
            index(e.sub(e.sub(nx32, e.c32(1)), e.udiv(r, headsHere))));
  }

  LogicalResult outline(scf::ForallOp grid, ModuleOp top, int64_t index) {
    auto func = grid->getParentOfType<func::FuncOp>();
    if (!func)
      return grid.emitError("unsupported: a GPU grid outside a func.func");
    if (grid.getRank() != 3 || !grid.getOutputs().empty() ||
        !grid.isNormalized())
      return grid.emitError("unsupported: expected a normalized 3-d "
                            "(batch, head, query block) scf.forall grid");
    FailureOr<int64_t> warps = programWarps(grid);
    if (failed(warps))
      return failure();
    if (failed(checkRowAccess(grid)))
      return failure();
    KernelInfo info;
    info.warps = *warps;
    grid.getBody()->walk([&](DotOp dot) {
      auto acc = cast<RankedTensorType>(dot.getType());
      if (auto m = dyn_cast_or_null<MmaLayoutAttr>(acc.getEncoding()))
        info.warpgroupMma |= m.isWarpgroup();
    });
    // A producer warpgroup after the consumers (attn-specialize-warpgroups).
    grid.getBody()->walk([&](WarpSpecializeOp) { info.producerWarps = 4; });
    Location loc = grid.getLoc();

    // Bulk copies: one tensor map per source memref (an argument of the
    // function), passed after the function's arguments; its box is the
    // tile's rows by one 128-byte slab (64 16-bit columns).
    SmallVector<std::pair<unsigned, int64_t>> maps; // func arg, box rows
    WalkResult bulkOk = grid.getBody()->walk([&](AsyncLoadTileOp load) {
      if (!load.getBulk())
        return WalkResult::advance();
      auto arg = dyn_cast<BlockArgument>(load.getSource());
      if (!arg || arg.getOwner() != &func.getBody().front()) {
        load.emitError("unsupported: a bulk copy from a memref that is not "
                       "an argument of the function (the launcher encodes "
                       "tensor maps of the arguments)");
        return WalkResult::interrupt();
      }
      int64_t rows =
          cast<RingType>(load.getRing().getType()).getTile().getDimSize(0);
      for (auto [a, r] : maps)
        if (a == arg.getArgNumber()) {
          if (r == rows)
            return WalkResult::advance();
          load.emitError() << "unsupported: bulk copies of " << r << " and "
                           << rows << " rows from one memref (one tensor map "
                           << "a source)";
          return WalkResult::interrupt();
        }
      maps.emplace_back(arg.getArgNumber(), rows);
      return WalkResult::advance();
    });
    if (bulkOk.wasInterrupted())
      return failure();

    gpu::GPUModuleOp gm = kernelModule(top);
    std::string name = (func.getName() + "_kernel" +
                        (index ? "_" + std::to_string(index) : std::string()))
                           .str();
    if (gm.lookupSymbol(name))
      return grid.emitError() << "kernel '" << name << "' exists already";
    OpBuilder mb = OpBuilder::atBlockEnd(gm.getBody());
    SmallVector<Type> argTypes(func.getArgumentTypes());
    auto ptrType = LLVM::LLVMPointerType::get(mb.getContext());
    for (auto [arg, rows] : maps) {
      info.tensorMaps[arg] = argTypes.size();
      argTypes.push_back(ptrType);
    }
    auto fn =
        gpu::GPUFuncOp::create(mb, loc, name, mb.getFunctionType(argTypes, {}));
    fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), mb.getUnitAttr());
    // CUtensorMap is 64-byte aligned; attn-gpu-module-to-binary makes these
    // parameters by-value grid constants (the GPU lowering keeps only the
    // alignment of a kernel argument's attributes).
    for (auto [arg, idx] : info.tensorMaps)
      fn.setArgAttr(idx, "llvm.align", mb.getI64IntegerAttr(64));
    fn.setKnownBlockSizeAttr(
        mb.getDenseI32ArrayAttr({static_cast<int32_t>(info.threads()), 1, 1}));
    // setmaxnreg takes effect only under a register cap at entry: one block
    // per multiprocessor (.minnctapersm 1 with the block size).
    if (info.producerWarps)
      fn->setAttr("nvvm.minctasm", mb.getI32IntegerAttr(1));

    // What a launcher needs (bundles, tools) and the block order: read off
    // the program.
    int64_t blockM = 0, blockN = 0, headDim = 0, headDimV = 0;
    bool causal = false;
    std::string dtype;
    grid.getBody()->walk([&](DotOp dot) {
      auto acc = cast<RankedTensorType>(dot.getType());
      blockM = acc.getDimSize(0);
      // O += P·V: its accumulator's columns are V's head dim.
      if (!dot.getRhsTransposed() && !headDimV)
        headDimV = acc.getDimSize(1);
      if (dot.getRhsTransposed() && !blockN) {
        blockN = acc.getDimSize(1);
        auto lhs = cast<RankedTensorType>(dot.getLhs().getType());
        headDim = lhs.getDimSize(1);
        Type et = lhs.getElementType();
        dtype = et.isBF16() ? "bf16" : et.isF16() ? "f16" : "f32";
      }
    });
    grid.getBody()->walk([&](MaskOp m) { causal |= m.getCausal(); });
    // A program without products (attn.merge_splits): its 2-d output tile
    // gives the rows, the value head dim and, from the memory it is stored
    // to, the element type.
    if (!blockM)
      grid.getBody()->walk([&](StoreTileOp st) {
        auto t = cast<RankedTensorType>(st.getTile().getType());
        if (t.getRank() != 2)
          return;
        blockM = t.getDimSize(0);
        headDimV = t.getDimSize(1);
        Type et = cast<MemRefType>(st.getDest().getType()).getElementType();
        dtype = et.isBF16() ? "bf16" : et.isF16() ? "f16" : "f32";
      });
    // B fragments loaded ahead of their mma.sync (H100, bf16, two runs vs
    // none ahead): D = 128: 4 steps +2-5% (8: the same, and sm_80's kernel
    // spills); D = 256: 8 steps +0-2% (4: -1%); D = 64: 4 and 8 cost 1-2%
    // without LSE or mask (PERF-NOTES v13).
    info.fragmentPrefetch = fragmentPrefetch >= 0 ? fragmentPrefetch
                            : headDim <= 64       ? 0
                            : headDim <= 128      ? 4
                                                  : 8;
    auto target = grid->getAttrOfType<TargetAttr>(kTargetAttrName);
    // Causal: heads in groups of about `blocks` thread blocks, longest
    // query blocks first. 4 per SM: two to four waves (1-2 resident blocks
    // per SM), enough for the order to even out the tail; H100, causal
    // N = 1k-16k: 4 and 8 per SM within 2%, one group of every head 2-5%
    // slower at D = 64 (K and V of many heads at once), the old order 5-15%
    // slower at D = 128 and 256 (PERF-NOTES v12).
    int64_t blocks = 0;
    if (causal)
      blocks = groupBlocks >= 0 ? groupBlocks
                                : 4 * (target ? target.getNumSms() : 132);

    // Entry: the grid indices from the block index.
    Block &entry = fn.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    IRMapping map;
    for (auto [a, ka] : llvm::zip(func.getArguments(), entry.getArguments()))
      map.map(a, ka);
    mapGridIndices(b, loc, grid, map, blocks);
    // Values from outside the grid: recomputed from the arguments.
    WalkResult captured = grid.getBody()->walk([&](Operation *op) {
      for (Value o : op->getOperands()) {
        // Defined inside the grid (its indices included): cloned with it.
        if (grid->isAncestor(o.getParentRegion()->getParentOp()))
          continue;
        if (failed(recompute(o, map, b, op)))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (captured.wasInterrupted()) {
      fn.erase();
      return failure();
    }
    for (Operation &op : grid.getBody()->without_terminator())
      b.clone(op, map);
    gpu::ReturnOp::create(b, loc);

    int64_t smemBytes = allocateSharedMemory(fn);
    if (target && target.isGPU() && smemBytes > target.getSmemPerBlock())
      return grid.emitError()
             << "unsupported: the kernel needs " << smemBytes
             << " bytes of shared memory, target " << target.getArch()
             << " offers " << target.getSmemPerBlock()
             << "; use fewer pipeline stages or smaller blocks";

    SmallVector<NamedAttribute> kernelInfo = {
        mb.getNamedAttr("block_m", mb.getI64IntegerAttr(blockM)),
        mb.getNamedAttr("block_n", mb.getI64IntegerAttr(blockN)),
        mb.getNamedAttr("threads", mb.getI64IntegerAttr(info.threads())),
        mb.getNamedAttr("smem_bytes", mb.getI64IntegerAttr(smemBytes)),
        mb.getNamedAttr("head_dim", mb.getI64IntegerAttr(headDim)),
        mb.getNamedAttr("head_dim_v", mb.getI64IntegerAttr(headDimV)),
        mb.getNamedAttr("dtype", mb.getStringAttr(dtype)),
        mb.getNamedAttr("causal", mb.getBoolAttr(causal)),
        mb.getNamedAttr("abi", mb.getStringAttr("memref")),
    };
    if (auto program = grid->getAttrOfType<StringAttr>(kProgramAttrName))
      kernelInfo.push_back(mb.getNamedAttr("program", program));
    // The launch grid (x, y, z) = the grid's dims 2, 1, 0 (mapGridIndices).
    if (auto dims = grid->getAttrOfType<ArrayAttr>(kGridAttrName))
      kernelInfo.push_back(mb.getNamedAttr(
          "grid", mb.getStrArrayAttr({cast<StringAttr>(dims[2]).getValue(),
                                      cast<StringAttr>(dims[1]).getValue(),
                                      cast<StringAttr>(dims[0]).getValue()})));
    if (!maps.empty()) {
      SmallVector<int64_t> flat;
      for (auto [arg, rows] : maps)
        flat.append({int64_t(arg), rows});
      kernelInfo.push_back(
          mb.getNamedAttr("tensor_maps", mb.getDenseI64ArrayAttr(flat)));
    }
    // What attn-gpu-module-to-binary needs to know of the register budget,
    // and whether a tile copy's row stride is a run-time value (then each
    // copy pass's address is a separate product that LSR may turn into an
    // induction variable; a static stride folds into immediates).
    if (auto regs = grid->getAttrOfType<IntegerAttr>(kRegisterEstimateAttrName))
      kernelInfo.push_back(mb.getNamedAttr("register_estimate", regs));
    kernelInfo.push_back(mb.getNamedAttr(
        "dynamic_row_stride", mb.getBoolAttr(hasDynamicRowStride(grid))));
    fn->setAttr(kKernelInfoAttrName, mb.getDictionaryAttr(kernelInfo));

    // The per-op lowering of the kernel body.
    if (failed(lowerKernel(fn, info)))
      return failure();

    // Host: the grid becomes a launch of the kernel.
    OpBuilder hb(grid);
    auto ubs = grid.getUpperBound(hb);
    Value gx = getValueOrCreateConstantIndexOp(hb, loc, ubs[2]);
    Value gy = getValueOrCreateConstantIndexOp(hb, loc, ubs[1]);
    Value gz = getValueOrCreateConstantIndexOp(hb, loc, ubs[0]);
    Value c1 = arith::ConstantIndexOp::create(hb, loc, 1);
    Value threads = arith::ConstantIndexOp::create(hb, loc, info.threads());
    Value smem = arith::ConstantOp::create(
        hb, loc, hb.getI32IntegerAttr(static_cast<int32_t>(smemBytes)));
    SmallVector<Value> launchArgs(func.getArguments());
    for (auto [arg, rows] : maps)
      launchArgs.push_back(TensorMapOp::create(hb, loc, ptrType,
                                               func.getArgument(arg), rows,
                                               /*box_cols=*/64));
    gpu::LaunchFuncOp::create(hb, loc, fn, gpu::KernelDim3{gx, gy, gz},
                              gpu::KernelDim3{threads, c1, c1}, smem,
                              launchArgs);
    Block *hostBlock = grid->getBlock();
    grid.erase();
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*hostBlock)))
      if (isOpTriviallyDead(&op))
        op.erase();
    return success();
  }

  LogicalResult lowerKernel(gpu::GPUFuncOp fn, const KernelInfo &info) {
    MLIRContext *ctx = fn.getContext();
    TileTypeConverter tc(ctx);
    RewritePatternSet patterns(ctx);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<AttnDialect>();
    auto legalIfConverted = [&](Operation *op) {
      return tc.isLegal(op->getOperandTypes()) &&
             tc.isLegal(op->getResultTypes());
    };
    target.markUnknownOpDynamicallyLegal(legalIfConverted);
    scf::populateSCFStructuralTypeConversionsAndLegality(tc, patterns, target);
    populateMemoryOpPatterns(tc, info, patterns);
    populateDotOpPatterns(tc, info, patterns);
    populateWarpgroupDotPatterns(tc, info, patterns);
    populateRegisterOpPatterns(tc, info, patterns);
    // A pattern that cannot lower its op says why ("unsupported: ...");
    // the framework's "failed to legalize" that follows adds nothing.
    bool explained = false;
    ScopedDiagnosticHandler quiet(ctx, [&](Diagnostic &d) {
      std::string msg = d.str();
      if (d.getSeverity() == DiagnosticSeverity::Error &&
          StringRef(msg).starts_with("unsupported:"))
        explained = true;
      return success(explained &&
                     StringRef(msg).starts_with("failed to legalize"));
    });
    if (failed(applyPartialConversion(fn, target, std::move(patterns))))
      return failure();
    // Anything left with a tile type was not lowered.
    WalkResult left = fn.walk([&](Operation *op) {
      if (isa<UnrealizedConversionCastOp>(op) ||
          llvm::any_of(op->getResultTypes(),
                       [](Type t) { return isa<RankedTensorType>(t); })) {
        op->emitError("unsupported: the GPU lowering left this op "
                      "unconverted");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      return failure();
    RewritePatternSet math(ctx);
    math.add<LowerVectorMath>(ctx);
    return applyPatternsGreedily(fn, std::move(math));
  }

  void runOnOperation() override {
    auto top = dyn_cast<ModuleOp>(getOperation());
    SmallVector<scf::ForallOp> grids;
    top.walk([&](scf::ForallOp f) {
      bool laidOut = false;
      f.getBody()->walk([&](Operation *op) {
        laidOut |= llvm::any_of(op->getResultTypes(), isLaidOut);
      });
      if (laidOut)
        grids.push_back(f);
    });
    WalkResult untiled = top.walk([](AttentionOp op) {
      op.emitError("attn.attention must be tiled, fused and laid out before "
                   "convert-attn-gpu-to-nvvm (attn-tile-attention, "
                   "attn-fuse-online-softmax, attn-assign-layouts)");
      return WalkResult::interrupt();
    });
    if (untiled.wasInterrupted())
      return signalPassFailure();
    llvm::DenseMap<Operation *, int64_t> perFunc;
    for (scf::ForallOp g : grids) {
      int64_t &n = perFunc[g->getParentOfType<func::FuncOp>()];
      if (failed(outline(g, top, n++)))
        return signalPassFailure();
    }
  }
};

} // namespace
