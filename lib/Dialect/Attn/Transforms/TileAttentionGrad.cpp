//===- TileAttentionGrad.cpp - IO-aware tiling of attn.attention_grad ----===//
//
// attn.attention_grad  ==>  two grids of tile programs (FlashAttention-2's
// backward, in its deterministic form):
//
//   1. over (batch, query head, query block): Δ = rowsum(dO∘O) for the block
//      (written to `delta`), then dQ = scale · Σ_j dS_j · K_j over the key
//      blocks the rows see (S = Q·Kᵀ recomputed, P from the saved LSE);
//   2. over (batch, key/value head, key block): dV = Σ Pᵀ·dO and
//      dK = scale · Σ dSᵀ·Q over the query heads of the group and the query
//      blocks that see the keys, on key-major tiles (Sᵀ = K·Qᵀ), so that Pᵀ
//      and dSᵀ are the left operands of their products as they stand.
//
// Every output element is written once, from sums in a fixed order: no
// atomics, and runs are bit-identical. Blocks wholly above the causal
// diagonal are never visited; only blocks crossing it are masked.
//
// With an f32 dQ workspace (`dq_accum`) and a key-block grid on warpgroup
// MMA, dQ is summed in the key-block grid instead (FlashAttention-2/3's
// five products a block pair instead of seven):
//
//   1. grad_prep over query blocks: Δ, and zeros into the workspace;
//   2. grad_kv as above, plus per step dQᵀ = Kᵀ·dS (D rows against the
//      step's queries: the key block's D = Bc rows are the program's rows)
//      added into the workspace atomically at the queries' rows;
//   3. grad_q_out over query blocks: dQ = scale · workspace.
//
//===----------------------------------------------------------------------===//
#include "TileUtils.h"
#include "WarpgroupTiling.h"
#include "attn/Transforms/Passes.h"
#include "attn/runtime/KernelABI.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::tiling;

namespace {

/// A range [lo, hi) of blocks, and whether its blocks need the mask (and
/// which of a window's bounds can cut them: both unless the range lies
/// where only one edge passes).
struct BlockRange {
  Value lo, hi;
  bool masked;
  bool leftEdge = true, rightEdge = true;
};

/// What both grids share.
struct GradContext {
  AttentionGradOp op;
  TargetAttr target;
  /// Query and key blocks: grid 1's rows are br queries against bc keys;
  /// grid 2's rows are bcKV keys against brKV queries.
  int64_t br, bc, d, dv;
  Type elemType;
  Scale scale;
  bool causal;
  /// The window's bounds (-1: none; causal is windowRight = 0).
  int64_t windowLeft = -1, windowRight = -1;
  int64_t brKV = 0, bcKV = 0;
  /// Grid 2 as one loop over (query head, query block) pairs instead of a
  /// loop over heads around the blocks' loops.
  bool flatKeyLoop = false;
  /// dQ summed atomically by grid 2 into this f32 workspace (null: grid 1
  /// computes dQ).
  Value dqAccum;
  /// Grid 1 reads dO twice, into registers for Δ and for its loop's
  /// products: where its rows span several warpgroups on warpgroup MMA, a
  /// tile only the loop reads is prefetched into a ring and taken by the
  /// producer warpgroup with the other copies.
  bool separateDeltaLoad = false;

  RankedTensorType tile(int64_t rows, int64_t cols, Type et) const {
    return RankedTensorType::get({rows, cols}, et);
  }
  RankedTensorType f32Tile(OpBuilder &b, int64_t rows, int64_t cols) const {
    return tile(rows, cols, b.getF32Type());
  }

  /// x rounded to the element type (P and dS before their products, as
  /// the forward rounds P), unchanged for f32.
  Value toElem(OpBuilder &b, Location loc, Value x) const {
    if (elemType.isF32())
      return x;
    auto t = cast<RankedTensorType>(x.getType());
    return arith::TruncFOp::create(
        b, loc, tile(t.getDimSize(0), t.getDimSize(1), elemType), x);
  }

  /// The exponent's offset of each row: L = LSE·log2 e, with −FLT_MAX
  /// where LSE = −inf (a row that sees no key). Such a row's scores are all
  /// masked (−inf): S·c − L is then −inf and 2^−inf = 0, where −inf + inf
  /// would be NaN. (max(−inf·log2 e, −FLT_MAX); LSE·log2 e rounds the
  /// exponent by |L|·2^-24, as S·scale's own rounding does.)
  Value lseLog2(OpBuilder &b, Location loc, Value lse) const {
    auto t = cast<RankedTensorType>(lse.getType());
    Value l = arith::MulFOp::create(b, loc, lse, splat(b, loc, t, M_LOG2E));
    return arith::MaximumFOp::create(
        b, loc, l, splat(b, loc, t, -std::numeric_limits<float>::max()));
  }

  /// The scores a modifier made and what the backward needs of them: P
  /// reads `scores` (masked), P = 2^(scores·expFactor − L), and
  /// dS = P∘(dP − Δ)∘grad (grad null: 1).
  struct Modified {
    Value scores;
    double expFactor = M_LOG2E;
    Value grad;
    /// The soft-cap's t (its grad 1 − t² is built once P is: t's tile
    /// then dies into it instead of living beside P).
    Value softcapT;
  };

  /// ∂S'/∂(scale·S) of `m` (null: 1), built where the caller is: after P
  /// for the soft-cap.
  Value gradOf(OpBuilder &b, Location loc, const Modified &m) const {
    if (!m.softcapT)
      return m.grad;
    auto t = cast<RankedTensorType>(m.softcapT.getType());
    Value sq = arith::MulFOp::create(b, loc, m.softcapT, m.softcapT);
    return arith::SubFOp::create(b, loc, splat(b, loc, t, 1.0), sq);
  }

