//===- TileBlockLists.cpp - attn.block_lists as a loop program --*- C++ -*-===//
//
// attn.block_lists  ==>  scf.forall over the lists' rows (b', h', qb); each
// program classifies the key blocks from the mask_mod evaluated key by key
// (scalar code: the region's own ops) and appends them, in increasing
// order, to the partial or the full list (part of attn-tile-attention).
// On the CPU a program walks the blocks one by one; on a GPU a program is
// one warp, its 32 lanes classifying 32 blocks at a time and placing them
// by a prefix count across the lanes.
//
//===----------------------------------------------------------------------===//
#include "TileUtils.h"
#include "attn/runtime/KernelABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::tiling;

namespace {

using Body = llvm::function_ref<Value(OpBuilder &, Location, Value)>;

/// acc over x in [lo, hi): a loop carrying one i1,
///   any: acc = acc ∨ p(x)     all: acc = acc ∧ p(x)
/// With `early` it stops looking once acc equals `decided` (true: "any",
/// false: "all"), each later step a branch; without, every step evaluates
/// p, a loop LLVM vectorizes (the innermost loop over keys: one block row
/// of the mask at a time).
Value search(OpBuilder &b, Location loc, Value lo, Value hi, bool decided,
             bool early, Body body) {
  Type i1 = b.getI1Type();
  Value init = arith::ConstantOp::create(b, loc, b.getBoolAttr(!decided));
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, lo, hi, one, ValueRange{init},
      [&](OpBuilder &lb, Location l, Value x, ValueRange args) {
        Value acc = args[0];
        if (!early) {
          Value p = body(lb, l, x);
          Value r = decided ? Value(arith::OrIOp::create(lb, l, acc, p))
                            : Value(arith::AndIOp::create(lb, l, acc, p));
          scf::YieldOp::create(lb, l, r);
          return;
        }
        Value target =
            arith::ConstantOp::create(lb, l, lb.getBoolAttr(decided));
        Value done = arith::CmpIOp::create(lb, l, arith::CmpIPredicate::eq,
                                           acc, target);
        auto branch = scf::IfOp::create(lb, l, TypeRange{i1}, done,
                                        /*withElseRegion=*/true);
        OpBuilder tb = branch.getThenBodyBuilder();
        scf::YieldOp::create(tb, l, acc);
        OpBuilder eb = branch.getElseBodyBuilder();
        Value r = body(eb, l, x);
        scf::YieldOp::create(eb, l, r);
        scf::YieldOp::create(lb, l, branch.getResult(0));
      });
  return loop.getResult(0);
}

/// The mask_mod body at one (b, h, i, j) (index values), as the scalar code
/// it is: its i1 result.
Value evalMask(OpBuilder &b, Location loc, Block &body, Value bIdx, Value hIdx,
               Value i, Value j) {
  IRMapping map;
  Type i32 = b.getI32Type();
  Value args[] = {bIdx, hIdx, i, j};
  for (auto [arg, v] : llvm::zip(body.getArguments(), args))
    map.map(arg, arith::IndexCastOp::create(b, loc, i32, v));
  for (Operation &o : body.without_terminator())
    b.clone(o, map);
  return map.lookup(body.getTerminator()->getOperand(0));
}

/// The (b, h) span [lo, hi) of list row `idx` along a dim of `size`
/// entries: all of [0, total) where the lists' dim is 1 (it covers every
/// batch or head), else idx alone.
std::pair<Value, Value> span(IndexMath &im, Value size, Value idx,
                             Value total) {
  Value one = arith::CmpIOp::create(im.b, im.loc, arith::CmpIPredicate::eq,
                                    size, im.cst(1));
  Value lo = arith::SelectOp::create(im.b, im.loc, one, im.cst(0), idx);
  Value hi =
      arith::SelectOp::create(im.b, im.loc, one, total, im.add(idx, im.cst(1)));
  return {lo, hi};
}

