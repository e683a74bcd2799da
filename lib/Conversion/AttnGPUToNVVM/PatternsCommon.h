//===- PatternsCommon.h - shared pieces of the tile-op lowering -*- C++ -*-===//
//
// What every pattern of convert-attn-gpu-to-nvvm needs: the type converter
// (a laid-out tile -> what one thread holds of it), the per-kernel facts
// (threads, the shared-memory base), the thread's coordinates in an mma
// layout, and small arithmetic helpers. Index math is 32-bit: the runtime
// guarantees every element offset fits in int32.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_CONVERSION_ATTNGPUTONVVM_PATTERNSCOMMON_H
#define ATTN_LIB_CONVERSION_ATTNGPUTONVVM_PATTERNSCOMMON_H

#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::attn::gpu_lowering {

/// Attribute on ops that own shared memory (attn.load_tile into a shared
/// layout, attn.alloc_ring): their byte offset in the kernel's dynamic
/// shared memory, set before the patterns run.
constexpr llvm::StringLiteral kSmemOffsetAttr = "attn.smem_offset";
/// On an attn.alloc_ring with per-slot barriers: their byte offset.
constexpr llvm::StringLiteral kSmemBarriersAttr = "attn.smem_barriers";
/// The kernel's dynamic shared memory: an external zero-sized addrspace(3)
/// array in the gpu.module.
constexpr llvm::StringLiteral kSmemSymbol = "attn_smem";

/// A laid-out tile's per-thread type: the vector of its elements for a
/// register layout, the shared address for a shared one.
class TileTypeConverter : public TypeConverter {
public:
  explicit TileTypeConverter(MLIRContext *ctx);
};

/// Per-kernel facts the patterns read.
struct KernelInfo {
  int64_t warps = 4;
  /// attn.dot: B-fragment loads (ldmatrix.x4) issued this many steps ahead
  /// of the mma.sync that reads them.
  int64_t fragmentPrefetch = 0;
  /// The kernel's dots run on wgmma (#attn.mma version 3): shared memory
  /// that ordinary stores or cp.async wrote must be fenced into the async
  /// proxy (fence.proxy.async) before wgmma reads it.
  bool warpgroupMma = false;
  /// Warps of the producer of an attn.warp_specialize (0: none), numbered
  /// after the `warps` of the register layouts (the consumers).
  int64_t producerWarps = 0;
  /// Threads of the producer that run its program: where every copy it
  /// issues is a bulk copy (one thread issues them anyway), one if it
  /// takes tiles from a queue, else its first warp; all where its threads
  /// copy (cp.async). The others only lower their registers: threads that
  /// merely wait spin on the rings' barriers (the 192-row D = 64 program's
  /// four producer warps issued ~8% of its instructions, H200; one warp
  /// ran at the same speed). A thread that merely waits, left to itself,
  /// can fall two phases behind the copying thread and then wait for a
  /// later phase, which needs the copying thread: launches hung that way
  /// with a tile queue that counted every producer thread (H100), and with
  /// static schedules of 128 producer threads (D = 96 and the 128-row
  /// D = 64, H200; stopped, only lanes 1-31 of the copying thread's warp
  /// were left). So where more than one runs it, the copying warp
  /// reconverges (bar.warp.sync) before each of lane 0's sections
  /// (onlyBulkCopier).
  int64_t producerThreads = 0;
  /// A persistent grid's kernel (attn.persistent): the launch's blocks are
  /// its programs.
  bool persistent = false;
  /// The thread's warpgroup index is computed once at the kernel's entry
  /// (warpgroupIndex) instead of where each pattern needs it: Q's wgmma
  /// descriptors then stay in uniform registers across the loop (H200,
  /// mirrored: D = 128 +1..3%, the 192-row D = 64 block +2%, D = 256 ±1%).
  /// Not for two consumer warpgroups at D = 64, whose causal program lost
  /// 6-9% with it.
  bool warpgroupAtEntry = false;
  /// That value (set by the pass before the patterns run), or null.
  Value warpgroupIndex;
  /// Threads of the launch: consumers and producer.
  int64_t threads() const { return 32 * (warps + producerWarps); }
  /// Threads that copy tiles into shared memory: the producer's if there
  /// is one, else all.
  int64_t copyThreads() const {
    return producerWarps ? 32 * producerWarps : threads();
  }
  /// Bulk tensor copies (attn.async_load_tile {bulk}): the kernel argument
  /// number of each source memref -> that of its tensor map (a trailing
  /// !llvm.ptr argument, the grid-constant CUtensorMap's address).
  llvm::SmallDenseMap<unsigned, unsigned> tensorMaps;
  /// A dynamically scheduled persistent kernel (attn.claim_tile): the
  /// kernel argument number of its tile counter (a global pointer after
  /// the tensor maps), -1 without one.
  int64_t tileCounterArg = -1;
};