  /// P = exp(scale·S − LSE) = 2^(S·(scale·log2 e) − L), L from lseLog2
  /// broadcast along S's rows (query-major S) or its columns (key-major
  /// Sᵀ): `contract` makes the product and the difference one FMA, so a
  /// score costs one FFMA and one ex2 (not a product, a difference, the
  /// product by log2 e and the ex2 of exp).
  /// With `modified`: P = 2^(S'·f − L) from a modifier's scores (S' already
  /// holds the scale; f = modified->expFactor), and with `clamp`
  /// 2^min(S'·f − L, 0): P <= 1 wherever the LSE is the row's (for every
  /// visible score S' <= LSE), so the clamp changes nothing there, but a
  /// column past the queries' end (zero Q, zero-filled LSE) then gets
  /// P <= 1 whatever the modifier makes of its zero score, and its zero dO
  /// and Q rows add nothing to dV and dK (an unbounded P would add inf·0).
  Value probabilities(OpBuilder &b, Location loc, Value s, Value lseLog2,
                      bool keyMajor, const Modified *modified = nullptr,
                      bool clamp = false) const {
    auto t = cast<RankedTensorType>(s.getType());
    Value c;
    if (modified) {
      c = splat(b, loc, t, modified->expFactor);
    } else if (scale.dynamic) {
      Value log2e =
          arith::ConstantOp::create(b, loc, b.getF32FloatAttr(M_LOG2E));
      Value scalar = arith::MulFOp::create(b, loc, scale.dynamic, log2e);
      c = tensor::SplatOp::create(b, loc, t, scalar);
    } else {
      c = splat(b, loc, t, double(scale.constant) * M_LOG2E);
    }
    auto contract = arith::FastMathFlags::contract;
    Value scaled = arith::MulFOp::create(b, loc, s, c, contract);
    Value lB = BroadcastOp::create(b, loc, t, lseLog2, keyMajor);
    Value e = arith::SubFOp::create(b, loc, scaled, lB, contract);
    if (clamp)
      e = arith::MinimumFOp::create(b, loc, e, splat(b, loc, t, 0.0));
    return math::Exp2Op::create(b, loc, e);
  }

  /// The modifier's scores of the raw scores `s` (query positions from
  /// qStart, keys from kvStart; `keyMajor`: Sᵀ), before any mask, with the
  /// derivative the backward multiplies dS by. The modifier sees
  /// u = scale·S, as in the forward:
  ///   soft-cap:  t = tanh(u/C),  S' = C·t (P = 2^(t·C·log2 e − L)),
  ///              ∂S'/∂u = 1 − t²   (t before the mask: −inf would make
  ///              1 − t² = −inf and 0·−inf a NaN)
  ///   score_mod: S' = mod(u, b, h, i, j), ∂S'/∂u in forward mode
  ///              (applyScoreMod; ALiBi's is 1).
  Modified modify(OpBuilder &b, Location loc, Value s, Value qStart,
                  Value kvStart, Value nq, Value nk, bool masked, bool keyMajor,
                  const IRMapping &scalars) const {
    AttentionGradOp op = this->op;
    auto t = cast<RankedTensorType>(s.getType());
    auto afn = arith::FastMathFlags::afn;
    Modified m;
    if (FloatAttr cap = op.getSoftcapAttr()) {
      // tanh with afn: the GPU's tanh.approx.f32, as the forward's.
      double c = cap.getValueAsDouble();
      Scale overC = scale;
      if (scale.dynamic) {
        Value inv =
            arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0 / c));
        overC.dynamic = arith::MulFOp::create(b, loc, scale.dynamic, inv);
      } else {
        overC.constant = static_cast<float>(double(scale.constant) / c);
      }
      Value x = arith::MulFOp::create(b, loc, s, scaleSplat(b, loc, t, overC));
      m.scores = math::TanhOp::create(b, loc, x, afn);
      m.softcapT = m.scores;
      m.expFactor = c * M_LOG2E;
      return m;
    }
    Value u = arith::MulFOp::create(b, loc, s, scaleSplat(b, loc, t, scale));
    m.scores =
        applyScoreMod(b, loc, op.getScoreMod().front(), scalars, u, qStart,
                      kvStart, nq, nk, masked, keyMajor, &m.grad);
    return m;
  }

  /// S'' = keep(b, h, i, j) ? S' : −inf with the mask_mod region, on every
  /// block (the forward evaluates it on every block it visits).
  Value applyMaskMod(OpBuilder &b, Location loc, Value s, Value qStart,
                     Value kvStart, Value nq, Value nk, bool masked,
                     bool keyMajor, const IRMapping &scalars) const {
    AttentionGradOp op = this->op;
    auto t = cast<RankedTensorType>(s.getType());
    Value keep = applyScoreMod(b, loc, op.getMaskMod().front(), scalars, s,
                               qStart, kvStart, nq, nk, masked, keyMajor);
    return arith::SelectOp::create(b, loc, keep, s, negInfSplat(b, loc, t));
  }

  /// The mask of a block that may hold hidden pairs: the causal diagonal,
  /// the window's edges, the keys' end.
  Value mask(OpBuilder &b, Location loc, Value s, Value qStart, Value nq,
             Value kvStart, Value nk, bool keyMajor, bool leftEdge = true,
             bool rightEdge = true) const {
    auto attr = [&](int64_t v, bool edge) {
      return v >= 0 && edge ? b.getI64IntegerAttr(v) : IntegerAttr();
    };
    return MaskOp::create(b, loc, s.getType(), s, qStart, nq, kvStart, nk,
                          /*group=*/Value(), causal && rightEdge,
                          attr(windowLeft, leftEdge),
                          causal ? IntegerAttr() : attr(windowRight, rightEdge),
                          /*transposed=*/keyMajor);
  }

  /// dS = P∘(dP − Δ), Δ broadcast like the LSE.
  Value scoreGrad(OpBuilder &b, Location loc, Value p, Value dp, Value delta,
                  bool keyMajor) const {
    auto t = cast<RankedTensorType>(p.getType());
    Value deltaB = BroadcastOp::create(b, loc, t, delta, keyMajor);
    return arith::MulFOp::create(b, loc, p,
                                 arith::SubFOp::create(b, loc, dp, deltaB));
  }

  /// The grid's program name and its launch grid (batch, heads, blocks) in
  /// the runtime's names (KernelABI.h), as the forward's grids carry them.
  void tag(OpBuilder &b, scf::ForallOp grid, ::attn::Program program,
           ::attn::GridFactor heads, ::attn::GridFactor blocks) const {
    grid->setAttr(kProgramAttrName,
                  b.getStringAttr(::attn::programName(program)));
    grid->setAttr(
        kGridAttrName,
        b.getStrArrayAttr({::attn::gridFactorName(::attn::GridFactor::Batch),
                           ::attn::gridFactorName(heads),
                           ::attn::gridFactorName(blocks)}));
  }

  /// Dropout's factor for the scores of tile type `t` (f32), the forward's
  /// mask (attn.random's values, `keyMajor`: rows are keys) for program
  /// stream b·Hq + h: z = value >= T ? f : 0 with the program's scalars `d`
  /// (dropoutScalars), as attn.attention's tiling keeps them.
  Value dropFactor(OpBuilder &b, Location loc, RankedTensorType t,
                   const DropoutScalars &d, Value bIdx, Value hIdx,
                   Value qStart, Value kvStart, bool keyMajor) const {
    AttentionGradOp op = this->op;
    IndexMath im{b, loc};
    Value hq = im.dim(op.getQuery(), 1);
    Value streamIdx = im.add(im.mul(bIdx, hq), hIdx);
    Value stream =
        arith::IndexCastOp::create(b, loc, b.getI32Type(), streamIdx);
    auto bitsType = RankedTensorType::get(t.getShape(), b.getI32Type());
    Value values =
        RandomOp::create(b, loc, bitsType, op.getDropoutSeed(), stream,
                         op.getDropoutOffset(), qStart, kvStart, keyMajor);
    Value keep = dropoutKeep(b, loc, values, d.threshold);
    Value fTile = tensor::SplatOp::create(b, loc, t, d.scale);
    return arith::SelectOp::create(b, loc, keep, fTile, splat(b, loc, t, 0.0));
  }

  /// x · scale (dQ and dK leave the loops unscaled: one multiply a tile).
  Value scaled(OpBuilder &b, Location loc, Value x) const {
    auto t = cast<RankedTensorType>(x.getType());
    return arith::MulFOp::create(b, loc, x, scaleSplat(b, loc, t, scale));
  }
};