/// Appends key block `kb` (i32) at entry `n` of a list row when `take`,
/// within the row's `cap` entries; returns n + take.
Value append(OpBuilder &b, Location loc, Value take, Value kb, Value n,
             Value cap, Value indices, ValueRange row) {
  IndexMath im{b, loc};
  Value room = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, n, cap);
  Value store = arith::AndIOp::create(b, loc, take, room);
  auto branch = scf::IfOp::create(b, loc, TypeRange{}, store,
                                  /*withElseRegion=*/false);
  {
    OpBuilder tb = branch.getThenBodyBuilder();
    SmallVector<Value> idx(row.begin(), row.end());
    idx.push_back(n);
    memref::StoreOp::create(tb, loc, kb, indices, idx);
  }
  Value step = arith::SelectOp::create(b, loc, take, im.cst(1), im.cst(0));
  return im.add(n, step);
}

/// One list row's classification of key blocks: what both lowerings share.
struct RowClassifier {
  BlockListsOp op;
  int64_t bq, bk;
  Block &body;
  Value nq, nk, bLo, bHi, hLo, hHi, qLo, qHi, diag, c0;
  std::optional<int64_t> left, right;
  bool withFull;

  /// The row (b', h', qb) of lists with (rowsB, rowsH) rows.
  RowClassifier(IndexMath &im, BlockListsOp op, Value rowsB, Value rowsH,
                ValueRange row)
      : op(op), body(op.getMaskMod().front()) {
    std::tie(bq, bk) = op.getMaskBlockSizes();
    nq = op.getQLen();
    nk = op.getKvLen();
    std::tie(bLo, bHi) = span(im, rowsB, row[0], op.getBatch());
    std::tie(hLo, hHi) = span(im, rowsH, row[1], op.getHeads());
    qLo = im.mul(row[2], im.cst(bq));
    qHi = im.min(nq, im.add(qLo, im.cst(bq)));
    diag = im.sub(nk, nq);
    c0 = im.cst(0);
    if (auto l = op.getWindowLeft())
      left = int64_t(*l);
    if (op.getCausal())
      right = 0;
    else if (auto r = op.getWindowRight())
      right = int64_t(*r);
    withFull = bool(op.getFullIndices());
  }

  // Row i sees keys [first(i), last(i)) (bottom-right aligned, d = Nk − Nq):
  //   first(i) = max(i + d − L, 0)        (0 without a left bound)
  //   last(i)  = min(i + d + R + 1, Nk)   (R = 0 causal; Nk without a bound)
  Value firstKey(IndexMath &m, Value i) {
    if (!left)
      return c0;
    return m.max(m.sub(m.add(i, diag), m.cst(*left)), c0);
  }
  Value lastKey(IndexMath &m, Value i) {
    if (!right)
      return nk;
    return m.min(m.add(m.add(i, diag), m.cst(*right + 1)), nk);
  }

