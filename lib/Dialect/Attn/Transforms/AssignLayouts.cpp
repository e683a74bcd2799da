//===- AssignLayouts.cpp - GPU layouts for the tiles of a program -*- C++ -*-=//
//
// The first step of the GPU backend: every tile tensor of a tile-level grid
// gets a layout encoding in its type, which the per-op lowering
// (convert-attn-gpu-to-nvvm) reads:
//
//   2-d register tile           #attn.mma<warps = W>     (mma.sync fragments)
//   1-d register tile           #attn.slice<#attn.mma<...>> (one per row)
//   tile read by attn.dot from  #attn.shared<...>        (ldmatrix source)
//   shared memory (K, V, Q)
//
// Every register tile of a program shares one mma layout, so elementwise
// math, reductions and broadcasts never move data between threads except
// where a reduction shuffles within a quad. A tile loaded into shared memory
// that is also used in registers gets an explicit attn.convert_layout.
//
//===----------------------------------------------------------------------===//
#include "attn/Transforms/Passes.h"

#include "LoopUtils.h"
#include "WarpgroupTiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNASSIGNLAYOUTS
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

/// Whether `v` is used as an operand of attn.dot that may come from shared
/// memory: any rhs, or a lhs (the lowering reads either with ldmatrix).
bool isDotOperandUse(OpOperand &use) {
  auto dot = dyn_cast<DotOp>(use.getOwner());
  return dot && use.getOperandNumber() < 2;
}

struct WarpTiling {
  int64_t mTiles = 1;
  bool qInRegisters = true;
  int64_t warps = 4;
  /// Hopper warpgroup MMA (#attn.mma version 3, slab shared tiles).
  bool wgmma = false;
  /// chooseTiling's estimate of the registers per thread.
  int64_t registers = 0;
};