/// Emits one scf.for per range, chaining `init` through them; `body` builds
/// the next carried values from (block index, its range, carried).
SmallVector<Value>
emitRanges(OpBuilder &b, Location loc, ArrayRef<BlockRange> ranges,
           ValueRange init,
           function_ref<SmallVector<Value>(OpBuilder &, Value,
                                           const BlockRange &, ValueRange)>
               body) {
  SmallVector<Value> carried(init.begin(), init.end());
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (const BlockRange &r : ranges) {
    auto loop = scf::ForOp::create(
        b, loc, r.lo, r.hi, one, carried,
        [&](OpBuilder &lb, Location l, Value blk, ValueRange args) {
          scf::YieldOp::create(lb, l, body(lb, blk, r, args));
        });
    carried.assign(loop.getResults().begin(), loop.getResults().end());
  }
  return carried;
}

/// The query-block grids' frame: (batch, query head, query block) with
/// `program`'s name; the builder is left in the body.
struct QueryBlock {
  Value bIdx, hIdx, qStart, qRows;
  SmallVector<Value> rowIndices;
};
QueryBlock beginQueryGrid(OpBuilder &b, Location loc, const GradContext &gc,
                          ::attn::Program program) {
  IndexMath im{b, loc};
  AttentionGradOp op = gc.op;
  Value q = op.getQuery();
  Value batch = im.dim(q, 0), hq = im.dim(q, 1), nq = im.dim(q, 2);
  Value brV = im.cst(gc.br);
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{batch, hq, im.ceilDiv(nq, brV)},
      ValueRange{}, std::nullopt);
  forall->setAttr(kTargetAttrName, gc.target);
  gc.tag(b, forall, program, ::attn::GridFactor::HeadsQ,
         ::attn::GridFactor::QBlocks);
  if (FloatAttr cap = op.getSoftcapAttr())
    forall->setAttr(kSoftcapAttrName, cap);
  b.setInsertionPointToStart(forall.getBody());
  QueryBlock qb;
  qb.bIdx = forall.getInductionVar(0);
  qb.hIdx = forall.getInductionVar(1);
  qb.qStart = im.mul(forall.getInductionVar(2), brV);
  qb.qRows = im.min(im.sub(nq, qb.qStart), brV);
  qb.rowIndices = {qb.bIdx, qb.hIdx, qb.qStart};
  return qb;
}

/// Δ[i] = Σ_c dO[i,c]·O[i,c] in f32 (Σ_j P[i,j]·dP[i,j] without the N×N
/// product) for the query block, stored into `delta`.
Value emitDelta(OpBuilder &b, Location loc, const GradContext &gc,
                const QueryBlock &qb, Value doTile) {
  AttentionGradOp op = gc.op;
  auto doType = gc.tile(gc.br, gc.dv, gc.elemType);
  Value oTile = LoadTileOp::create(b, loc, doType, op.getOutput(),
                                   qb.rowIndices, qb.qRows);
  auto rowsDv = gc.f32Tile(b, gc.br, gc.dv);
  Value doF = doTile, oF = oTile;
  if (!gc.elemType.isF32()) {
    doF = arith::ExtFOp::create(b, loc, rowsDv, doTile);
    oF = arith::ExtFOp::create(b, loc, rowsDv, oTile);
  }
  auto rowType = RankedTensorType::get({gc.br}, b.getF32Type());
  Value delta = ReduceOp::create(b, loc, rowType, ReduceKind::Sum,
                                 arith::MulFOp::create(b, loc, doF, oF));
  StoreTileOp::create(b, loc, delta, op.getDelta(), qb.rowIndices, qb.qRows);
  return delta;
}

/// Grid 1 with a dQ workspace (grad_prep): Δ, and the block's rows of the
/// workspace zeroed for grid 2's atomic sums.
void emitPrepGrid(OpBuilder &b, Location loc, const GradContext &gc) {
  QueryBlock qb = beginQueryGrid(b, loc, gc, ::attn::Program::GradPrep);
  AttentionGradOp op = gc.op;
  Value doTile =
      LoadTileOp::create(b, loc, gc.tile(gc.br, gc.dv, gc.elemType),
                         op.getGradOutput(), qb.rowIndices, qb.qRows);
  emitDelta(b, loc, gc, qb, doTile);
  StoreTileOp::create(b, loc, splat(b, loc, gc.f32Tile(b, gc.br, gc.d), 0.0),
                      gc.dqAccum, qb.rowIndices, qb.qRows);
  b.setInsertionPointAfter(b.getInsertionBlock()->getParentOp());
}

/// Grid 3 with a dQ workspace (grad_q_out): dQ = scale · Σ_j dS_j·K_j from
/// the workspace grid 2 summed into.
void emitQueryOutGrid(OpBuilder &b, Location loc, const GradContext &gc) {
  QueryBlock qb = beginQueryGrid(b, loc, gc, ::attn::Program::GradQueryOut);
  Value acc = LoadTileOp::create(b, loc, gc.f32Tile(b, gc.br, gc.d), gc.dqAccum,
                                 qb.rowIndices, qb.qRows);
  AttentionGradOp op = gc.op;
  StoreTileOp::create(b, loc, gc.scaled(b, loc, acc), op.getGradQuery(),
                      qb.rowIndices, qb.qRows);
  b.setInsertionPointAfter(b.getInsertionBlock()->getParentOp());
}