  /// Key block kb's kind: (partial, full) as i1 (full false without full
  /// lists; at most one of them true).
  std::pair<Value, Value> classify(OpBuilder &lb, Location l, Value kb) {
    IndexMath lm{lb, l};
    Value kLo = lm.mul(kb, lm.cst(bk));
    Value kHi = lm.min(nk, lm.add(kLo, lm.cst(bk)));
    // Over every (b, h) of the row and query i of the block, the keys
    // of the block in i's range [first(i), last(i)), or all of them.
    auto overKeys = [&](OpBuilder &ob, Location ol, bool decided,
                        bool seenOnly) -> Value {
      return search(
          ob, ol, bLo, bHi, decided, /*early=*/true,
          [&](OpBuilder &b1, Location l1, Value bb) {
            return search(
                b1, l1, hLo, hHi, decided, /*early=*/true,
                [&](OpBuilder &b2, Location l2, Value hh) {
                  return search(
                      b2, l2, qLo, qHi, decided, /*early=*/true,
                      [&](OpBuilder &b3, Location l3, Value i) {
                        IndexMath m{b3, l3};
                        Value jLo = seenOnly ? m.max(kLo, firstKey(m, i)) : kLo;
                        Value jHi = seenOnly ? m.min(kHi, lastKey(m, i)) : kHi;
                        return search(
                            b3, l3, jLo, jHi, decided, /*early=*/false,
                            [&](OpBuilder &b4, Location l4, Value j) {
                              return evalMask(b4, l4, body, bb, hh, i, j);
                            });
                      });
                });
          });
    };
    // visible = ∃ seen key the mask_mod keeps.
    Value visible = overKeys(lb, l, /*decided=*/true, /*seenOnly=*/true);
    Value no = arith::ConstantOp::create(lb, l, lb.getBoolAttr(false));
    if (!withFull)
      return {visible, no};
    // full = visible ∧ the mask_mod keeps every key of the block (looked at
    // only where visible); partial = visible ∧ ¬full.
    auto branch = scf::IfOp::create(lb, l, TypeRange{lb.getI1Type()}, visible,
                                    /*withElseRegion=*/true);
    OpBuilder tb = branch.getThenBodyBuilder();
    scf::YieldOp::create(
        tb, l, overKeys(tb, l, /*decided=*/false, /*seenOnly=*/false));
    OpBuilder eb = branch.getElseBodyBuilder();
    Value no2 = arith::ConstantOp::create(eb, l, eb.getBoolAttr(false));
    scf::YieldOp::create(eb, l, no2);
    Value full = branch.getResult(0);
    Value yes = arith::ConstantOp::create(lb, l, lb.getBoolAttr(true));
    Value notFull = arith::XOrIOp::create(lb, l, full, yes);
    Value part = arith::AndIOp::create(lb, l, visible, notFull);
    return {part, full};
  }
};

/// count = min(n, K) into the row's count: a list longer than its K
/// entries is cut there (a precondition excludes it; memory stays safe).
void storeCount(IndexMath &im, Value n, Value cap, Value counts,
                ValueRange row) {
  Value kept = im.min(n, cap);
  Value kept32 =
      arith::IndexCastOp::create(im.b, im.loc, im.b.getI32Type(), kept);
  memref::StoreOp::create(im.b, im.loc, kept32, counts, row);
}

/// The CPU program: a parallel loop over the rows, each walking its key
/// blocks in order.
void tileForCPU(BlockListsOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  IndexMath im{b, loc};
  Value counts = op.getBlockCounts(), indices = op.getBlockIndices();
  Value fullCounts = op.getFullCounts(), fullIndices = op.getFullIndices();
  Value rowsB = im.dim(counts, 0), rowsH = im.dim(counts, 1),
        rowsQ = im.dim(counts, 2);
  Value cap = im.dim(indices, 3);
  Value fullCap = fullIndices ? im.dim(fullIndices, 3) : Value();

  auto forall =
      scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{rowsB, rowsH, rowsQ},
                            ValueRange{}, std::nullopt);
  forall->setAttr(kCPUOnlyAttrName, b.getUnitAttr());
  b.setInsertionPointToStart(forall.getBody());
  SmallVector<Value> row = {forall.getInductionVar(0),
                            forall.getInductionVar(1),
                            forall.getInductionVar(2)};
  RowClassifier rc(im, op, rowsB, rowsH, row);
  Type i32 = b.getI32Type();
  Value c0 = im.cst(0), c1 = im.cst(1);
  Value numBlocks = im.ceilDiv(rc.nk, im.cst(rc.bk));
  SmallVector<Value> inits = {c0};
  if (fullIndices)
    inits.push_back(c0);
  auto blocks = scf::ForOp::create(
      b, loc, c0, numBlocks, c1, inits,
      [&](OpBuilder &lb, Location l, Value kb, ValueRange args) {
        auto [part, full] = rc.classify(lb, l, kb);
        Value kbI32 = arith::IndexCastOp::create(lb, l, i32, kb);
        SmallVector<Value> next = {
            append(lb, l, part, kbI32, args[0], cap, indices, row)};
        if (fullIndices)
          next.push_back(
              append(lb, l, full, kbI32, args[1], fullCap, fullIndices, row));
        scf::YieldOp::create(lb, l, next);
      });
  storeCount(im, blocks.getResult(0), cap, counts, row);
  if (fullIndices)
    storeCount(im, blocks.getResult(1), fullCap, fullCounts, row);
}

