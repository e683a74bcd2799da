//===- MemoryOpToNVVM.cpp - tile loads, stores and the async ring -*- C++ -*-=//
//
//   attn.load_tile -> #shared    bar.sync (earlier readers are done), then
//                                cp.async 16-byte chunks (rows past `rows`
//                                zero-filled), commit, wait_group 0,
//                                bar.sync; the result is the tile's address
//   attn.load_tile -> #mma/slice each thread loads its own elements (pairs
//                                of adjacent columns), 0 past `rows`
//   attn.store_tile (#mma)       each thread stores its pairs, rounded to
//                                the destination type, rows < `rows` only
//   attn.store_tile (#slice)     lane q = 0 of each quad stores its rows
//   attn.alloc_ring              the ring's shared address
//   attn.async_load_tile         cp.async into slot s (no wait)
//   attn.async_commit            cp.async.commit_group
//   attn.async_wait N            cp.async.wait_group N; bar.sync
//   attn.ring_slot               ring + s · slot bytes
//   attn.warp_specialize         if (tid < consumers) { setmaxnreg.inc;
//                                consumers } else { setmaxnreg.dec;
//                                producer }
//
//===----------------------------------------------------------------------===//
#include "PatternsCommon.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::gpu_lowering;

namespace {

template <typename OpTy> struct TilePattern : public OpConversionPattern<OpTy> {
  TilePattern(TileTypeConverter &tc, const KernelInfo &info, MLIRContext *ctx)
      : OpConversionPattern<OpTy>(tc, ctx), info(info) {}
  const KernelInfo &info;
};

/// cp.async writes shared memory through the generic proxy, wgmma reads it
/// through the async proxy: each thread fences its completed copies into
/// the async proxy before the barrier that publishes them.
void fenceForWarpgroupMma(OpBuilder &b, Location loc, const KernelInfo &info) {
  if (info.warpgroupMma)
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
}

/// Where a copy into shared memory reads its rows: consecutive rows of
/// `source` at `indices`, or, with a block table (`pages`), rows gathered
/// from its pages.
struct CopySource {
  GlobalRows rows;
  std::optional<PagedRows> paged;
  CopySource(Emitter &e, Value source, Value pages, ValueRange indices,
             Value group) {
    if (pages)
      paged.emplace(e, source, pages, indices);
    else
      rows = globalRows(e, source, indices, group);
  }
  const PagedRows *pagedRows() const { return paged ? &*paged : nullptr; }
};

int64_t smemOffset(Operation *op) {
  auto a = op->getAttrOfType<IntegerAttr>(kSmemOffsetAttr);
  assert(a && "shared memory was not allocated");
  return a.getInt();
}

struct LoadTileToShared : public TilePattern<LoadTileOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(LoadTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<RankedTensorType>(op.getType());
    if (!isa_and_nonnull<SharedLayoutAttr>(t.getEncoding()))
      return failure();
    if (op.getCols())
      return op.emitError("unsupported: a column window loaded into shared "
                          "memory (windows load into registers)");
    if (info.producerWarps)
      return op.emitError("unsupported: a tile loaded into shared memory "
                          "with a program-wide barrier in a warp-specialised "
                          "program (the producer does not take part)");
    Emitter e(rewriter, op.getLoc());
    Value sTile = e.smemAt(op, smemOffset(op));
    // Earlier readers of this buffer (a previous loop iteration) are done.
    NVVM::Barrier0Op::create(rewriter, op.getLoc());
    CopySource src(e, adaptor.getSource(), adaptor.getPages(),
                   adaptor.getIndices(), adaptor.getGroup());
    emitTileCopy(e, info, SharedTile(t), t.getElementType(), src.rows,
                 e.to32(adaptor.getRows()), sTile, src.pagedRows());
    NVVM::CpAsyncCommitGroupOp::create(rewriter, op.getLoc());
    NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(), 0);
    fenceForWarpgroupMma(rewriter, op.getLoc(), info);
    NVVM::Barrier0Op::create(rewriter, op.getLoc());
    rewriter.replaceOp(op, sTile);
    return success();
  }
};

/// Rows of the thread's elements in a register layout, as (vector element
/// positions, row offset in the tile) groups: the pairs of adjacent columns
/// of an #attn.mma tile, or the single values of an #attn.slice one.
struct RowGroup {
  int64_t rowOffset;               // constant part (add warpRow0 + g)
  SmallVector<int64_t, 2> first;   // first element of each column pair
  SmallVector<int64_t, 2> colOffs; // their column (constant part; add 2q)
};

SmallVector<RowGroup> rowGroups(RankedTensorType t) {
  SmallVector<RowGroup> groups;
  if (auto mma = dyn_cast<MmaLayoutAttr>(t.getEncoding())) {
    int64_t mt = mma.getMTiles(t.getDimSize(0)), nt = t.getDimSize(1) / 8;
    for (int64_t tt = 0; tt < mt; ++tt)
      for (int64_t h = 0; h < 2; ++h) {
        RowGroup g;
        g.rowOffset = 16 * tt + 8 * h;
        for (int64_t n = 0; n < nt; ++n) {
          g.first.push_back((tt * nt + n) * 4 + 2 * h);
          g.colOffs.push_back(8 * n);
        }
        groups.push_back(g);
      }
    return groups;
  }
  auto slice = cast<SliceLayoutAttr>(t.getEncoding());
  for (int64_t i = 0; i < slice.getElementsPerThread(t.getDimSize(0)); ++i) {
    RowGroup g;
    g.rowOffset = MmaCoords::sliceRowOffset(i);
    g.first.push_back(i);
    groups.push_back(g);
  }
  return groups;
}

MmaLayoutAttr parentMma(RankedTensorType t) {
  if (auto m = dyn_cast<MmaLayoutAttr>(t.getEncoding()))
    return m;
  return cast<SliceLayoutAttr>(t.getEncoding()).getParent();
}