/// Grid 1: Δ and dQ for one query block of one query head.
void emitQueryGrid(OpBuilder &b, Location loc, const GradContext &gc) {
  AttentionGradOp op = gc.op;
  QueryBlock qb = beginQueryGrid(b, loc, gc, ::attn::Program::GradQuery);
  IndexMath im{b, loc};
  Value q = op.getQuery(), k = op.getKey();
  Value hq = im.dim(q, 1), nq = im.dim(q, 2);
  Value hkv = im.dim(k, 1), nk = im.dim(k, 2);
  Value group = arith::DivUIOp::create(b, loc, hq, hkv);
  Value bcV = im.cst(gc.bc);
  Value bIdx = qb.bIdx, qStart = qb.qStart, qRows = qb.qRows;
  Value kvHead = arith::DivUIOp::create(b, loc, qb.hIdx, group);
  SmallVector<Value> rowIndices = qb.rowIndices;
  Type f32 = b.getF32Type();
  auto rowType = RankedTensorType::get({gc.br}, f32);

  Value qTile = LoadTileOp::create(b, loc, gc.tile(gc.br, gc.d, gc.elemType), q,
                                   rowIndices, qRows);
  Value doTile = LoadTileOp::create(b, loc, gc.tile(gc.br, gc.dv, gc.elemType),
                                    op.getGradOutput(), rowIndices, qRows);
  Value delta = emitDelta(b, loc, gc, qb, doTile);
  // The loop's dO: rows bounded by dO's own length (equal to Q's, which the
  // runtime checks): a bulk tensor copy zero-fills past its own tensor's
  // end only.
  if (gc.separateDeltaLoad) {
    Value brV = im.cst(gc.br);
    doTile = LoadTileOp::create(b, loc, gc.tile(gc.br, gc.dv, gc.elemType),
                                op.getGradOutput(), rowIndices,
                                im.rowsLeft(op.getGradOutput(), qStart, brV));
  }
  Value lse =
      LoadTileOp::create(b, loc, rowType, op.getLse(), rowIndices, qRows);
  Value lseL = gc.lseLog2(b, loc, lse);
  DropoutScalars drop;
  if (Value rate = op.getDropoutRate())
    drop = dropoutScalars(b, loc, rate);
  // The modifiers' per-program scalars (b and this program's query head).
  IRMapping modScalars, maskScalars;
  if (op.hasScoreMod())
    emitScoreModScalars(b, loc, op.getScoreMod().front(), bIdx, qb.hIdx,
                        modScalars);
  if (op.hasMaskMod())
    emitScoreModScalars(b, loc, op.getMaskMod().front(), bIdx, qb.hIdx,
                        maskScalars);

  // Key blocks [0, nFull) are seen whole by every row of the block;
  // [nFull, nEnd) need the mask (the causal diagonal or the window's right
  // edge, the end of the keys); later ones are hidden from every row and
  // skipped. A window's left bound splits off the blocks left of every
  // row's window (skipped) and those crossing its left edge (masked), as
  // in the forward.
  Value c0 = im.cst(0);
  KeyBlocks kb = keyBlocks(im, qStart, qRows, nq, nk, bcV, c0,
                           gc.causal ? 0 : gc.windowRight);
  SmallVector<BlockRange> ranges = {{c0, kb.nFull, false},
                                    {kb.nFull, kb.nEnd, true}};
  if (gc.windowLeft >= 0) {
    WindowBlocks w = leftWindowBlocks(im, qStart, qRows, nq, nk, bcV, c0,
                                      gc.windowLeft, kb.nFull, kb.nEnd);
    ranges = {{w.begin, w.fullBegin, true},
              {w.fullBegin, w.fullEnd, false},
              {w.fullEnd, kb.nEnd, true}};
  }
  const bool modded = op.hasScoreModifier();
  auto accType = gc.f32Tile(b, gc.br, gc.d);
  auto scoreType = gc.f32Tile(b, gc.br, gc.bc);
  SmallVector<Value> acc = emitRanges(
      b, loc, ranges, {splat(b, loc, accType, 0.0)},
      [&](OpBuilder &lb, Value kb, const BlockRange &range,
          ValueRange args) -> SmallVector<Value> {
        const bool masked = range.masked;
        IndexMath lm{lb, loc};
        Value kvStart = lm.mul(kb, bcV);
        // An unmasked range holds whole blocks only: Bc rows.
        Value kvRows = masked ? lm.min(lm.sub(nk, kvStart), bcV) : bcV;
        // V's rows by V's own length, for the same reason as dO's.
        Value vRows = masked ? lm.rowsLeft(op.getValue(), kvStart, bcV) : bcV;
        SmallVector<Value> kvIdx = {bIdx, kvHead, kvStart};
        Value kTile = LoadTileOp::create(
            lb, loc, gc.tile(gc.bc, gc.d, gc.elemType), k, kvIdx, kvRows);
        Value vTile =
            LoadTileOp::create(lb, loc, gc.tile(gc.bc, gc.dv, gc.elemType),
                               op.getValue(), kvIdx, vRows);
        Value zero = splat(lb, loc, scoreType, 0.0);
        // S = Q·Kᵀ (S' = mod(scale·S) with a modifier), hidden pairs −inf.
        Value s = DotOp::create(lb, loc, scoreType, qTile, kTile, zero,
                                /*rhs_transposed=*/true);
        GradContext::Modified m;
        if (modded) {
          m = gc.modify(lb, loc, s, qStart, kvStart, nq, nk, masked,
                        /*keyMajor=*/false, modScalars);
          s = m.scores;
        }
        if (op.hasMaskMod())
          s = gc.applyMaskMod(lb, loc, s, qStart, kvStart, nq, nk, masked,
                              /*keyMajor=*/false, maskScalars);
        if (masked)
          s = gc.mask(lb, loc, s, qStart, nq, kvStart, nk, /*keyMajor=*/false);
        // P = exp(scale·S − LSE)  (exp(S' − LSE) with a modifier)
        Value p = gc.probabilities(lb, loc, s, lseL, /*keyMajor=*/false,
                                   modded ? &m : nullptr, /*clamp=*/false);
        // With a modifier dS = (P∘g)∘(dP − Δ), g = ∂S'/∂(scale·S): P∘g
        // replaces P (one tile live, not two).
        if (Value g = gc.gradOf(lb, loc, m))
          p = arith::MulFOp::create(lb, loc, p, g);
        // dP = dO·Vᵀ
        Value dp = DotOp::create(lb, loc, scoreType, doTile, vTile, zero,
                                 /*rhs_transposed=*/true);
        // Dropout: the loss sees z∘dP (O = Σ_j P·z·V_j), dP' = z∘dP.
        if (op.getDropoutRate()) {
          Value z = gc.dropFactor(lb, loc, scoreType, drop, bIdx, qb.hIdx,
                                  qStart, kvStart, /*keyMajor=*/false);
          dp = arith::MulFOp::create(lb, loc, dp, z);
        }
        // dS = P∘(dP − Δ) (P∘g with a modifier);  dQ += dS·K
        Value ds = gc.scoreGrad(lb, loc, p, dp, delta, /*keyMajor=*/false);
        return {DotOp::create(lb, loc, accType, gc.toElem(lb, loc, ds), kTile,
                              args[0], /*rhs_transposed=*/false)};
      });
  // dQ = scale · Σ_j dS_j·K_j
  StoreTileOp::create(b, loc, gc.scaled(b, loc, acc[0]), op.getGradQuery(),
                      rowIndices, qRows);
  b.setInsertionPointAfter(b.getInsertionBlock()->getParentOp());
}

