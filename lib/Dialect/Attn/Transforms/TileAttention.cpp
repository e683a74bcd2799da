//===- TileAttention.cpp - IO-aware tiling of attn.attention ----*- C++ -*-===//
//
// attn.attention  ==>  scf.forall over (batch, query head, query block) and,
// inside each program, the naive three-pass tiled softmax over key/value
// blocks (row max, row sum, P·V), each pass split into an unmasked segment
// (blocks every row of the query block sees whole) and a masked segment
// (blocks crossing the causal diagonal or the end of the keys). Blocks wholly
// above the causal diagonal are never visited. A constant scale is an
// arith.constant tile, and each loop is tagged attn.softmax_scale; a run-time
// scale (scale(%s)) is a tensor.splat of %s, and the loops have no tag.
//
//===----------------------------------------------------------------------===//
#include "TileUtils.h"
#include "attn/Transforms/Passes.h"
#include "attn/runtime/Chips.h"
#include "attn/runtime/KernelABI.h"
#include "attn/runtime/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <numeric>
#include <optional>

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNTILEATTENTION
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::tiling;

static constexpr int64_t kMinDerivedBlock = 16;
static constexpr int64_t kMaxDerivedBlock = 128;
static constexpr int64_t kMaxBlock = 1024;

/// x·y and x + y for non-negative x, y, saturating at INT64_MAX: a size that
/// does not fit int64 compares as larger than any memory, never wraps to a
/// small one.
static int64_t satMul(int64_t x, int64_t y) {
  int64_t r;
  return llvm::MulOverflow(x, y, r) ? std::numeric_limits<int64_t>::max() : r;
}
static int64_t satAdd(int64_t x, int64_t y) {
  int64_t r;
  return llvm::AddOverflow(x, y, r) ? std::numeric_limits<int64_t>::max() : r;
}

int64_t mlir::attn::tileFootprintBytes(BlockSizes b, int64_t d, int64_t dv,
                                       int64_t elemBytes) {
  // (Br·d + Bc·d + Bc·dv) · bytes, saturating: the verifier caps head dims,
  // but this must not wrap for callers that bypass it.
  int64_t elems = satAdd(satAdd(satMul(b.blockQ, d), satMul(b.blockKV, d)),
                         satMul(b.blockKV, dv));
  return satMul(elems, elemBytes);
}

BlockSizes mlir::attn::deriveBlockSizes(TargetAttr target, int64_t d,
                                        int64_t dv, int64_t elemBytes) {
  // FlashAttention (Dao et al. 2022, Algorithm 1): with M elements of on-chip
  // memory, Bc = ceil(M / 4d) and Br = min(Bc, d), so that the Q, K, V and O
  // blocks together fit in M.
  int64_t m = target.getSmemPerBlock() / elemBytes;
  int64_t hd = std::max<int64_t>({d, dv, 1});
  // 4·hd saturates: for an absurd head dim Bc = ceil(M / INT64_MAX) = 1
  // (then clamped) instead of a division by a wrapped 0.
  int64_t bc = llvm::divideCeil(m, satMul(4, hd));
  int64_t br = std::min(bc, hd);
  // Tensor-core tiles want powers of two, at least one 16-row MMA tile and
  // no more rows than a block's registers can hold accumulators for.
  auto clampPow2 = [](int64_t x) {
    x = std::clamp<int64_t>(x, kMinDerivedBlock, kMaxDerivedBlock);
    return static_cast<int64_t>(llvm::bit_floor(static_cast<uint64_t>(x)));
  };
  BlockSizes b{clampPow2(br), clampPow2(bc)};
  // Shrink the larger block until one Q, K and V block fit the memory.
  while (tileFootprintBytes(b, d, dv, elemBytes) > target.getSmemPerBlock() &&
         (b.blockQ > kMinDerivedBlock || b.blockKV > kMinDerivedBlock)) {
    if (b.blockKV >= b.blockQ && b.blockKV > kMinDerivedBlock)
      b.blockKV /= 2;
    else
      b.blockQ /= 2;
  }
  return b;
}

namespace {

/// Everything one program (one query block of one head) needs to emit its
/// key/value loops.
struct ProgramContext {
  mutable AttentionOp op;
  BlockSizes blocks;
  Value b, h, kvHead;         // batch, query head, key/value head
  Value memB;                 // the tensors' batch index (0 when packed)
  Value qBase, kvBase;        // a packed sequence's first row (varlen)
  Value qStart, qRows;        // first query row of the block, valid rows
  Value group;                // packed query heads: G (rows i·G + g), or null
  Value nq, nk;               // sequence lengths
  Value qTile;                // tensor<Br x D x T>
  RankedTensorType scoreType; // tensor<Br x Bc x f32>
  RankedTensorType rowType;   // tensor<Br x f32>
  /// With a score_mod: the op's scale, applied to S before the modifier
  /// (the softmax then runs at scale 1).
  std::optional<Scale> modScale;
  /// With a score_mod: its body (the op's, or unscaledAdditiveScoreMod's
  /// clone for unscaled scores) and its per-program scalars
  /// (emitScoreModScalars).
  Block *modBody = nullptr;
  IRMapping modScalars;
  /// A score_mod that adds a bias affine in the positions: its columns' part
  /// is added to each score tile, its rows' part to the LSE (PositionBias).
  std::optional<PositionBias> positionBias;
  /// With a mask_mod: its per-program scalars.
  IRMapping maskScalars;
  /// With a bias: its batch and head indices (0 where it broadcasts).
  Value biasB, biasH;
  /// Block sparsity: this program's row of the block lists (indices
  /// [maskB, maskH, maskRow, t]) and the key blocks of the tiling in one of
  /// the mask's (R = BK / Bc).
  Value maskB, maskH, maskRow;
  int64_t subBlocks = 1;
  /// Dropout: the program's Philox stream b·Hq + h (i32), the keep
  /// threshold T (i32, compared unsigned) and the kept scores' factor
  /// 1/(1 − p) (f32).
  Value dropStream, dropThreshold, dropScale;
  /// A paged cache whose static pages are shorter than the key block: each
  /// block gathers its rows from Bc / P pages (the loads' `pages`).
  bool gatherPages = false;

  /// The block table the K/V loads gather their rows through, or null.
  Value kvPages() const { return gatherPages ? op.getPageTable() : Value(); }

  /// The key block of step t of a listed segment whose steps start at
  /// `first`, u = t − first:
  ///   kb = indices[maskB, maskH, maskRow, u / R]·R + u mod R
  /// (R is a power of two: a shift and a mask).
  Value listedBlock(OpBuilder &builder, Location loc, Value indices,
                    Value first, Value t) const {
    IndexMath im{builder, loc};
    if (!isConstantIntValue(first, 0))
      t = im.sub(t, first);
    auto listed = [&](Value entryIdx) -> Value {
      Value entry = memref::LoadOp::create(
          builder, loc, indices, ValueRange{maskB, maskH, maskRow, entryIdx});
      return arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                        entry);
    };
    if (subBlocks == 1)
      return listed(t);
    Value r = im.cst(subBlocks);
    // Each op is created in its own statement: the order of evaluation of a
    // call's arguments is unspecified, and the IR must not depend on the
    // host compiler.
    Value kb = listed(arith::DivUIOp::create(builder, loc, t, r));
    Value sub = arith::RemUIOp::create(builder, loc, t, r);
    Value base = im.mul(kb, r);
    return im.add(base, sub);
  }