struct LoadTileToRegisters : public TilePattern<LoadTileOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(LoadTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<RankedTensorType>(op.getType());
    if (!isa_and_nonnull<MmaLayoutAttr, SliceLayoutAttr>(t.getEncoding()))
      return failure();
    if (op.getPages())
      return op.emitError("unsupported: rows gathered from pages into "
                          "registers (paged blocks load into shared memory)");
    Emitter e(rewriter, op.getLoc());
    Type et = t.getElementType();
    bool pairs = isa<MmaLayoutAttr>(t.getEncoding());
    auto vecTy = cast<VectorType>(getTypeConverter()->convertType(t));
    if (auto slice = dyn_cast<SliceLayoutAttr>(t.getEncoding());
        slice && slice.isPerColumn()) {
      // One value per column: element 2·n + w of the thread is entry
      // 8·n + 2·q + w of the vector (the same in every row group and warp);
      // entries at or past `rows` read as zero. One load an element: the
      // vector may start at any entry.
      if (adaptor.getCols() || adaptor.getGroup())
        return op.emitError("unsupported: a column window or grouped rows "
                            "into a per-column vector");
      Location loc = op.getLoc();
      GlobalRows g = globalRows(e, adaptor.getSource(), adaptor.getIndices());
      Value valid = e.to32(adaptor.getRows());
      Value col0 = e.mul(e.urem(e.lane(), e.c32(4)), e.c32(2));
      int64_t n = vecTy.getNumElements();
      auto entry = [](int64_t i) { return 8 * (i / 2) + i % 2; };
      // A whole vector (rows >= its length, the same in every thread: the
      // steady state of a loop) loads without bounds: each element at a
      // constant distance from the thread's first (with the unit stride of
      // a sequence dim, an immediate offset), where the checked form takes
      // a comparison and two selects an element.
      Value whole =
          e.cmp(arith::CmpIPredicate::sge, valid, e.c32(t.getDimSize(0)));
      Value first =
          e.gep(e.gptr(), et, g.base, e.mul(e.add(g.row0, col0), g.stride));
      auto elementPtr = [&](Emitter &be, int64_t i) {
        return be.gep(be.gptr(), et, first, be.mul(be.c32(entry(i)), g.stride));
      };
      // A unit stride in the memref's type: consecutive entries are
      // consecutive addresses.
      auto memTy = cast<MemRefType>(op.getSource().getType());
      SmallVector<int64_t> strides;
      int64_t offset;
      bool unitStride = succeeded(memTy.getStridesAndOffset(strides, offset)) &&
                        strides.back() == 1;
      auto ifOp = scf::IfOp::create(
          rewriter, loc, whole,
          [&](OpBuilder &b, Location l) {
            Emitter be(b, l);
            SmallVector<Value> elems;
            for (int64_t i = 0; i < n; ++i)
              elems.push_back(
                  LLVM::LoadOp::create(b, l, et, elementPtr(be, i)));
            scf::YieldOp::create(b, l, be.fromElements(vecTy, elems));
          },
          [&](OpBuilder &b, Location l) {
            // Entry 8·n + 2·q + w is in bounds if it is below `rows`; with
            // a unit stride, if its address is below the first past
            // `rows`: comparisons of column numbers, the same in two
            // loads' checked forms, would be merged by LLVM and computed
            // ahead of both branches, in every iteration.
            Emitter be(b, l);
            Value end = be.gep(be.gptr(), et, g.base,
                               be.mul(be.add(g.row0, valid), g.stride));
            Value zeroEl =
                arith::ConstantOp::create(b, l, et, b.getZeroAttr(et));
            SmallVector<Value> elems;
            for (int64_t i = 0; i < n; ++i) {
              Value ptr = elementPtr(be, i);
              Value ok = unitStride
                             ? Value(LLVM::ICmpOp::create(
                                   b, l, LLVM::ICmpPredicate::ult, ptr, end))
                             : be.cmp(arith::CmpIPredicate::slt,
                                      be.add(col0, be.c32(entry(i))), valid);
              Value v = LLVM::LoadOp::create(
                  b, l, et, LLVM::SelectOp::create(b, l, ok, ptr, g.base));
              elems.push_back(be.select(ok, v, zeroEl));
            }
            scf::YieldOp::create(b, l, be.fromElements(vecTy, elems));
          });
      rewriter.replaceOp(op, ifOp.getResults());
      return success();
    }
    MmaCoords c = MmaCoords::get(e, parentMma(t), t.getDimSize(0));
    // A column window: the last index is the first column, and columns at
    // or past `cols` read as zero; its elements load one by one (a window
    // may start at any column, so pairs need not be aligned).
    Value window = adaptor.getCols();
    ValueRange indices = adaptor.getIndices();
    GlobalRows g =
        globalRows(e, adaptor.getSource(),
                   window ? indices.drop_back() : indices, adaptor.getGroup());
    if (window)
      g.base = e.gep(e.gptr(), et, g.base, e.to32(indices.back()));
    Value valid = e.to32(adaptor.getRows());
    Value rowBase = e.add(c.warpRow0, c.g);
    Value col0 = e.mul(c.q, e.c32(2));
    if (window) {
      Value validCols = e.to32(window);
      Value zeroEl = arith::ConstantOp::create(rewriter, op.getLoc(), et,
                                               rewriter.getZeroAttr(et));
      SmallVector<Value> elems(vecTy.getNumElements());
      for (const RowGroup &rg : rowGroups(t)) {
        Value r = e.add(rowBase, e.c32(rg.rowOffset));
        Value rowOk = e.cmp(arith::CmpIPredicate::slt, r, valid);
        Value rowOff =
            e.mul(e.add(g.row0, e.select(rowOk, r, e.c32(0))), g.stride);
        for (size_t k = 0; k < rg.first.size(); ++k)
          for (int64_t w = 0; w < (pairs ? 2 : 1); ++w) {
            Value col = e.add(col0, e.c32(rg.colOffs[k] + w));
            Value ok = arith::AndIOp::create(
                rewriter, op.getLoc(), rowOk,
                e.cmp(arith::CmpIPredicate::slt, col, validCols));
            // Out of the window: read the window's first element instead.
            Value off = e.select(ok, e.add(rowOff, col), e.c32(0));
            Value v = LLVM::LoadOp::create(rewriter, op.getLoc(), et,
                                           e.gep(e.gptr(), et, g.base, off));
            elems[rg.first[k] + w] = e.select(ok, v, zeroEl);
          }
      }
      rewriter.replaceOp(op, e.fromElements(vecTy, elems));
      return success();
    }
    int64_t width = pairs ? 2 : 1;
    auto chunkTy = VectorType::get({width}, et);
    Value zero = arith::ConstantOp::create(
        rewriter, op.getLoc(), chunkTy,
        DenseElementsAttr::get(chunkTy, rewriter.getZeroAttr(et)));
    SmallVector<Value> elems(vecTy.getNumElements());
    unsigned align = width * et.getIntOrFloatBitWidth() / 8;
    for (const RowGroup &rg : rowGroups(t)) {
      Value r = e.add(rowBase, e.c32(rg.rowOffset));
      Value ok = e.cmp(arith::CmpIPredicate::slt, r, valid);
      // A row past `rows` reads row 0 of the tile (always there) and is
      // replaced by zeros.
      Value rowOff = g.rowOffset(e, e.select(ok, r, e.c32(0)));
      for (size_t k = 0; k < rg.first.size(); ++k) {
        Value off = rowOff;
        if (pairs)
          off = e.add(off, e.add(col0, e.c32(rg.colOffs[k])));
        Value ptr = e.gep(e.gptr(), et, g.base, off);
        Value v =
            LLVM::LoadOp::create(rewriter, op.getLoc(), chunkTy, ptr, align);
        v = e.select(ok, v, zero);
        for (int64_t w = 0; w < width; ++w)
          elems[rg.first[k] + w] = e.extract(v, w);
      }
    }
    rewriter.replaceOp(op, e.fromElements(vecTy, elems));
    return success();
  }
};