/// Small emitters; `b` inserts where the pattern is.
struct Emitter {
  OpBuilder &b;
  Location loc;
  Emitter(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Type i32() { return b.getI32Type(); }
  Type f32() { return b.getF32Type(); }
  Type sptr() { return LLVM::LLVMPointerType::get(b.getContext(), 3); }
  Type gptr() { return LLVM::LLVMPointerType::get(b.getContext(), 1); }

  Value c32(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  Value cf(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value udiv(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value urem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value uceilDiv(Value x, Value y) {
    return arith::CeilDivUIOp::create(b, loc, x, y);
  }
  Value umin(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value xori(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  /// fma(x, y, z) on f32 as llvm.fma by name: math.fma and llvm.intr.fma
  /// would become libdevice's __nv_fmaf.
  Value fma(Value x, Value y, Value z) {
    return LLVM::CallIntrinsicOp::create(b, loc, f32(),
                                         b.getStringAttr("llvm.fma.f32"),
                                         ValueRange{x, y, z})
        .getResult(0);
  }
  /// An index (or any integer) as i32.
  Value to32(Value v) {
    if (v.getType().isInteger(32))
      return v;
    if (v.getType().isIndex())
      return arith::IndexCastOp::create(b, loc, i32(), v);
    return arith::TruncIOp::create(b, loc, i32(), v);
  }
  /// An index as i64 (global element offsets: a tensor may span 2^31
  /// elements or more).
  Value to64(Value v) {
    if (v.getType().isInteger(64))
      return v;
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  }
  Value gep(Type ptrTy, Type elem, Value base, Value idx) {
    return LLVM::GEPOp::create(b, loc, ptrTy, elem, base, ValueRange{idx});
  }
  Value gepBytes(Value base, Value bytes) {
    return gep(base.getType(), b.getI8Type(), base, bytes);
  }
  Value tid() {
    return to32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  }
  Value lane() { return urem(tid(), c32(32)); }
  Value warp() { return udiv(tid(), c32(32)); }
  /// The thread's warpgroup (tid / 128), broadcast from lane 0 of its warp
  /// (warpgroupOf takes the kernel's entry value where there is one):
  /// the same value, but one ptxas knows to be warp-uniform, so what is
  /// derived from it (the Q tile's wgmma descriptors) lives in uniform
  /// registers instead of being moved into them (R2UR) before every wgmma.
  Value warpgroup() {
    return NVVM::ShflOp::create(b, loc, b.getI32Type(), c32(-1),
                                udiv(tid(), c32(128)), c32(0), c32(0x1f),
                                NVVM::ShflKind::idx, UnitAttr());
  }
  /// Vector element access with constant positions.
  Value extract(Value vec, int64_t i) {
    return vector::ExtractOp::create(b, loc, vec, ArrayRef<int64_t>{i});
  }
  Value fromElements(Type vecTy, ArrayRef<Value> elems) {
    return vector::FromElementsOp::create(b, loc, cast<VectorType>(vecTy),
                                          elems);
  }
  /// Packs two 16-bit elements of `vec` (positions i, j) into one i32 (i in
  /// the low half), the register format of mma.sync operands.
  Value pack2(Value vec, int64_t i, int64_t j);
  /// Shared-memory base of the kernel plus `offset` bytes.
  Value smemAt(Operation *anchor, int64_t offset);
};

/// The thread's place in an #attn.mma layout of a tile with `rows` rows:
/// warp row base w·16·MT, g = lane / 4, q = lane % 4 (all i32).
struct MmaCoords {
  int64_t mTiles = 1;
  Value warpRow0, g, q;
  static MmaCoords get(Emitter &e, MmaLayoutAttr layout, int64_t rows);
  /// Row within the tile of element `i` of the thread's vector (constant
  /// part: 16·t + 8·(e/2); add warpRow0 + g), and its column (constant
  /// part 8·n + e % 2; add 2·q), for `nTiles` n-tiles.
  static int64_t rowOffset(int64_t i, int64_t nTiles) {
    int64_t e = i % 4, t = i / 4 / nTiles;
    return 16 * t + 8 * (e / 2);
  }
  static int64_t colOffset(int64_t i, int64_t nTiles) {
    int64_t e = i % 4, n = (i / 4) % nTiles;
    return 8 * n + e % 2;
  }
  /// The same for element `i` of a #attn.slice vector (2 per m-tile).
  static int64_t sliceRowOffset(int64_t i) {
    return 16 * (i / 2) + 8 * (i % 2);
  }
};

/// Addresses into a tile in shared memory (#attn.shared) for ldmatrix and
/// cp.async: byte offsets of 16-byte chunk `chunk` of row `row`.
struct SharedTile {
  SharedLayoutAttr layout;
  int64_t rows, cols, rowBytes;
  SharedTile(RankedTensorType t);
  /// Byte offset of chunk 8·`group` of row 0 (a 128-byte slab's start, or
  /// 128·group bytes into the row).
  int64_t chunkGroupBytes(int64_t group) const;
  /// Byte offset of slab `s`'s row 0 (a tile of slabs: 128 or 64 bytes).
  int64_t slabBytes(int64_t s) const { return s * rows * layout.getSlab(); }
  /// Byte offset of (row, chunk), both runtime i32 values.
  Value offset(Emitter &e, Value row, Value chunk) const;
  /// ldmatrix addressing: a lane reads row laneRow + R, chunk laneChunk + C
  /// with R a multiple of 8 and C even known at compile time. The swizzled
  /// chunk (C + laneChunk) ^ (laneRow % 8) = ((C & 7) ^ y) + (C & ~7) with
  /// y = laneChunk ^ (laneRow % 8): four lane bases (one per (C & 7) / 2)
  /// plus an immediate.
  struct LaneBase {
    SmallVector<Value, 4> ptr;
  };
  LaneBase laneBase(Emitter &e, Value tile, Value laneRow,
                    Value laneChunk) const;
  Value at(Emitter &e, const LaneBase &lb, int64_t row, int64_t chunk) const;
};

/// ldmatrix.x4 (optionally .trans) at a shared address: four i32 registers.
SmallVector<Value, 4> ldmatrix4(Emitter &e, Value ptr, bool trans);

/// The rows of a block gathered from a paged cache (`pages` of
/// attn.load_tile / attn.async_load_tile): row r of the block at [b, h, pos]
/// of a [num_pages, H, P, D] source is source[table[b, (pos + r) / P], h,
/// (pos + r) mod P].
struct PagedRows;

/// Emits cp.async copies of a [rows][cols] 16-bit tile from global memory
/// (the rows of `rows`, `valid` of them readable; rows past it are
/// zero-filled) into shared memory at `sTile`, spread over all threads of
/// the kernel. No commit. With `paged`, each row's address comes from it
/// instead (`rows` unused).
struct GlobalRows;
void emitTileCopy(Emitter &e, const KernelInfo &info, const SharedTile &st,
                  Type elemTy, const GlobalRows &rows, Value valid, Value sTile,
                  const PagedRows *paged = nullptr);

/// The global address of the tile row 0 of `source` at `indices` (the last
/// one the row) and the row stride, in elements, as i32. `source` is the
/// kernel's memref. The address is computed in 64 bits (a tensor may span
/// 2^31 elements or more); the offsets of a tile's rows and columns from it,
/// (row0 + r)·stride + c with row0 = 0, stay 32-bit: r is below the tile's
/// rows (at most 1024) and the runtime bounds the row stride (Validate.cpp).
///
/// With `group` (packed (position, head) rows, attn.load_tile's `group`:
/// indices [..., h, p], tile row r at [..., h + (p + r) mod G, (p + r) / G])
/// `base` is element [..., h, p / G, 0] and a row's offset from it is
/// ((p + r) / G − p / G)·stride + ((p + r) mod G)·headStride.
struct GlobalRows {
  Value base;   // !llvm.ptr<1> to element [indices..., 0]
  Value stride; // elements from one row to the next (i32)
  Value row0;   // 0 (i32): the row is in `base`
  // Grouped rows only (null otherwise), i32: G, the head stride, p, p / G.
  Value group, headStride, packed0, pos0;
  /// Elements from `base` to tile row r's first element (i32).
  Value rowOffset(Emitter &e, Value r) const;
};
GlobalRows globalRows(Emitter &e, Value source, ValueRange indices,
                      Value group = Value());

/// A memref in global memory as a kernel addresses it: its aligned pointer
/// (!llvm.ptr<1>) and its offset and strides (i64, in elements).
struct GlobalMemref {
  Value ptr, offset;
  SmallVector<Value, 4> sizes, strides;
};
GlobalMemref globalMemref(Emitter &e, Value source);

struct PagedRows {
  GlobalMemref source, table;
  Value b, h, pos; // i64: the block's batch, head and first position
  Type elemTy;
  PagedRows(Emitter &e, Value source, Value table, ValueRange indices);
  /// Row r's (i32, below the block's valid rows) first element.
  Value rowAddress(Emitter &e, Value r) const;
};

/// Whether a ring (attn.alloc_ring) is synchronised per slot: some op
/// waits for, releases or signs one of its slots (then it carries two
/// mbarriers per slot after its slots).
bool ringHasBarriers(AllocRingOp ring);

void populateMemoryOpPatterns(TileTypeConverter &tc, const KernelInfo &info,
                              RewritePatternSet &patterns);
void populateDotOpPatterns(TileTypeConverter &tc, const KernelInfo &info,
                           RewritePatternSet &patterns);
void populateWarpgroupDotPatterns(TileTypeConverter &tc, const KernelInfo &info,
                                  RewritePatternSet &patterns);
void populateRegisterOpPatterns(TileTypeConverter &tc, const KernelInfo &info,
                                RewritePatternSet &patterns);
/// exp2, exp, log and tanh on vectors of f32, element by element on the
/// special-function unit (VectorMath.cpp); run greedily after the
/// conversion.
void populateVectorMathPatterns(RewritePatternSet &patterns);

/// The thread's warpgroup: KernelInfo::warpgroupIndex where the kernel
/// computes it once and it is visible here, else Emitter::warpgroup() here.
inline Value warpgroupOf(Emitter &e, const KernelInfo &info) {
  Value wg = info.warpgroupIndex;
  if (wg &&
      wg.getParentRegion()->isAncestor(e.b.getInsertionBlock()->getParent()))
    return wg;
  return e.warpgroup();
}

} // namespace mlir::attn::gpu_lowering

#endif // ATTN_LIB_CONVERSION_ATTNGPUTONVVM_PATTERNSCOMMON_H
