//===- AttnToNVVM.cpp - tile level to an mma.sync GPU kernel ----*- C++ -*-===//
//
// Lowers the fused tile-level program of one attention (the scf.forall grid
// that attn-tile-attention + attn-fuse-online-softmax produce) to a GPU
// kernel for Ampere-class tensor cores (sm_80+, also runs on Hopper), in the
// FlashAttention-2 work partitioning:
//
//   * one thread block per (query block, query head, batch); W warps, each
//     owning 16·MT whole query rows (MT m-tiles), so row reductions stay
//     inside a warp;
//   * Q block -> shared memory (cp.async) -> registers (ldmatrix), either
//     once or at each k-step (q-in-registers);
//   * per key/value block: K and V tiles through cp.async into swizzled
//     shared memory (no ldmatrix bank conflicts): with one buffer each, V of
//     block j and K of block j+1 load while block j computes; with a
//     two-stage ring (kv-stages=2), all of block j+1 does;
//   * S = Q·Kᵀ and O += P·V with mma.sync m16n8k16 (f16/bf16 in, f32 acc);
//     P is re-packed from the S accumulators in registers (the C fragment of
//     two n8 tiles is the A fragment of one k16 step);
//   * the online softmax in registers with ex2.approx, the mask only in the
//     blocks the tiling marked (diagonal / end of keys).
//
// Tile op -> fragment mapping (per warp, g = lane/4, q = lane%4):
//   attn.load_tile Q    cp.async 16B chunks + ldmatrix.x4 (A fragments)
//   attn.load_tile K    cp.async + ldmatrix.x4 (B fragments of Kᵀ)
//   attn.load_tile V    cp.async + ldmatrix.x4.trans (B fragments of V)
//   attn.dot            mma.sync.m16n8k16.row.col.f32
//   attn.mask           selects on the accumulator's (row, col) positions
//   attn.reduce max/sum in-thread + shfl.bfly 1, 2 over the quad
//   attn.store_tile O   packed 2-element stores of rows g and g+8
//   attn.store_tile LSE lane q == 0 of each quad
//
//===----------------------------------------------------------------------===//
#include "attn/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include <cmath>

namespace mlir::attn {
#define GEN_PASS_DEF_CONVERTATTNTONVVM
#include "attn/Conversion/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

//===----------------------------------------------------------------------===//
// What the tile-level program asks for
//===----------------------------------------------------------------------===//

struct KernelConfig {
  bool bf16 = true;
  int64_t headDim = 128; // D = Dv
  int64_t blockM = 64;   // Br: query rows per block
  int64_t blockN = 0;    // Bc: key/value rows per block
  bool causal = false;
  float scale = 1.0f;
  /// 16-row m-tiles per warp: 2 lets one K/V fragment from shared memory
  /// feed twice the mma.sync work (shared-memory bandwidth, not the tensor
  /// cores, bounds MT = 1 on Hopper).
  int64_t mTiles = 1;
  /// Keep Q's A fragments in registers for the whole program, or re-read
  /// them from shared memory at each k-step (frees D/4 · MT registers).
  bool qInRegisters = true;
  int64_t warps() const { return blockM / (16 * mTiles); }
  int64_t threads() const { return 32 * warps(); }
  /// Q block, one K block, one V block (bf16/f16: 2 bytes an element).
  /// Shared-memory buffers for each of K and V: 1 (K of block j+1 loads
  /// during P·V_j, V_j during Q·K_jᵀ; two barriers per block) or 2 (a ring:
  /// block j+1 loads during all of block j; one barrier per block).
  int64_t stages = 1;
  /// Q block, then `stages` K blocks, then `stages` V blocks (2 bytes an
  /// element).
  int64_t smemBytes() const {
    return (blockM + 2 * stages * blockN) * rowBytes();
  }
  int64_t tileBytes() const { return blockN * rowBytes(); }
  /// Shared-memory tiles are XOR-swizzled when a row has a multiple of 8
  /// 16-byte chunks (D = 64, 128, 192, 256); other head dims pad each row by
  /// one chunk, which also spreads ldmatrix's 8 rows over distinct banks.
  bool swizzled() const { return (headDim / 8) % 8 == 0; }
  int64_t rowBytes() const { return headDim * 2 + (swizzled() ? 0 : 16); }
  std::string name() const {
    return (llvm::Twine("attn_fwd_") + (bf16 ? "bf16" : "f16") + "_d" +
            llvm::Twine(headDim) + "_m" + llvm::Twine(blockM) + "n" +
            llvm::Twine(blockN) + "w" + llvm::Twine(warps()) +
            (qInRegisters ? "" : "qs") + (stages == 2 ? "s2" : "") +
            (causal ? "_causal" : ""))
        .str();
  }
};

/// The pieces of one program of the fused tile-level form.
struct TiledProgram {
  mutable scf::ForallOp grid;
  mutable LoadTileOp qLoad;
  SmallVector<scf::ForOp> loops; // online-softmax loops, in order
  SmallVector<bool> masked;      // whether each loop masks its scores
  mutable LoadTileOp kLoad;      // the K load of the first loop
  StoreTileOp oStore, lseStore;
  Value q, k, v, o, lse; // the memrefs
};

/// The problem size a `memref.dim` reads, as an index into the kernel's
/// (B, Hq, Hkv, Nq, Nk) parameters, or -1.
int64_t problemSizeOf(memref::DimOp dim, const TiledProgram &p) {
  std::optional<int64_t> d = dim.getConstantIndex();
  if (!d)
    return -1;
  Value m = dim.getSource();
  bool isQ = m == p.q || m == p.o, isKV = m == p.k || m == p.v;
  if (*d == 0 && (isQ || isKV))
    return 0; // B
  if (*d == 1)
    return isQ ? 1 : isKV ? 2 : -1; // Hq, Hkv
  if (*d == 2)
    return isQ ? 3 : isKV ? 4 : -1; // Nq, Nk
  return -1;
}

/// Whether the kernel can evaluate `v`: built from the grid's indices,
/// problem sizes (memref.dim of Q, K, V, O) and side-effect-free scalar ops.
LogicalResult checkKernelComputable(Value v, const TiledProgram &p) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return success(arg.getOwner() == p.grid.getBody() &&
                   arg.getArgNumber() < 3);
  Operation *def = v.getDefiningOp();
  if (auto dim = dyn_cast<memref::DimOp>(def))
    return success(problemSizeOf(dim, p) >= 0);
  if (def->getNumRegions() || !isMemoryEffectFree(def) ||
      !llvm::all_of(def->getResultTypes(),
                    [](Type t) { return t.isIntOrIndex(); }))
    return failure();
  for (Value o : def->getOperands())
    if (failed(checkKernelComputable(o, p)))
      return failure();
  return success();
}