struct StoreTileFromRegisters : public TilePattern<StoreTileOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(StoreTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<RankedTensorType>(op.getTile().getType());
    if (!isa_and_nonnull<MmaLayoutAttr, SliceLayoutAttr>(t.getEncoding()))
      return rewriter.notifyMatchFailure(op, "tile not in registers");
    if (auto slice = dyn_cast<SliceLayoutAttr>(t.getEncoding());
        slice && slice.isPerColumn())
      return op.emitError("unsupported: storing a per-column vector");
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    Type memElem = cast<MemRefType>(op.getDest().getType()).getElementType();
    bool pairs = isa<MmaLayoutAttr>(t.getEncoding());
    MmaCoords c = MmaCoords::get(e, parentMma(t), t.getDimSize(0));
    GlobalRows g = globalRows(e, adaptor.getDest(), adaptor.getIndices(),
                              adaptor.getGroup());
    Value valid = e.to32(adaptor.getRows());
    Value rowBase = e.add(c.warpRow0, c.g);
    Value col0 = e.mul(c.q, e.c32(2));
    Value tile = adaptor.getTile();
    int64_t width = pairs ? 2 : 1;
    auto outTy = VectorType::get({width}, memElem);
    unsigned align = width * memElem.getIntOrFloatBitWidth() / 8;
    // One value per row per quad: lane q = 0 writes it.
    Value writer =
        pairs ? Value() : e.cmp(arith::CmpIPredicate::eq, c.q, e.c32(0));
    for (const RowGroup &rg : rowGroups(t)) {
      Value r = e.add(rowBase, e.c32(rg.rowOffset));
      Value ok = e.cmp(arith::CmpIPredicate::slt, r, valid);
      if (writer)
        ok = arith::AndIOp::create(rewriter, loc, ok, writer);
      auto ifRow = scf::IfOp::create(rewriter, loc, ok, false);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifRow.thenBlock());
      Value rowOff = g.rowOffset(e, r);
      for (size_t k = 0; k < rg.first.size(); ++k) {
        SmallVector<int64_t, 2> pos;
        for (int64_t w = 0; w < width; ++w)
          pos.push_back(rg.first[k] + w);
        Value v = vector::ShuffleOp::create(rewriter, loc, tile, tile, pos);
        // f32 -> f16/bf16: round to nearest even.
        if (t.getElementType() != memElem)
          v = arith::TruncFOp::create(rewriter, loc, outTy, v);
        Value off = rowOff;
        if (pairs)
          off = e.add(off, e.add(col0, e.c32(rg.colOffs[k])));
        Value ptr = e.gep(e.gptr(), memElem, g.base, off);
        LLVM::StoreOp::create(rewriter, loc, v, ptr, align);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The mbarrier of `slot` of a ring with per-slot barriers, `ring` the
/// attn.alloc_ring result (the op's operand, not the converted pointer): at
/// the ring's barrier offset (kSmemBarriersAttr; the barriers of all rings
/// lie together after the tiles), `stages` "full" barriers, then `stages`
/// "empty" ones (8 bytes each).
Value barrierAddress(Emitter &e, Value ring, Value slot, bool empty) {
  auto alloc = ring.getDefiningOp<AllocRingOp>();
  assert(alloc && "a ring's barriers without its attn.alloc_ring");
  auto a = alloc->getAttrOfType<IntegerAttr>(kSmemBarriersAttr);
  assert(a && "a ring's barriers were not allocated");
  int64_t stages = cast<RingType>(ring.getType()).getStages();
  int64_t first = a.getInt() + (empty ? 8 * stages : 0);
  if (std::optional<int64_t> s = getConstantIntValue(slot))
    return e.smemAt(alloc, first + 8 * *s);
  return e.gepBytes(e.smemAt(alloc, first), e.mul(e.to32(slot), e.c32(8)));
}

/// Whether a ring is filled by bulk tensor copies (then every fill of it
/// is; checked by the patterns).
bool filledByBulkCopies(Value ring) {
  return llvm::any_of(ring.getUsers(), [](Operation *user) {
    auto load = dyn_cast<AsyncLoadTileOp>(user);
    return load && load.getBulk();
  });
}

/// `scf.if` on the one thread that issues bulk copies (the producer's
/// first, or thread 0); the builder is left in its body.
/// The grid-constant CUtensorMap (a kernel argument) of `mem`, a memref
/// argument of the kernel enclosing `op`, or null where it has none.
Value tensorMapOf(Operation *op, Value mem, const KernelInfo &info) {
  auto arg = dyn_cast<BlockArgument>(mem);
  auto fn = op->getParentOfType<gpu::GPUFuncOp>();
  auto it =
      arg ? info.tensorMaps.find(arg.getArgNumber()) : info.tensorMaps.end();
  if (!fn || it == info.tensorMaps.end())
    return Value();
  return fn.getArgument(it->second);
}

void onlyBulkCopier(Emitter &e, const KernelInfo &info) {
  // The copying warp's lanes meet here before lane 0 goes on: none can fall
  // behind the copying lane (KernelInfo::producerThreads).
  if (info.producerWarps && info.producerThreads > 1)
    NVVM::SyncWarpOp::create(e.b, e.loc, e.c32(-1));
  Value first = e.c32(info.producerWarps ? 32 * info.warps : 0);
  auto ifOp = scf::IfOp::create(
      e.b, e.loc, e.cmp(arith::CmpIPredicate::eq, e.tid(), first), false);
  e.b.setInsertionPointToStart(ifOp.thenBlock());
}

struct AllocRingLowering : public TilePattern<AllocRingOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(AllocRingOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    Value ring = e.smemAt(op, smemOffset(op));
    if (ringHasBarriers(op)) {
      // Thread 0 initialises every slot's barriers; the barrier publishes
      // them. "full" expects one arrival per copying thread (the
      // producer's, or every thread), "empty" one per reading thread (the
      // consumers', or every thread): one arrival per consumer warp (lane
      // 0, with or without a bar.warp.sync before it) was 2-5% slower
      // (H200, D = 128 and 256).
      auto t = cast<RingType>(op.getType());
      Value first = e.cmp(arith::CmpIPredicate::eq, e.tid(), e.c32(0));
      auto ifOp = scf::IfOp::create(rewriter, loc, first, false);
      {
        OpBuilder::InsertionGuard g(rewriter);
        rewriter.setInsertionPointToStart(ifOp.thenBlock());
        // A ring filled by bulk copies: one thread arrives for each fill,
        // announcing its bytes.
        // A tile queue: one thread posts, every thread that runs the
        // program takes (the consumers and the producer's running threads).
        bool queue = t.isTileQueue();
        int64_t readers = !info.producerWarps ? info.threads()
                          : queue ? 32 * info.warps + info.producerThreads
                                  : 32 * info.warps;
        int64_t writers = filledByBulkCopies(op.getResult()) || queue
                              ? 1
                              : info.copyThreads();
        for (int64_t s = 0; s < t.getStages(); ++s)
          for (bool empty : {false, true})
            NVVM::MBarrierInitOp::create(
                rewriter, loc,
                barrierAddress(e, op.getResult(), e.c32(s), empty),
                e.c32(empty ? readers : writers), Value());
      }
      NVVM::Barrier0Op::create(rewriter, loc);
    }
    rewriter.replaceOp(op, ring);
    return success();
  }
};

/// ring + slot · slot bytes.
Value slotAddress(Emitter &e, Value ring, Value slot, RingType t) {
  return e.gepBytes(ring, e.mul(e.to32(slot), e.c32(t.getSlotBytes())));
}

/// Waits (mbarrier.try_wait.parity in a loop) for a phase of a slot's
/// barrier. Fill k of a slot completes phase k of its "full" barrier, of
/// parity k mod 2 (attn.ring_wait). Fill k may start once phase k − 1 of
/// "empty" completed: parity (k mod 2) ^ 1; for k = 0 that names the phase
/// before the first, which try_wait.parity reports complete at once
/// (attn.ring_acquire).
/// The suspend-time hint is 0. ptxas retries a failed try_wait through a
/// NANOSLEEP of the hint's length; with a 10 ms hint (CUTLASS's) a D = 256,
/// N = 16k kernel stalled for more than 25 s a launch under one instruction
/// schedule (H200), and with 0 no stall was seen again. The retry then does
/// not sleep; the hardware's own time limit still suspends the first try.
void waitForFill(Emitter &e, Value ring, Value slot, Value fill, bool empty) {
  Value parity = arith::AndIOp::create(e.b, e.loc, e.to32(fill), e.c32(1));
  if (empty)
    parity = e.xori(parity, e.c32(1));
  Value addr = barrierAddress(e, ring, slot, empty);
  NVVM::MBarrierTryWaitParityOp::create(e.b, e.loc, addr, parity, e.c32(0));
}

/// This thread arrives at a slot's "empty" (done reading) or "full"
/// (posted) barrier, with release semantics (`ring` as for barrierAddress).
void arriveAt(Emitter &e, Value ring, Value slot, bool empty) {
  NVVM::MBarrierArriveOp::create(e.b, e.loc, e.b.getI64Type(),
                                 barrierAddress(e, ring, slot, empty), Value());
}

struct AsyncArriveLowering : public TilePattern<AsyncArriveOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(AsyncArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    auto t = cast<RingType>(op.getRing().getType());
    Value full = barrierAddress(e, op.getRing(), adaptor.getSlot(), false);
    if (filledByBulkCopies(op.getRing())) {
      // The copying thread arrives once for the fill and expects the
      // slot's bytes: a bulk copy writes its whole box (zeros past the
      // source), and the fill completes when they all landed.
      OpBuilder::InsertionGuard g(rewriter);
      onlyBulkCopier(e, info);
      NVVM::MBarrierArriveExpectTxOp::create(
          rewriter, op.getLoc(), Type(), full, e.c32(t.getSlotBytes()),
          NVVM::MemScopeKind::CTA, false, Value());
    } else {
      NVVM::CpAsyncMBarrierArriveOp::create(rewriter, op.getLoc(), full,
                                            /*noinc=*/true);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct RingWaitLowering : public TilePattern<RingWaitOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(RingWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    waitForFill(e, op.getRing(), adaptor.getSlot(), adaptor.getFill(),
                /*empty=*/false);
    // Bulk copies write through the async proxy that wgmma reads through,
    // and the barrier's phase publishes them: no proxy fence (it costs a
    // MEMBAR.ALL.CTA per wait). cp.async writes through the generic proxy.
    if (!filledByBulkCopies(op.getRing()))
      fenceForWarpgroupMma(rewriter, op.getLoc(), info);
    rewriter.eraseOp(op);
    return success();
  }
};

struct RingReleaseLowering : public TilePattern<RingReleaseOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(RingReleaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    arriveAt(e, op.getRing(), adaptor.getSlot(), /*empty=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

struct RingAcquireLowering : public TilePattern<RingAcquireOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(RingAcquireOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    waitForFill(e, op.getRing(), adaptor.getSlot(), adaptor.getFill(),
                /*empty=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncLoadTileLowering : public TilePattern<AsyncLoadTileOp> {
  using TilePattern::TilePattern;

  /// One bulk tensor copy per slab of the tile (C columns: 128 bytes hold 64
  /// 16-bit or 128 8-bit, 64 bytes 32 16-bit), from the source's tensor map
  /// at coordinates (innermost first) column C·s, the indices reversed (a
  /// column window: its first column + C·s, then the other indices
  /// reversed); slab s lands at s · rows · slab bytes, swizzled as
  /// #attn.shared slabs are (the map's swizzle is the slab's width).
  /// Issued by one thread, completing on the slot's "full" barrier.
  LogicalResult bulkCopy(AsyncLoadTileOp op, OpAdaptor adaptor, Emitter &e,
                         RingType rt, Value dst,
                         ConversionPatternRewriter &rewriter) const {
    Value map = tensorMapOf(op, op.getSource(), info);
    if (!map)
      return op.emitError("unsupported: a bulk copy without a tensor map "
                          "of its source (a kernel argument)");
    auto alloc = op.getRing().getDefiningOp<AllocRingOp>();
    if (!alloc || !ringHasBarriers(alloc))
      return op.emitError("unsupported: a bulk copy into a ring without "
                          "per-slot barriers (no attn.async_arrive on it): the "
                          "copy completes on its slot's mbarrier");
    SharedTile st(rt.getTile());
    Value full = barrierAddress(e, op.getRing(), adaptor.getSlot(),
                                /*empty=*/false);
    const bool window = static_cast<bool>(op.getCols());
    SmallVector<Value> coords;
    if (!window)
      coords.push_back(Value());
    for (Value i : llvm::reverse(adaptor.getIndices()))
      coords.push_back(e.to32(i));
    Value col0 = window ? coords[0] : Value();
    const int64_t slabCols =
        st.layout.getSlab() /
        (rt.getTile().getElementType().getIntOrFloatBitWidth() / 8);
    OpBuilder::InsertionGuard g(rewriter);
    onlyBulkCopier(e, info);
    auto clusterPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), 7);
    for (int64_t slab = 0; slab < st.cols / slabCols; ++slab) {
      coords[0] = window ? (slab ? e.add(col0, e.c32(slabCols * slab)) : col0)
                         : e.c32(slabCols * slab);
      Value to = LLVM::AddrSpaceCastOp::create(
          rewriter, op.getLoc(), clusterPtr,
          e.gepBytes(dst, e.c32(st.slabBytes(slab))));
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          rewriter, op.getLoc(), to, map, coords, full, ValueRange(), Value(),
          Value(), NVVM::TMALoadModeAttr(), BoolAttr(),
          NVVM::CTAGroupKindAttr(), Value());
    }
    rewriter.eraseOp(op);
    return success();
  }

  LogicalResult
  matchAndRewrite(AsyncLoadTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    auto rt = cast<RingType>(op.getRing().getType());
    Value dst = slotAddress(e, adaptor.getRing(), adaptor.getSlot(), rt);
    if (op.getBulk())
      return bulkCopy(op, adaptor, e, rt, dst, rewriter);
    if (filledByBulkCopies(op.getRing()))
      return op.emitError("unsupported: copies and bulk copies into one "
                          "ring (its fills are counted one way)");
    if (op.getCols() ||
        rt.getTile().getElementType().getIntOrFloatBitWidth() != 16)
      return op.emitError("unsupported: a copy of a column window or of "
                          "8-bit elements that is not a bulk copy (cp.async "
                          "copies whole rows of 16-bit tiles)");
    CopySource src(e, adaptor.getSource(), adaptor.getPages(),
                   adaptor.getIndices(), adaptor.getGroup());
    emitTileCopy(e, info, SharedTile(rt.getTile()),
                 rt.getTile().getElementType(), src.rows,
                 e.to32(adaptor.getRows()), dst, src.pagedRows());
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncCommitLowering : public TilePattern<AsyncCommitOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(AsyncCommitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncCommitGroupOp>(op);
    return success();
  }
};

