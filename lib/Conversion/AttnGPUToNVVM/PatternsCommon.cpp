//===- PatternsCommon.cpp - what the per-op patterns share ------*- C++ -*-===//
//
// The tile type converter, the small emitters, the thread's place in an
// mma layout, shared-memory addressing and the tile copies that the
// conversion patterns of MemoryOpToNVVM.cpp, DotOpToNVVM.cpp,
// WarpgroupDotToNVVM.cpp and RegisterOpToNVVM.cpp build on
// (PatternsCommon.h).
//
//===----------------------------------------------------------------------===//
#include "PatternsCommon.h"

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::gpu_lowering;

TileTypeConverter::TileTypeConverter(MLIRContext *ctx) {
  addConversion([](Type t) { return t; });
  addConversion([ctx](RankedTensorType t) -> std::optional<Type> {
    Attribute enc = t.getEncoding();
    if (!enc)
      return std::nullopt; // a tile without a layout cannot be lowered
    // 8-bit floats (fp8's P) are bytes in registers: LLVM has no fp8 type,
    // and only cvt and wgmma read them.
    Type elem = t.getElementType();
    if (isa<FloatType>(elem) && elem.getIntOrFloatBitWidth() == 8)
      elem = IntegerType::get(ctx, 8);
    if (auto mma = dyn_cast<MmaLayoutAttr>(enc))
      return VectorType::get({mma.getElementsPerThread(t.getShape())}, elem);
    if (auto slice = dyn_cast<SliceLayoutAttr>(enc))
      return VectorType::get({slice.getElementsPerThread(t.getDimSize(0))},
                             elem);
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
  if (int64_t n = layout.getSlabChunks()) {
    // Slab chunk / n (n chunks of 16 bytes a slab row), and in it
    //   chunk' = (chunk % n) ^ ((row / (8 / n)) % n)
    // (128-byte slabs: (chunk % 8) ^ (row % 8); 64-byte: (chunk % 4) ^
    // ((row / 2) % 4)).
    Value slabOff = e.mul(e.udiv(chunk, e.c32(n)), e.c32(slabBytes(1)));
    Value rowBits = e.urem(n == 8 ? row : e.udiv(row, e.c32(8 / n)), e.c32(n));
    Value sw = e.xori(e.urem(chunk, e.c32(n)), rowBits);
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
    return isa<AsyncArriveOp, RingWaitOp, RingReleaseOp, RingAcquireOp,
               PostTileOp, ClaimTileOp, TakeTileOp>(user);
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

GlobalMemref mlir::attn::gpu_lowering::globalMemref(Emitter &e, Value source) {
  OpBuilder &b = e.b;
  auto meta = memref::ExtractStridedMetadataOp::create(b, e.loc, source);
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(b, e.loc, source);
  Value a64 = arith::IndexCastUIOp::create(b, e.loc, b.getI64Type(), aligned);
  GlobalMemref m;
  m.ptr = LLVM::IntToPtrOp::create(b, e.loc, e.gptr(), a64);
  m.offset = e.to64(meta.getOffset());
  for (Value s : meta.getSizes())
    m.sizes.push_back(e.to64(s));
  for (Value s : meta.getStrides())
    m.strides.push_back(e.to64(s));
  return m;
}

PagedRows::PagedRows(Emitter &e, Value src, Value tbl, ValueRange indices)
    : source(globalMemref(e, src)), table(globalMemref(e, tbl)),
      b(e.to64(indices[0])), h(e.to64(indices[1])), pos(e.to64(indices[2])),
      elemTy(cast<MemRefType>(src.getType()).getElementType()) {}

Value PagedRows::rowAddress(Emitter &e, Value r) const {
  OpBuilder &bld = e.b;
  // k = pos + r; slot = k / P, row = k mod P (P = the source's dim 2).
  Value r64 = arith::ExtUIOp::create(bld, e.loc, bld.getI64Type(), r);
  Value k = e.add(pos, r64);
  Value slot = e.udiv(k, source.sizes[2]);
  Value row = e.urem(k, source.sizes[2]);
  // page = table[b, slot]
  Value tOff = e.add(table.offset, e.mul(b, table.strides[0]));
  tOff = e.add(tOff, e.mul(slot, table.strides[1]));
  Value tPtr = e.gep(e.gptr(), e.i32(), table.ptr, tOff);
  Value page32 = LLVM::LoadOp::create(bld, e.loc, e.i32(), tPtr);
  Value page = arith::ExtUIOp::create(bld, e.loc, bld.getI64Type(), page32);
  // source[page, h, row, 0]
  Value off = e.add(source.offset, e.mul(page, source.strides[0]));
  off = e.add(off, e.mul(h, source.strides[1]));
  off = e.add(off, e.mul(row, source.strides[2]));
  return e.gep(e.gptr(), elemTy, source.ptr, off);
}

GlobalRows mlir::attn::gpu_lowering::globalRows(Emitter &e, Value source,
                                                ValueRange indices,
                                                Value group) {
  GlobalMemref m = globalMemref(e, source);
  Type elemTy = cast<MemRefType>(source.getType()).getElementType();
  const size_t last = indices.size() - 1;
  GlobalRows g;
  // Grouped rows: the block's first position p / G is the base's row.
  Value rowIndex;
  if (group) {
    g.group = e.to32(group);
    g.headStride = e.to32(m.strides[last - 1]);
    g.packed0 = e.to32(indices[last]);
    g.pos0 = e.udiv(g.packed0, g.group);
    rowIndex = arith::ExtUIOp::create(e.b, e.loc, e.b.getI64Type(), g.pos0);
  }
  // Element offset of [indices..., 0], in 64 bits: the memref's offset plus
  // every index (the row's too) times its stride.
  Value off = m.offset;
  for (size_t i = 0; i < indices.size(); ++i) {
    // One statement each: the order of the ops must not depend on the
    // compiler's order of evaluating arguments.
    Value index = i == last && rowIndex ? rowIndex : e.to64(indices[i]);
    off = e.add(off, e.mul(index, m.strides[i]));
  }
  g.base = e.gep(e.gptr(), elemTy, m.ptr, off);
  g.row0 = e.c32(0);
  g.stride = e.to32(m.strides[last]);
  return g;
}

Value GlobalRows::rowOffset(Emitter &e, Value r) const {
  if (!group)
    return e.mul(e.add(row0, r), stride);
  // k = p + r: position k / G (from the base's p / G), head k mod G.
  Value k = e.add(packed0, r);
  Value pos = e.sub(e.udiv(k, group), pos0);
  return e.add(e.mul(pos, stride), e.mul(e.urem(k, group), headStride));
}

void mlir::attn::gpu_lowering::emitTileCopy(Emitter &e, const KernelInfo &info,
                                            const SharedTile &st, Type elemTy,
                                            const GlobalRows &rows, Value valid,
                                            Value sTile,
                                            const PagedRows *paged) {
  Value gBase = rows.base;
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
    if (paged) {
      // A row past the valid ones reads none of its bytes (zero-fill) and
      // looks up row 0's page instead (the block's first row is below the
      // sequence's end, so the table holds its page).
      Value inRange =
          whole ? Value() : e.cmp(arith::CmpIPredicate::slt, r, valid);
      Value rowPtr =
          paged->rowAddress(e, whole ? r : e.select(inRange, r, e.c32(0)));
      Value src = e.gep(e.gptr(), elemTy, rowPtr, e.mul(chunk, e.c32(8)));
      NVVM::CpAsyncOp::create(
          b, loc, dst, src, 16, NVVM::LoadCacheModifierKind::CG,
          whole ? Value() : e.select(inRange, e.c32(16), e.c32(0)));
      return;
    }
    Value gOff = e.add(rows.rowOffset(e, r), e.mul(chunk, e.c32(8)));
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
    // at 255 registers, then spilled 8-52 bytes in three other kernels.
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