  /// The K/V indices of the key block starting at key `kvStart`:
  /// [b, kvHead, kvStart] (a gathered paged block too: kvPages), or for a
  /// paged cache [page, kvHead, kvStart mod P] with page = table[b,
  /// kvStart / P] (P the page size, a multiple of Bc: the block lies in one
  /// page).
  SmallVector<Value, 3> kvIndices(OpBuilder &builder, Location loc,
                                  Value kvStart) const {
    Value table = op.getPageTable();
    if (kvBase)
      return {memB, kvHead,
              arith::AddIOp::create(builder, loc, kvBase, kvStart)};
    if (!table || gatherPages)
      return {b, kvHead, kvStart};
    Value page = memref::DimOp::create(builder, loc, op.getKey(), 2);
    Value slot = arith::DivUIOp::create(builder, loc, kvStart, page);
    Value entry =
        memref::LoadOp::create(builder, loc, table, ValueRange{b, slot});
    Value pageIdx =
        arith::IndexCastOp::create(builder, loc, builder.getIndexType(), entry);
    Value row = arith::RemUIOp::create(builder, loc, kvStart, page);
    return {pageIdx, kvHead, row};
  }
};

/// attn.grid of a (batch, query head, query block [· split] [· constant])
/// grid, in the runtime's factor names (KernelABI.h); with `packedHeads`
/// (pack_query_heads) a (batch, key/value head, block of packed rows ...)
/// one.
ArrayAttr gridAttr(Builder &b, bool splits, int64_t constant = 1,
                   bool packedHeads = false) {
  using ::attn::GridFactor;
  std::string x = ::attn::gridFactorName(packedHeads ? GridFactor::GroupQBlocks
                                                     : GridFactor::QBlocks);
  if (splits)
    x += std::string("*") + ::attn::gridFactorName(GridFactor::Splits);
  if (constant != 1)
    x += "*" + std::to_string(constant);
  return b.getStrArrayAttr(
      {::attn::gridFactorName(GridFactor::Batch),
       ::attn::gridFactorName(packedHeads ? GridFactor::HeadsKV
                                          : GridFactor::HeadsQ),
       x});
}

/// Columns [col, col + width) of `mem`'s last dim (unit stride): a view
/// whose tiles are `width` columns wide.
Value columnWindow(OpBuilder &b, Location loc, Value mem, Value col,
                   int64_t width) {
  auto type = cast<MemRefType>(mem.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)),
      sizes = memref::getMixedSizes(b, loc, mem),
      strides(rank, b.getIndexAttr(1));
  offsets.back() = col;
  sizes.back() = b.getIndexAttr(width);
  return memref::SubViewOp::create(b, loc, mem, offsets, sizes, strides);
}

/// Columns of O a merge program combines (where Dv is a multiple).
constexpr int64_t kMergeCols = 16;

/// S = Q·Kᵀ for key/value block `kb`, masked (-inf) where `masked` says the
/// block may hold invisible keys. Returns S and the block's first key row
/// and valid row count.
std::tuple<Value, Value, Value> emitScores(OpBuilder &b, Location loc,
                                           const ProgramContext &pc, Value kb,
                                           bool masked, bool maskMod = true) {
  IndexMath im{b, loc};
  Value bc = im.cst(pc.blocks.blockKV);
  Value kvStart = im.mul(kb, bc);
  // An unmasked segment holds whole blocks only (it ends at or before
  // floor(Nk / Bc)): Bc rows, a constant the backends need not bound-check.
  // A listed mask block's later key blocks may lie past Nk: no rows.
  Value kvRows = masked ? im.min(im.sub(pc.nk, kvStart), bc) : bc;
  if (pc.maskRow)
    kvRows = im.max(kvRows, im.cst(0));
  int64_t d = pc.op.getHeadDim();
  auto kType =
      RankedTensorType::get({pc.blocks.blockKV, d}, pc.op.getElementType());
  Value kTile = LoadTileOp::create(b, loc, kType, pc.op.getKey(),
                                   pc.kvIndices(b, loc, kvStart), kvRows,
                                   /*cols=*/Value(), pc.kvPages());
  Value zero = splat(b, loc, pc.scoreType, 0.0);
  Value s = DotOp::create(b, loc, pc.scoreType, pc.qTile, kTile, zero,
                          /*rhs_transposed=*/true);
  // S' = mod(scale·S) before the mask: a masked key stays -inf whatever the
  // modifier does to finite scores (tanh(-inf) would be finite).
  if (pc.modScale) {
    // (`contract`: with a position bias, S·scale + bias is one FMA.)
    s = arith::MulFOp::create(b, loc, s,
                              scaleSplat(b, loc, pc.scoreType, *pc.modScale),
                              pc.positionBias ? arith::FastMathFlags::contract
                                              : arith::FastMathFlags::none);
    if (FloatAttr cap = pc.op.getSoftcapAttr()) {
      // The soft-cap, C·tanh(S·(1/C)) (a multiply, not a divide; tanh with
      // afn: the GPU's tanh.approx.f32).
      double c = cap.getValueAsDouble();
      Value x = arith::MulFOp::create(b, loc, s,
                                      splat(b, loc, pc.scoreType, 1.0 / c));
      Value t = math::TanhOp::create(b, loc, x, arith::FastMathFlags::afn);
      s = arith::MulFOp::create(b, loc, t, splat(b, loc, pc.scoreType, c));
    }
    // S' += bias[b', h', i, j]: the block's [Br, Bc] window (zeros past
    // the rows' and keys' ends, which are masked or never stored).
    if (Value bias = pc.op.getBias()) {
      // A 16-bit bias is widened to f32 element by element.
      Type bt = cast<MemRefType>(bias.getType()).getElementType();
      Value window = LoadTileOp::create(
          b, loc, RankedTensorType::get(pc.scoreType.getShape(), bt), bias,
          ValueRange{pc.biasB, pc.biasH, pc.qStart, kvStart}, pc.qRows, kvRows);
      if (!bt.isF32())
        window = arith::ExtFOp::create(b, loc, pc.scoreType, window);
      s = arith::AddFOp::create(b, loc, s, window);
    }
    if (pc.positionBias) {
      // S' = S + 1·col(j)ᵀ (the rows' part goes to the LSE).
      auto colType = RankedTensorType::get({pc.blocks.blockKV},
                                           pc.scoreType.getElementType());
      if (Value cols = pc.positionBias->columns(b, loc, pc.modScalars, colType,
                                                pc.qStart, kvStart)) {
        Value bias = BroadcastOp::create(b, loc, pc.scoreType, cols,
                                         /*per_column=*/true);
        s = arith::AddFOp::create(b, loc, s, bias,
                                  arith::FastMathFlags::contract);
      }
    } else if (pc.op.hasScoreMod()) {
      s = applyScoreMod(b, loc, *pc.modBody, pc.modScalars, s, pc.qStart,
                        kvStart, pc.nq, pc.nk, masked);
    }
  } else if (pc.modBody) {
    // S ± g/scale: the softmax's exponent scales it.
    s = applyScoreMod(b, loc, *pc.modBody, pc.modScalars, s, pc.qStart, kvStart,
                      pc.nq, pc.nk, masked);
  }
  // mask_mod: S'' = keep(b, h, i, j) ? S' : -inf, except in a full block.
  if (pc.op.hasMaskMod() && maskMod) {
    Value keep =
        applyScoreMod(b, loc, pc.op.getMaskMod().front(), pc.maskScalars, s,
                      pc.qStart, kvStart, pc.nq, pc.nk, masked);
    s = arith::SelectOp::create(b, loc, keep, s,
                                negInfSplat(b, loc, pc.scoreType));
  }
  if (masked)
    s = MaskOp::create(b, loc, pc.scoreType, s, pc.qStart, pc.nq, kvStart,
                       pc.nk, pc.group, pc.op.getCausal(),
                       pc.op.getWindowLeftAttr(), pc.op.getWindowRightAttr());
  return {s, kvStart, kvRows};
}