/// Recognises the fused tile-level program in `grid`, or says why not.
LogicalResult matchProgram(scf::ForallOp grid, TiledProgram &p,
                           KernelConfig &cfg) {
  p.grid = grid;
  if (grid.getRank() != 3 || !grid.getOutputs().empty())
    return grid.emitError(
        "unsupported: expected the (batch, head, query block) grid of "
        "attn-tile-attention");
  for (Operation &op : grid.getBody()->getOperations()) {
    if (auto load = dyn_cast<LoadTileOp>(op)) {
      if (p.qLoad)
        return load.emitError("unsupported: a second tile load outside the "
                              "key/value loop");
      p.qLoad = load;
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (loop->hasAttr(kSoftmaxPassAttrName))
        return loop.emitError("unsupported: the naive three-pass softmax; "
                              "run attn-fuse-online-softmax first");
      if (!loop->hasAttr(kOnlineSoftmaxAttrName))
        return loop.emitError("unsupported: a loop that is not an online "
                              "softmax loop");
      p.loops.push_back(loop);
    } else if (auto store = dyn_cast<StoreTileOp>(op)) {
      auto t = cast<RankedTensorType>(store.getTile().getType());
      StoreTileOp &slot = t.getRank() == 2 ? p.oStore : p.lseStore;
      if (slot)
        return store.emitError("unsupported: more than one output store");
      slot = store;
    }
  }
  if (!p.qLoad || p.loops.empty() || !p.oStore)
    return grid.emitError("unsupported: the grid body is not the fused "
                          "tile-level form (Q load, online loops, O store)");
  auto qTile = cast<RankedTensorType>(p.qLoad.getType());
  Type et = qTile.getElementType();
  if (!et.isBF16() && !et.isF16())
    return p.qLoad.emitError()
           << "unsupported: element type " << et
           << " on the mma.sync path (tensor cores take f16 or bf16)";
  cfg.bf16 = et.isBF16();
  cfg.blockM = qTile.getDimSize(0);
  cfg.headDim = qTile.getDimSize(1);
  p.q = p.qLoad.getSource();
  p.o = p.oStore.getDest();
  if (p.lseStore)
    p.lse = p.lseStore.getDest();

  // Each online loop: K load, S = dot(Q, K, 0) [, mask], V load, dot.
  cfg.causal = false;
  for (scf::ForOp loop : p.loops) {
    auto scale = loop->getAttrOfType<FloatAttr>(kSoftmaxScaleAttrName);
    if (!scale)
      return loop.emitError("unsupported: online loop without a scale");
    cfg.scale = static_cast<float>(scale.getValueAsDouble());
    SmallVector<LoadTileOp> loads;
    SmallVector<DotOp> dots;
    bool masked = false;
    loop.getBody()->walk([&](Operation *op) {
      if (auto l = dyn_cast<LoadTileOp>(op))
        loads.push_back(l);
      else if (auto d = dyn_cast<DotOp>(op))
        dots.push_back(d);
      else if (auto m = dyn_cast<MaskOp>(op)) {
        cfg.causal |= m.getCausal();
        masked = true;
      }
    });
    p.masked.push_back(masked);
    if (loads.size() != 2 || dots.size() != 2 || !dots[0].getRhsTransposed() ||
        dots[1].getRhsTransposed() || dots[0].getLhs() != p.qLoad.getResult() ||
        dots[0].getRhs() != loads[0].getResult() ||
        dots[1].getRhs() != loads[1].getResult())
      return loop.emitError("unsupported: online loop body is not "
                            "S = Q·Kᵀ ... O += P·V");
    auto kTile = cast<RankedTensorType>(loads[0].getType());
    auto vTile = cast<RankedTensorType>(loads[1].getType());
    if ((p.k && p.k != loads[0].getSource()) ||
        (p.v && p.v != loads[1].getSource()) ||
        (cfg.blockN && cfg.blockN != kTile.getDimSize(0)))
      return loop.emitError("unsupported: online loops disagree on K, V or "
                            "the key block");
    p.k = loads[0].getSource();
    p.v = loads[1].getSource();
    if (!p.kLoad)
      p.kLoad = loads[0];
    cfg.blockN = kTile.getDimSize(0);
    if (vTile.getDimSize(0) != cfg.blockN)
      return loads[1].emitError("unsupported: K and V blocks of different "
                                "row counts");
    if (vTile.getDimSize(1) != cfg.headDim)
      return loads[1].emitError(
          "unsupported: value head dim differs from query head dim on the "
          "mma.sync path");
  }

  if (cfg.headDim % 16 || cfg.headDim < 32 || cfg.headDim > 256)
    return p.qLoad.emitError()
           << "unsupported: head dim " << cfg.headDim
           << " on the mma.sync path (supported: multiples of 16 in [32, "
              "256])";
  if (cfg.blockM % 16 || cfg.blockM < 16 || cfg.blockM > 256)
    return p.qLoad.emitError()
           << "unsupported: query block of " << cfg.blockM
           << " rows (the mma.sync path needs a multiple of 16 in [16, 256]: "
              "16 rows per warp)";
  if (cfg.blockN % 16 || cfg.blockN < 16 || cfg.blockN > 128)
    return p.loops.front().emitError()
           << "unsupported: key/value block of " << cfg.blockN
           << " rows (the mma.sync path needs a multiple of 16 in [16, 128])";
  for (Value m : {p.q, p.k, p.v, p.o}) {
    auto t = cast<MemRefType>(m.getType());
    if (t.getRank() != 4)
      return grid.emitError("unsupported: Q, K, V and O must be rank 4");
    // The kernel reads rows as 16-byte chunks: the head dim is contiguous.
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(t.getStridesAndOffset(strides, offset)) || strides[3] != 1)
      return grid.emitError()
             << "unsupported: the GPU kernel needs the head dimension "
                "contiguous (innermost stride 1), got "
             << t;
  }
  // The kernel evaluates the program's grid-level index arithmetic itself
  // (segment bounds, query rows, the kv head): it must be computable from
  // the grid indices, the problem sizes and constants.
  for (scf::ForOp loop : p.loops)
    for (Value v : {loop.getLowerBound(), loop.getUpperBound()})
      if (failed(checkKernelComputable(v, p)))
        return loop.emitError("unsupported: a key/value loop bound the "
                              "kernel cannot compute from the grid indices "
                              "and problem sizes");
  for (Value v : {Value(p.qLoad.getIndices()[2]), Value(p.qLoad.getRows()),
                  Value(p.kLoad.getIndices()[1])})
    if (failed(checkKernelComputable(v, p)))
      return p.qLoad.emitError("unsupported: tile indices the kernel cannot "
                               "compute from the grid indices and problem "
                               "sizes");
  if (p.lse && !cast<MemRefType>(p.lse.getType()).getLayout().isIdentity())
    return grid.emitError("unsupported: the GPU kernel writes a contiguous "
                          "[B, Hq, Nq] LSE; give the lse operand the identity "
                          "layout");
  return success();
}

//===----------------------------------------------------------------------===//
// Kernel builder
//===----------------------------------------------------------------------===//