/// Σ over lanes ≤ this one of `v` (i32) in a warp of 32 lanes:
///   v += shuffle_up(v, d) for d = 1, 2, 4, 8, 16 (lanes below d keep v).
Value inclusiveLaneSum(OpBuilder &b, Location loc, Value v) {
  for (int32_t d = 1; d < 32; d *= 2) {
    auto up = gpu::ShuffleOp::create(b, loc, v, d, 32, gpu::ShuffleMode::UP);
    Value sum = arith::AddIOp::create(b, loc, v, up.getShuffleResult());
    v = arith::SelectOp::create(b, loc, up.getValid(), sum, v);
  }
  return v;
}

/// The GPU program: a grid of one warp per list row. Each step its lanes
/// classify key blocks kb0 + lane; a listed block's entry is the row's
/// count so far plus the listed blocks of the lanes below it,
///   pos(lane) = n + Σ_{l < lane} listed(l),   n += Σ_l listed(l),
/// so the list stays in increasing kb as on the CPU. Lane 0 stores the
/// counts. Grid dims beyond the lists' rows (a launcher sizes them from
/// batch and heads) do nothing.
void tileForGPU(BlockListsOp op, TargetAttr target) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  IndexMath im{b, loc};
  Value counts = op.getBlockCounts(), indices = op.getBlockIndices();
  Value fullCounts = op.getFullCounts(), fullIndices = op.getFullIndices();
  Value rowsB = im.dim(counts, 0), rowsH = im.dim(counts, 1),
        rowsQ = im.dim(counts, 2);
  auto [bq, bk] = op.getMaskBlockSizes();

  // Mapped to the thread blocks as the tile grids are (launch x, y, z =
  // dims 2, 1, 0); a mapped forall also keeps its dims of one.
  MLIRContext *ctx = b.getContext();
  ArrayAttr mapping = b.getArrayAttr(
      {gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimZ),
       gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimY),
       gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimX)});
  auto forall =
      scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{rowsB, rowsH, rowsQ},
                            ValueRange{}, mapping);
  forall->setAttr(kTargetAttrName, target);
  forall->setAttr(kProgramAttrName, b.getStringAttr(::attn::programName(
                                        ::attn::Program::BlockLists)));
  forall->setAttr(kMaskBlockAttrName, b.getDenseI64ArrayAttr({bq, bk}));
  // The launch dims a launcher computes: batch and heads where the lists
  // have a row per batch or head (a dim of 1 covers them all).
  auto countsType = cast<MemRefType>(counts.getType());
  auto factor = [&](int64_t d, ::attn::GridFactor f) -> std::string {
    return countsType.getDimSize(d) == 1 ? "1" : ::attn::gridFactorName(f);
  };
  forall->setAttr(
      kGridAttrName,
      b.getStrArrayAttr({factor(0, ::attn::GridFactor::Batch),
                         factor(1, ::attn::GridFactor::HeadsQ),
                         ::attn::gridFactorName(::attn::GridFactor::QBlocks)}));

  b.setInsertionPointToStart(forall.getBody());
  SmallVector<Value> row = {forall.getInductionVar(0),
                            forall.getInductionVar(1),
                            forall.getInductionVar(2)};
  // Rows the launch has beyond the lists' (read at run time).
  Value inRows;
  for (auto [d, idx] : llvm::enumerate(row)) {
    Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, idx,
                                     im.dim(counts, d));
    inRows = inRows ? Value(arith::AndIOp::create(b, loc, inRows, in)) : in;
  }
  auto guard = scf::IfOp::create(b, loc, TypeRange{}, inRows,
                                 /*withElseRegion=*/false);
  b.setInsertionPointToStart(guard.thenBlock());
  Value cap = im.dim(indices, 3);
  Value fullCap = fullIndices ? im.dim(fullIndices, 3) : Value();
  RowClassifier rc(im, op, im.dim(counts, 0), im.dim(counts, 1), row);
  Type i32 = b.getI32Type();
  Value lane = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value isLane0 =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, im.cst(0));
  Value c0 = im.cst(0);
  Value numBlocks = im.ceilDiv(rc.nk, im.cst(bk));
  SmallVector<Value> inits = {c0};
  if (fullIndices)
    inits.push_back(c0);
  auto steps = scf::ForOp::create(
      b, loc, c0, numBlocks, im.cst(32), inits,
      [&](OpBuilder &lb, Location l, Value kb0, ValueRange args) {
        IndexMath lm{lb, l};
        Value kb = lm.add(kb0, lane);
        Value active = arith::CmpIOp::create(lb, l, arith::CmpIPredicate::slt,
                                             kb, numBlocks);
        auto kinds = scf::IfOp::create(
            lb, l, TypeRange{lb.getI1Type(), lb.getI1Type()}, active,
            /*withElseRegion=*/true);
        {
          OpBuilder tb = kinds.getThenBodyBuilder();
          auto [part, full] = rc.classify(tb, l, kb);
          scf::YieldOp::create(tb, l, ValueRange{part, full});
          OpBuilder eb = kinds.getElseBodyBuilder();
          Value no = arith::ConstantOp::create(eb, l, eb.getBoolAttr(false));
          scf::YieldOp::create(eb, l, ValueRange{no, no});
        }
        Value kbI32 = arith::IndexCastOp::create(lb, l, i32, kb);
        // Each list: the lane's entry from the prefix count, n advanced by
        // the step's total (lane 31's inclusive count).
        auto place = [&](Value take, Value n, Value listCap,
                         Value list) -> Value {
          Value t = arith::ExtUIOp::create(lb, l, i32, take);
          Value incl = inclusiveLaneSum(lb, l, t);
          auto total = gpu::ShuffleOp::create(lb, l, incl, 31, 32,
                                              gpu::ShuffleMode::IDX);
          Value below = arith::SubIOp::create(lb, l, incl, t);
          Value before =
              arith::IndexCastOp::create(lb, l, lb.getIndexType(), below);
          append(lb, l, take, kbI32, lm.add(n, before), listCap, list, row);
          Value step = arith::IndexCastOp::create(lb, l, lb.getIndexType(),
                                                  total.getShuffleResult());
          return lm.add(n, step);
        };
        SmallVector<Value> next = {
            place(kinds.getResult(0), args[0], cap, indices)};
        if (fullIndices)
          next.push_back(
              place(kinds.getResult(1), args[1], fullCap, fullIndices));
        scf::YieldOp::create(lb, l, next);
      });
  auto store = scf::IfOp::create(b, loc, TypeRange{}, isLane0,
                                 /*withElseRegion=*/false);
  OpBuilder sb = store.getThenBodyBuilder();
  IndexMath sm{sb, loc};
  storeCount(sm, steps.getResult(0), cap, counts, row);
  if (fullIndices)
    storeCount(sm, steps.getResult(1), fullCap, fullCounts, row);
}

} // namespace

LogicalResult mlir::attn::tiling::tileBlockLists(BlockListsOp op,
                                                 TargetAttr fallback) {
  TargetAttr target = op.getTargetAttr();
  for (Operation *p = op->getParentOp(); !target && p; p = p->getParentOp())
    target = p->getAttrOfType<TargetAttr>(kTargetAttrName);
  if (!target)
    target = fallback;
  if (target && target.isGPU())
    tileForGPU(op, target);
  else
    tileForCPU(op);
  op.erase();
  return success();
}