/// The index of `mem`'s dim `dim` for `idx`: 0 where the dim is 1 (it
/// broadcasts), else idx; a run-time choice for a dynamic dim.
Value broadcastIndex(OpBuilder &b, Location loc, Value mem, unsigned dim,
                     Value idx) {
  IndexMath im{b, loc};
  auto t = cast<MemRefType>(mem.getType());
  if (!t.isDynamicDim(dim))
    return t.getDimSize(dim) == 1 ? im.cst(0) : idx;
  Value one = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                    im.dim(mem, dim), im.cst(1));
  return arith::SelectOp::create(b, loc, one, im.cst(0), idx);
}

/// One key/value segment [lo, hi) of the loops, and whether it is masked.
/// A listed segment's steps count the entries of its list (key block
/// ProgramContext::listedBlock(list, lo, t)), not key blocks.
struct Segment {
  Value lo, hi;
  bool masked;
  /// The block list this segment's steps walk (block_mask's or
  /// full_blocks' indices), null for a range of key blocks.
  Value list;
  /// Whether the mask_mod is evaluated (not in full blocks).
  bool maskMod = true;
  /// A listed segment's step of its list's first entry (a list may span
  /// two segments).
  Value listStart = {};
};

/// The number of leading entries of the block list `indices` (its first
/// `entries` at the program's mask row) whose key blocks all lie in
/// [wholeLo, wholeHi): entry e lists key blocks [x·R, x·R + R) with
/// x = indices[maskB, maskH, maskRow, e] and R = pc.subBlocks.
///   W = min{e : e = entries or not (wholeLo <= x_e·R and
///                                   x_e·R + R <= wholeHi)}
Value leadingWholeEntries(OpBuilder &b, Location loc, const ProgramContext &pc,
                          Value indices, Value entries, Value wholeLo,
                          Value wholeHi) {
  Type idx = b.getIndexType();
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  auto scan = scf::WhileOp::create(
      b, loc, TypeRange{idx}, ValueRange{c0},
      [&](OpBuilder &wb, Location l, ValueRange args) {
        Value e = args[0];
        // Signed: a negative count (bad lists) scans nothing, as the loops
        // over its steps run none.
        Value more =
            arith::CmpIOp::create(wb, l, arith::CmpIPredicate::slt, e, entries);
        auto test = scf::IfOp::create(
            wb, l, more,
            [&](OpBuilder &tb, Location tl) {
              IndexMath im{tb, tl};
              Value x = memref::LoadOp::create(
                  tb, tl, indices,
                  ValueRange{pc.maskB, pc.maskH, pc.maskRow, e});
              Value first = im.mul(
                  arith::IndexCastOp::create(tb, tl, tb.getIndexType(), x),
                  im.cst(pc.subBlocks));
              Value end = im.add(first, im.cst(pc.subBlocks));
              Value fromLo = arith::CmpIOp::create(
                  tb, tl, arith::CmpIPredicate::sge, first, wholeLo);
              Value toHi = arith::CmpIOp::create(
                  tb, tl, arith::CmpIPredicate::sle, end, wholeHi);
              Value ok = arith::AndIOp::create(tb, tl, fromLo, toHi);
              scf::YieldOp::create(tb, tl, ok);
            },
            [&](OpBuilder &eb, Location el) {
              Value no = arith::ConstantIntOp::create(eb, el, 0, 1);
              scf::YieldOp::create(eb, el, no);
            });
        scf::ConditionOp::create(wb, l, test.getResult(0), ValueRange{e});
      },
      [&](OpBuilder &ab, Location l, ValueRange args) {
        Value one = arith::ConstantIndexOp::create(ab, l, 1);
        Value next = arith::AddIOp::create(ab, l, args[0], one);
        scf::YieldOp::create(ab, l, next);
      });
  return scan.getResult(0);
}

/// Emits one pass of the naive tiled softmax over all segments, chaining the
/// carried value from segment to segment. `body` builds the new carried
/// value from (scores, kvStart, kvRows, carried). A constant scale tags each
/// loop for the fusion pass; a run-time one leaves the loops untagged (the
/// fusion pass then finds it in the exp's multiply).
Value emitPass(
    OpBuilder &b, Location loc, const ProgramContext &pc,
    ArrayRef<Segment> segments, StringRef passName, const Scale &scale,
    Value init,
    function_ref<Value(OpBuilder &, Value, Value, Value, Value)> body) {
  Value carried = init;
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (const Segment &seg : segments) {
    auto loop = scf::ForOp::create(
        b, loc, seg.lo, seg.hi, one, ValueRange{carried},
        [&](OpBuilder &lb, Location l, Value iv, ValueRange args) {
          Value kb = seg.list
                         ? pc.listedBlock(lb, l, seg.list, seg.listStart, iv)
                         : iv;
          auto [s, kvStart, kvRows] =
              emitScores(lb, l, pc, kb, seg.masked, seg.maskMod);
          Value next = body(lb, s, kvStart, kvRows, args[0]);
          scf::YieldOp::create(lb, l, next);
        });
    loop->setAttr(kSoftmaxPassAttrName, b.getStringAttr(passName));
    if (!scale.dynamic)
      loop->setAttr(kSoftmaxScaleAttrName, b.getF32FloatAttr(scale.constant));
    carried = loop.getResult(0);
  }
  return carried;
}

/// exp(scale·(S − m)) with m broadcast along the rows.
Value emitExpScaled(OpBuilder &b, Location loc, const ProgramContext &pc,
                    Value s, Value mSafe, const Scale &scale) {
  Value mB = BroadcastOp::create(b, loc, pc.scoreType, mSafe);
  Value diff = arith::SubFOp::create(b, loc, s, mB);
  Value scaled = arith::MulFOp::create(b, loc, diff,
                                       scaleSplat(b, loc, pc.scoreType, scale));
  return math::ExpOp::create(b, loc, scaled);
}

/// The op's target, else one on an enclosing op, else `fallback` (the
/// pass's `target` option).
TargetAttr resolveTarget(AttentionOp op, TargetAttr fallback) {
  if (TargetAttr t = op.getTargetAttr())
    return t;
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (auto t = p->getAttrOfType<TargetAttr>(kTargetAttrName))
      return t;
  return fallback;
}