struct AsyncWaitLowering : public TilePattern<AsyncWaitOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(), op.getPending());
    fenceForWarpgroupMma(rewriter, op.getLoc(), info);
    rewriter.replaceOpWithNewOp<NVVM::Barrier0Op>(op);
    return success();
  }
};

struct RingSlotLowering : public TilePattern<RingSlotOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(RingSlotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    rewriter.replaceOp(op, slotAddress(e, adaptor.getRing(), adaptor.getSlot(),
                                       cast<RingType>(op.getRing().getType())));
    return success();
  }
};

/// Named barrier 8 synchronises the threads of a staged tile (attn.store_slot,
/// attn.accumulate_tile via), 9 + w warpgroup w's alone (a bulk tensor
/// reduction of its own slabs): 0 is the program-wide barrier, 1 .. 4 the
/// warpgroups' turns.
constexpr int64_t kStageBarrier = 8;

/// bar.sync on the staging barrier by the threads that hold a tile of
/// layout `mma` (a producer warpgroup takes no part).
void stageSync(Emitter &e, MmaLayoutAttr mma) {
  NVVM::BarrierOp::create(e.b, e.loc, Type(), e.c32(kStageBarrier),
                          e.c32(mma.getThreads()), NVVM::BarrierReductionAttr(),
                          Value());
}