/// Emits the kernel body. Index math is 32-bit: the runtime guarantees every
/// element offset fits in int32.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc, const KernelConfig &cfg)
      : b(b), loc(loc), cfg(cfg), ctx(b.getContext()) {
    i32 = b.getI32Type();
    f32 = b.getF32Type();
    gptr = LLVM::LLVMPointerType::get(ctx, 1);
    sptr = LLVM::LLVMPointerType::get(ctx, 3);
    elemTy = cfg.bf16 ? Type(b.getBF16Type()) : Type(b.getF16Type());
  }

  /// Kernel parameters, in the runtime's ABI order.
  SmallVector<Type> paramTypes() {
    SmallVector<Type> t = {gptr, gptr, gptr, gptr, gptr};
    t.append(5 + 12, i32); // B Hq Hkv Nq Nk, 4 x (sb, sh, sn)
    t.push_back(f32);      // scale
    return t;
  }

  void build(gpu::GPUFuncOp fn, LLVM::GlobalOp smemGlobal,
             const TiledProgram &prog);

private:
  OpBuilder &b;
  Location loc;
  const KernelConfig &cfg;
  MLIRContext *ctx;
  Type i32, f32, gptr, sptr, elemTy;

  // Per-thread values set up in build().
  Value lane, warp, tid, smemBase, sQ, sK, sV;

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
  Value xori(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value smin(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value smax(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value fsub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  // max as an LLVM intrinsic (max.f32): arith.maxnumf would become a
  // libdevice call, and the kernel must not depend on finding libdevice at
  // compile time.
  Value fmax(Value x, Value y) { return LLVM::MaxNumOp::create(b, loc, x, y); }

  Value fcmpEq(Value x, Value y) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y);
  }
  Value gep(Type ptrTy, Type elem, Value base, Value idx) {
    return LLVM::GEPOp::create(b, loc, ptrTy, elem, base, ValueRange{idx});
  }
  Value intrinsic(StringRef name, Value x) {
    return LLVM::CallIntrinsicOp::create(b, loc, f32, b.getStringAttr(name),
                                         ValueRange{x})
        .getResult(0);
  }
  /// 2^x with the SFU instruction (ex2.approx.ftz.f32).
  Value exp2(Value x) { return intrinsic("llvm.nvvm.ex2.approx.ftz.f32", x); }
  /// log2(x) with the SFU instruction (lg2.approx.ftz.f32).
  Value log2(Value x) { return intrinsic("llvm.nvvm.lg2.approx.ftz.f", x); }
  Value negInf() { return cf(-std::numeric_limits<float>::infinity()); }

  /// Butterfly shuffle within a quad (offsets 1, 2: the 4 lanes of a row).
  Value shflXor(Value v, int64_t offset) {
    return NVVM::ShflOp::create(b, loc, f32, c32(-1), v, c32(offset), c32(0x1f),
                                NVVM::ShflKind::bfly, UnitAttr());
  }
  Value quadReduce(Value v, bool isMax) {
    for (int64_t off : {1, 2}) {
      Value o = shflXor(v, off);
      v = isMax ? fmax(v, o) : fadd(v, o);
    }
    return v;
  }

  /// Byte offset of 16-byte chunk `chunk` of row `row` in a [rows][D] tile:
  /// chunks XOR-swizzled by row % 8 (or rows padded), so that ldmatrix's
  /// eight row addresses fall in eight different bank groups.
  Value swizzledOffset(Value row, Value chunk) {
    Value rowOff = mul(row, c32(cfg.rowBytes()));
    if (!cfg.swizzled())
      return add(rowOff, mul(chunk, c32(16)));
    Value sw = xori(chunk, urem(row, c32(8)));
    return add(rowOff, mul(sw, c32(16)));
  }

  /// The lane-dependent part of ldmatrix addresses into a swizzled tile,
  /// for a lane that reads row `laneRow` + R and chunk `laneHalf` + C, with
  /// R a multiple of 8 and C even known at compile time. Then the swizzled
  /// chunk is (C + laneHalf) ^ (laneRow % 8) = C ^ y, y = laneHalf ^
  /// (laneRow % 8) < 8, = ((C & 7) ^ y) + (C & ~7): four lane values (one per
  /// C & 7) and a constant, which the backend folds into the instruction's
  /// immediate offset.
  struct SwizzleBase {
    SmallVector<Value, 4> ptr; // tile + laneRow·rowBytes + ((2k) ^ y)·16
  };
  SwizzleBase swizzleBase(Value tile, Value laneRow, Value laneHalf) {
    Value rowBytes = mul(laneRow, c32(cfg.rowBytes()));
    SwizzleBase sb;
    if (!cfg.swizzled()) {
      // Padded rows: one lane base, everything else is an immediate.
      sb.ptr.push_back(gep(sptr, b.getI8Type(), tile,
                           add(rowBytes, mul(laneHalf, c32(16)))));
      return sb;
    }
    Value y = xori(laneHalf, urem(laneRow, c32(8)));
    for (int64_t k = 0; k < 4; ++k) {
      Value off = add(rowBytes, mul(xori(y, c32(2 * k)), c32(16)));
      sb.ptr.push_back(gep(sptr, b.getI8Type(), tile, off));
    }
    return sb;
  }
  Value swizzledAt(const SwizzleBase &sb, int64_t row, int64_t chunk) {
    assert(row % 8 == 0 && chunk % 2 == 0 && "constant part misaligned");
    if (!cfg.swizzled())
      return gep(sptr, b.getI8Type(), sb.ptr[0],
                 c32(row * cfg.rowBytes() + chunk * 16));
    int64_t imm = row * cfg.rowBytes() + (chunk & ~int64_t(7)) * 16;
    return gep(sptr, b.getI8Type(), sb.ptr[(chunk & 7) / 2], c32(imm));
  }

  /// cp.async of `rows` rows of a [rows][D] tile from global memory (row
  /// stride `stride` elements, first row `row0`, `valid` rows readable) to
  /// swizzled shared memory; rows past `valid` are zero-filled.
  void loadTile(Value gBase, Value stride, Value row0, Value valid, Value sTile,
                int64_t rows) {
    int64_t chunksPerRow = cfg.headDim / 8;
    if (cfg.threads() % chunksPerRow) {
      loadTileGeneral(gBase, stride, row0, valid, sTile, rows);
      return;
    }
    int64_t rowsPerPass = cfg.threads() / chunksPerRow;
    Value r0 = udiv(tid, c32(chunksPerRow));
    Value chunk = urem(tid, c32(chunksPerRow));
    // Pass p handles row r0 + p·rowsPerPass: the global offset grows by
    // rowsPerPass·stride, and, when rowsPerPass is a multiple of 8 (the
    // swizzle period), the shared offset by a constant.
    Value gOff = add(mul(add(row0, r0), stride), mul(chunk, c32(8)));
    Value gStep = mul(stride, c32(rowsPerPass));
    bool linear = !cfg.swizzled() || rowsPerPass % 8 == 0;
    Value dst0 = gep(sptr, b.getI8Type(), sTile, swizzledOffset(r0, chunk));
    int64_t passes = llvm::divideCeil(rows, rowsPerPass);
    for (int64_t pass = 0; pass < passes; ++pass) {
      if (pass > 0)
        gOff = add(gOff, gStep);
      Value r = add(r0, c32(pass * rowsPerPass));
      // More threads than chunks (small tiles): the extra threads idle.
      OpBuilder::InsertionGuard guard(b);
      if (rows % rowsPerPass) {
        auto inTile = scf::IfOp::create(
            b, loc, cmp(arith::CmpIPredicate::slt, r, c32(rows)), false);
        b.setInsertionPointToStart(inTile.thenBlock());
      }
      Value inRange = cmp(arith::CmpIPredicate::slt, r, valid);
      // Out-of-range rows read 0 bytes (zero-fill) from the base address.
      Value src = gep(gptr, elemTy, gBase, select(inRange, gOff, c32(0)));
      Value dst =
          linear ? gep(sptr, b.getI8Type(), dst0,
                       c32(pass * rowsPerPass * cfg.rowBytes()))
                 : gep(sptr, b.getI8Type(), sTile, swizzledOffset(r, chunk));
      Value bytes = select(inRange, c32(16), c32(0));
      NVVM::CpAsyncOp::create(b, loc, dst, src, 16,
                              NVVM::LoadCacheModifierKind::CG, bytes);
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }

  /// loadTile when a row's chunks do not divide the threads (D = 96, ...):
  /// pass p copies chunk i = tid + p·threads, at row i / (D/8).
  void loadTileGeneral(Value gBase, Value stride, Value row0, Value valid,
                       Value sTile, int64_t rows) {
    int64_t chunksPerRow = cfg.headDim / 8;
    int64_t total = rows * chunksPerRow;
    int64_t passes = llvm::divideCeil(total, cfg.threads());
    for (int64_t pass = 0; pass < passes; ++pass) {
      Value i = add(tid, c32(pass * cfg.threads()));
      OpBuilder::InsertionGuard guard(b);
      if ((pass + 1) * cfg.threads() > total) {
        auto inTile = scf::IfOp::create(
            b, loc, cmp(arith::CmpIPredicate::slt, i, c32(total)), false);
        b.setInsertionPointToStart(inTile.thenBlock());
      }
      Value r = udiv(i, c32(chunksPerRow));
      Value chunk = urem(i, c32(chunksPerRow));
      Value inRange = cmp(arith::CmpIPredicate::slt, r, valid);
      Value gOff = add(mul(add(row0, r), stride), mul(chunk, c32(8)));
      Value src = gep(gptr, elemTy, gBase, select(inRange, gOff, c32(0)));
      Value dst = gep(sptr, b.getI8Type(), sTile, swizzledOffset(r, chunk));
      NVVM::CpAsyncOp::create(b, loc, dst, src, 16,
                              NVVM::LoadCacheModifierKind::CG,
                              select(inRange, c32(16), c32(0)));
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }

  void waitAllAndSync() {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
    NVVM::Barrier0Op::create(b, loc);
  }

  /// ldmatrix.x4 (optionally .trans) at byte offset `off` of `tile`.
  SmallVector<Value> ldmatrix4(Value tile, Value off, bool trans) {
    return ldmatrix4(gep(sptr, b.getI8Type(), tile, off), trans);
  }
  /// ldmatrix.x4 (optionally .trans) at shared address `ptr`.
  SmallVector<Value> ldmatrix4(Value ptr, bool trans) {
    auto st = LLVM::LLVMStructType::getLiteral(ctx, {i32, i32, i32, i32});
    Value r = NVVM::LdMatrixOp::create(
        b, loc, st, ptr, 4, trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
        NVVM::LdStMatrixEltType::B16);
    SmallVector<Value> regs;
    for (int64_t i = 0; i < 4; ++i)
      regs.push_back(LLVM::ExtractValueOp::create(b, loc, r, i));
    return regs;
  }

  /// One mma.sync.m16n8k16.row.col.f32: acc += A(16x16) · B(16x8).
  SmallVector<Value> mma(ArrayRef<Value> a, ArrayRef<Value> bv,
                         ArrayRef<Value> acc) {
    auto resTy = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
    SmallVector<Value> av(a), bvv(bv);
    if (!cfg.bf16) {
      // f16 operands are typed f16x2; bf16 ones are plain b32.
      auto h2 = VectorType::get({2}, b.getF16Type());
      for (Value &x : av)
        x = LLVM::BitcastOp::create(b, loc, h2, x);
      for (Value &x : bvv)
        x = LLVM::BitcastOp::create(b, loc, h2, x);
    }
    auto ptx = cfg.bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    Value r = NVVM::MmaOp::create(
        b, loc, resTy, av, bvv, acc, ArrayRef<int64_t>{16, 8, 16}, std::nullopt,
        std::nullopt, std::array<NVVM::MMATypes, 2>{ptx, ptx},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> out;
    for (int64_t i = 0; i < 4; ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, r, i));
    return out;
  }

  /// Packs two f32 into one register of two f16/bf16 (x in the low half).
  Value pack2(Value x, Value y) {
    auto v2f = VectorType::get({2}, f32);
    auto v2e = VectorType::get({2}, elemTy);
    Value v = LLVM::PoisonOp::create(b, loc, v2f);
    v = LLVM::InsertElementOp::create(b, loc, v, x, c32(0));
    v = LLVM::InsertElementOp::create(b, loc, v, y, c32(1));
    Value t = arith::TruncFOp::create(b, loc, v2e, v);
    return LLVM::BitcastOp::create(b, loc, i32, t);
  }
};

void KernelBuilder::build(gpu::GPUFuncOp fn, LLVM::GlobalOp smemGlobal,
                          const TiledProgram &prog) {
  Block &entry = fn.getBody().front();
  b.setInsertionPointToStart(&entry);
  auto args = entry.getArguments();
  Value qPtr = args[0], kPtr = args[1], vPtr = args[2], oPtr = args[3],
        lsePtr = args[4];
  Value hq = args[6], hkv = args[7], nq = args[8], nk = args[9];
  Value qSb = args[10], qSh = args[11], qSn = args[12];
  Value kSb = args[13], kSh = args[14], kSn = args[15];
  Value vSb = args[16], vSh = args[17], vSn = args[18];
  Value oSb = args[19], oSh = args[20], oSn = args[21];
  Value scale = args[22];
  const int64_t D = cfg.headDim, Br = cfg.blockM, Bc = cfg.blockN;
  const int64_t MT = cfg.mTiles; // 16-row m-tiles per warp
  const int64_t nTilesS = Bc / 8, kStepsQ = D / 16, nTilesO = D / 8,
                kStepsP = Bc / 16;

  auto idx32 = [&](Value v) {
    return arith::IndexCastUIOp::create(b, loc, i32, v).getResult();
  };
  tid = idx32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  lane = urem(tid, c32(32));
  warp = udiv(tid, c32(32));
  Value g = udiv(lane, c32(4)), qd = urem(lane, c32(4));
  Value bx = idx32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value h = idx32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  Value bIdx = idx32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
  Value qBlock = bx;
  if (cfg.causal) {
    // Longest (bottom) query blocks first: they see the most keys.
    Value nb = idx32(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
    qBlock = sub(sub(nb, c32(1)), bx);
  }
  // The tile level's grid arithmetic, evaluated here: the forall's indices
  // are this block's (batch, head, query block), its problem sizes the
  // kernel's parameters (matchProgram checked that nothing else is read).
  IRMapping hostMap;
  auto toIndex = [&](Value v32) -> Value {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v32);
  };
  hostMap.map(prog.grid.getInductionVar(0), toIndex(bIdx));
  hostMap.map(prog.grid.getInductionVar(1), toIndex(h));
  hostMap.map(prog.grid.getInductionVar(2), toIndex(qBlock));
  Value sizes[5] = {args[5], hq, hkv, nq, nk};
  std::function<Value(Value)> evaluate = [&](Value v) -> Value {
    if (Value m = hostMap.lookupOrNull(v))
      return m;
    Operation *def = v.getDefiningOp();
    if (auto dim = dyn_cast<memref::DimOp>(def)) {
      Value m = toIndex(sizes[problemSizeOf(dim, prog)]);
      hostMap.map(v, m);
      return m;
    }
    for (Value o : def->getOperands())
      evaluate(o);
    b.clone(*def, hostMap);
    return hostMap.lookup(v);
  };
  auto evaluate32 = [&](Value v) {
    return arith::IndexCastOp::create(b, loc, i32, evaluate(v)).getResult();
  };
  // GQA: the kv head the program's K loads read (h / (Hq / Hkv)).
  Value kvh = evaluate32(prog.kLoad.getIndices()[1]);

  smemBase = LLVM::AddressOfOp::create(b, loc, smemGlobal);
  sQ = smemBase;
  sK = gep(sptr, b.getI8Type(), smemBase, c32(Br * cfg.rowBytes()));
  sV = gep(sptr, b.getI8Type(), smemBase,
           c32(Br * cfg.rowBytes() + cfg.stages * cfg.tileBytes()));

  Value qBase = gep(gptr, elemTy, qPtr, add(mul(bIdx, qSb), mul(h, qSh)));
  Value kBase = gep(gptr, elemTy, kPtr, add(mul(bIdx, kSb), mul(kvh, kSh)));
  Value vBase = gep(gptr, elemTy, vPtr, add(mul(bIdx, vSb), mul(kvh, vSh)));
  Value oBase = gep(gptr, elemTy, oPtr, add(mul(bIdx, oSb), mul(h, oSh)));

  // The query block's first row and valid rows, as the program's Q load
  // reads them.
  Value qStart = evaluate32(prog.qLoad.getIndices()[2]);
  Value qRows = evaluate32(prog.qLoad.getRows());

  // The key/value segments of the tiling (e.g. [0, nFull) whole for every
  // row, [nFull, nEnd) masked; blocks past the causal diagonal are in none).
  SmallVector<std::pair<Value, Value>> segments;
  for (scf::ForOp loop : prog.loops)
    segments.push_back(
        {evaluate32(loop.getLowerBound()), evaluate32(loop.getUpperBound())});
  Value firstBlock = segments.front().first;
  Value nEnd = segments.back().second;
  Value bcV = c32(Bc);

  // Q -> shared; the first K block (and V, for the ring) -> shared.
  loadTile(qBase, qSn, qStart, qRows, sQ, Br);
  Value haveKeys = cmp(arith::CmpIPredicate::slt, firstBlock, nEnd);
  auto ifKeys = scf::IfOp::create(b, loc, haveKeys, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifKeys.thenBlock());
    Value start = mul(firstBlock, bcV);
    Value rows = smin(sub(nk, start), bcV);
    // The ring buffer of the first block: its stage is block mod 2.
    Value off = cfg.stages == 2
                    ? mul(urem(firstBlock, c32(2)), c32(cfg.tileBytes()))
                    : c32(0);
    loadTile(kBase, kSn, start, rows, gep(sptr, b.getI8Type(), sK, off), Bc);
    if (cfg.stages == 2)
      loadTile(vBase, vSn, start, rows, gep(sptr, b.getI8Type(), sV, off), Bc);
  }
  waitAllAndSync();

  // This warp's rows: [wRow0, wRow0 + 16·MT); m-tile i covers 16 of them.
  Value wRow0 = mul(warp, c32(16 * MT));
  // A fragments of Q for m-tile i, k-step ks (ldmatrix.x4: lanes 0-15 give
  // rows 0-15 at column 16ks, lanes 16-31 the same rows at 16ks + 8).
  SwizzleBase qSwz =
      swizzleBase(sQ, add(wRow0, urem(lane, c32(16))), udiv(lane, c32(16)));
  auto loadQFrag = [&](int64_t i, int64_t ks) {
    return ldmatrix4(swizzledAt(qSwz, 16 * i, 2 * ks), /*trans=*/false);
  };
  // Q stays in registers when they allow; else it is re-read from shared
  // memory (which holds it for the whole program) at each k-step.
  SmallVector<SmallVector<SmallVector<Value>>> qFrag(MT);
  if (cfg.qInRegisters)
    for (int64_t i = 0; i < MT; ++i)
      for (int64_t ks = 0; ks < kStepsQ; ++ks)
        qFrag[i].push_back(loadQFrag(i, ks));

  // c = scale · log2(e): exp(scale·x) = exp2(c·x).
  Value c = fmul(scale, cf(static_cast<float>(M_LOG2E)));
  Value ninf = negInf();
  Value zero = cf(0.0f);

  // Loop-carried state, per m-tile i and row half r (rows g, g+8):
  //   m[i][r], l[i][r] (this thread's partial row sum), O[i][t][4].
  // Flattened: [m(2·MT) | l(2·MT) | O(MT·nTilesO·4)].
  auto mIdx = [&](int64_t i, int64_t r) { return 2 * i + r; };
  auto lIdx = [&](int64_t i, int64_t r) { return 2 * MT + 2 * i + r; };
  auto oIdx = [&](int64_t i, int64_t t, int64_t e) {
    return 4 * MT + (i * nTilesO + t) * 4 + e;
  };
  SmallVector<Value> init;
  for (int64_t i = 0; i < 2 * MT; ++i)
    init.push_back(ninf);
  for (int64_t i = 0; i < 2 * MT + MT * nTilesO * 4; ++i)
    init.push_back(zero);

  // Positions for the mask: this thread's first row and column.
  Value myRow0 = add(add(qStart, wRow0), g); // + 16i + 8r
  Value myCol0 = mul(qd, c32(2));
  Value diagOff = sub(nk, nq);

  // ldmatrix lanes for K (B of S = Q·Kᵀ; matrices (n0,k0) (n0,k8) (n8,k0)
  // (n8,k8)) and V (B of O = P·V, transposed; (k0,n0) (k8,n0) (k0,n8)
  // (k8,n8)).
  SwizzleBase kSwz =
      swizzleBase(sK, add(urem(lane, c32(8)), mul(udiv(lane, c32(16)), c32(8))),
                  urem(udiv(lane, c32(8)), c32(2)));
  SwizzleBase vSwz = swizzleBase(
      sV,
      add(urem(lane, c32(8)), mul(urem(udiv(lane, c32(8)), c32(2)), c32(8))),
      udiv(lane, c32(16)));

  auto body = [&](Value j, ValueRange state, bool masked) {
    SmallVector<Value> st(state.begin(), state.end());
    Value kvStart = mul(j, bcV);
    Value kvRows = smin(sub(nk, kvStart), bcV);
    // The ring buffer of block j (stage j mod 2), and the K/V fragment
    // addresses in it.
    SwizzleBase kSwzJ = kSwz, vSwzJ = vSwz;
    if (cfg.stages == 2) {
      Value off = mul(urem(j, c32(2)), c32(cfg.tileBytes()));
      for (size_t k = 0; k < kSwz.ptr.size(); ++k) {
        kSwzJ.ptr[k] = gep(sptr, b.getI8Type(), kSwz.ptr[k], off);
        vSwzJ.ptr[k] = gep(sptr, b.getI8Type(), vSwz.ptr[k], off);
      }
    }

    if (cfg.stages == 2) {
      // K_j and V_j have landed, and every warp is done with block j-1, so
      // its stage can take block j+1, which loads during all of block j.
      waitAllAndSync();
      Value jn = add(j, c32(1));
      auto ifNext = scf::IfOp::create(
          b, loc, cmp(arith::CmpIPredicate::slt, jn, nEnd), false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifNext.thenBlock());
      Value nextStart = mul(jn, bcV);
      Value nextRows = smin(sub(nk, nextStart), bcV);
      Value off = mul(urem(jn, c32(2)), c32(cfg.tileBytes()));
      loadTile(kBase, kSn, nextStart, nextRows,
               gep(sptr, b.getI8Type(), sK, off), Bc);
      loadTile(vBase, vSn, nextStart, nextRows,
               gep(sptr, b.getI8Type(), sV, off), Bc);
    } else {
      // K_j has landed (and every warp is done with V_{j-1}).
      waitAllAndSync();
      loadTile(vBase, vSn, kvStart, kvRows, sV, Bc);
    }

    // S = Q·K_jᵀ: MT × nTilesS accumulators of 16x8. Each K fragment
    // (ldmatrix.x4: two n8 tiles of one k16 step) serves all m-tiles.
    SmallVector<SmallVector<SmallVector<Value>>> s(
        MT,
        SmallVector<SmallVector<Value>>(nTilesS, SmallVector<Value>(4, zero)));
    for (int64_t ks = 0; ks < kStepsQ; ++ks) {
      SmallVector<SmallVector<Value>> qa(MT);
      for (int64_t i = 0; i < MT; ++i)
        qa[i] = cfg.qInRegisters ? qFrag[i][ks] : loadQFrag(i, ks);
      for (int64_t p = 0; p < nTilesS / 2; ++p) {
        SmallVector<Value> kb =
            ldmatrix4(swizzledAt(kSwzJ, 16 * p, 2 * ks), /*trans=*/false);
        for (int64_t i = 0; i < MT; ++i) {
          s[i][2 * p] = mma(qa[i], {kb[0], kb[1]}, s[i][2 * p]);
          s[i][2 * p + 1] = mma(qa[i], {kb[2], kb[3]}, s[i][2 * p + 1]);
        }
      }
    }

    // Mask: key kj hidden if kj >= Nk, or (causal) kj > qi + (Nk - Nq).
    if (masked) {
      for (int64_t i = 0; i < MT; ++i)
        for (int64_t r = 0; r < 2; ++r) {
          Value qi = add(myRow0, c32(16 * i + 8 * r));
          Value lastVisible = add(qi, diagOff);
          for (int64_t t = 0; t < nTilesS; ++t)
            for (int64_t e = 0; e < 2; ++e) {
              Value kj = add(add(kvStart, c32(8 * t + e)), myCol0);
              Value hidden = cmp(arith::CmpIPredicate::sge, kj, nk);
              if (cfg.causal)
                hidden = arith::OrIOp::create(
                    b, loc, hidden,
                    cmp(arith::CmpIPredicate::sgt, kj, lastVisible));
              s[i][t][2 * r + e] = select(hidden, ninf, s[i][t][2 * r + e]);
            }
        }
    }

    // Online softmax, per row (m-tile i, half r):
    //   m' = max(m, rowmax(S));  ms = (m' == -inf ? 0 : m')
    //   P = exp2((S − ms)·c);    α = exp2((m − ms)·c)   (0 while m = -inf)
    //   l' = α·l + rowsum(P);    O = α·O
    for (int64_t i = 0; i < MT; ++i) {
      SmallVector<Value> alpha(2);
      for (int64_t r = 0; r < 2; ++r) {
        Value mOld = st[mIdx(i, r)];
        Value mx = mOld;
        for (int64_t t = 0; t < nTilesS; ++t)
          mx = fmax(mx, fmax(s[i][t][2 * r], s[i][t][2 * r + 1]));
        // Quad max: the 4 lanes sharing the row (scores are finite or -inf,
        // never NaN).
        Value mNew = quadReduce(mx, /*isMax=*/true);
        Value mSafe = select(fcmpEq(mNew, ninf), zero, mNew);
        // Subtract, then scale. The one-fma form exp2(S·c − fl(ms·c)) is
        // ~3% faster (results/PERF-NOTES.md) but off by the rounding error of
        // ms·c, ~|ms·c|·2^-24, in every exponent of the row: harmless at
        // usual scales, a misweighting of earlier against later key blocks
        // once |ms·c| passes ~2^12, and inf/NaN for huge scales. (S − ms)
        // is exact or nearly so, and (S − ms)·c <= 0 cannot overflow.
        Value rowSum;
        for (int64_t t = 0; t < nTilesS; ++t)
          for (int64_t e = 0; e < 2; ++e) {
            Value p = exp2(fmul(fsub(s[i][t][2 * r + e], mSafe), c));
            s[i][t][2 * r + e] = p;
            rowSum = rowSum ? fadd(rowSum, p) : p;
          }
        alpha[r] = exp2(fmul(fsub(mOld, mSafe), c));
        st[lIdx(i, r)] = fadd(fmul(alpha[r], st[lIdx(i, r)]), rowSum);
        st[mIdx(i, r)] = mNew;
      }
      for (int64_t t = 0; t < nTilesO; ++t)
        for (int64_t e = 0; e < 4; ++e)
          st[oIdx(i, t, e)] = fmul(st[oIdx(i, t, e)], alpha[e / 2]);
    }

    if (cfg.stages == 1) {
      // V_j has landed; every warp is done with K_j: prefetch K_{j+1}.
      waitAllAndSync();
      Value jn = add(j, c32(1));
      auto ifNext = scf::IfOp::create(
          b, loc, cmp(arith::CmpIPredicate::slt, jn, nEnd), false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifNext.thenBlock());
      Value nextStart = mul(jn, bcV);
      loadTile(kBase, kSn, nextStart, smin(sub(nk, nextStart), bcV), sK, Bc);
    }

    // O += P·V_j: P's A fragments are S's accumulators, packed to 16 bits
    // (the C fragment of n8 tiles 2ks, 2ks+1 is the A fragment of k-step
    // ks). Each V fragment (ldmatrix.x4.trans) serves all m-tiles.
    for (int64_t ks = 0; ks < kStepsP; ++ks) {
      SmallVector<SmallVector<Value>> pa(MT);
      for (int64_t i = 0; i < MT; ++i)
        pa[i] = {pack2(s[i][2 * ks][0], s[i][2 * ks][1]),
                 pack2(s[i][2 * ks][2], s[i][2 * ks][3]),
                 pack2(s[i][2 * ks + 1][0], s[i][2 * ks + 1][1]),
                 pack2(s[i][2 * ks + 1][2], s[i][2 * ks + 1][3])};
      for (int64_t p = 0; p < nTilesO / 2; ++p) {
        SmallVector<Value> vb =
            ldmatrix4(swizzledAt(vSwzJ, 16 * ks, 2 * p), /*trans=*/true);
        for (int64_t i = 0; i < MT; ++i)
          for (int64_t half = 0; half < 2; ++half) {
            int64_t t = 2 * p + half;
            SmallVector<Value> acc;
            for (int64_t e = 0; e < 4; ++e)
              acc.push_back(st[oIdx(i, t, e)]);
            acc = mma(pa[i], {vb[2 * half], vb[2 * half + 1]}, acc);
            for (int64_t e = 0; e < 4; ++e)
              st[oIdx(i, t, e)] = acc[e];
          }
      }
    }
    return st;
  };

  auto emitLoop = [&](Value lo, Value hi, ValueRange in, bool masked) {
    auto idx = [&](Value v) {
      return arith::IndexCastOp::create(b, loc, b.getIndexType(), v)
          .getResult();
    };
    auto loop = scf::ForOp::create(
        b, loc, idx(lo), idx(hi), arith::ConstantIndexOp::create(b, loc, 1), in,
        [&](OpBuilder &, Location, Value iv, ValueRange st) {
          // The kernel builder's `b` emits the body into the new block.
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(iv.getParentBlock());
          SmallVector<Value> nxt = body(idx32(iv), st, masked);
          scf::YieldOp::create(b, loc, nxt);
        });
    return SmallVector<Value>(loop.getResults());
  };
  SmallVector<Value> st = init;
  for (auto [seg, masked] : llvm::zip(segments, prog.masked))
    st = emitLoop(seg.first, seg.second, st, masked);

  // Epilogue: l = Σ over the quad; O = O / l; LSE = m·scale + ln(l).
  Value nullLse = LLVM::ZeroOp::create(b, loc, gptr);
  Value lseWanted = arith::AndIOp::create(
      b, loc,
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, lsePtr, nullLse),
      cmp(arith::CmpIPredicate::eq, qd, c32(0)));
  for (int64_t i = 0; i < MT; ++i)
    for (int64_t r = 0; r < 2; ++r) {
      Value lTot = quadReduce(st[lIdx(i, r)], /*isMax=*/false);
      Value noKey = fcmpEq(lTot, zero);
      Value inv = arith::DivFOp::create(b, loc, cf(1.0f),
                                        select(noKey, cf(1.0f), lTot));
      Value qi = add(myRow0, c32(16 * i + 8 * r));
      Value rowOk = cmp(arith::CmpIPredicate::slt, qi, nq);
      auto ifRow = scf::IfOp::create(b, loc, rowOk, false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifRow.thenBlock());
      Value rowBase = gep(gptr, elemTy, oBase, mul(qi, oSn));
      for (int64_t t = 0; t < nTilesO; ++t) {
        Value v = pack2(fmul(st[oIdx(i, t, 2 * r)], inv),
                        fmul(st[oIdx(i, t, 2 * r + 1)], inv));
        Value ptr = gep(gptr, elemTy, rowBase, add(c32(8 * t), myCol0));
        LLVM::StoreOp::create(b, loc, v, ptr, /*alignment=*/4);
      }
      // LSE (natural log), once per row: lane q == 0 of the quad.
      auto ifLse = scf::IfOp::create(b, loc, lseWanted, false);
      b.setInsertionPointToStart(ifLse.thenBlock());
      Value m = st[mIdx(i, r)];
      Value mSafe = select(fcmpEq(m, ninf), zero, m);
      Value lse =
          fadd(fmul(mSafe, scale), fmul(log2(select(noKey, cf(1.0f), lTot)),
                                        cf(static_cast<float>(M_LN2))));
      lse = select(noKey, ninf, lse);
      Value lseIdx = add(mul(add(mul(bIdx, hq), h), nq), qi);
      LLVM::StoreOp::create(b, loc, lse, gep(gptr, f32, lsePtr, lseIdx), 4);
    }
  gpu::ReturnOp::create(b, loc);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertAttnToNVVMPass
    : public attn::impl::ConvertAttnToNVVMBase<ConvertAttnToNVVMPass> {
  using Base::Base;

  /// m-tiles per warp and where Q lives: the options, else the first
  /// choice whose estimated registers per thread fit.
  LogicalResult chooseWarpTiling(KernelConfig &cfg, Operation *at) {
    if (mTiles != 0 && mTiles != 1 && mTiles != 2)
      return at->emitError()
             << "unsupported: m-tiles=" << int64_t(mTiles) << " (1 or 2)";
    if (kvStages < 0 || kvStages > 2)
      return at->emitError()
             << "unsupported: kv-stages=" << int64_t(kvStages) << " (1 or 2)";
    // A two-stage K/V ring by default: one barrier per key block and the
    // next block's loads overlapping all of this one (measured +3-5% over
    // one buffer each; results/PERF-NOTES.md). Shared memory: (Br + 4·Bc)·D·2.
    cfg.stages = kvStages ? int64_t(kvStages) : 2;
    if (qInRegisters < -1 || qInRegisters > 1)
      return at->emitError() << "q-in-registers must be -1, 0 or 1, got "
                             << int64_t(qInRegisters);
    auto regs = [&](int64_t mt, bool qr) {
      return mt * (cfg.headDim / 2 + cfg.blockN / 2 +
                   (qr ? cfg.headDim / 4 : 0)) +
             95;
    };
    for (int64_t mt : {2, 1}) {
      if (mTiles && mt != mTiles)
        continue;
      if (cfg.blockM % (16 * mt))
        continue;
      // Two m-tiles need every register: re-read Q first. One m-tile has
      // room to keep Q.
      for (bool qr : mt == 2 ? std::array<bool, 2>{false, true}
                             : std::array<bool, 2>{true, false}) {
        if (qInRegisters != -1 && qr != (qInRegisters == 1))
          continue;
        bool forced = mTiles && qInRegisters != -1;
        if (!forced && regs(mt, qr) > 255)
          continue;
        cfg.mTiles = mt;
        cfg.qInRegisters = qr;
        return success();
      }
    }
    return at->emitError() << "unsupported: no warp tiling of a " << cfg.blockM
                           << "x" << cfg.blockN << " block at head dim "
                           << cfg.headDim << " fits the register budget";
  }

  /// Creates (once) the gpu.module holding the kernels.
  gpu::GPUModuleOp kernelModule(ModuleOp top) {
    if (auto m = top.lookupSymbol<gpu::GPUModuleOp>("attn_kernels"))
      return m;
    OpBuilder b = OpBuilder::atBlockEnd(top.getBody());
    top->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                 b.getUnitAttr());
    return gpu::GPUModuleOp::create(b, top.getLoc(), "attn_kernels");
  }

  LogicalResult convert(scf::ForallOp grid, ModuleOp top) {
    TiledProgram prog;
    KernelConfig cfg;
    if (failed(matchProgram(grid, prog, cfg)))
      return failure();
    if (failed(chooseWarpTiling(cfg, grid)))
      return failure();
    // The kernel's shared memory must fit the target the tiling sized the
    // blocks for (the tiling counted one K and one V block; a two-stage ring
    // needs twice that).
    if (auto t = grid->getAttrOfType<TargetAttr>(kTargetAttrName)) {
      if (t.isGPU() && cfg.smemBytes() > t.getSmemPerBlock())
        return grid.emitError()
               << "unsupported: the kernel needs " << cfg.smemBytes()
               << " bytes of shared memory (Q block, " << cfg.stages
               << "-stage K and V rings), target " << t.getArch() << " offers "
               << t.getSmemPerBlock() << "; use kv-stages=1 or smaller blocks";
    }
    Location loc = grid.getLoc();
    MLIRContext *ctx = grid.getContext();

    // Kernel: one per configuration, shared by identical programs.
    gpu::GPUModuleOp gm = kernelModule(top);
    std::string name = cfg.name();
    auto fn = gm.lookupSymbol<gpu::GPUFuncOp>(name);
    if (!fn) {
      OpBuilder mb = OpBuilder::atBlockEnd(gm.getBody());
      // Dynamic shared memory: an external, zero-sized addrspace(3) array.
      auto smem = gm.lookupSymbol<LLVM::GlobalOp>("attn_smem");
      if (!smem) {
        smem = LLVM::GlobalOp::create(
            mb, loc, LLVM::LLVMArrayType::get(mb.getI8Type(), 0),
            /*isConstant=*/false, LLVM::Linkage::External, "attn_smem",
            Attribute(), /*alignment=*/16, /*addrSpace=*/3);
      }
      KernelBuilder kb(mb, loc, cfg);
      fn = gpu::GPUFuncOp::create(mb, loc, name,
                                  mb.getFunctionType(kb.paramTypes(), {}));
      fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), mb.getUnitAttr());
      fn.setKnownBlockSizeAttr(
          mb.getDenseI32ArrayAttr({static_cast<int32_t>(cfg.threads()), 1, 1}));
      // What a launcher needs, for bundles and tools.
      fn->setAttr(
          kKernelInfoAttrName,
          mb.getDictionaryAttr({
              mb.getNamedAttr("block_m", mb.getI64IntegerAttr(cfg.blockM)),
              mb.getNamedAttr("block_n", mb.getI64IntegerAttr(cfg.blockN)),
              mb.getNamedAttr("threads", mb.getI64IntegerAttr(cfg.threads())),
              mb.getNamedAttr("smem_bytes",
                              mb.getI64IntegerAttr(cfg.smemBytes())),
              mb.getNamedAttr("head_dim", mb.getI64IntegerAttr(cfg.headDim)),
              mb.getNamedAttr("dtype",
                              mb.getStringAttr(cfg.bf16 ? "bf16" : "f16")),
              mb.getNamedAttr("causal", mb.getBoolAttr(cfg.causal)),
          }));
      OpBuilder fb(ctx);
      KernelBuilder body(fb, loc, cfg);
      body.build(fn, smem, prog);
    }

    // Host side: the grid becomes a launch of the kernel.
    OpBuilder b(grid);
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    auto gptr = LLVM::LLVMPointerType::get(ctx, 1);
    llvm::DenseMap<Value, memref::ExtractStridedMetadataOp> metas;
    auto metaOf = [&](Value memref) {
      auto &m = metas[memref];
      if (!m)
        m = memref::ExtractStridedMetadataOp::create(b, loc, memref);
      return m;
    };
    auto ptrOf = [&](Value memref) -> Value {
      Value base =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
      auto meta = metaOf(memref);
      Value off = meta.getOffset();
      // Element offset -> bytes, added to the aligned base.
      int64_t eb = cast<MemRefType>(memref.getType())
                       .getElementType()
                       .getIntOrFloatBitWidth() /
                   8;
      Value bytes = arith::MulIOp::create(
          b, loc, off, arith::ConstantIndexOp::create(b, loc, eb));
      Value addr = arith::AddIOp::create(b, loc, base, bytes);
      Value a64 = arith::IndexCastUIOp::create(b, loc, i64, addr);
      return LLVM::IntToPtrOp::create(b, loc, gptr, a64);
    };
    auto i32Of = [&](Value index) -> Value {
      return arith::IndexCastOp::create(b, loc, i32, index);
    };
    auto dimOf = [&](Value memref, int64_t d) {
      return i32Of(memref::DimOp::create(b, loc, memref, d));
    };
    SmallVector<Value> operands = {ptrOf(prog.q), ptrOf(prog.k), ptrOf(prog.v),
                                   ptrOf(prog.o)};
    operands.push_back(prog.lse ? ptrOf(prog.lse)
                                : Value(LLVM::ZeroOp::create(b, loc, gptr)));
    operands.push_back(dimOf(prog.q, 0));
    operands.push_back(dimOf(prog.q, 1));
    operands.push_back(dimOf(prog.k, 1));
    operands.push_back(dimOf(prog.q, 2));
    operands.push_back(dimOf(prog.k, 2));
    for (Value m : {prog.q, prog.k, prog.v, prog.o}) {
      auto meta = metaOf(m);
      for (int64_t d = 0; d < 3; ++d)
        operands.push_back(i32Of(meta.getStrides()[d]));
    }
    operands.push_back(
        arith::ConstantOp::create(b, loc, b.getF32FloatAttr(cfg.scale)));

    auto cI = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v).getResult();
    };
    Value nqIdx = memref::DimOp::create(b, loc, prog.q, 2);
    Value gx = arith::CeilDivUIOp::create(b, loc, nqIdx, cI(cfg.blockM));
    Value gy = memref::DimOp::create(b, loc, prog.q, 1);
    Value gz = memref::DimOp::create(b, loc, prog.q, 0);
    Value smemSize =
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(cfg.smemBytes()));
    gpu::LaunchFuncOp::create(b, loc, fn, gpu::KernelDim3{gx, gy, gz},
                              gpu::KernelDim3{cI(cfg.threads()), cI(1), cI(1)},
                              smemSize, operands);
    // The grid's index arithmetic outside the forall is now dead.
    Block *hostBlock = grid->getBlock();
    grid.erase();
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*hostBlock)))
      if (isOpTriviallyDead(&op))
        op.erase();
    return success();
  }

  void runOnOperation() override {
    auto top = dyn_cast<ModuleOp>(getOperation());
    if (!top) {
      getOperation()->emitError("convert-attn-to-nvvm runs on a module");
      return signalPassFailure();
    }
    SmallVector<scf::ForallOp> grids;
    top.walk([&](scf::ForallOp f) {
      bool hasTiles = false;
      f.getBody()->walk([&](LoadTileOp) { hasTiles = true; });
      if (hasTiles)
        grids.push_back(f);
    });
    WalkResult untiled = top.walk([](AttentionOp op) {
      op.emitError("attn.attention must be tiled and fused before "
                   "convert-attn-to-nvvm (run attn-tile-attention and "
                   "attn-fuse-online-softmax)");
      return WalkResult::interrupt();
    });
    if (untiled.wasInterrupted())
      return signalPassFailure();
    for (scf::ForallOp g : grids)
      if (failed(convert(g, top)))
        return signalPassFailure();
  }
};

} // namespace