/// Grid 2: dK and dV for one key block of one key/value head.
void emitKeyGrid(OpBuilder &b, Location loc, const GradContext &gc) {
  AttentionGradOp op = gc.op;
  IndexMath im{b, loc};
  Value q = op.getQuery(), k = op.getKey();
  Value hq = im.dim(q, 1), nq = im.dim(q, 2);
  Value batch = im.dim(k, 0), hkv = im.dim(k, 1), nk = im.dim(k, 2);
  Value group = arith::DivUIOp::create(b, loc, hq, hkv);
  Value brV = im.cst(gc.brKV), bcV = im.cst(gc.bcKV);
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{batch, hkv, im.ceilDiv(nk, bcV)},
      ValueRange{}, std::nullopt);
  forall->setAttr(kTargetAttrName, gc.target);
  gc.tag(b, forall, ::attn::Program::GradKeyValue, ::attn::GridFactor::HeadsKV,
         ::attn::GridFactor::KVBlocks);
  // The soft-cap the kernel serves (#attn.kernel_info's softcap).
  if (FloatAttr cap = op.getSoftcapAttr())
    forall->setAttr(kSoftcapAttrName, cap);
  b.setInsertionPointToStart(forall.getBody());
  Value bIdx = forall.getInductionVar(0), kvHead = forall.getInductionVar(1);
  Value kvStart = im.mul(forall.getInductionVar(2), bcV);
  Value kvRows = im.min(im.sub(nk, kvStart), bcV);
  SmallVector<Value> kvIdx = {bIdx, kvHead, kvStart};
  Type f32 = b.getF32Type();
  auto rowType = RankedTensorType::get({gc.brKV}, f32);
  Value kTile = LoadTileOp::create(b, loc, gc.tile(gc.bcKV, gc.d, gc.elemType),
                                   k, kvIdx, kvRows);
  // Where a producer may copy the tiles in bulk (the flat loop), each
  // load's rows are bounded by its own source's length (Nk of V, Nq of dO
  // below: equal to K's and Q's, which the runtime checks): a bulk tensor
  // copy zero-fills past its own tensor's end only.
  Value vRows =
      gc.flatKeyLoop ? im.rowsLeft(op.getValue(), kvStart, bcV) : kvRows;
  Value vTile = LoadTileOp::create(b, loc, gc.tile(gc.bcKV, gc.dv, gc.elemType),
                                   op.getValue(), kvIdx, vRows);

  // Query blocks: with the causal mask, row i sees key j iff
  // j <= i + (Nk − Nq) =: i + diag. The block's first key is seen from row
  // kvStart − diag on, its last key (kvStart + kvRows − 1) by every row
  // from kvStart + kvRows − 1 − diag on:
  //   qBegin = clamp(floor((kvStart − diag) / Br), 0, nQ)      (first seen)
  //   qFull  = clamp(ceil((kvStart + kvRows − 1 − diag) / Br), qBegin, nQ)
  // [qBegin, qFull) cross the diagonal (masked), [qFull, nQ) see every key
  // of the block. Without a mask every block is whole: rows past Nq and
  // keys past Nk are zero-filled, contribute nothing to the stored rows
  // (dO = 0 and Δ = 0 there), and are never stored.
  Value c0 = im.cst(0);
  Value numQBlocks = im.ceilDiv(nq, brV);
  SmallVector<BlockRange> ranges = {{c0, numQBlocks, false}};
  if (gc.windowLeft >= 0 || (!gc.causal && gc.windowRight >= 0)) {
    // A sliding window: row i sees key j iff
    //   i + diag − L <= j <= i + diag + R   (diag = Nk − Nq; a bound < 0
    // absent, causal R = 0). The block's keys [kvStart, last] are seen in
    // part by rows [kvStart − diag − R, last − diag + L] and whole by rows
    // [last − diag − R, kvStart − diag + L], so query blocks
    //   begin     = floor((kvStart − diag − R) / Br)        (or 0)
    //   end       = floor((last − diag + L) / Br) + 1       (or nQ)
    //   fullBegin = ceil((last − diag − R) / Br)            (or begin)
    //   fullEnd   = floor((kvStart − diag + L + 1) / Br)    (or end)
    // each clamped into the previous ones' range: [begin, fullBegin) and
    // [fullEnd, end) are masked, [fullBegin, fullEnd) whole.
    int64_t right = gc.causal ? 0 : gc.windowRight, left = gc.windowLeft;
    Value diag = im.sub(nk, nq);
    Value lastKey = im.sub(im.add(kvStart, kvRows), im.cst(1));
    auto clampTo = [&](Value x, Value lo, Value hi) {
      return im.min(im.max(x, lo), hi);
    };
    Value begin = c0, end = numQBlocks;
    if (right >= 0)
      begin = clampTo(
          im.floorDiv(im.sub(im.sub(kvStart, diag), im.cst(right)), brV), c0,
          numQBlocks);
    if (left >= 0)
      end = clampTo(
          im.add(im.floorDiv(im.add(im.sub(lastKey, diag), im.cst(left)), brV),
                 im.cst(1)),
          begin, numQBlocks);
    Value fullBegin = begin, fullEnd = end;
    if (right >= 0)
      fullBegin =
          clampTo(im.ceilDiv(im.sub(im.sub(lastKey, diag), im.cst(right)), brV),
                  begin, end);
    if (left >= 0)
      fullEnd = clampTo(
          im.floorDiv(im.add(im.sub(kvStart, diag), im.cst(left + 1)), brV),
          fullBegin, end);
    ranges = {{begin, fullBegin, true},
              {fullBegin, fullEnd, false},
              {fullEnd, end, true}};
    // A wide window's masked ranges each cross one edge only: a block b of
    // [begin, fullBegin) has b·Br < last − diag − R, so rows
    // i <= last − diag − R + Br − 2, which see the block's first key
    // (kvStart >= last − Bc + 1) from the left edge on where
    //   i + diag − L <= kvStart  ⇐  L + R >= Br + Bc − 3,
    // and a block of [fullEnd, end) has rows i >= kvStart − diag + L + 2 −
    // Br, which see its last key below the right edge under the same
    // condition. Then each carries one bound (as the plain causal grid's).
    if (left >= 0 && right >= 0 && left + right >= gc.brKV + gc.bcKV - 2) {
      ranges[0].leftEdge = false;
      ranges[2].rightEdge = false;
    }
  } else if (gc.causal) {
    Value diag = im.sub(nk, nq);
    Value qBegin =
        im.min(im.max(im.floorDiv(im.sub(kvStart, diag), brV), c0), numQBlocks);
    Value lastKey = im.sub(im.add(kvStart, kvRows), im.cst(1));
    Value qFull = im.min(im.max(im.ceilDiv(im.sub(lastKey, diag), brV), qBegin),
                         numQBlocks);
    ranges = {{qBegin, qFull, true}, {qFull, numQBlocks, false}};
  }

  auto dkType = gc.f32Tile(b, gc.bcKV, gc.d),
       dvType = gc.f32Tile(b, gc.bcKV, gc.dv);
  auto scoreType = gc.f32Tile(b, gc.bcKV, gc.brKV);
  DropoutScalars drop;
  if (Value rate = op.getDropoutRate())
    drop = dropoutScalars(b, loc, rate);
  const bool modded = op.hasScoreModifier();
  // Whether a step keeps a modifier's derivative tile (the loops are then
  // marked attn.score_grad_tile).
  bool gradTile = false;
  // One step: query block qb of query head hIdx against the key block;
  // args = (dK, dV) so far.
  auto step = [&](OpBuilder &lb, Location ll, Value hIdx, Value qb,
                  const BlockRange &range,
                  ValueRange args) -> SmallVector<Value> {
    const bool masked = range.masked;
    IndexMath lm{lb, ll};
    Value qStart = lm.mul(qb, brV);
    Value qRows = lm.min(lm.sub(nq, qStart), brV);
    SmallVector<Value> rowIdx = {bIdx, hIdx, qStart};
    Value qTile = LoadTileOp::create(
        lb, ll, gc.tile(gc.brKV, gc.d, gc.elemType), q, rowIdx, qRows);
    Value doRows =
        gc.flatKeyLoop ? lm.rowsLeft(op.getGradOutput(), qStart, brV) : qRows;
    Value doTile =
        LoadTileOp::create(lb, ll, gc.tile(gc.brKV, gc.dv, gc.elemType),
                           op.getGradOutput(), rowIdx, doRows);
    Value lse = LoadTileOp::create(lb, ll, rowType, op.getLse(), rowIdx, qRows);
    Value delta =
        LoadTileOp::create(lb, ll, rowType, op.getDelta(), rowIdx, qRows);
    Value zero = splat(lb, ll, scoreType, 0.0);
    // The modifiers' scalars for this step's query head.
    IRMapping modScalars, maskScalars;
    if (op.hasScoreMod())
      emitScoreModScalars(lb, ll, op.getScoreMod().front(), bIdx, hIdx,
                          modScalars);
    if (op.hasMaskMod())
      emitScoreModScalars(lb, ll, op.getMaskMod().front(), bIdx, hIdx,
                          maskScalars);
    // Sᵀ = K·Qᵀ (keys are rows; S'ᵀ with a modifier), hidden pairs −inf.
    // (The key block may end past Nk whatever the step: a modifier's
    // gathers clamp key positions in every step.)
    Value st = DotOp::create(lb, ll, scoreType, kTile, qTile, zero,
                             /*rhs_transposed=*/true);
    GradContext::Modified m;
    if (modded) {
      m = gc.modify(lb, ll, st, qStart, kvStart, nq, nk, /*masked=*/true,
                    /*keyMajor=*/true, modScalars);
      st = m.scores;
    }
    if (op.hasMaskMod())
      st = gc.applyMaskMod(lb, ll, st, qStart, kvStart, nq, nk,
                           /*masked=*/true, /*keyMajor=*/true, maskScalars);
    if (masked)
      st = gc.mask(lb, ll, st, qStart, nq, kvStart, nk, /*keyMajor=*/true,
                   range.leftEdge, range.rightEdge);
    // Pᵀ = exp(scale·Sᵀ − LSE) with LSE per column;  dV += (Pᵀ∘zᵀ)·dO
    // (zᵀ: dropout's factor, 1 without dropout). A score_mod's P is
    // clamped (probabilities): the columns past Nq.
    Value pt = gc.probabilities(lb, ll, st, gc.lseLog2(lb, ll, lse),
                                /*keyMajor=*/true, modded ? &m : nullptr,
                                /*clamp=*/op.hasScoreMod());
    Value zt;
    if (op.getDropoutRate())
      zt = gc.dropFactor(lb, ll, scoreType, drop, bIdx, hIdx, qStart, kvStart,
                         /*keyMajor=*/true);
    Value ptKept = zt ? arith::MulFOp::create(lb, ll, pt, zt) : pt;
    Value dv = DotOp::create(lb, ll, dvType, gc.toElem(lb, ll, ptKept), doTile,
                             args[1], /*rhs_transposed=*/false);
    // With a modifier dSᵀ = (Pᵀ∘gᵀ)∘(dPᵀ − Δ): Pᵀ∘gᵀ replaces Pᵀ once dV's
    // operand is taken, so g does not stay live beside P through dPᵀ's
    // product (the soft-cap's grad_kv at D = 128 spilled 140 bytes so).
    if (Value g = gc.gradOf(lb, ll, m)) {
      pt = arith::MulFOp::create(lb, ll, pt, g);
      gradTile = true;
    }
    // dPᵀ = V·dOᵀ (times zᵀ);  dSᵀ = Pᵀ∘(dPᵀ − Δ);  dK += dSᵀ·Q
    Value dpt = DotOp::create(lb, ll, scoreType, vTile, doTile, zero,
                              /*rhs_transposed=*/true);
    if (zt)
      dpt = arith::MulFOp::create(lb, ll, dpt, zt);
    Value dst = gc.toElem(
        lb, ll, gc.scoreGrad(lb, ll, pt, dpt, delta, /*keyMajor=*/true));
    Value dk = DotOp::create(lb, ll, dkType, dst, qTile, args[0],
                             /*rhs_transposed=*/false);
    if (gc.dqAccum) {
      // dQᵀ = Kᵀ·dS (D rows, the step's queries as columns), added into
      // the workspace at the queries' rows: dQ[i] += Σ_j dS[i,j]·K[j].
      auto dqtType = gc.f32Tile(lb, gc.d, gc.brKV);
      Value dqt = DotOp::create(lb, ll, dqtType, kTile, dst,
                                splat(lb, ll, dqtType, 0.0),
                                /*rhs_transposed=*/false, /*async=*/false,
                                /*lhs_transposed=*/true);
      AccumulateTileOp::create(lb, ll, dqt, gc.dqAccum, rowIdx, qRows,
                               /*transposed=*/true);
    }
    return {dk, dv};
  };
  Value one = im.cst(1);
  SmallVector<Value> acc = {splat(b, loc, dkType, 0.0),
                            splat(b, loc, dvType, 0.0)};
  if (gc.flatKeyLoop) {
    // Σ over the G query heads of the group and their query blocks as one
    // loop per range over the G·(hi − lo) (head, block) pairs
    //   g = t / (hi − lo),  qb = lo + t mod (hi − lo)
    // (every head sees the same blocks of the key block): a pipelined
    // loop's copies then run on from one head to the next, and the rings
    // are not drained and refilled per head. The ranges' loops count on
    // from one another (the masked loop over [0, G·m), the unmasked one
    // over [G·m, G·m + G·u), t − base its pair): a loop that starts where
    // the previous one on its rings ended continues its fills, so the
    // rings may take per-slot barriers and a producer.
    Value base = c0;
    for (const BlockRange &r : ranges) {
      Value len = im.sub(r.hi, r.lo);
      Value end = im.add(base, im.mul(group, len));
      auto loop = scf::ForOp::create(
          b, loc, base, end, one, acc,
          [&](OpBuilder &lb, Location ll, Value t, ValueRange args) {
            IndexMath lm{lb, ll};
            Value pair = lm.sub(t, base);
            Value g = arith::DivUIOp::create(lb, ll, pair, len);
            Value rem = arith::RemUIOp::create(lb, ll, pair, len);
            Value qb = lm.add(r.lo, rem);
            Value hIdx = lm.add(lm.mul(kvHead, group), g);
            scf::YieldOp::create(lb, ll, step(lb, ll, hIdx, qb, r, args));
          });
      acc.assign(loop.getResults().begin(), loop.getResults().end());
      base = end;
    }
  } else {
    // Σ over the G query heads of the group, then over their query blocks.
    auto heads = scf::ForOp::create(
        b, loc, c0, group, one, acc,
        [&](OpBuilder &hb, Location hl, Value g, ValueRange hArgs) {
          IndexMath hm{hb, hl};
          Value hIdx = hm.add(hm.mul(kvHead, group), g);
          scf::YieldOp::create(
              hb, hl,
              emitRanges(hb, hl, ranges, hArgs,
                         [&](OpBuilder &lb, Value qb, const BlockRange &r,
                             ValueRange args) {
                           return step(lb, loc, hIdx, qb, r, args);
                         }));
        });
    acc.assign(heads.getResults().begin(), heads.getResults().end());
  }
  if (gradTile)
    forall.getBody()->walk([&](scf::ForOp loop) {
      loop->setAttr(kScoreGradTileAttrName, b.getUnitAttr());
    });
  // dK = scale · Σ dSᵀ·Q;  dV = Σ Pᵀ·dO
  StoreTileOp::create(b, loc, gc.scaled(b, loc, acc[0]), op.getGradKey(), kvIdx,
                      kvRows);
  StoreTileOp::create(b, loc, acc[1], op.getGradValue(), kvIdx, kvRows);
  b.setInsertionPointAfter(forall);
}

} // namespace