struct TileAttentionPass
    : public mlir::attn::impl::AttnTileAttentionBase<TileAttentionPass> {
  using Base::Base;

  /// Checks the options once, before any IR is seen: a bad option is an
  /// error even when no op would read it (no attn.attention, or every op
  /// naming its own target and blocks). Options have no place in the IR, so
  /// the error has no location.
  LogicalResult initialize(MLIRContext *ctx) override {
    defaultTarget = TargetAttr::getKnown(ctx, target.getValue());
    if (!defaultTarget)
      return mlir::emitError(UnknownLoc::get(ctx))
             << "pass option target: unknown target '" << target.getValue()
             << "' (expected " << ::attn::chipList("cpu") << ")";
    for (auto [name, opt] : {std::pair{"block-q", int64_t(blockQ)},
                             std::pair{"block-kv", int64_t(blockKV)}})
      if (opt != 0 &&
          !isValidBlockRows(opt, kMaxBlock, name == StringRef("block-q")))
        return mlir::emitError(UnknownLoc::get(ctx))
               << "pass option " << name << " must be a power of two"
               << (name == StringRef("block-q") ? " or a multiple of 64" : "")
               << " in [1, " << kMaxBlock << "], got " << opt;
    return success();
  }

  LogicalResult chooseBlocks(AttentionOp op, BlockSizes &blocks,
                             TargetAttr &tgt) {
    tgt = resolveTarget(op, defaultTarget);
    int64_t elemBytes = op.getElementType().getIntOrFloatBitWidth() / 8;
    int64_t d = op.getHeadDim(), dv = op.getValueHeadDim();
    blocks = deriveBlockSizes(tgt, d, dv, elemBytes);
    // AMX products of 256-key blocks at D <= 128: against 128-key blocks
    // 50-55 vs 60-64 ms (bf16, D = 128, B 2 H 8 N 2048, Xeon, 2 threads,
    // min of 3), D = 64 31-37 vs 46 ms; at D = 256 they lose (133-137 vs
    // 94 ms: the K, V and O tiles outgrow the core's L2 share).
    if (amxBlocks && !tgt.isGPU() && op.getElementType().isBF16() &&
        std::max(d, dv) <= 128)
      blocks.blockKV = 256;
    // A key block is read from one page: a derived block shrinks to a
    // static page size (a power-of-two block divides a power-of-two page).
    int64_t page = op.isPaged() ? op.getStaticPageSize() : ShapedType::kDynamic;
    if (!ShapedType::isDynamic(page) && llvm::isPowerOf2_64(page))
      blocks.blockKV = std::min(blocks.blockKV, page);
    // Options (checked in initialize) override the derived sizes; the op's
    // own attributes override the options.
    if (blockQ != 0)
      blocks.blockQ = blockQ;
    if (blockKV != 0)
      blocks.blockKV = blockKV;
    if (auto a = op.getBlockQAttr())
      blocks.blockQ = a.getInt();
    if (auto a = op.getBlockKvAttr())
      blocks.blockKV = a.getInt();
    // Block sparsity: a program's blocks lie inside the mask's (Br | BQ,
    // Bc | BK); derived sizes shrink, explicit ones must divide.
    if (op.hasBlockMask()) {
      auto [mq, mk] = op.getMaskBlockSizes();
      if (blockQ == 0 && !op.getBlockQAttr())
        blocks.blockQ = std::gcd(blocks.blockQ, mq);
      if (blockKV == 0 && !op.getBlockKvAttr())
        blocks.blockKV = std::gcd(blocks.blockKV, mk);
      if (mq % blocks.blockQ || mk % blocks.blockKV)
        return op.emitError()
               << "unsupported: blocks Br=" << blocks.blockQ
               << ", Bc=" << blocks.blockKV << " do not divide the block "
               << "mask's [" << mq << ", " << mk << "]: a program's key "
               << "blocks must lie inside the mask's blocks";
    }
    // A key block lies in one page, or, on the GPU, spans whole static
    // pages (its rows gathered through the block table).
    bool gather = tgt.isGPU() && !ShapedType::isDynamic(page) &&
                  page < blocks.blockKV && blocks.blockKV % page == 0;
    if (!ShapedType::isDynamic(page) && page % blocks.blockKV != 0 && !gather)
      return op.emitError()
             << "unsupported: page size " << page
             << " is not a multiple of the key block (Bc=" << blocks.blockKV
             << ")" << (tgt.isGPU() ? " nor a divisor of it" : "")
             << ": a key block is read from one page"
             << (tgt.isGPU() ? " or from whole pages" : " on the CPU path");
    int64_t need = tileFootprintBytes(blocks, d, dv, elemBytes);
    if (need > tgt.getSmemPerBlock())
      return op.emitError()
             << "block sizes Br=" << blocks.blockQ << ", Bc=" << blocks.blockKV
             << " need " << need << " bytes of on-chip memory for the Q, K "
             << "and V tiles, but target " << tgt.getArch() << " offers "
             << tgt.getSmemPerBlock();
    return success();
  }

  LogicalResult tile(AttentionOp op) {
    BlockSizes blocks;
    TargetAttr target;
    if (failed(chooseBlocks(op, blocks, target)))
      return failure();
    // fp8 products exist only as Hopper's warpgroup MMA (e4m3, k = 32).
    if (op.isFp8() && !target.hasWarpgroupMma())
      return op.emitError()
             << "unsupported: fp8 attention on target " << target.getArch()
             << " (it lowers to wgmma only: sm_90a)";

    OpBuilder b(op);
    Location loc = op.getLoc();
    IndexMath im{b, loc};
    Type f32 = b.getF32Type();
    Type elemType = op.getElementType();
    int64_t d = op.getHeadDim(), dv = op.getValueHeadDim();
    int64_t br = blocks.blockQ;
    Scale scale;
    scale.dynamic = op.getDynamicScale();
    if (!scale.dynamic)
      scale.constant = static_cast<float>(op.getScaleValue());
    // fp8: the scores of the dequantised inputs, scale·(qd·Q8)·(kd·K8)ᵀ =
    // (scale·qd·kd)·Q8·K8ᵀ: one run-time scale, computed once.
    if (Value qd = op.getQDescale()) {
      Value s = scale.dynamic ? scale.dynamic
                              : arith::ConstantOp::create(
                                    b, loc, b.getF32FloatAttr(scale.constant));
      s = arith::MulFOp::create(b, loc, s, qd);
      scale.dynamic = arith::MulFOp::create(b, loc, s, op.getKDescale());
    }
    bool causal = op.getCausal();

    Value q = op.getQuery(), k = op.getKey();
    Value batch = im.dim(q, 0), hq = im.dim(q, 1), nq = im.dim(q, 2);
    // varlen: B = the offsets' entries − 1; each program reads its
    // sequence's rows (below), and the grid has as many query blocks as
    // the longest possible sequence (all of Q's rows; programs past their
    // sequence's end have no rows).
    bool varlen = op.isVarlen();
    if (varlen)
      batch = im.sub(im.dim(op.getCuSeqlensQ(), 0), im.cst(1));
    // Nk: the keys' length, replaced per program by the sequence's own
    // count for a KV cache (below).
    Value hkv = im.dim(k, 1), nk = im.dim(k, 2);
    // G query heads share one key/value head (GQA/MQA; G = 1 for MHA).
    Value group = arith::DivUIOp::create(b, loc, hq, hkv);
    // GQA packing (a GPU schedule): a program per key/value head, whose
    // rows are the packed (position i, head g) pairs i·G + g of its G query
    // heads, so that each K/V block is read once for all of them.
    const bool pack = op.getPackQueryHeads() && target.isGPU();
    Value brV = im.cst(br), bcV = im.cst(blocks.blockKV);
    // (All of Q's rows: a packed batch's grid covers its longest sequence.)
    Value gridRows = pack ? im.mul(nq, group) : nq;
    Value numQBlocks = im.ceilDiv(gridRows, brV);
    // split_kv: S splits of each query block side by side in the grid's
    // last dim, x = qBlock·S + split (a split's programs start together and
    // share its query block).
    bool split = op.getSplitKv();
    Value numSplits = split ? im.dim(op.getOutput(), 0) : Value();
    Value gridX = split ? im.mul(numQBlocks, numSplits) : numQBlocks;

    auto forall = scf::ForallOp::create(
        b, loc, ArrayRef<OpFoldResult>{batch, pack ? hkv : hq, gridX},
        ValueRange{}, std::nullopt);
    // The target the blocks were sized for travels with the program, for the
    // code generators' own checks.
    forall->setAttr(kTargetAttrName, target);
    if (split)
      forall->setAttr(kProgramAttrName, b.getStringAttr(::attn::programName(
                                            ::attn::Program::SplitKV)));
    forall->setAttr(kGridAttrName, gridAttr(b, split, 1, pack));
    if (FloatAttr cap = op.getSoftcapAttr())
      forall->setAttr(kSoftcapAttrName, cap);
    b.setInsertionPointToStart(forall.getBody());
    Value bIdx = forall.getInductionVar(0), hIdx = forall.getInductionVar(1),
          qBlock = forall.getInductionVar(2), splitIdx;
    if (split) {
      splitIdx = arith::RemUIOp::create(b, loc, qBlock, numSplits);
      qBlock = arith::DivUIOp::create(b, loc, qBlock, numSplits);
    }

    ProgramContext pc;
    pc.op = op;
    // A score_mod that only adds to the score (and is not PositionBias's,
    // which splits it off the scores) runs on the unscaled scores as
    // S ± g/scale, and the softmax keeps its scale (unscaledAdditiveScoreMod).
    // Any other (or with a soft-cap or a bias) sees scale·S (emitScores);
    // the softmax then runs at 1.
    // (Packed rows are of G heads: a per-row part of several heads'.)
    Region unscaledMod;
    bool unscaled = false;
    if (op.hasScoreMod()) {
      Block &body = op.getScoreMod().front();
      if (!pack)
        pc.positionBias = PositionBias::match(body);
      unscaled = !op.getSoftcapAttr() && !op.getBias() && !pc.positionBias &&
                 unscaledAdditiveScoreMod(body, scale, unscaledMod);
      pc.modBody = unscaled ? &unscaledMod.front() : &body;
    }
    if (!unscaled &&
        (op.hasScoreMod() || op.getSoftcapAttr() || op.getBias())) {
      pc.modScale = scale;
      scale = Scale{1.0f, Value()};
    }
    pc.blocks = blocks;
    // (chooseBlocks allowed a block of whole pages on the GPU only.)
    if (op.isPaged()) {
      int64_t page = op.getStaticPageSize();
      pc.gatherPages = !ShapedType::isDynamic(page) && page < blocks.blockKV;
    }
    pc.b = bIdx;
    // Packed: the grid's head is the key/value head, and the program's
    // query heads are G·h .. G·h + G − 1 (its rows' heads, per row).
    pc.h = pack ? im.mul(hIdx, group) : hIdx;
    pc.kvHead = pack ? hIdx : arith::DivUIOp::create(b, loc, hIdx, group);
    if (pack)
      pc.group = group;
    pc.memB = bIdx;
    if (varlen) {
      // Sequence b: queries [cu_q[b], cu_q[b+1]), keys [cu_k[b], cu_k[b+1]);
      // positions below are the sequence's own (the mask's, the loops').
      auto offset = [&](Value cu, Value i) -> Value {
        Value x = memref::LoadOp::create(b, loc, cu, ValueRange{i});
        return arith::IndexCastOp::create(b, loc, b.getIndexType(), x);
      };
      Value next = im.add(bIdx, im.cst(1));
      pc.memB = im.cst(0);
      pc.qBase = offset(op.getCuSeqlensQ(), bIdx);
      pc.kvBase = offset(op.getCuSeqlensK(), bIdx);
      nq = im.sub(offset(op.getCuSeqlensQ(), next), pc.qBase);
      nk = im.sub(offset(op.getCuSeqlensK(), next), pc.kvBase);
    }
    pc.qStart = im.mul(qBlock, brV);
    // (nq is the sequence's own length in a packed batch, which is never
    // packed by heads.)
    Value progRows = varlen ? nq : gridRows;
    pc.qRows = im.min(im.sub(progRows, pc.qStart), brV);
    // A program past its packed sequence's end has no rows (not fewer).
    if (varlen)
      pc.qRows = im.max(pc.qRows, im.cst(0));
    pc.nq = nq;
    pc.nk = nk;
    if (Value lens = op.getKvLens()) {
      // A KV cache: this sequence's own key count (a precondition bounds
      // it by the cache's capacity).
      Value len = memref::LoadOp::create(b, loc, lens, ValueRange{bIdx});
      pc.nk = arith::IndexCastOp::create(b, loc, b.getIndexType(), len);
    }
    nk = pc.nk;
    pc.scoreType = RankedTensorType::get({br, blocks.blockKV}, f32);
    pc.rowType = RankedTensorType::get({br}, f32);
    // The first query row in the tensors: the block's, after its packed
    // sequence's first row.
    Value qRow = varlen ? im.add(pc.qBase, pc.qStart) : pc.qStart;
    pc.qTile = LoadTileOp::create(
        b, loc, RankedTensorType::get({br, d}, elemType), q,
        ValueRange{pc.memB, pc.h, qRow}, pc.qRows, /*cols=*/Value(),
        /*pages=*/Value(), pc.group);
    if (op.hasScoreMod())
      emitScoreModScalars(b, loc, *pc.modBody, bIdx, hIdx, pc.modScalars);
    if (op.hasMaskMod())
      emitScoreModScalars(b, loc, op.getMaskMod().front(), bIdx, hIdx,
                          pc.maskScalars);
    if (Value bias = op.getBias()) {
      pc.biasB = broadcastIndex(b, loc, bias, 0, bIdx);
      pc.biasH = broadcastIndex(b, loc, bias, 1, hIdx);
    }

    if (Value rate = op.getDropoutRate()) {
      // Dropout's per-program scalars: the stream b·Hq + h, the threshold T
      // and the kept scores' factor f (dropoutScalars).
      Value stream = im.add(im.mul(bIdx, hq), hIdx);
      pc.dropStream =
          arith::IndexCastOp::create(b, loc, b.getI32Type(), stream);
      DropoutScalars d = dropoutScalars(b, loc, rate);
      pc.dropThreshold = d.threshold;
      pc.dropScale = d.scale;
    }

    // Key/value blocks [0, nFull) are visible whole to every row of this
    // query block; [nFull, nEnd) need a mask; blocks from nEnd on are wholly
    // masked and skipped.
    Value c0 = im.cst(0);
    // The window's right bound, -1 for none: causal is R = 0.
    int64_t right = causal ? 0 : op.getWindowRight().value_or(-1);
    // Packed rows: the key blocks of the rows' positions, from the first
    // row's, (qStart / G), to the last row's, ((qStart + qRows − 1) / G).
    Value posStart = pc.qStart, posRows = pc.qRows;
    if (pack) {
      posStart = arith::DivUIOp::create(b, loc, pc.qStart, group);
      Value last = arith::DivUIOp::create(
          b, loc, im.sub(im.add(pc.qStart, pc.qRows), im.cst(1)), group);
      posRows = im.add(im.sub(last, posStart), im.cst(1));
    }
    KeyBlocks kb = keyBlocks(im, posStart, posRows, nq, nk, bcV, c0, right);
    Value nFull = kb.nFull, nEnd = kb.nEnd;
    if (varlen) {
      // A program without rows visits no key block.
      Value hasRows = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                            pc.qRows, c0);
      nEnd = arith::SelectOp::create(b, loc, hasRows, nEnd, c0);
      nFull = im.min(nFull, nEnd);
    }
    SmallVector<Segment> segments = {{c0, nFull, false}, {nFull, nEnd, true}};
    // The key blocks every row of the block sees whole: [wholeLo, wholeHi).
    Value wholeLo = c0, wholeHi = nFull;
    if (int64_t left = op.getWindowLeft().value_or(-1); left >= 0) {
      // The window's left bound: row i sees no key j < i + (Nk-Nq) - L.
      // Blocks before the first row's first key are skipped; blocks before
      // the last row's first key are masked; then whole blocks, then the
      // right edge's masked ones:
      //   nBegin    = floor(max(qStart + Nk-Nq - L, 0) / Bc)
      //   fullBegin = ceil(max(qStart + qRows - 1 + Nk-Nq - L, 0) / Bc)
      WindowBlocks w = leftWindowBlocks(im, pc.qStart, pc.qRows, nq, nk, bcV,
                                        c0, left, nFull, nEnd);
      segments = {{w.begin, w.fullBegin, true},
                  {w.fullBegin, w.fullEnd, false},
                  {w.fullEnd, nEnd, true}};
      wholeLo = w.fullBegin;
      wholeHi = w.fullEnd;
    }
    if (op.hasBlockMask()) {
      // Block sparsity: only the listed key blocks, each R = BK / Bc of the
      // tiling's, all masked (a mask block may hold the diagonal, the
      // window's edge or the keys' end):
      //   steps = counts[b', h', qStart / BQ] · R
      // (b' = 0 where the mask's batch dim is 1, else b; h' likewise).
      auto [mq, mk] = op.getMaskBlockSizes();
      pc.subBlocks = mk / blocks.blockKV;
      Value counts = op.getBlockCounts();
      pc.maskB = broadcastIndex(b, loc, counts, 0, bIdx);
      pc.maskH = broadcastIndex(b, loc, counts, 1, hIdx);
      pc.maskRow = arith::DivUIOp::create(b, loc, pc.qStart, im.cst(mq));
      auto entriesOf = [&](Value listCounts) -> Value {
        Value n = memref::LoadOp::create(
            b, loc, listCounts, ValueRange{pc.maskB, pc.maskH, pc.maskRow});
        return arith::IndexCastOp::create(b, loc, b.getIndexType(), n);
      };
      auto stepsOf = [&](Value entries) -> Value {
        return pc.subBlocks > 1 ? im.mul(entries, im.cst(pc.subBlocks))
                                : entries;
      };
      // The full blocks first (no mask_mod), then the partial ones: steps
      // [0, F) and [F, F + P), one ring sequence for the pipelining passes.
      // A list whose blocks carry no mask_mod (the full list; block_mask's
      // own without a mask_mod) starts with the entries whose key blocks
      // every row sees whole (below the diagonal, inside the window and
      // the keys): those W carry no mask at all, steps [start, start + W·R)
      // unmasked, the rest of the list with the built-in masks (the
      // diagonal's, the keys' end). W counts entries up to the first that
      // is not whole, so any order of a list is computed right; ascending
      // lists (FlexAttention's) leave only the diagonal's entries masked.
      segments.clear();
      auto after = [&](Value start, Value steps) -> Value {
        return isConstantIntValue(start, 0) ? steps : im.add(start, steps);
      };
      auto addList = [&](Value list, Value entries, Value start,
                         bool maskMod) -> Value {
        Value end = after(start, stepsOf(entries));
        if (maskMod) {
          segments.push_back({start, end, true, list, /*maskMod=*/true,
                              /*listStart=*/start});
          return end;
        }
        Value whole =
            after(start, stepsOf(leadingWholeEntries(b, loc, pc, list, entries,
                                                     wholeLo, wholeHi)));
        segments.push_back({start, whole, false, list, /*maskMod=*/false,
                            /*listStart=*/start});
        segments.push_back({whole, end, true, list, /*maskMod=*/false,
                            /*listStart=*/start});
        return end;
      };
      Value full = c0;
      if (op.hasFullBlocks())
        full = addList(op.getFullIndices(), entriesOf(op.getFullCounts()), c0,
                       /*maskMod=*/false);
      addList(op.getBlockIndices(), entriesOf(counts), full, op.hasMaskMod());
    }
    if (split) {
      // Split s takes key blocks [s·C, (s+1)·C) with C = ceil(ceil(Nk /
      // Bc) / S), clipped to [0, nEnd): [L, H). Its unmasked blocks are
      // [L, M), its masked ones [M, H) with M = clamp(nFull, L, H), so the
      // second segment starts where the first ends (one ring sequence for
      // the pipelining passes); either may be empty.
      Value chunk = im.ceilDiv(im.ceilDiv(nk, bcV), numSplits);
      Value lo = im.min(im.mul(splitIdx, chunk), nEnd);
      Value hi = im.min(im.add(lo, chunk), nEnd);
      Value mid = im.min(im.max(nFull, lo), hi);
      segments = {{lo, mid, false}, {mid, hi, true}};
    }

    // Pass 1: m = max_j S[i, j] (raw scores; scale > 0 keeps the argmax).
    Value m = emitPass(
        b, loc, pc, segments, "max", scale, negInfSplat(b, loc, pc.rowType),
        [&](OpBuilder &lb, Value s, Value, Value, Value mOld) -> Value {
          Value rowMax =
              ReduceOp::create(lb, loc, pc.rowType, ReduceKind::Max, s);
          return arith::MaximumFOp::create(lb, loc, mOld, rowMax);
        });
    // mSafe = (m == -inf) ? 0 : m: a row that sees no key keeps
    // exp(S - mSafe) = exp(-inf) = 0 instead of exp(-inf + inf) = NaN.
    Value negInf = negInfSplat(b, loc, pc.rowType);
    Value zeroRow = splat(b, loc, pc.rowType, 0.0);
    Value noKey =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m, negInf);
    Value mSafe = arith::SelectOp::create(b, loc, noKey, zeroRow, m);

    // Pass 2: l = Σ_j exp(scale·(S[i, j] − m)).
    Value l = emitPass(
        b, loc, pc, segments, "sum", scale, zeroRow,
        [&](OpBuilder &lb, Value s, Value, Value, Value lOld) -> Value {
          Value p = emitExpScaled(lb, loc, pc, s, mSafe, scale);
          Value rowSum =
              ReduceOp::create(lb, loc, pc.rowType, ReduceKind::Sum, p);
          return arith::AddFOp::create(lb, loc, lOld, rowSum);
        });
    // lSafe = (l == 0) ? 1 : l: a row that sees no key has P = 0 and O = 0.
    Value lZero =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, zeroRow);
    Value lSafe = arith::SelectOp::create(b, loc, lZero,
                                          splat(b, loc, pc.rowType, 1.0), l);

    // Pass 3: O = Σ_j (exp(scale·(S − m)) / l) · V_j, with P rounded to the
    // element type of V as the tensor cores will consume it.
    auto accType = RankedTensorType::get({br, dv}, f32);
    // V's block: [Bc, Dv], or with v_transposed [Dv, Bc] (columns kvStart..
    // of V's [Dv, Nk] matrix), read as the transposed operand of P·V.
    const bool vt = op.getVTransposed();
    auto vType = vt ? RankedTensorType::get({dv, blocks.blockKV}, elemType)
                    : RankedTensorType::get({blocks.blockKV, dv}, elemType);
    Value acc = emitPass(
        b, loc, pc, segments, "pv", scale, splat(b, loc, accType, 0.0),
        [&](OpBuilder &lb, Value s, Value kvStart, Value kvRows,
            Value accOld) -> Value {
          Value e = emitExpScaled(lb, loc, pc, s, mSafe, scale);
          Value lB = BroadcastOp::create(lb, loc, pc.scoreType, lSafe);
          Value p = arith::DivFOp::create(lb, loc, e, lB);
          if (op.hasDropout()) {
            // Dropout: P'[i, j] = value(i, j) >= T ? P[i, j]·(1/(1 − p)) : 0
            // (unsigned; attn.random's description defines the values).
            auto bitsType =
                RankedTensorType::get(pc.scoreType.getShape(), lb.getI32Type());
            Value bits = RandomOp::create(
                lb, loc, bitsType, op.getDropoutSeed(), pc.dropStream,
                op.getDropoutOffset(), pc.qStart, kvStart);
            Value keep = dropoutKeep(lb, loc, bits, pc.dropThreshold);
            Value f =
                tensor::SplatOp::create(lb, loc, pc.scoreType, pc.dropScale);
            Value kept = arith::MulFOp::create(lb, loc, p, f);
            Value zero = splat(lb, loc, pc.scoreType, 0.0);
            p = arith::SelectOp::create(lb, loc, keep, kept, zero);
          }
          if (!elemType.isF32())
            p = arith::TruncFOp::create(
                lb, loc, RankedTensorType::get({br, blocks.blockKV}, elemType),
                p);
          // A masked block's V rows are bounded by V's own length (equal
          // to K's): a copy that zero-fills past the source's end (a bulk
          // tensor copy) then reads exactly the rows the op names.
          // With per-sequence key counts the rows past a sequence's end
          // are someone else's (or stale): only kvRows are read.
          Value vRows = kvRows;
          if (!getConstantIntValue(kvRows) && !op.getKvLens() && !varlen) {
            IndexMath im{lb, loc};
            vRows = im.min(
                im.sub(im.dim(op.getValue(), op.getValueKeyDim()), kvStart),
                im.cst(blocks.blockKV));
            if (pc.maskRow)
              vRows = im.max(vRows, im.cst(0));
          }
          if (vt) {
            // (No KV cache or packed batch with fp8: the verifier's rule.)
            IndexMath im{lb, loc};
            Value vTile = LoadTileOp::create(
                lb, loc, vType, op.getValue(),
                ValueRange{pc.b, pc.kvHead, im.cst(0), kvStart}, im.cst(dv),
                vRows);
            return DotOp::create(lb, loc, accType, p, vTile, accOld,
                                 /*rhs_transposed=*/true);
          }
          Value vTile = LoadTileOp::create(
              lb, loc, vType, op.getValue(), pc.kvIndices(lb, loc, kvStart),
              vRows, /*cols=*/Value(), pc.kvPages());
          return DotOp::create(lb, loc, accType, p, vTile, accOld,
                               /*rhs_transposed=*/false);
        });

    // A position bias's rows' part r never entered the scores, which is
    // exact for finite r only: where r_i = −inf every score of row i is
    // −inf (the row sees no key: O = 0), where it is +inf or NaN so is
    // the softmax (O = NaN). O_i ·= (r_i == −inf) ? 0 : r_i − r_i + 1.
    Value biasRows;
    if (pc.positionBias)
      biasRows =
          pc.positionBias->rows(b, loc, pc.modScalars, pc.rowType, pc.qStart);
    if (biasRows) {
      Value rowNegInf = negInfSplat(b, loc, pc.rowType);
      Value isNegInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                             biasRows, rowNegInf);
      Value zeroIfFinite = arith::SubFOp::create(b, loc, biasRows, biasRows);
      Value oneIfFinite = arith::AddFOp::create(b, loc, zeroIfFinite,
                                                splat(b, loc, pc.rowType, 1.0));
      Value factor = arith::SelectOp::create(
          b, loc, isNegInf, splat(b, loc, pc.rowType, 0.0), oneIfFinite);
      acc = arith::MulFOp::create(b, loc, acc,
                                  BroadcastOp::create(b, loc, accType, factor));
    }
    // fp8: O of the dequantised V, vd·(P·V8).
    if (Value vd = op.getVDescale())
      acc = arith::MulFOp::create(b, loc, acc,
                                  tensor::SplatOp::create(b, loc, accType, vd));
    // Split partials carry the split index first.
    SmallVector<Value> outIdx = {pc.memB, pc.h, qRow};
    if (split)
      outIdx.insert(outIdx.begin(), splitIdx);
    StoreTileOp::create(b, loc, acc, op.getOutput(), outIdx, pc.qRows,
                        pc.group);
    if (Value lse = op.getLse()) {
      // LSE = scale·m + log(l) in natural-log units; -inf for a row that
      // sees no key.
      Value scaledM = arith::MulFOp::create(
          b, loc, mSafe, scaleSplat(b, loc, pc.rowType, scale));
      Value logL = math::LogOp::create(b, loc, lSafe);
      Value rowLse = arith::AddFOp::create(b, loc, scaledM, logL);
      // A position bias's rows' part, left out of the scores:
      //   LSE_i = log Σ_j exp(S_ij + r_i) = r_i + log Σ_j exp(S_ij).
      if (biasRows)
        rowLse = arith::AddFOp::create(b, loc, rowLse, biasRows);
      rowLse = arith::SelectOp::create(b, loc, lZero, negInf, rowLse);
      StoreTileOp::create(b, loc, rowLse, lse, outIdx, pc.qRows, pc.group);
    }
    op.erase();
    return success();
  }

  /// attn.merge_splits ==> scf.forall over (batch, head, query block ×
  /// column block); each program reads the S partial rows of its block and
  /// its kMergeCols columns of O once, rescaling as the running max grows
  /// (the online softmax over splits); at the end, with the same sums as
  ///   M = max_s LSE_s;  M' = (M == -inf) ? 0 : M
  ///   l = Σ_s exp(LSE_s − M');  A = Σ_s exp(LSE_s − M')·O_s:
  ///   O = A / (l == 0 ? 1 : l);  LSE = (l == 0) ? -inf : M' + log l
  LogicalResult tileMerge(MergeSplitsOp op) {
    TargetAttr tgt = op.getTargetAttr();
    for (Operation *p = op->getParentOp(); p && !tgt; p = p->getParentOp())
      tgt = p->getAttrOfType<TargetAttr>(kTargetAttrName);
    if (!tgt)
      tgt = defaultTarget;
    // 16 rows: one warp of 16-row fragments on the GPU. A decode step's
    // rows are few (its G packed query heads), and 64-row programs left
    // three of four warps without a row while their registers (one block
    // per SM, as above) halved the programs that fit a multiprocessor. A
    // block option or attribute overrides it.
    int64_t br = 16;
    if (blockQ != 0)
      br = blockQ;
    if (auto a = op.getBlockQAttr())
      br = a.getInt();
    OpBuilder b(op);
    Location loc = op.getLoc();
    IndexMath im{b, loc};
    Value po = op.getPartialOutput(), pl = op.getPartialLse();
    Value out = op.getOutput();
    const int64_t dvAll = cast<MemRefType>(po.getType()).getDimSize(4);
    // Programs of kMergeCols columns of O: a decode step's merge has few
    // rows (G packed query heads of one token) and many splits, and its
    // time is the chain of memory latencies through the splits; narrower
    // tiles take fewer registers, so more splits' loads are in flight at
    // once (16 an iteration), and more programs share the rows.
    const int64_t colBlocks = dvAll % kMergeCols == 0 ? dvAll / kMergeCols : 1;
    const int64_t dv = dvAll / colBlocks;
    Value splits = im.dim(po, 0), batch = im.dim(po, 1), heads = im.dim(po, 2),
          n = im.dim(po, 3);
    Value brV = im.cst(br);
    auto forall = scf::ForallOp::create(
        b, loc,
        ArrayRef<OpFoldResult>{batch, heads,
                               im.mul(im.ceilDiv(n, brV), im.cst(colBlocks))},
        ValueRange{}, std::nullopt);
    forall->setAttr(kTargetAttrName, tgt);
    forall->setAttr(kProgramAttrName, b.getStringAttr(::attn::programName(
                                          ::attn::Program::MergeSplits)));
    forall->setAttr(kGridAttrName,
                    gridAttr(b, /*splits=*/false, /*constant=*/colBlocks));
    b.setInsertionPointToStart(forall.getBody());
    Value bIdx = forall.getInductionVar(0), hIdx = forall.getInductionVar(1);
    Value cBlocks = im.cst(colBlocks);
    Value qStart = im.mul(
        arith::DivUIOp::create(b, loc, forall.getInductionVar(2), cBlocks),
        brV);
    Value rows = im.min(im.sub(n, qStart), brV);
    if (colBlocks > 1) {
      // This program's columns: views of O_s and O (static width, stride 1).
      Value col = im.mul(
          arith::RemUIOp::create(b, loc, forall.getInductionVar(2), cBlocks),
          im.cst(dv));
      po = columnWindow(b, loc, po, col, dv);
      out = columnWindow(b, loc, out, col, dv);
    }
    auto rowType = RankedTensorType::get({br}, b.getF32Type());
    auto tileType = RankedTensorType::get({br, dv}, b.getF32Type());
    Value c0 = im.cst(0), c1 = im.cst(1);
    auto loadLse = [&](OpBuilder &lb, Value s) -> Value {
      return LoadTileOp::create(lb, loc, rowType, pl,
                                ValueRange{s, bIdx, hIdx, qStart}, rows);
    };

    // One pass over the splits, U an iteration, all loads first: the
    // splits' reads are independent, and one at a time the program would
    // wait a memory latency per split (a decode step's merge is that chain
    // of latencies). Split s0 + u past the last reads the last split again
    // (its index clamped): harmless in the max, weighted 0 in the sums.
    // As many O tiles an iteration as 256 columns hold (their registers are
    // live together): 16 of kMergeCols columns, so S <= 16 splits take one
    // memory latency. Per iteration, with M the running max:
    //   M_new = max(M, max_u LSE_u);  M' = (M_new == -inf) ? 0 : M_new
    //   α = exp(M − M');  w_u = exp(LSE_u − M')·[s0 + u < S]
    //   l = α·l + Σ_u w_u;  A = α·A + Σ_u w_u·O_u
    Value lastSplit = im.sub(splits, c1);
    auto splitAt = [&](OpBuilder &lb, Value s0, int64_t u) -> Value {
      IndexMath lm{lb, loc};
      return u ? lm.min(lm.add(s0, lm.cst(u)), lastSplit) : s0;
    };
    const int64_t unroll = std::clamp<int64_t>(256 / dv, 1, 16);
    Type f32 = b.getF32Type();
    Value negInf = negInfSplat(b, loc, rowType);
    Value zeroRow = splat(b, loc, rowType, 0.0);
    auto safeMax = [&](OpBuilder &lb, Location l, Value m) -> Value {
      Value none =
          arith::CmpFOp::create(lb, l, arith::CmpFPredicate::OEQ, m, negInf);
      return arith::SelectOp::create(lb, l, none, zeroRow, m);
    };
    auto sumLoop = scf::ForOp::create(
        b, loc, c0, splits, im.cst(unroll),
        ValueRange{negInf, zeroRow, splat(b, loc, tileType, 0.0)},
        [&](OpBuilder &lb, Location l, Value s0, ValueRange args) {
          IndexMath lm{lb, l};
          // The O tiles' loads first: ptxas then issues 20 of their 64
          // before the max over the LSEs waits for those (7 with the LSEs
          // first; sm_90a, Dv = 128); the rest follow a memory latency later.
          SmallVector<Value> lses, tiles, idx;
          for (int64_t u = 0; u < unroll; ++u) {
            idx.push_back(splitAt(lb, s0, u));
            tiles.push_back(LoadTileOp::create(
                lb, l, tileType, po, ValueRange{idx[u], bIdx, hIdx, qStart},
                rows));
          }
          for (int64_t u = 0; u < unroll; ++u)
            lses.push_back(loadLse(lb, idx[u]));
          Value mNew = args[0];
          for (Value x : lses)
            mNew = arith::MaximumFOp::create(lb, l, mNew, x);
          Value mSafe = safeMax(lb, l, mNew);
          Value alpha = math::ExpOp::create(
              lb, l, arith::SubFOp::create(lb, l, args[0], mSafe));
          Value lNew = arith::MulFOp::create(lb, l, alpha, args[1]);
          Value acc = arith::MulFOp::create(
              lb, l, BroadcastOp::create(lb, l, tileType, alpha), args[2]);
          for (int64_t u = 0; u < unroll; ++u) {
            Value w = math::ExpOp::create(
                lb, l, arith::SubFOp::create(lb, l, lses[u], mSafe));
            if (u) {
              // [s0 + u < S] as 1 or 0.
              Value inRange =
                  arith::CmpIOp::create(lb, l, arith::CmpIPredicate::slt,
                                        lm.add(s0, lm.cst(u)), splits);
              Value one = arith::ConstantOp::create(lb, l, f32,
                                                    lb.getF32FloatAttr(1.0));
              Value zero = arith::ConstantOp::create(lb, l, f32,
                                                     lb.getF32FloatAttr(0.0));
              Value keep = arith::SelectOp::create(lb, l, inRange, one, zero);
              w = arith::MulFOp::create(
                  lb, l, w, tensor::SplatOp::create(lb, l, rowType, keep));
            }
            lNew = arith::AddFOp::create(lb, l, lNew, w);
            Value wB = BroadcastOp::create(lb, l, tileType, w);
            acc = arith::AddFOp::create(
                lb, l, acc, arith::MulFOp::create(lb, l, wB, tiles[u]));
          }
          scf::YieldOp::create(lb, l, ValueRange{mNew, lNew, acc});
        });
    Value mSafe = safeMax(b, loc, sumLoop.getResult(0));
    Value lSum = sumLoop.getResult(1), acc = sumLoop.getResult(2);
    Value lZero =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, lSum, zeroRow);
    Value lSafe = arith::SelectOp::create(b, loc, lZero,
                                          splat(b, loc, rowType, 1.0), lSum);
    Value o = arith::DivFOp::create(
        b, loc, acc, BroadcastOp::create(b, loc, tileType, lSafe));
    StoreTileOp::create(b, loc, o, out, ValueRange{bIdx, hIdx, qStart}, rows);
    // Every column block computes the same LSE row from the same loads and
    // stores it: the values written are bit-identical.
    if (Value lse = op.getLse()) {
      Value rowLse = arith::AddFOp::create(b, loc, mSafe,
                                           math::LogOp::create(b, loc, lSafe));
      rowLse = arith::SelectOp::create(b, loc, lZero, negInf, rowLse);
      StoreTileOp::create(b, loc, rowLse, lse, ValueRange{bIdx, hIdx, qStart},
                          rows);
    }
    op.erase();
    return success();
  }

  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    SmallVector<MergeSplitsOp> merges;
    getOperation()->walk([&](AttentionOp op) { ops.push_back(op); });
    getOperation()->walk([&](MergeSplitsOp op) { merges.push_back(op); });
    for (AttentionOp op : ops)
      if (failed(tile(op)))
        return signalPassFailure();
    for (MergeSplitsOp op : merges)
      if (failed(tileMerge(op)))
        return signalPassFailure();
    SmallVector<BlockListsOp> lists;
    getOperation()->walk([&](BlockListsOp op) { lists.push_back(op); });
    for (BlockListsOp op : lists)
      if (failed(tileBlockLists(op, defaultTarget)))
        return signalPassFailure();
    SmallVector<AttentionGradOp> grads;
    getOperation()->walk([&](AttentionGradOp op) { grads.push_back(op); });
    for (AttentionGradOp op : grads)
      if (failed(tileAttentionGrad(op, defaultTarget, blockQ, blockKV)))
        return signalPassFailure();
  }

  /// The `target` option, resolved by initialize.
  TargetAttr defaultTarget;
};

} // namespace
