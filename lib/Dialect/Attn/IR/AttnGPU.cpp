//===- AttnGPU.cpp - GPU layouts, the ring type and GPU-level ops -*- C++
//-*-===//
#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::attn;

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

LogicalResult
MmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      int64_t warps, int64_t version) {
  if (warps < 1 || warps > 32)
    return emitError() << "#attn.mma needs 1 to 32 warps, got " << warps;
  if (version != 2 && version != 3)
    return emitError() << "#attn.mma version must be 2 (mma.sync) or 3 "
                          "(wgmma), got "
                       << version;
  if (version == 3 && warps % 4)
    return emitError() << "#attn.mma version 3 (wgmma) needs whole "
                          "warpgroups (warps a multiple of 4), got "
                       << warps;
  return success();
}

LogicalResult
MmaLayoutAttr::verifyShape(function_ref<InFlightDiagnostic()> emitError,
                           ArrayRef<int64_t> shape) const {
  if (shape.size() != 2)
    return emitError() << "#attn.mma lays out 2-d tiles, got rank "
                       << shape.size();
  int64_t rowsPerWarpGroup = 16 * getWarps();
  if (shape[0] % rowsPerWarpGroup)
    return emitError() << "#attn.mma<warps = " << getWarps()
                       << "> needs rows in multiples of " << rowsPerWarpGroup
                       << " (16 per warp), got " << shape[0];
  if (shape[1] % 8)
    return emitError() << "#attn.mma needs columns in multiples of 8, got "
                       << shape[1];
  if (isWarpgroup() && shape[0] != rowsPerWarpGroup)
    return emitError() << "#attn.mma version 3 (wgmma) holds one 16-row "
                          "m-tile per warp: "
                       << rowsPerWarpGroup << " rows with " << getWarps()
                       << " warps, got " << shape[0];
  return success();
}

LogicalResult
SharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t swizzle, int64_t pad, int64_t slab) {
  if (swizzle != 0 && swizzle != 4 && swizzle != 8)
    return emitError() << "#attn.shared swizzle must be 0, 4 or 8, got "
                       << swizzle;
  if (pad < 0 || pad % 16)
    return emitError() << "#attn.shared pad must be a non-negative multiple "
                          "of 16 bytes, got "
                       << pad;
  if (swizzle && pad)
    return emitError() << "#attn.shared is swizzled or padded, not both";
  if (slab != 0 && slab != 64 && slab != 128)
    return emitError() << "#attn.shared slab must be 0 (whole rows), 64 or "
                          "128 bytes, got "
                       << slab;
  // A slab's swizzle permutes its own chunks: 8 of 128 bytes, 4 of 64.
  if (slab && swizzle != slab / 16)
    return emitError() << "#attn.shared slabs of " << slab
                       << " bytes need swizzle = " << slab / 16;
  if (!slab && swizzle == 4)
    return emitError() << "#attn.shared swizzle = 4 is the 64-byte slabs' "
                          "(slab = 64)";
  return success();
}

LogicalResult
SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        MmaLayoutAttr parent, int64_t dim) {
  if (dim != 0 && dim != 1)
    return emitError() << "#attn.slice dim must be 0 (one value per row) or "
                          "1 (one value per column), got "
                       << dim;
  return success();
}

SharedLayoutAttr SharedLayoutAttr::getFor(MLIRContext *ctx, int64_t cols) {
  // 16-byte chunks of 8 elements; the XOR swizzle permutes 8 chunks.
  if ((cols / 8) % 8 == 0)
    return get(ctx, /*swizzle=*/8, /*pad=*/0);
  return get(ctx, /*swizzle=*/0, /*pad=*/16);
}

SharedLayoutAttr SharedLayoutAttr::getSlabsFor(MLIRContext *ctx,
                                               int64_t rowBytes) {
  for (int64_t slab : {128, 64})
    if (rowBytes % slab == 0)
      return get(ctx, /*swizzle=*/slab / 16, /*pad=*/0, slab);
  return {};
}