struct AssignLayoutsPass
    : public attn::impl::AttnAssignLayoutsBase<AssignLayoutsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    if (mTiles != 0 && mTiles != 1 && mTiles != 2)
      return emitError(UnknownLoc::get(ctx))
             << "pass option m-tiles must be 0 (heuristic), 1 or 2, got "
             << int64_t(mTiles);
    if (qInRegisters < -1 || qInRegisters > 1)
      return emitError(UnknownLoc::get(ctx))
             << "pass option q-in-registers must be -1 (heuristic), 0 or 1, "
                "got "
             << int64_t(qInRegisters);
    if (skipUnitFactors < -1 || skipUnitFactors > 1)
      return emitError(UnknownLoc::get(ctx))
             << "pass option skip-unit-factors must be -1 (heuristic), 0 or "
                "1, got "
             << int64_t(skipUnitFactors);
    if (tensorReduce < 0 || tensorReduce > 1)
      return emitError(UnknownLoc::get(ctx))
             << "pass option tensor-reduce must be 0 or 1, got "
             << int64_t(tensorReduce);
    if (polynomialExp2 < 0)
      return emitError(UnknownLoc::get(ctx))
             << "pass option polynomial-exp2 must be 0 (none) or K >= 1 (one "
                "element in K), got "
             << int64_t(polynomialExp2);
    if (wgmma < -1 || wgmma > 1)
      return emitError(UnknownLoc::get(ctx))
             << "pass option wgmma must be -1 (heuristic), 0 or 1, got "
             << int64_t(wgmma);
    return success();
  }

  /// Whether `load`, a column window that no product reads (a score bias's
  /// block), is read through shared memory (stage-windows): 16-bit or f32
  /// rows of whole 128-byte slabs, in a key/value loop of a wgmma program of
  /// two or more warpgroups, whose copies then go into rings on per-slot
  /// barriers that a producer fills with bulk tensor copies - the only copies
  /// that take a window - so every tile the products read must qualify for them
  /// too: no paged or packed rows, and rows that are whole blocks or reach
  /// their source's end (readsToEnd: not a KV cache's or a packed batch's
  /// sequence lengths).
  bool stagesWindow(scf::ForallOp grid, LoadTileOp load,
                    const WarpTiling &tiling) {
    auto t = cast<RankedTensorType>(load.getType());
    unsigned bits = t.getElementType().getIntOrFloatBitWidth();
    if (!stageWindows || !tiling.wgmma || tiling.warps < 8 || !load.getCols() ||
        t.getRank() != 2 || (bits != 16 && !t.getElementType().isF32()) ||
        (t.getDimSize(1) * bits / 8) % 128 || t.getDimSize(0) % 8 ||
        !load->getParentOfType<scf::ForOp>() ||
        llvm::any_of(load->getUses(), isDotOperandUse))
      return false;
    return !grid.getBody()
                ->walk([](LoadTileOp l) {
                  auto lt = cast<RankedTensorType>(l.getType());
                  auto mem = cast<MemRefType>(l.getSource().getType());
                  bool copied = !l.getCols() && lt.getRank() == 2 &&
                                mem.getRank() >= 2 &&
                                llvm::any_of(l->getUses(), isDotOperandUse);
                  if (l.getPages() || l.getGroup() ||
                      (copied &&
                       !readsToEnd(l.getSource(), l.getRows(),
                                   l.getIndices().back(), mem.getRank() - 2,
                                   lt.getDimSize(0))))
                    return WalkResult::interrupt();
                  return WalkResult::advance();
                })
                .wasInterrupted();
  }

  /// A staged window's rows and columns, bounded by its source's own dims:
  /// a bulk tensor copy reads zeros only past its tensor's end, and a
  /// window bounded by another tensor's length (a bias's rows by Q's Nq,
  /// its columns by K's Nk: equal, which the copy cannot know) would not
  /// take one. An extent `e` that is not the whole tile becomes
  ///   min(dim(source, axis) − index, tile extent)
  /// (clamped at 0 where `e` was: a block past the end reads nothing);
  /// elements past Nq or Nk are masked or never stored either way.
  static void boundByOwnDims(LoadTileOp load) {
    auto t = cast<RankedTensorType>(load.getType());
    auto mem = cast<MemRefType>(load.getSource().getType());
    ValueRange idx = load.getIndices();
    int64_t rank = mem.getRank();
    OpBuilder b(load);
    Location loc = load.getLoc();
    auto bound = [&](Value extent, Value index, int64_t axis,
                     int64_t tileExtent) -> Value {
      if (isConstantIntValue(extent, tileExtent))
        return extent;
      Value dim = memref::DimOp::create(b, loc, load.getSource(), axis);
      Value left = arith::SubIOp::create(b, loc, dim, index);
      Value whole = arith::ConstantIndexOp::create(b, loc, tileExtent);
      Value e = arith::MinSIOp::create(b, loc, left, whole);
      auto clamp = extent.getDefiningOp<arith::MaxSIOp>();
      if (clamp && isConstantIntValue(clamp.getRhs(), 0))
        e = arith::MaxSIOp::create(b, loc, e, clamp.getRhs());
      return e;
    };
    load.getRowsMutable().assign(
        bound(load.getRows(), idx[idx.size() - 2], rank - 2, t.getDimSize(0)));
    load.getColsMutable().assign(
        bound(load.getCols(), idx.back(), rank - 1, t.getDimSize(1)));
  }

  /// m-tiles per warp and where a shared-memory lhs lives: the options, else
  /// the first choice whose estimated registers per thread fit in 255. The
  /// estimate counts the f32 accumulators (S: Bc/2, O: D/2 per m-tile), Q's
  /// A fragments when they stay in registers (D/4 per m-tile) and 63 for
  /// addresses, softmax state and temporaries (calibrated on ptxas's counts
  /// for the mma.sync kernels: the tightest one admitted, two m-tiles at
  /// D = 128 with Bc = 64, takes 255 registers on sm_90a and spills 16
  /// bytes outside the key/value loop).
  FailureOr<WarpTiling> chooseTiling(Operation *grid, int64_t rows, int64_t d,
                                     int64_t bc, int64_t extraCols) {
    // extraCols: columns of the other 2-d tiles a loop iteration reads into
    // registers (a score bias, say): C/2 registers per m-tile each.
    auto regs = [&](int64_t mt, bool qr) {
      return mt * (d / 2 + bc / 2 + extraCols / 2 + (qr ? d / 4 : 0)) + 63;
    };
    // The backward's grids carry two f32 accumulators through their loops
    // and make two score-sized tiles an iteration (dQ, S, dP; or dK, dV,
    // Sᵀ, dPᵀ), which this estimate does not count: one m-tile a warp, the
    // left operands read from shared memory.
    const bool backward = isBackwardGrid(grid);
    // Packed query heads (Q loaded with `group`) keep a position per row for
    // the mask beside the estimate: one m-tile a warp (with two, ptxas
    // spilled the D = 128 paged causal programs 24-72 bytes on sm_80).
    const bool packed = grid->walk([](LoadTileOp load) {
                              return load.getGroup() ? WalkResult::interrupt()
                                                     : WalkResult::advance();
                            })
                            .wasInterrupted();
    for (int64_t mt : {2, 1}) {
      if (mTiles && mt != mTiles)
        continue;
      if ((backward || packed) && !mTiles && mt != 1)
        continue;
      if (rows % (16 * mt))
        continue;
      // Two m-tiles need every register: Q is re-read from shared memory
      // first. One m-tile has room to keep Q.
      for (bool qr : mt == 2 || backward ? std::array<bool, 2>{false, true}
                                         : std::array<bool, 2>{true, false}) {
        if (qInRegisters != -1 && qr != (qInRegisters == 1))
          continue;
        bool forced = mTiles && qInRegisters != -1;
        if (!forced && regs(mt, qr) > 255)
          continue;
        WarpTiling t;
        t.mTiles = mt;
        t.qInRegisters = qr;
        t.warps = rows / (16 * mt);
        t.registers = regs(mt, qr);
        if (t.warps < 1 || t.warps > 32)
          continue;
        return t;
      }
    }
    return grid->emitError()
           << "unsupported: no warp tiling of " << rows
           << "-row tiles at head dim " << d << " fits the register budget";
  }

  /// Sets `v`'s type to its tensor type with `enc`.
  static void setEncoding(Value v, Attribute enc) {
    auto t = cast<RankedTensorType>(v.getType());
    v.setType(RankedTensorType::get(t.getShape(), t.getElementType(), enc));
  }

  /// x / broadcast(r) -> x · broadcast(1 / r): one division per row instead
  /// of one per element (the deferred normalisation O = A / l divides Br·D
  /// elements by Br values; a correctly rounded f32 division is ~10x a
  /// multiply on the GPU). The result differs from the division by at most
  /// one rounding of the reciprocal (2^-24 relative), far below the 2^-8 of
  /// the bf16 output.
  static void divisionsToReciprocals(scf::ForallOp grid) {
    SmallVector<arith::DivFOp> divs;
    grid.getBody()->walk([&](arith::DivFOp d) {
      if (d.getRhs().getDefiningOp<BroadcastOp>() &&
          isa<RankedTensorType>(d.getType()))
        divs.push_back(d);
    });
    for (arith::DivFOp d : divs) {
      auto bc = d.getRhs().getDefiningOp<BroadcastOp>();
      OpBuilder b(d);
      Location loc = d.getLoc();
      Value row = bc.getInput();
      auto rowTy = cast<RankedTensorType>(row.getType());
      Value one = arith::ConstantOp::create(
          b, loc, rowTy,
          DenseElementsAttr::get(rowTy,
                                 b.getFloatAttr(rowTy.getElementType(), 1.0)));
      Value inv = arith::DivFOp::create(b, loc, one, row);
      Value invB = BroadcastOp::create(b, loc, bc.getType(), inv);
      Value prod = arith::MulFOp::create(b, loc, d.getLhs(), invB);
      d.replaceAllUsesWith(prod);
      d.erase();
      if (bc->use_empty())
        bc.erase();
    }
  }

  /// The 1-d tiles that hold one value per column: the inputs of
  /// attn.broadcast {per_column} and the 1-d values they are computed from
  /// (loads, elementwise math, constants). A constant, splat or iota that
  /// also feeds a per-row value is cloned for the per-column use.
  static llvm::DenseSet<Value> perColumnValues(scf::ForallOp grid) {
    llvm::DenseSet<Value> cols;
    SmallVector<Value> work;
    grid.getBody()->walk([&](BroadcastOp b) {
      if (b.getPerColumn())
        work.push_back(b.getInput());
    });
    auto is1d = [](Value v) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      return t && t.getRank() == 1;
    };
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!cols.insert(v).second)
        continue;
      Operation *def = v.getDefiningOp();
      if (!def || isa<LoadTileOp, arith::ConstantOp>(def))
        continue;
      for (OpOperand &operand : def->getOpOperands()) {
        Value x = operand.get();
        if (!is1d(x))
          continue;
        Operation *cst = x.getDefiningOp();
        if (cst && !isa<arith::ConstantOp, tensor::SplatOp, IotaOp>(cst))
          cst = nullptr;
        if (cst && !llvm::all_of(x.getUsers(), [&](Operation *u) {
              return llvm::all_of(u->getResults(), [&](Value r) {
                return !is1d(r) || cols.contains(r);
              });
            })) {
          OpBuilder b(cst);
          x = b.clone(*cst)->getResult(0);
          operand.set(x);
        }
        work.push_back(x);
      }
    }
    return cols;
  }

  /// (x − broadcast(m))·c with c a splat (a constant, or tensor.splat of a
  /// run-time scale) gets kFusedExponentAttr: the online softmax's exponent
  /// (S − m)·c, which the GPU lowering computes as fma(x, c, −m·c), one
  /// FFMA per score instead of FADD + FMUL (the product m·c once per row),
  /// in each thread whose rows all have |m·c| <= 2^12, so that the rounding
  /// of m·c moves an exponent by at most 2^-12 (FlashAttention's
  /// exp2(x·c − m·c)); other threads keep the exact form. A −inf score stays
  /// −inf either way.
  static void markFusedExponents(scf::ForallOp grid) {
    grid.getBody()->walk([&](arith::MulFOp mul) {
      auto ty = dyn_cast<RankedTensorType>(mul.getType());
      auto sub = mul.getLhs().getDefiningOp<arith::SubFOp>();
      Operation *c = mul.getRhs().getDefiningOp();
      auto cst = dyn_cast_or_null<arith::ConstantOp>(c);
      auto dense = cst ? dyn_cast<DenseElementsAttr>(cst.getValue())
                       : DenseElementsAttr();
      bool splat =
          (dense && dense.isSplat()) || isa_and_nonnull<tensor::SplatOp>(c);
      if (!ty || ty.getRank() != 2 || !sub || !sub->hasOneUse() || !splat ||
          !sub.getRhs().getDefiningOp<BroadcastOp>())
        return;
      mul->setAttr(kFusedExponentAttrName, UnitAttr::get(mul.getContext()));
    });
  }

  /// exp2 of a 2-d tile that is rounded to 16 or 8 bits (P before P·V)
  /// gets kPolynomialExp2Attr = k: one element in k is then computed on the
  /// FMA pipe. The special-function unit serves 16 lanes a clock an SM, so
  /// one ex2 a score takes as long as 256 FLOP of the tensor cores (4096 a
  /// clock): as long as both products at D = 64, half of them at D = 128.
  /// The polynomial's relative error (9e-5) is below the rounding of P to
  /// f16 (2.4e-4 to 4.9e-4), so only P tiles that are rounded qualify. On
  /// sm_90a it loses 2-15% (bf16 and fp8, in proportion to 1/k: issue and
  /// latency bound the softmax, not the unit), so nothing marks it by
  /// default.
  static void markPolynomialExp2(scf::ForallOp grid, int64_t k) {
    if (k <= 0)
      return;
    grid.getBody()->walk([&](math::Exp2Op exp) {
      auto ty = dyn_cast<RankedTensorType>(exp.getType());
      bool rounded = llvm::any_of(exp->getUsers(), [](Operation *u) {
        auto trunc = dyn_cast<arith::TruncFOp>(u);
        return trunc &&
               getElementTypeOrSelf(trunc.getType()).getIntOrFloatBitWidth() <=
                   16;
      });
      if (!ty || ty.getRank() != 2 || !ty.getElementType().isF32() || !rounded)
        return;
      exp->setAttr(kPolynomialExp2AttrName,
                   Builder(exp.getContext()).getI64IntegerAttr(k));
    });
  }

  /// A loop-carried accumulator rescaled by a row vector each iteration,
  /// A' = A·broadcast(α) (the online softmax), gets kSkipUnitFactorsAttr:
  /// the lowering then multiplies a thread's elements only when one of its
  /// rows' factors is not 1. That pays where the kernel is issue bound and
  /// O is large: two m-tiles per warp, D >= 128 and Bc >= 64 (measured on an
  /// H100: +3-6% at D = 128 with Bc = 64; −3..+2% with Bc = 32, and −4..−7%
  /// at D = 256 with one m-tile, where
  /// shared-memory bandwidth bounds the kernel and the branch only keeps
  /// ptxas from hoisting the V fragments' loads above the softmax). On
  /// wgmma (one m-tile per warp, O in D/2 registers a thread) it pays from
  /// D = 256, where the rescale is 128 multiplications a thread and key
  /// block against 32 scores: +7..13% (H200, bf16, N 2k-16k, causal and
  /// not); at D = 128 within ±2% (and the branch spills 24 bytes of the
  /// persistent program). At D = 64 it pays in the 192-row block of three
  /// consumer warpgroups, whose warps share the issue slots with the most
  /// exponentials a clock: +2..3% without a mask at N = 1k-16k, ±0.5%
  /// causal from 4k (H200, bf16, mirrored A/B); the 128-row causal program
  /// loses 4-6% with it, the 64-row one does not pay.
  static bool skipPays(const WarpTiling &t, int64_t d, int64_t bc) {
    if (t.wgmma)
      return d >= 256 || (d <= 64 && t.warps >= 12);
    return t.mTiles >= 2 && d >= 128 && bc >= 64;
  }
  static void markSkippableRescales(scf::ForallOp grid, const WarpTiling &t,
                                    int64_t d, int64_t bc, int64_t force) {
    if (force == 0 || (force == -1 && !skipPays(t, d, bc)))
      return;
    grid.getBody()->walk([&](arith::MulFOp mul) {
      auto loop = dyn_cast<scf::ForOp>(mul->getParentOp());
      auto ty = dyn_cast<RankedTensorType>(mul.getType());
      if (!loop || !ty || ty.getRank() != 2)
        return;
      // The accumulator of a product (O), not a small carried tile such as
      // attn-defer-row-sums' partial row sums.
      bool accumulates = llvm::any_of(mul->getUses(), [](OpOperand &use) {
        auto dot = dyn_cast<DotOp>(use.getOwner());
        return dot && use.get() == dot.getAcc();
      });
      if (!accumulates)
        return;
      for (auto [x, y] : {std::pair{mul.getLhs(), mul.getRhs()},
                          std::pair{mul.getRhs(), mul.getLhs()}}) {
        auto arg = dyn_cast<BlockArgument>(y);
        if (x.getDefiningOp<BroadcastOp>() && arg &&
            arg.getOwner() == loop.getBody() && arg.getArgNumber() > 0) {
          mul->setAttr(kSkipUnitFactorsAttrName,
                       UnitAttr::get(mul.getContext()));
          return;
        }
      }
    });
  }

  /// A loop body that stages dS (attn.store_slot S, read by products
  /// before A) and then dQᵀ (attn.accumulate_tile via A) needs one
  /// synchronisation of the tile's threads less per op: S's slot was last
  /// read by products waited for before A's trailing barrier of the
  /// previous step (or the previous loop), and A's slot was last read by
  /// bulk reductions whose issuers waited for them in A of the previous
  /// step, before S's barriers. Both skip their leading barrier.
  static void markReleasedSlots(scf::ForallOp grid) {
    grid.getBody()->walk([&](scf::ForOp loop) {
      SmallVector<StoreSlotOp> stores;
      SmallVector<AccumulateTileOp> accs;
      for (Operation &op : *loop.getBody()) {
        if (auto s = dyn_cast<StoreSlotOp>(op))
          stores.push_back(s);
        if (auto a = dyn_cast<AccumulateTileOp>(op); a && a.getStaging())
          accs.push_back(a);
      }
      if (stores.size() != 1 || accs.size() != 1 ||
          !stores[0]->isBeforeInBlock(accs[0]))
        return;
      StoreSlotOp s = stores[0];
      AccumulateTileOp a = accs[0];
      // Every read of S's slot sits between S and A in the body.
      bool readsBetween =
          llvm::all_of(s.getRing().getUsers(), [&](Operation *u) {
            if (u == s.getOperation() || isa<AllocRingOp>(u))
              return true;
            Operation *inBody = loop.getBody()->findAncestorOpInBlock(*u);
            if (!inBody || !s->isBeforeInBlock(inBody) ||
                !inBody->isBeforeInBlock(a))
              return false;
            if (!isa<RingSlotOp>(u))
              return false;
            return llvm::all_of(u->getUsers(), [&](Operation *r) {
              Operation *rb = loop.getBody()->findAncestorOpInBlock(*r);
              return rb && rb->isBeforeInBlock(a);
            });
          });
      if (!readsBetween)
        return;
      // A bulk tensor reduction's warpgroups may synchronise each on its
      // own (attn.accumulate_tile): then A's trailing barrier no longer
      // tells one warpgroup that the other's products read S's slot, and
      // S keeps its leading barrier. A's slot still is released by S's
      // barriers, which each issuer reaches after its wait.
      if (!cast<RingType>(a.getStaging().getType()).getLayout().getSlab())
        s.setSlotReleased(true);
      a.setSlotReleased(true);
    });
  }

  LogicalResult assign(scf::ForallOp grid) {
    MLIRContext *ctx = grid.getContext();
    divisionsToReciprocals(grid);
    markFusedExponents(grid);
    // The program's dots fix the row count of the register tiles: every
    // accumulator has the query block's rows.
    SmallVector<DotOp> dots;
    grid.getBody()->walk([&](DotOp d) { dots.push_back(d); });
    int64_t rows = 0, d = 0, bc = 0;
    FailureOr<WarpTiling> tiling;
    if (dots.empty()) {
      // A program of register tiles only (attn.merge_splits): its 2-d
      // tiles fix the rows, one 16-row fragment per warp in the mma.sync
      // layout (elementwise work needs no warpgroup layout on any chip).
      int64_t cols = 0;
      auto note = [&](Type type) {
        auto t = cast<RankedTensorType>(type);
        if (t.getRank() != 2)
          return;
        rows = std::max(rows, t.getDimSize(0));
        cols = std::max(cols, t.getDimSize(1));
      };
      grid.getBody()->walk([&](Operation *op) {
        if (auto load = dyn_cast<LoadTileOp>(op))
          note(load.getType());
        else if (auto store = dyn_cast<StoreTileOp>(op))
          note(store.getTile().getType());
      });
      if (!rows)
        return grid.emitError("unsupported: a GPU tile program without "
                              "attn.dot or a 2-d tile");
      if (rows % 16 || rows / 16 > 32)
        return grid.emitError()
               << "unsupported: " << rows
               << "-row tiles without attn.dot (16 per warp, 1-32 warps)";
      WarpTiling t;
      t.warps = rows / 16;
      // The accumulated tile and one loaded tile, C/2 registers each (16
      // rows of C columns over 32 lanes).
      t.registers = cols + 63;
      tiling = t;
    } else {
      auto accTy = cast<RankedTensorType>(dots.front().getType());
      rows = accTy.getDimSize(0);
      // Head dim and key block for the register estimate: the contraction of
      // the first Q·Kᵀ-like dot and the columns of its scores.
      d = cast<RankedTensorType>(dots.front().getLhs().getType()).getDimSize(1);
      bc = accTy.getDimSize(1);
      for (DotOp dot : dots) {
        auto t = cast<RankedTensorType>(dot.getType());
        if (t.getDimSize(0) != rows)
          return dot.emitError()
                 << "unsupported: dots with " << t.getDimSize(0) << " and "
                 << rows << " rows in one GPU program";
        // Q·Kᵀ: a loaded lhs against a transposed rhs (P·V reads P from
        // registers, also against a transposed V with fp8).
        if (dot.getRhsTransposed() &&
            dot.getLhs().getDefiningOp<LoadTileOp>()) {
          d = std::max(
              d, cast<RankedTensorType>(dot.getLhs().getType()).getDimSize(1));
          bc = t.getDimSize(1);
        } else {
          d = std::max(d, t.getDimSize(1));
        }
      }
      int64_t extraCols = 0;
      grid.getBody()->walk([&](LoadTileOp load) {
        auto t = cast<RankedTensorType>(load.getType());
        bool dotOperand = llvm::any_of(load->getUses(), isDotOperandUse);
        if (t.getRank() == 2 && !dotOperand &&
            load->getParentOfType<scf::ForOp>())
          extraCols += t.getDimSize(1);
      });
      if (wgmma == 1) {
        std::string obstacle =
            wgmmaObstacle(dots, rows, /*halfSlabs=*/!isBackwardGrid(grid));
        if (!obstacle.empty())
          return grid.emitError()
                 << "unsupported: wgmma layouts with " << obstacle;
      }
      if (takesWgmma(grid, wgmma)) {
        // One warpgroup per 64 query rows, one 16-row m-tile per warp: per
        // thread S (Bc/2 f32), O (D/2 f32) and the other register tiles'
        // columns, Q read from shared memory by wgmma.
        WarpTiling t;
        t.wgmma = true;
        t.mTiles = 1;
        t.qInRegisters = false;
        t.warps = rows / 16;
        t.registers = d / 2 + bc / 2 + extraCols / 2 + 63;
        tiling = t;
      } else {
        tiling = chooseTiling(grid, rows, d, bc, extraCols);
      }
    }
    if (failed(tiling))
      return failure();
    markSkippableRescales(grid, *tiling, d, bc, skipUnitFactors);
    markPolynomialExp2(grid, polynomialExp2);
    grid->setAttr(kRegisterEstimateAttrName,
                  Builder(ctx).getI64IntegerAttr(tiling->registers));
    // Tile constants hoisted out of the grid (canonicalisation does that)
    // come back in, one copy per grid, so that they can take its layouts.
    llvm::DenseMap<Value, Value> localCopy;
    WalkResult captured = grid.getBody()->walk([&](Operation *op) {
      for (OpOperand &operand : op->getOpOperands()) {
        Value v = operand.get();
        if (!isa<RankedTensorType>(v.getType()) ||
            grid->isProperAncestor(v.getParentRegion()->getParentOp()) ||
            v.getParentRegion()->getParentOp() == grid.getOperation())
          continue;
        auto cst = v.getDefiningOp<arith::ConstantOp>();
        if (!cst) {
          op->emitError("unsupported: a tile defined outside the GPU grid");
          return WalkResult::interrupt();
        }
        Value &copy = localCopy[v];
        if (!copy) {
          OpBuilder b = OpBuilder::atBlockBegin(grid.getBody());
          copy = b.clone(*cst)->getResult(0);
        }
        operand.set(copy);
      }
      return WalkResult::advance();
    });
    if (captured.wasInterrupted())
      return failure();

    auto mma = MmaLayoutAttr::get(ctx, tiling->warps, tiling->wgmma ? 3 : 2);
    auto slice = SliceLayoutAttr::get(ctx, mma);
    auto columnSlice = SliceLayoutAttr::get(ctx, mma, /*dim=*/1);
    llvm::DenseSet<Value> perColumn = perColumnValues(grid);
    auto registerLayout = [&](Value v) -> Attribute {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getRank() == 2)
        return mma;
      return perColumn.contains(v) ? Attribute(columnSlice) : Attribute(slice);
    };

    // Every tile in the grid: register layouts by rank, shared layouts for
    // what attn.dot reads from shared memory.
    SmallVector<std::pair<Value, OpOperand *>> toConvert;
    SmallVector<LoadTileOp> stagedWindows;
    LogicalResult result = success();
    auto visit = [&](Value v) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t || t.getEncoding())
        return;
      if (t.getRank() != 1 && t.getRank() != 2) {
        result = emitError(v.getLoc()) << "unsupported: a rank-" << t.getRank()
                                       << " tile in a GPU program";
        return;
      }
      auto load = v.getDefiningOp<LoadTileOp>();
      // (A column window that no product reads - a score bias - is read
      // straight into registers, or with stage-windows through shared
      // memory; fp8's transposed V block is a window that wgmma reads from
      // shared memory. 8-bit tiles exist only for wgmma.)
      unsigned bits = t.getElementType().getIntOrFloatBitWidth();
      bool staged = load && stagesWindow(grid, load, *tiling);
      bool fromShared =
          staged || (load && t.getRank() == 2 &&
                     (bits == 16 || (bits == 8 && tiling->wgmma)) &&
                     (!load.getCols() || tiling->wgmma) &&
                     llvm::any_of(v.getUses(), isDotOperandUse));
      if (staged)
        stagedWindows.push_back(load);
      if (!fromShared) {
        setEncoding(v, registerLayout(v));
        return;
      }
      // wgmma: slabs of 128 bytes where they divide the row, else of 64
      // (head dim 96); takesWgmma refused rows of neither.
      setEncoding(v, tiling->wgmma
                         ? SharedLayoutAttr::getSlabsFor(ctx, t.getDimSize(1) *
                                                                  bits / 8)
                         : SharedLayoutAttr::getFor(ctx, t.getDimSize(1)));
      // A lhs kept in registers, and every use outside attn.dot, reads the
      // tile through a conversion to the register layout.
      for (OpOperand &use : v.getUses()) {
        bool keepShared =
            isDotOperandUse(use) &&
            !(use.getOperandNumber() == 0 && tiling->qInRegisters);
        if (!keepShared)
          toConvert.push_back({v, &use});
      }
    };
    grid.getBody()->walk([&](Operation *op) {
      for (Region &r : op->getRegions())
        for (Block &b : r)
          for (BlockArgument a : b.getArguments())
            visit(a);
      for (Value res : op->getResults())
        visit(res);
    });
    if (failed(result))
      return failure();

    for (LoadTileOp load : stagedWindows)
      boundByOwnDims(load);

    // One conversion per converted value, right after its definition.
    llvm::DenseMap<Value, Value> converted;
    for (auto [v, use] : toConvert) {
      Value &c = converted[v];
      if (!c) {
        OpBuilder b(ctx);
        b.setInsertionPointAfterValue(v);
        auto t = cast<RankedTensorType>(v.getType());
        auto regTy = RankedTensorType::get(t.getShape(), t.getElementType(),
                                           registerLayout(v));
        c = ConvertLayoutOp::create(b, v.getLoc(), regTy, v);
      }
      use->set(c);
    }

    // A product's operand computed in registers (the backward's dS for
    // dQᵀ = Kᵀ·dS) is read by every warpgroup while each computed only its
    // own rows: staged through a one-slot ring in shared memory
    // (attn.store_slot synchronises the warpgroups around the writes).
    // One ring per slot type: the program's loops (a causal grid's masked
    // and unmasked ones) run one after the other and share it.
    llvm::DenseMap<Type, Value> stagingRings;
    auto stagingRing = [&](Location loc, RankedTensorType slotTy,
                           int64_t slots = 1) {
      auto ringTy = RingType::get(ctx, slots, slotTy);
      Value &ring = stagingRings[ringTy];
      if (!ring) {
        OpBuilder b = OpBuilder::atBlockBegin(grid.getBody());
        ring = AllocRingOp::create(b, loc, ringTy);
      }
      return ring;
    };
    SmallVector<DotOp> staged;
    for (DotOp dot : dots)
      if (isa<MmaLayoutAttr>(
              cast<RankedTensorType>(dot.getRhs().getType()).getEncoding()))
        staged.push_back(dot);
    for (DotOp dot : staged) {
      if (!tiling->wgmma)
        return dot.emitError("unsupported: a computed right operand of "
                             "attn.dot on mma.sync (only wgmma programs "
                             "stage one through shared memory)");
      auto t = cast<RankedTensorType>(dot.getRhs().getType());
      auto slabTy = RankedTensorType::get(
          t.getShape(), t.getElementType(),
          SharedLayoutAttr::get(ctx, /*swizzle=*/8, /*pad=*/0, /*slab=*/128));
      Value ring = stagingRing(dot.getLoc(), slabTy);
      OpBuilder b(dot);
      Value c0 = arith::ConstantIndexOp::create(b, dot.getLoc(), 0);
      StoreSlotOp::create(b, dot.getLoc(), dot.getRhs(), ring, c0);
      Value slot = RingSlotOp::create(b, dot.getLoc(), slabTy, ring, c0);
      dot.getRhsMutable().set(slot);
    }

    // A tile added into rows stored back to back (the backward's dQ
    // workspace) goes through shared memory as one bulk reduction a row
    // instead of an atomic add per element.
    if (tiling->wgmma) {
      SmallVector<AccumulateTileOp> accs;
      grid.getBody()->walk([&](AccumulateTileOp a) {
        auto t = cast<RankedTensorType>(a.getTile().getType());
        if (!a.getStaging() && t.getRank() == 2 &&
            AccumulateTileOp::bulkReduceRefusal(a.getDest().getType()).empty())
          accs.push_back(a);
      });
      for (AccumulateTileOp a : accs) {
        auto t = cast<RankedTensorType>(a.getTile().getType());
        int64_t r = t.getDimSize(a.getTransposed() ? 1 : 0);
        int64_t c = t.getDimSize(a.getTransposed() ? 0 : 1);
        // Rows padded by one 16-byte chunk: a transposed tile's warp
        // writes 8 consecutive words in 4 rows, which unpadded rows of 128
        // words put in the same banks (a 4-way conflict). With bulk tensor
        // reductions, slabs of 32 columns (their swizzle spreads the same
        // stores over the banks) through dest's tensor map.
        // (Slabs need a tensor map: dest an argument of the function, of
        // at most 5 dims.)
        auto destArg = dyn_cast<BlockArgument>(a.getDest());
        bool slabs = tensorReduce == 1 && c % 32 == 0 && destArg &&
                     isa<func::FuncOp>(destArg.getOwner()->getParentOp()) &&
                     cast<MemRefType>(destArg.getType()).getRank() <= 5;
        auto slotTy = RankedTensorType::get(
            {r, c}, t.getElementType(),
            slabs ? SharedLayoutAttr::get(ctx, /*swizzle=*/8, /*pad=*/0,
                                          /*slab=*/128)
                  : SharedLayoutAttr::get(ctx, /*swizzle=*/0, /*pad=*/16));
        // Two slots need exactly one such add a step of the loop, every
        // step (its issuer waits only for the add before).
        auto loop = dyn_cast<scf::ForOp>(a->getParentOp());
        if (loop && llvm::count_if(accs, [&](AccumulateTileOp o) {
                      return loop->isAncestor(o);
                    }) != 1)
          loop = nullptr;
        if (!slabs || !loop) {
          a.getStagingMutable().assign(stagingRing(a.getLoc(), slotTy));
          continue;
        }
        // Two slots, alternating with the loop's steps: a step's
        // reductions read one while the next step fills the other.
        // slot = ((iv − lb) / step) mod 2
        // One ring for every such loop (a causal grid's two): each drains
        // its reductions after its loop.
        OpBuilder b(a);
        Location loc = a.getLoc();
        Value ring = stagingRing(loc, slotTy, /*slots=*/2);
        Value fromLb = arith::SubIOp::create(b, loc, loop.getInductionVar(),
                                             loop.getLowerBound());
        Value steps = arith::DivUIOp::create(b, loc, fromLb, loop.getStep());
        Value two = arith::ConstantIndexOp::create(b, loc, 2);
        Value slot = arith::RemUIOp::create(b, loc, steps, two);
        a.getStagingMutable().assign(ring);
        a.getSlotMutable().assign(slot);
      }
    }

    markReleasedSlots(grid);

    // Constants carry their type in their value too.
    grid.getBody()->walk([&](arith::ConstantOp cst) {
      auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
      if (dense && dense.getType() != cst.getType())
        cst.setValueAttr(dense.reshape(cast<ShapedType>(cst.getType())));
    });

    // Every layout must hold its tile: report what cannot be lowered.
    WalkResult bad = grid.getBody()->walk([&](Operation *op) {
      for (Value res : op->getResults()) {
        auto t = dyn_cast<RankedTensorType>(res.getType());
        if (!t)
          continue;
        auto err = [&] {
          return op->emitError() << "unsupported: tile " << t << " ";
        };
        if (auto m = dyn_cast_or_null<MmaLayoutAttr>(t.getEncoding()))
          if (failed(m.verifyShape(err, t.getShape())))
            return WalkResult::interrupt();
        if (auto s = dyn_cast_or_null<SliceLayoutAttr>(t.getEncoding()))
          if (!s.isPerColumn() && t.getDimSize(0) != rows) {
            op->emitError()
                << "unsupported: a per-row tile of " << t.getDimSize(0)
                << " rows in a program of " << rows << "-row blocks";
            return WalkResult::interrupt();
          }
      }
      return WalkResult::advance();
    });
    return failure(bad.wasInterrupted());
  }

  void runOnOperation() override {
    SmallVector<scf::ForallOp> grids;
    getOperation()->walk([&](scf::ForallOp f) {
      bool hasTiles = false;
      f.getBody()->walk([&](LoadTileOp) { hasTiles = true; });
      if (hasTiles)
        grids.push_back(f);
    });
    for (scf::ForallOp g : grids)
      if (failed(assign(g)))
        return signalPassFailure();
  }
};
} // namespace