/// Shared-memory writes of this thread made visible to the async proxy
/// (wgmma's operand reads, bulk copies) once a barrier publishes them.
void fenceToAsyncProxy(Emitter &e) {
  NVVM::FenceProxyOp::create(
      e.b, e.loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(e.b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
}

/// attn.store_slot: bar.sync (the slot's readers are done), each thread's
/// element pairs into the slab-swizzled slot (chunk c/8 of row r, bytes
/// 2·(c % 8) into it), fence.proxy.async (wgmma reads through the async
/// proxy), bar.sync. Each st.shared.b32 of a warp writes rows g = 0..7 of one
/// 8-row swizzle atom at chunk n ^ (row % 8): eight bank groups, no conflict.
struct StoreSlotLowering : public TilePattern<StoreSlotOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(StoreSlotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<RankedTensorType>(op.getTile().getType());
    auto mma = cast<MmaLayoutAttr>(t.getEncoding());
    auto rt = cast<RingType>(op.getRing().getType());
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    if (!op.getSlotReleased())
      stageSync(e, mma);
    SharedTile st(rt.getTile());
    MmaCoords c = MmaCoords::get(e, mma, t.getDimSize(0));
    Value slot = slotAddress(e, adaptor.getRing(), adaptor.getSlot(), rt);
    Value rowBase = e.add(c.warpRow0, c.g);
    Value inChunk = e.mul(c.q, e.c32(4)); // columns 2q, 2q + 1: bytes 4q
    Value tile = adaptor.getTile();
    for (const RowGroup &rg : rowGroups(t)) {
      Value r = e.add(rowBase, e.c32(rg.rowOffset));
      for (size_t k = 0; k < rg.first.size(); ++k) {
        Value pair = vector::ShuffleOp::create(
            rewriter, loc, tile, tile,
            ArrayRef<int64_t>{rg.first[k], rg.first[k] + 1});
        Value off = e.add(st.offset(e, r, e.c32(rg.colOffs[k] / 8)), inChunk);
        LLVM::StoreOp::create(rewriter, loc, pair, e.gepBytes(slot, off),
                              /*alignment=*/4);
      }
    }
    fenceToAsyncProxy(e);
    stageSync(e, mma);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Calls `fn(destRow, destCol, i)` for each element i of the thread's
/// vector of an #attn.mma tile `t`: tile[r, c] goes to dest[r, c], or with
/// `transposed` to dest[c, r] (both i32, relative to the tile's first row).
void forEachDestElement(Emitter &e, RankedTensorType t, const MmaCoords &c,
                        bool transposed,
                        function_ref<void(Value, Value, int64_t)> fn) {
  Value rowBase = e.add(c.warpRow0, c.g);
  Value col0 = e.mul(c.q, e.c32(2));
  for (const RowGroup &rg : rowGroups(t)) {
    Value r = e.add(rowBase, e.c32(rg.rowOffset));
    for (size_t k = 0; k < rg.first.size(); ++k)
      for (int64_t w = 0; w < 2; ++w) {
        Value col = e.add(col0, e.c32(rg.colOffs[k] + w));
        fn(transposed ? col : r, transposed ? r : col, rg.first[k] + w);
      }
  }
}

void bulkReduce(AccumulateTileOp op, AccumulateTileOp::Adaptor adaptor,
                Emitter &e, MmaLayoutAttr mma, const MmaCoords &c,
                const GlobalRows &g, Value valid);
LogicalResult bulkTensorReduce(AccumulateTileOp op,
                               AccumulateTileOp::Adaptor adaptor, Emitter &e,
                               MmaLayoutAttr mma, const MmaCoords &c,
                               Value valid, const KernelInfo &info);

/// attn.accumulate_tile: one atomic add (red.global.add.f32: the result is
/// unused) per element the thread holds, rows (or, transposed, columns)
/// at or past `rows` skipped. Transposed, a warp's add of one register
/// covers 8 consecutive columns of dest (lanes g) in 4 rows (lanes q): four
/// 32-byte sectors.
struct AccumulateTileLowering : public TilePattern<AccumulateTileOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(AccumulateTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<RankedTensorType>(op.getTile().getType());
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(t.getEncoding());
    if (!mma)
      return op.emitError() << "unsupported: attn.accumulate_tile of " << t
                            << " (a 2-d register tile is expected)";
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    MmaCoords c = MmaCoords::get(e, mma, t.getDimSize(0));
    Value valid = e.to32(adaptor.getRows());
    if (Value staging = op.getStaging();
        staging && cast<RingType>(staging.getType()).getLayout().getSlab()) {
      if (failed(bulkTensorReduce(op, adaptor, e, mma, c, valid, info)))
        return failure();
      rewriter.eraseOp(op);
      return success();
    }
    GlobalRows g = globalRows(e, adaptor.getDest(), adaptor.getIndices());
    bool transposed = op.getTransposed();
    Value tile = adaptor.getTile();
    if (op.getStaging()) {
      bulkReduce(op, adaptor, e, mma, c, g, valid);
      rewriter.eraseOp(op);
      return success();
    }
    // A whole block (every row of dest the tile covers is below `rows`)
    // adds without a test per element: a branch around each add costs a
    // convergence barrier (BSSY/BSYNC) apiece.
    int64_t destRows = t.getDimSize(transposed ? 1 : 0);
    auto whole = scf::IfOp::create(
        rewriter, loc, e.cmp(arith::CmpIPredicate::sge, valid, e.c32(destRows)),
        /*withElseRegion=*/true);
    auto emitAdds = [&](bool checked) {
      forEachDestElement(
          e, t, c, transposed, [&](Value destRow, Value destCol, int64_t i) {
            OpBuilder::InsertionGuard guard(rewriter);
            if (checked) {
              auto ifIn = scf::IfOp::create(
                  rewriter, loc,
                  e.cmp(arith::CmpIPredicate::slt, destRow, valid), false);
              rewriter.setInsertionPointToStart(ifIn.thenBlock());
            }
            Value off = e.add(e.mul(e.add(g.row0, destRow), g.stride), destCol);
            Value ptr = e.gep(e.gptr(), e.f32(), g.base, off);
            LLVM::AtomicRMWOp::create(rewriter, loc, LLVM::AtomicBinOp::fadd,
                                      ptr, e.extract(tile, i),
                                      LLVM::AtomicOrdering::monotonic);
          });
    };
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(whole.thenBlock());
      emitAdds(/*checked=*/false);
      rewriter.setInsertionPointToStart(whole.elseBlock());
      emitAdds(/*checked=*/true);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// attn.accumulate_tile via a staging slot: bar.sync (unless slot_released:
/// the slot's last reductions finished reading it, their issuers waited),
/// each thread's elements into the slot at dest's positions (row-major
/// [R', C] f32, rows padded as its layout says), fence.proxy.async (bulk
/// copies read through the async proxy), bar.sync, then thread t adds row t
/// of the block's first `rows` into dest with one
///   cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
/// (MLIR 22's NVVM dialect has the tensor-map form only), commits it and
/// waits until it has read the slot. Transposed, a warp's store of one
/// register writes 8 consecutive words (lanes g) in 4 rows (lanes q): rows
/// of 128 words would put them in the same banks, padded ones do not.
void bulkReduce(AccumulateTileOp op, AccumulateTileOp::Adaptor adaptor,
                Emitter &e, MmaLayoutAttr mma, const MmaCoords &c,
                const GlobalRows &g, Value valid) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  auto t = cast<RankedTensorType>(op.getTile().getType());
  auto rt = cast<RingType>(op.getStaging().getType());
  bool transposed = op.getTransposed();
  int64_t destRows = rt.getTile().getDimSize(0);
  int64_t destCols = rt.getTile().getDimSize(1);
  int64_t rowBytes = rt.getLayout().getRowBytes(destCols, 4);
  if (!op.getSlotReleased())
    stageSync(e, mma);
  Value slot = slotAddress(e, adaptor.getStaging(), e.c32(0), rt);
  Value tile = adaptor.getTile();
  forEachDestElement(e, t, c, transposed, [&](Value dr, Value dc, int64_t i) {
    Value off = e.add(e.mul(dr, e.c32(rowBytes)), e.mul(dc, e.c32(4)));
    LLVM::StoreOp::create(b, loc, e.extract(tile, i), e.gepBytes(slot, off),
                          /*alignment=*/4);
  });
  fenceToAsyncProxy(e);
  stageSync(e, mma);
  // Thread t adds rows t, t + T, ... below `rows` (T the tile's threads),
  // each its own bulk group, which it waits for: at D = 128 the 64 rows
  // fall to warpgroup 0, which waits while the other runs ahead; the rows
  // shared out over both warpgroups (each waiting for its own) measured
  // 17.2 against 15.4 ms for grad_kv at 16k (H200).
  Value tid = e.tid();
  Value rows = arith::MinSIOp::create(b, loc, valid, e.c32(destRows));
  for (int64_t first = 0; first < destRows; first += mma.getThreads()) {
    Value row = first ? e.add(tid, e.c32(first)) : tid;
    auto ifOp = scf::IfOp::create(
        b, loc, e.cmp(arith::CmpIPredicate::slt, row, rows), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    // Row r of the block: dest[indices..., r, 0] (rows back to back).
    Value dst = e.gep(e.gptr(), e.f32(), g.base, e.mul(row, e.c32(destCols)));
    Value src = e.gepBytes(slot, e.mul(row, e.c32(rowBytes)));
    LLVM::InlineAsmOp::create(
        b, loc, Type(), ValueRange{dst, src, e.c32(destCols * 4)},
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], "
        "[$1], $2;",
        "l,r,r", /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
        ArrayAttr());
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
    // Waiting here (the slot is free at the next reduction's first
    // barrier, and the block never exits with a copy reading it) measured
    // faster than waiting before that barrier: 17.0 vs 19.5 ms for grad_kv
    // at D = 128, 16k (H200, bf16, one lease).
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, /*read=*/b.getUnitAttr());
  }
}

/// attn.accumulate_tile via a slot of 128-byte slabs (32 f32 columns
/// each): the holders of the tile write its elements at dest's positions
/// in the slab-swizzled slot (chunk' = chunk ^ (row % 8), the layout a
/// 128-byte-swizzled tensor map reads), zeros for rows at or past `rows`,
/// fence.proxy.async, synchronise, and one thread adds each slab with
///   cp.reduce.async.bulk.tensor.Nd.global.shared::cta.add.tile.bulk_group
/// through dest's tensor map (rows past dest's end are left out), commits
/// and waits until the slab was read. A transposed tile whose warpgroups'
/// rows are whole slabs (dQᵀ = Kᵀ·dS: warpgroup w holds dQ's columns
/// 64w .. 64w + 63) has each slab written by one warpgroup: each
/// warpgroup synchronises on its own named barrier (9 + w) and its first
/// thread adds its slabs, so neither waits for the other's stores nor
/// for one thread's reductions of both. Transposed, a warp's store of one
/// register writes 8 consecutive words (lanes g) in rows 2q + c (lanes q):
/// rows 0, 2, 4, 6 (+ c) swizzle their 32-byte pieces to four bank groups.
LogicalResult bulkTensorReduce(AccumulateTileOp op,
                               AccumulateTileOp::Adaptor adaptor, Emitter &e,
                               MmaLayoutAttr mma, const MmaCoords &c,
                               Value valid, const KernelInfo &info) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Value map = tensorMapOf(op, op.getDest(), info);
  if (!map)
    return op.emitError("unsupported: a bulk tensor reduction without a "
                        "tensor map of its dest (a kernel argument)");
  auto t = cast<RankedTensorType>(op.getTile().getType());
  auto rt = cast<RingType>(op.getStaging().getType());
  bool transposed = op.getTransposed();
  SharedTile st(rt.getTile());
  const int64_t slabCols = 32;
  const int64_t slabs = st.cols / slabCols;
  const int64_t groups = mma.getThreads() / 128;
  const int64_t groupRows = t.getDimSize(0) / std::max<int64_t>(groups, 1);
  const bool perGroup = transposed && groups > 1 &&
                        t.getDimSize(0) % groups == 0 &&
                        groupRows % slabCols == 0;
  Value wg = perGroup ? warpgroupOf(e, info) : Value();
  auto sync = [&] {
    if (!perGroup) {
      stageSync(e, mma);
      return;
    }
    NVVM::BarrierOp::create(b, loc, Type(), e.add(wg, e.c32(kStageBarrier + 1)),
                            e.c32(128), NVVM::BarrierReductionAttr(), Value());
  };
  const int64_t slots = rt.getStages();
  // Two slots alternate with the steps of the loop the add is directly in,
  // and no other add of the loop may use the ring (each issuer waits only
  // for the add before its own).
  auto parentLoop = dyn_cast<scf::ForOp>(op->getParentOp());
  if (slots > 1 && (!parentLoop ||
                    llvm::any_of(op.getStaging().getUsers(), [&](Operation *u) {
                      return u != op.getOperation() &&
                             parentLoop->isAncestor(u);
                    })))
    return op.emitError("unsupported: attn.accumulate_tile through a ring "
                        "of two slots other than once a step, directly in "
                        "its loop");
  if (!op.getSlotReleased())
    sync();
  Value slot =
      slotAddress(e, adaptor.getStaging(),
                  adaptor.getSlot() ? e.to32(adaptor.getSlot()) : e.c32(0), rt);
  Value tile = adaptor.getTile();
  int64_t destRows = st.rows;
  // dest[r, col] at chunk col / 4 of row r, bytes 4·(col % 4) into it.
  // The constant parts of r that are multiples of 8 (the swizzle's period)
  // and of col that are whole slabs are added after the swizzle, as
  // immediates: the thread's stores then share a few base addresses
  // (which LLVM hoists out of the loop) instead of one each.
  Value tileRow = e.add(c.warpRow0, c.g);
  Value tileCol = e.mul(c.q, e.c32(2));
  auto emitStores = [&](bool checked) {
    for (const RowGroup &rg : rowGroups(t))
      for (size_t k = 0; k < rg.first.size(); ++k)
        for (int64_t w = 0; w < 2; ++w) {
          Value rowDyn = transposed ? tileCol : tileRow;
          Value colDyn = transposed ? tileRow : tileCol;
          int64_t rowCst = transposed ? rg.colOffs[k] + w : rg.rowOffset;
          int64_t colCst = transposed ? rg.rowOffset : rg.colOffs[k] + w;
          Value r = e.add(rowDyn, e.c32(rowCst % 8));
          Value col = e.add(colDyn, e.c32(colCst % slabCols));
          Value v = e.extract(tile, rg.first[k] + w);
          if (checked)
            v = e.select(e.cmp(arith::CmpIPredicate::slt,
                               e.add(r, e.c32(rowCst - rowCst % 8)), valid),
                         v, e.cf(0.0f));
          Value off = e.add(st.offset(e, r, e.udiv(col, e.c32(4))),
                            e.mul(e.urem(col, e.c32(4)), e.c32(4)));
          int64_t imm = (rowCst - rowCst % 8) * st.rowBytes +
                        colCst / slabCols * st.chunkGroupBytes(1);
          LLVM::StoreOp::create(b, loc, v,
                                e.gepBytes(e.gepBytes(slot, off), e.c32(imm)),
                                /*alignment=*/4);
        }
  };
  // A whole block stores without a test an element.
  auto whole = scf::IfOp::create(
      b, loc, e.cmp(arith::CmpIPredicate::sge, valid, e.c32(destRows)),
      /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(whole.thenBlock());
    emitStores(/*checked=*/false);
    b.setInsertionPointToStart(whole.elseBlock());
    emitStores(/*checked=*/true);
  }
  fenceToAsyncProxy(e);
  sync();
  // Coordinates innermost first: the slab's first column, then dest's
  // indices reversed (row, then the outer ones).
  SmallVector<Value> coords{Value()};
  for (Value i : llvm::reverse(adaptor.getIndices()))
    coords.push_back(e.to32(i));
  auto isIssuer = [&] {
    Value tid = e.tid();
    return perGroup ? e.cmp(arith::CmpIPredicate::eq, e.urem(tid, e.c32(128)),
                            e.c32(0))
                    : e.cmp(arith::CmpIPredicate::eq, tid, e.c32(0));
  };
  auto ifOp = scf::IfOp::create(b, loc, isIssuer(), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  const int64_t mine = perGroup ? groupRows / slabCols : slabs;
  Value first = perGroup ? e.mul(wg, e.c32(mine)) : e.c32(0);
  for (int64_t k = 0; k < mine; ++k) {
    Value s = k ? e.add(first, e.c32(k)) : first;
    coords[0] = e.mul(s, e.c32(slabCols));
    Value src = e.gepBytes(slot, e.mul(s, e.c32(st.chunkGroupBytes(1))));
    NVVM::CpAsyncBulkTensorReduceOp::create(
        b, loc, map, src, NVVM::TMAReduxKind::ADD, NVVM::TMAStoreMode::TILE,
        coords, Value());
  }
  NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
  // With two slots the reductions of the previous add (the other slot)
  // must have read it before the next add writes there: the issuer waits
  // for them now, and the schedule's barriers before the next add's stores
  // tell the other threads (as `slot_released` says). After the enclosing
  // loop, it waits for all: the slot may be written again, and the block
  // must not exit while a reduction still reads its shared memory.
  NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, slots - 1,
                                       /*read=*/b.getUnitAttr());
  if (slots > 1) {
    b.setInsertionPointAfter(parentLoop);
    auto drain = scf::IfOp::create(b, loc, isIssuer(), false);
    b.setInsertionPointToStart(drain.thenBlock());
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, /*read=*/b.getUnitAttr());
  }
  return success();
}