/// Checks that `t`'s layout fits its shape: the rules every op relies on.
static LogicalResult verifyLayout(function_ref<InFlightDiagnostic()> emitError,
                                  RankedTensorType t) {
  Attribute enc = t.getEncoding();
  if (!enc)
    return success();
  if (auto mma = dyn_cast<MmaLayoutAttr>(enc))
    return mma.verifyShape(emitError, t.getShape());
  if (auto slice = dyn_cast<SliceLayoutAttr>(enc)) {
    if (slice.isPerColumn()) {
      if (t.getRank() != 1 || t.getDimSize(0) % 8)
        return emitError() << "#attn.slice with dim = 1 lays out 1-d tiles "
                              "of a multiple of 8 columns, got "
                           << t;
      return success();
    }
    if (t.getRank() != 1 ||
        t.getDimSize(0) % (16 * slice.getParent().getWarps()))
      return emitError() << "#attn.slice lays out 1-d tiles of a multiple of "
                         << 16 * slice.getParent().getWarps() << " rows, got "
                         << t;
    return success();
  }
  if (isa<SharedLayoutAttr>(enc)) {
    unsigned bits = t.getElementType().getIntOrFloatBitWidth();
    // A tile queue's slot (attn.post_tile): one i32, unswizzled.
    auto plain = cast<SharedLayoutAttr>(enc);
    if (t.getShape() == ArrayRef<int64_t>{1, 1} &&
        t.getElementType().isInteger(32) && !plain.getSwizzle() &&
        !plain.getPad() && !plain.getSlab())
      return success();
    // A block of f32 rows staged for bulk reductions (attn.accumulate_tile
    // via): row-major, unswizzled (rows may be padded), rows of whole
    // 16-byte chunks.
    if (t.getRank() == 2 && t.getElementType().isF32() && !plain.getSwizzle() &&
        !plain.getSlab() && t.getDimSize(1) % 4 == 0)
      return success();
    auto shared = cast<SharedLayoutAttr>(enc);
    // 8-bit tiles (fp8) only in slabs (128 or 64 bytes): wgmma and bulk
    // copies read them, never ldmatrix. f32 ones in 128-byte slabs are
    // staged for bulk tensor reductions (attn.accumulate_tile via).
    bool slabOnly = (bits == 8 && shared.getSlab()) ||
                    (t.getElementType().isF32() && shared.getSlab() == 128);
    if (t.getRank() != 2 || (bits != 16 && !slabOnly) || t.getDimSize(1) % 8 ||
        t.getDimSize(0) % 8)
      return emitError() << "#attn.shared holds 2-d tiles of 16-bit elements "
                            "(8-bit ones in swizzled slabs, f32 ones in "
                            "128-byte slabs) "
                            "with rows and columns in multiples of 8 (or one "
                            "unswizzled i32, a tile queue's slot, or "
                            "unswizzled f32 rows of a multiple of 4 "
                            "columns), got "
                         << t;
    if (shared.getSlab() && (t.getDimSize(1) * bits / 8) % shared.getSlab())
      return emitError() << "#attn.shared slabs of " << shared.getSlab()
                         << " bytes need rows of a multiple of that, got " << t;
    return success();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Ring type
//===----------------------------------------------------------------------===//

LogicalResult RingType::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t stages, RankedTensorType tile) {
  if (stages < 1 || stages > 8)
    return emitError() << "!attn.ring needs 1 to 8 stages, got " << stages;
  if (!isa_and_nonnull<SharedLayoutAttr>(tile.getEncoding()))
    return emitError() << "!attn.ring holds tiles with an #attn.shared "
                          "layout, got "
                       << tile;
  return verifyLayout(emitError, tile);
}

SharedLayoutAttr RingType::getLayout() const {
  return cast<SharedLayoutAttr>(getTile().getEncoding());
}

int64_t RingType::getSlotBytes() const {
  RankedTensorType t = getTile();
  int64_t eb = t.getElementType().getIntOrFloatBitWidth() / 8;
  return getLayout().getTileBytes(t.getDimSize(0), t.getDimSize(1), eb);
}

bool RingType::isTileQueue() const {
  RankedTensorType t = getTile();
  SharedLayoutAttr l = getLayout();
  return t.getShape() == ArrayRef<int64_t>{1, 1} &&
         t.getElementType().isInteger(32) && !l.getSwizzle() && !l.getPad() &&
         !l.getSlab();
}

RingType RingType::getTileQueue(MLIRContext *ctx, int64_t stages) {
  auto slot = RankedTensorType::get(
      {1, 1}, IntegerType::get(ctx, 32),
      SharedLayoutAttr::get(ctx, /*swizzle=*/0, /*pad=*/0));
  return RingType::get(ctx, stages, slot);
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

LogicalResult ConvertLayoutOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (in.getShape() != out.getShape() ||
      in.getElementType() != out.getElementType())
    return emitOpError() << "converts the layout only: shape and element type "
                            "must match, got "
                         << in << " and " << out;
  auto err = [&] { return emitOpError(); };
  if (failed(verifyLayout(err, in)) || failed(verifyLayout(err, out)))
    return failure();
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // convert(convert(x)) = convert(x) when it goes back to x's layout.
  if (auto inner = getInput().getDefiningOp<ConvertLayoutOp>())
    if (inner.getInput().getType() == getType())
      return inner.getInput();
  return {};
}

LogicalResult AsyncLoadTileOp::verify() {
  auto mem = cast<MemRefType>(getSource().getType());
  auto ring = cast<RingType>(getRing().getType());
  RankedTensorType tile = ring.getTile();
  if (tile.getElementType() != mem.getElementType())
    return emitOpError() << "ring element type " << tile.getElementType()
                         << " must match source element type "
                         << mem.getElementType();
  // A column window names every dim's index (the last the first column).
  bool window = static_cast<bool>(getCols());
  if (getPages()) {
    if (failed(verifyPagedRows(*this, mem, tile, window)))
      return failure();
    if (getBulk())
      return emitOpError() << "a bulk copy cannot gather the rows of pages "
                              "(pages: per-row addresses; cp.async only)";
  }
  if (getGroup()) {
    if (failed(verifyGroupedRows(*this, getIndices().size(), window,
                                 bool(getPages()))))
      return failure();
    if (getBulk())
      return emitOpError() << "a bulk copy cannot take grouped rows (group: "
                              "per-row addresses; cp.async only)";
  }
  size_t expected = mem.getRank() - (window ? 0 : 1);
  if (mem.getRank() < 2 || getIndices().size() != expected)
    return emitOpError() << "expected " << expected
                         << (window ? " indices (one per dim of a source of "
                                      "rank >= 2, with cols), got "
                                    : " indices (all but the last dim of a "
                                      "source of rank >= 2), got ")
                         << getIndices().size();
  if (!window && (mem.isDynamicDim(mem.getRank() - 1) ||
                  mem.getDimSize(mem.getRank() - 1) != tile.getDimSize(1)))
    return emitOpError() << "the source's last dim must be static and equal "
                            "the tile columns ("
                         << tile.getDimSize(1) << ")";
  if (!mem.isStrided())
    return emitOpError() << "source must have a strided layout";
  if (getBulk())
    if (std::string why = bulkCopyRefusal(tile, mem); !why.empty())
      return emitOpError() << why;
  return success();
}

std::string AsyncLoadTileOp::bulkCopyRefusal(RankedTensorType tile,
                                             MemRefType source) {
  std::string why;
  llvm::raw_string_ostream os(why);
  auto layout = dyn_cast_or_null<SharedLayoutAttr>(tile.getEncoding());
  unsigned bits = tile.getElementType().getIntOrFloatBitWidth();
  if (!layout || !layout.getSlab() ||
      (bits != 16 && bits != 8 && !(bits == 32 && layout.getSlab() == 128)))
    os << "bulk copies fill 16-bit or 8-bit #attn.shared tiles of 128- or "
          "64-byte slabs, or f32 ones of 128-byte slabs, got '"
       << tile << "'";
  else if (source.getRank() > 5)
    os << "bulk copies read sources of rank 2 to 5, got " << source.getRank();
  return why;
}

LogicalResult DotWaitOp::verify() {
  auto dot = getInput().getDefiningOp<DotOp>();
  if (!dot || !dot.getAsync())
    return emitOpError("waits for an attn.dot {async}; the input is not one");
  return success();
}

LogicalResult WarpSpecializeOp::verify() {
  // setmaxnreg takes 24 to 256 registers, a multiple of 8.
  for (auto [name, n] : {std::pair<StringRef, int64_t>{"consumer_registers",
                                                       getConsumerRegisters()},
                         {"producer_registers", getProducerRegisters()}})
    if (n != 0 && (n < 24 || n > 256 || n % 8 != 0))
      return emitOpError() << name
                           << " must be 0 or a multiple of 8 in [24, 256], got "
                           << n;
  Operation *next = getOperation()->getNextNode();
  if (next && !next->hasTrait<OpTrait::IsTerminator>())
    return emitOpError("must be the last op of its block (both roles run to "
                       "the end of the program)");
  if ((*this)->getParentOfType<WarpSpecializeOp>())
    return emitOpError("cannot be nested in another attn.warp_specialize");
  // Each ring's barriers count the threads of one role: fills the
  // producer's, releases the consumers'.
  WalkResult consumers = getConsumers().walk([&](Operation *op) {
    if (isa<AsyncLoadTileOp, AsyncArriveOp, RingAcquireOp>(op)) {
      op->emitOpError("belongs to the producer of an attn.warp_specialize, "
                      "not to its consumers");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (consumers.wasInterrupted())
    return failure();
  WalkResult producer = getProducer().walk([&](Operation *op) {
    bool tile = llvm::any_of(op->getResultTypes(),
                             [](Type t) { return isa<RankedTensorType>(t); });
    if (tile || isa<RingWaitOp, RingReleaseOp, AsyncWaitOp>(op)) {
      op->emitOpError("cannot run in the producer of an attn.warp_specialize "
                      "(it only copies into rings: no tiles, waits or "
                      "releases)");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(producer.wasInterrupted());
}

/// A tile queue's slots hold one i32 (a tile index).
static LogicalResult verifyTileQueue(Operation *op, Type queue) {
  auto ring = cast<RingType>(queue);
  if (!ring.isTileQueue())
    return op->emitOpError("a tile queue's slots hold tensor<1x1xi32>, got ")
           << ring.getTile();
  return success();
}

/// The one thread that posts to a tile queue is the producer's first: in a
/// warp-specialised program only the producer may post.
static LogicalResult verifyPoster(Operation *op, Type queue) {
  if (failed(verifyTileQueue(op, queue)))
    return failure();
  if (auto ws = op->getParentOfType<WarpSpecializeOp>())
    if (!ws.getProducer().isAncestor(op->getParentRegion()))
      return op->emitOpError("posts to a tile queue from the consumers of an "
                             "attn.warp_specialize (the producer's first "
                             "thread posts)");
  return success();
}

LogicalResult StoreSlotOp::verify() {
  auto tile = cast<RankedTensorType>(getTile().getType());
  RankedTensorType slot = cast<RingType>(getRing().getType()).getTile();
  if (tile.getShape() != slot.getShape() ||
      tile.getElementType() != slot.getElementType())
    return emitOpError() << "the tile " << tile
                         << " must have the ring's tile shape and element "
                            "type, got "
                         << slot;
  auto mma = dyn_cast_or_null<MmaLayoutAttr>(tile.getEncoding());
  if (!mma)
    return emitOpError() << "the tile must be a register tile (#attn.mma), "
                            "got "
                         << tile;
  auto shared = dyn_cast_or_null<SharedLayoutAttr>(slot.getEncoding());
  if (!shared || shared.getSlab() != 128 ||
      slot.getElementType().getIntOrFloatBitWidth() != 16)
    return emitOpError() << "the ring's tile must be a 16-bit tile of "
                            "128-byte slabs (what wgmma reads), got "
                         << slot;
  return success();
}

LogicalResult PostTileOp::verify() {
  return verifyPoster(*this, getQueue().getType());
}

LogicalResult ClaimTileOp::verify() {
  return verifyPoster(*this, getQueue().getType());
}

LogicalResult TakeTileOp::verify() {
  return verifyTileQueue(*this, getQueue().getType());
}

LogicalResult TensorMapOp::verify() {
  auto ptr = dyn_cast<LLVM::LLVMPointerType>(getMap().getType());
  if (!ptr || ptr.getAddressSpace() != 0)
    return emitOpError("the map is passed as a generic !llvm.ptr, got ")
           << getMap().getType();
  // A box dimension is at most 256 elements (cuTensorMapEncodeTiled).
  if (getBoxRows() > 256 || getBoxCols() > 256)
    return emitOpError("box dimensions are at most 256, got [")
           << getBoxRows() << ", " << getBoxCols() << "]";
  // The box's row is one swizzled slab (the launcher picks the swizzle
  // from its width).
  int64_t rowBytes =
      getBoxCols() *
      cast<MemRefType>(getSource().getType()).getElementTypeBitWidth() / 8;
  if (rowBytes != 128 && rowBytes != 64)
    return emitOpError("a box row is one 128- or 64-byte slab, got ")
           << rowBytes << " bytes";
  return success();
}

/// Grid dependency control is per thread and per block: it runs in every
/// thread of the program, once, directly in the body of its grid (before
/// any role split or loop could leave a thread out).
static LogicalResult verifyGridDependency(Operation *op) {
  Operation *parent = op->getParentOp();
  if (!isa_and_nonnull<scf::ForallOp>(parent) ||
      parent->getParentOfType<scf::ForallOp>())
    return op->emitOpError("must be directly in the body of a grid "
                           "(scf.forall), where every thread of the program "
                           "runs it once, and that grid must be the "
                           "program's (not nested in another)");
  return success();
}

LogicalResult WaitPriorGridsOp::verify() { return verifyGridDependency(*this); }

LogicalResult LaunchDependentsOp::verify() {
  return verifyGridDependency(*this);
}