LogicalResult mlir::attn::tiling::tileAttentionGrad(AttentionGradOp op,
                                                    TargetAttr target,
                                                    int64_t blockQ,
                                                    int64_t blockKV) {
  if (TargetAttr t = op.getTargetAttr())
    target = t;
  else
    for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
      if (auto t = p->getAttrOfType<TargetAttr>(kTargetAttrName)) {
        target = t;
        break;
      }
  if (target.isGPU() && !op.getElementType().isF16() &&
      !op.getElementType().isBF16())
    return op.emitError()
           << "unsupported: " << op.getElementType()
           << " attn.attention_grad on the GPU (the tensor cores take f16 "
              "and bf16; f32 runs on the CPU path)";
  // Past D = 128 the key-block grid's dK and dV accumulators outgrow the
  // registers of its mma.sync programs (D = 256: 668-964 bytes of spills on
  // sm_90a), and no GPU check has covered such kernels: refused, not slow.
  if (target.isGPU() &&
      std::max(op.getHeadDim(), op.getValueHeadDim()) > 128)
    return op.emitError()
           << "unsupported: attn.attention_grad with head dims above 128 on "
              "the GPU (got "
           << op.getHeadDim() << " and " << op.getValueHeadDim()
           << "; the CPU path runs them)";
  // No GPU check has covered a value head dim other than the key's (the
  // CPU path checks it against float64): refused there, not unchecked.
  if (target.isGPU() && op.getHeadDim() != op.getValueHeadDim())
    return op.emitError()
           << "unsupported: attn.attention_grad with head_dim_v ("
           << op.getValueHeadDim() << ") != head_dim (" << op.getHeadDim()
           << ") on the GPU (not checked on a GPU yet; the CPU path runs it)";
  // ALiBi reaches the tiling as the score_mod region attn-expand-alibi
  // writes (the pipelines' first pass).
  if (op.getAlibiSlopes())
    return op.emitError() << "alibi(...) must be expanded into a score_mod "
                             "region first (attn-expand-alibi)";
  GradContext gc{op,
                 target,
                 0,
                 0,
                 op.getHeadDim(),
                 op.getValueHeadDim(),
                 op.getElementType(),
                 Scale{},
                 op.getCausal()};
  gc.windowLeft = op.getWindowLeft().value_or(-1);
  gc.windowRight = op.getWindowRight().value_or(-1);
  int64_t elemBytes = gc.elemType.getIntOrFloatBitWidth() / 8;
  BlockSizes blocks = deriveBlockSizes(target, gc.d, gc.dv, elemBytes);
  // On a GPU, grid 1 holds S, dP and dQ in f32 registers: 64 queries
  // against 64 keys (mma.sync: four warps of 16 rows; 128 rows or 128 keys
  // no faster at D = 64, 1-30% slower at D = 128; wgmma: one warpgroup;
  // 128x64 and 128x128 within -4..+3%; H100/H200, bf16, 4k-16k), but 128
  // queries (two warpgroups) at D = 128 on wgmma: their rings then take
  // per-slot barriers and a producer warpgroup of bulk copies, as grid 2's
  // do: grad_q 5.79 -> 5.28 ms at 16k, 3.02 -> 2.70 causal, the backward
  // +3..+4% (H200, bf16, 4k / 16k, mirrored; one warpgroup behind a
  // producer, one program an SM, ran 24-31% slower).
  // Grid 2 holds dK and dV through its loops besides Sᵀ and dPᵀ: 32 queries
  // a step (mma.sync: 64 is 8-12% slower and spills at D = 128; wgmma: 64
  // is -20..+4% and spills 396 bytes causal at D = 128) against 64 keys, or
  // at D > 64 128 (wgmma: causal 8.6 -> 7.0 ms at 16k). On mma.sync with
  // the causal mask at D > 64, whose two loops keep more live, 64 keys
  // against 16 queries (32 spills 256 bytes at D = 128).
  int64_t brKV = blocks.blockQ, bcKV = blocks.blockKV;
  bool sumDqInKeyGrid = false, wgmmaGrids = false;
  if (target.isGPU()) {
    bool wide = gc.d > 64;
    // Where attn-assign-layouts gives the grids warpgroup MMA (16-bit
    // operands, checked above).
    bool wgmma = headDimsTakeWgmma(target, gc.d, gc.dv, /*forward=*/false);
    blocks = BlockSizes{wgmma && gc.d == 128 && gc.dv == 128 ? 128 : 64, 64};
    wgmmaGrids = wgmma;
    brKV = wide && gc.causal && !wgmma ? 16 : 32;
    bcKV = wide && (!gc.causal || wgmma) ? 128 : 64;
    // Flat loops (one per range, each continuing the previous one's
    // count) where the rings may then take per-slot barriers and a
    // producer warpgroup (two warpgroups of 64 keys), whose bulk copies
    // leave the consumers 240 registers: enough for 64 queries a step.
    // grad_kv D = 128 at 4k / 16k (H200, bf16, A B B A): nested loops
    // 3.59 / 14.5 ms; flat with a cp.async producer 3.46 / 13.6; with bulk
    // copies 3.38 / 13.3; and 64 queries a step 2.66 / 10.5 (the backward
    // 294 -> 348 TFLOP/s at 16k). Causal, with the masked loop pipelined
    // as well and under the same producer: 1.99 / 6.93 -> 1.53 / 5.41 ms
    // (the backward 254 / 288 -> 302 / 334). At D = 64 the flat loop's
    // division and remainder a step cost more than it gains (one
    // warpgroup: -10..-15%), and 128 keys behind a producer lose too
    // (grad_kv 3.34 / 12.2 -> 4.28 / 15.9 ms, causal 1.96 / 7.20 -> 2.31 /
    // 8.11).
    gc.flatKeyLoop = wgmma && wide;
    // With dropout too (its Philox rounds spill 148 bytes, 296 causal, at
    // 64 queries a step; 32 spill 0 / 20 bytes but ran 3-8% slower: H200,
    // bf16, 2k-16k).
    if (gc.flatKeyLoop)
      brKV = 64;
    // dQ summed in grid 2 where a workspace is given and that grid runs on
    // warpgroup MMA with dQᵀ's D rows its Bc rows (one 64-row block of D
    // per warpgroup, as its keys): dS is staged in shared memory for
    // dQᵀ = Kᵀ·dS as a wgmma operand of whole 128-byte slabs, 64 queries a
    // step.
    sumDqInKeyGrid = op.getDqAccum() && wgmma && bcKV == gc.d;
    if (sumDqInKeyGrid) {
      brKV = 64;
      // No grid 1: grad_prep and grad_q_out stream 64 rows a program.
      blocks.blockQ = 64;
    }
  }
  // Options override the derived sizes; the op's attributes the options.
  if (blockQ)
    blocks.blockQ = blockQ;
  if (blockKV)
    blocks.blockKV = blockKV;
  if (auto a = op.getBlockQAttr())
    blocks.blockQ = a.getInt();
  if (auto a = op.getBlockKvAttr())
    blocks.blockKV = a.getInt();
  gc.br = blocks.blockQ;
  gc.bc = blocks.blockKV;
  gc.separateDeltaLoad = wgmmaGrids && gc.br > 64;
  // An explicit block (option or attribute) holds for both grids.
  gc.brKV = blockQ || op.getBlockQAttr() ? blocks.blockQ : brKV;
  gc.bcKV = blockKV || op.getBlockKvAttr() ? blocks.blockKV : bcKV;
  gc.scale.dynamic = op.getDynamicScale();
  if (!gc.scale.dynamic)
    gc.scale.constant = static_cast<float>(op.getScaleValue());

  // (Blocks given by options or attributes still have to fit the form.)
  if (sumDqInKeyGrid && gc.bcKV == gc.d && gc.brKV % 64 == 0)
    gc.dqAccum = op.getDqAccum();

  OpBuilder b(op);
  Location loc = op.getLoc();
  // Grid 1 writes Δ (and zeroes the workspace), which grid 2 reads: they
  // run in this order, then grid 3.
  if (gc.dqAccum) {
    emitPrepGrid(b, loc, gc);
    emitKeyGrid(b, loc, gc);
    emitQueryOutGrid(b, loc, gc);
  } else {
    emitQueryGrid(b, loc, gc);
    emitKeyGrid(b, loc, gc);
  }
  op.erase();
  return success();
}