/// Tile queues. The poster (the bulk copier's thread) waits until every
/// thread took the slot's previous fill, stores the index and arrives at
/// "full" (release); a taker waits for "full" (acquire), loads the index
/// and arrives at "empty". `queue` is the attn.alloc_ring result, `slots`
/// its converted pointer.
void postTile(Emitter &e, Value queue, Value slots, Value slot, Value fill,
              Value tile) {
  waitForFill(e, queue, slot, fill, /*empty=*/true);
  LLVM::StoreOp::create(
      e.b, e.loc, tile,
      slotAddress(e, slots, slot, cast<RingType>(queue.getType())));
  arriveAt(e, queue, slot, /*empty=*/false);
}

struct PostTileLowering : public TilePattern<PostTileOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(PostTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    {
      OpBuilder::InsertionGuard g(rewriter);
      onlyBulkCopier(e, info);
      postTile(e, op.getQueue(), adaptor.getQueue(), adaptor.getSlot(),
               adaptor.getFill(), e.to32(adaptor.getTile()));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct ClaimTileLowering : public TilePattern<ClaimTileOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(ClaimTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fn = op->getParentOfType<gpu::GPUFuncOp>();
    if (!fn || info.tileCounterArg < 0)
      return op.emitError("unsupported: attn.claim_tile outside a kernel "
                          "with a tile counter (a persistent grid's)");
    Emitter e(rewriter, op.getLoc());
    Location loc = op.getLoc();
    Value counter = fn.getArgument(info.tileCounterArg);
    {
      OpBuilder::InsertionGuard g(rewriter);
      onlyBulkCopier(e, info);
      // c = the claims before this one; the atomic is issued before the
      // wait for the slot, so its round trip overlaps it.
      Value c = LLVM::AtomicRMWOp::create(rewriter, loc, LLVM::AtomicBinOp::add,
                                          counter, e.c32(1),
                                          LLVM::AtomicOrdering::monotonic);
      // The launch makes `tiles` claims (one per tile run): the one that
      // draws tiles - 1 is the last, and leaves the counter at zero for
      // the next launch on the stream.
      Value last = e.cmp(arith::CmpIPredicate::eq, c,
                         e.sub(e.to32(adaptor.getTiles()), e.c32(1)));
      auto reset = scf::IfOp::create(rewriter, loc, last, false);
      {
        OpBuilder::InsertionGuard g2(rewriter);
        rewriter.setInsertionPointToStart(reset.thenBlock());
        LLVM::StoreOp::create(rewriter, loc, e.c32(0), counter);
      }
      // next = P + c: the first P tiles are the programs' own first tiles.
      postTile(e, op.getQueue(), adaptor.getQueue(), adaptor.getSlot(),
               adaptor.getFill(), e.add(e.to32(adaptor.getPrograms()), c));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct TakeTileLowering : public TilePattern<TakeTileOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(TakeTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    auto t = cast<RingType>(op.getQueue().getType());
    waitForFill(e, op.getQueue(), adaptor.getSlot(), adaptor.getFill(),
                /*empty=*/false);
    Value tile = LLVM::LoadOp::create(
        rewriter, op.getLoc(), e.i32(),
        slotAddress(e, adaptor.getQueue(), adaptor.getSlot(), t));
    arriveAt(e, op.getQueue(), adaptor.getSlot(), /*empty=*/true);
    rewriter.replaceOpWithNewOp<arith::IndexCastUIOp>(
        op, rewriter.getIndexType(), tile);
    return success();
  }
};

/// Consumers: tid < 32 · warps, their registers raised; the producer: the
/// warpgroup after them, its registers lowered first (the consumers'
/// increase waits until the multiprocessor has the registers).
struct WarpSpecializeLowering : public TilePattern<WarpSpecializeOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(WarpSpecializeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // setmaxnreg moves registers within the block's allocation (R =
    // floor8(65536 / threads) each): asking for more waits forever.
    int64_t launch = std::min<int64_t>(255, 65536 / info.threads() / 8 * 8);
    int64_t c = op.getConsumerRegisters() ? op.getConsumerRegisters() : launch;
    int64_t p = op.getProducerRegisters() ? op.getProducerRegisters() : launch;
    if (c * 32 * info.warps + p * 32 * info.producerWarps >
        launch * info.threads())
      return op.emitError() << "unsupported: " << c << " registers for each of "
                            << 32 * info.warps << " consumer threads and " << p
                            << " for each producer thread exceed the block's "
                            << launch * info.threads() << " (" << launch
                            << " for each of " << info.threads() << " threads)";
    Emitter e(rewriter, loc);
    Value consumer =
        e.cmp(arith::CmpIPredicate::ult, e.tid(), e.c32(32 * info.warps));
    auto ifOp = scf::IfOp::create(rewriter, loc, consumer, true);
    auto role = [&](Region &region, Block *block, int64_t regs,
                    NVVM::SetMaxRegisterAction action, int64_t threads) {
      rewriter.setInsertionPointToStart(block);
      // setmaxnreg is warpgroup-wide (.sync.aligned): before the guard.
      if (regs)
        NVVM::SetMaxRegisterOp::create(rewriter, loc, regs, action);
      if (threads) {
        // Only the producer's first `threads` (the thread that issues the
        // bulk copies, or its warp) run its program
        // (KernelInfo::producerThreads); the others would only spin on the
        // rings' barriers.
        // A whole warp is chosen by its index broadcast from lane 0, which
        // ptxas knows to be warp-uniform: the warp's own reconvergence and
        // election then need no divergent paths.
        Value who = threads % 32
                        ? e.tid()
                        : NVVM::ShflOp::create(rewriter, loc,
                                               rewriter.getI32Type(), e.c32(-1),
                                               e.warp(), e.c32(0), e.c32(0x1f),
                                               NVVM::ShflKind::idx, UnitAttr());
        int64_t bound = threads % 32 ? 32 * info.warps + threads
                                     : info.warps + threads / 32;
        auto only = scf::IfOp::create(
            rewriter, loc, e.cmp(arith::CmpIPredicate::ult, who, e.c32(bound)),
            false);
        block = only.thenBlock();
      }
      rewriter.inlineBlockBefore(&region.front(), block->getTerminator());
    };
    role(op.getConsumers(), ifOp.thenBlock(), op.getConsumerRegisters(),
         NVVM::SetMaxRegisterAction::increase, 0);
    role(op.getProducer(), ifOp.elseBlock(), op.getProducerRegisters(),
         NVVM::SetMaxRegisterAction::decrease,
         info.producerThreads < 32 * info.producerWarps ? info.producerThreads
                                                        : 0);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Warpgroups taking turns: warpgroup w waits at named barrier 1 + w and
/// passes the turn by arriving at barrier 1 + (w + 1) mod G; each barrier
/// counts the 128 threads of the warpgroup that waits and the 128 of the
/// one that passes. Barrier 0 stays the program-wide one.
template <typename OpTy> struct TurnLowering : public TilePattern<OpTy> {
  using TilePattern<OpTy>::TilePattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t groups = this->info.warps / 4;
    if (groups < 2) {
      rewriter.eraseOp(op);
      return success();
    }
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    Value wg = warpgroupOf(e, this->info);
    Value pair = e.c32(256);
    auto next = [&] { return e.urem(e.add(wg, e.c32(1)), e.c32(groups)); };
    auto namedBarrier = [&](Value id) {
      NVVM::BarrierOp::create(rewriter, loc, Type(), id, pair,
                              NVVM::BarrierReductionAttr(), Value());
    };
    auto onlyIn = [&](int64_t group, auto body) {
      auto ifOp = scf::IfOp::create(
          rewriter, loc, e.cmp(arith::CmpIPredicate::eq, wg, e.c32(group)),
          false);
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      body();
    };
    if (isa<StartTurnsOp>(op)) {
      // The last warpgroup passes the first turn to warpgroup 0.
      onlyIn(groups - 1, [&] {
        NVVM::BarrierArriveOp::create(rewriter, loc, e.c32(1), pair);
      });
    } else if (isa<AwaitTurnOp>(op)) {
      namedBarrier(e.add(wg, e.c32(1)));
    } else if (isa<PassTurnOp>(op)) {
      NVVM::BarrierArriveOp::create(rewriter, loc, e.add(next(), e.c32(1)),
                                    pair);
    } else {
      // Warpgroup 0 takes back the turn the last one passed.
      onlyIn(0, [&] { namedBarrier(e.c32(1)); });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Only a persistent program's tile loop reads it (attn-persist-tiles).
struct RingFillsLowering : public TilePattern<RingFillsOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(RingFillsOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

/// Inside a persistent kernel: the blocks launched (the runtime launches
/// min(tiles, SMs)).
struct NumProgramsLowering : public TilePattern<NumProgramsOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(NumProgramsOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Elsewhere the launch's x dim counts something else (query blocks).
    if (!info.persistent)
      return op.emitError("unsupported: attn.num_programs in a kernel that "
                          "is not persistent (its launch is not one block a "
                          "program)");
    rewriter.replaceOpWithNewOp<gpu::GridDimOp>(op, gpu::Dimension::x);
    return success();
  }
};

/// Grid dependency control: griddepcontrol.wait / .launch_dependents.
template <typename OpTy, NVVM::GridDepActionKind kind>
struct GridDependencyLowering : public TilePattern<OpTy> {
  using TilePattern<OpTy>::TilePattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::GriddepcontrolOp>(
        op, NVVM::GridDepActionKindAttr::get(op.getContext(), kind));
    return success();
  }
};

} // namespace

void mlir::attn::gpu_lowering::populateMemoryOpPatterns(
    TileTypeConverter &tc, const KernelInfo &info,
    RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<
      LoadTileToShared, LoadTileToRegisters, StoreTileFromRegisters,
      AllocRingLowering, AsyncLoadTileLowering, AsyncCommitLowering,
      AsyncWaitLowering, RingSlotLowering, AsyncArriveLowering,
      RingWaitLowering, RingReleaseLowering, RingAcquireLowering,
      TurnLowering<StartTurnsOp>, TurnLowering<AwaitTurnOp>,
      TurnLowering<PassTurnOp>, TurnLowering<EndTurnsOp>,
      WarpSpecializeLowering, RingFillsLowering, NumProgramsLowering,
      PostTileLowering, ClaimTileLowering, TakeTileLowering, StoreSlotLowering,
      AccumulateTileLowering,
      GridDependencyLowering<WaitPriorGridsOp, NVVM::GridDepActionKind::wait>,
      GridDependencyLowering<LaunchDependentsOp,
                             NVVM::GridDepActionKind::launch_dependents>>(
      tc, info, ctx);
}
