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

/// A lane's part of a warp's search over keys [lo, hi): x = lo, lo + 32,
/// ... (lo already offset by the lane), the same or/and reduction as
/// search's innermost loop (no branch).
Value strided(OpBuilder &b, Location loc, Value lo, Value hi, bool decided,
              Body body) {
  Value init = arith::ConstantOp::create(b, loc, b.getBoolAttr(!decided));
  Value step = arith::ConstantIndexOp::create(b, loc, 32);
  auto loop = scf::ForOp::create(
      b, loc, lo, hi, step, ValueRange{init},
      [&](OpBuilder &lb, Location l, Value x, ValueRange args) {
        Value p = body(lb, l, x);
        Value r = decided ? Value(arith::OrIOp::create(lb, l, args[0], p))
                          : Value(arith::AndIOp::create(lb, l, args[0], p));
        scf::YieldOp::create(lb, l, r);
      });
  return loop.getResult(0);
}

/// The warp's answer from its lanes' (i1): any (decided true) or all, by a
/// butterfly of shuffles (every lane gets it):
///   v = v ∨ shuffle_xor(v, d)  (∧ for all), d = 16, 8, 4, 2, 1.
Value warpCombine(OpBuilder &b, Location loc, Value mine, bool decided) {
  Value v = arith::ExtUIOp::create(b, loc, b.getI32Type(), mine);
  for (int32_t d = 16; d >= 1; d /= 2) {
    auto other =
        gpu::ShuffleOp::create(b, loc, v, d, 32, gpu::ShuffleMode::XOR);
    Value o = other.getShuffleResult();
    v = decided ? Value(arith::OrIOp::create(b, loc, v, o))
                : Value(arith::AndIOp::create(b, loc, v, o));
  }
  return arith::TruncIOp::create(b, loc, b.getI1Type(), v);
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
    // A mask_mod that does not read b (or h) gives every batch (head) the
    // same answer: one is enough (a row shared by 32 heads is not searched
    // 32 times).
    if (body.getArgument(0).use_empty())
      bHi = im.min(bHi, im.add(bLo, im.cst(1)));
    if (body.getArgument(1).use_empty())
      hHi = im.min(hHi, im.add(hLo, im.cst(1)));
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
  /// lists; at most one of them true). With `lane` (GPU: a warp classifies
  /// one block), lane l looks at keys jLo + l, jLo + l + 32, ... of each
  /// query row and the warp combines its lanes' answers after the row, so
  /// that every lane holds the block's kind and leaves the search with
  /// the others.
  std::pair<Value, Value> classify(OpBuilder &lb, Location l, Value kb,
                                   Value lane = Value()) {
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
                        auto key = [&](OpBuilder &b4, Location l4, Value j) {
                          return evalMask(b4, l4, body, bb, hh, i, j);
                        };
                        if (!lane)
                          return search(b3, l3, jLo, jHi, decided,
                                        /*early=*/false, key);
                        Value mine = strided(b3, l3, m.add(jLo, lane), jHi,
                                             decided, key);
                        return warpCombine(b3, l3, mine, decided);
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

/// The lists an attn.block_lists writes and its rows (the counts' dims).
struct ListOperands {
  Value counts, indices, fullCounts, fullIndices, rowsB, rowsH, rowsQ;
  static ListOperands of(BlockListsOp op, IndexMath &im) {
    Value counts = op.getBlockCounts();
    return {counts,
            op.getBlockIndices(),
            op.getFullCounts(),
            op.getFullIndices(),
            im.dim(counts, 0),
            im.dim(counts, 1),
            im.dim(counts, 2)};
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
  auto [counts, indices, fullCounts, fullIndices, rowsB, rowsH, rowsQ] =
      ListOperands::of(op, im);
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

/// Warps of a GPU block_lists program: a row's key blocks are classified
/// that many at a time.
constexpr int64_t kListWarps = 16;

/// The GPU program: a thread block of kListWarps warps per list row.
/// (1) Warp w classifies key blocks w, w + W, ... (its lanes splitting
/// each query row's keys) and lane 0 writes the block's kind (0 none,
/// 1 partial, 2 full) into the row's own list entry kb: K >= ceil(Nk / BK)
/// entries (the op's precondition; blocks from K on are not looked at).
/// (2) After a barrier, warp 0 compacts the row in place, 32 entries a
/// step: a listed block's entry is the count so far plus the listed
/// blocks of the lanes below it,
///   pos(lane) = n + Σ_{l < lane} listed(l),   n += Σ_l listed(l),
/// never past its own entry (pos <= kb), and every lane reads its kind
/// before any lane writes; lane 0 stores the counts. Grid dims beyond the
/// lists' rows (a launcher sizes them from batch and heads) do nothing.
void tileForGPU(BlockListsOp op, TargetAttr target) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  IndexMath im{b, loc};
  auto [counts, indices, fullCounts, fullIndices, rowsB, rowsH, rowsQ] =
      ListOperands::of(op, im);
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
  // The thread's index bounds the launch's block (upper_bound): the
  // kernel's thread count.
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x,
                                      b.getIndexAttr(32 * kListWarps));
  Value lane = arith::RemUIOp::create(b, loc, tid, im.cst(32));
  Value warp = arith::DivUIOp::create(b, loc, tid, im.cst(32));
  Value c0 = im.cst(0);
  Value numBlocks = im.ceilDiv(rc.nk, im.cst(bk));
  Value stored = im.min(numBlocks, cap);
  Value zero32 = arith::ConstantIntOp::create(b, loc, i32, 0);
  Value one32 = arith::ConstantIntOp::create(b, loc, i32, 1);
  Value two32 = arith::ConstantIntOp::create(b, loc, i32, 2);

  // (1) kinds: kind = partial ? 1 : full ? 2 : 0, into entry kb.
  scf::ForOp::create(
      b, loc, warp, stored, im.cst(kListWarps), ValueRange{},
      [&](OpBuilder &lb, Location l, Value kb, ValueRange) {
        auto [part, full] = rc.classify(lb, l, kb, lane);
        Value fullKind = arith::SelectOp::create(lb, l, full, two32, zero32);
        Value kind = arith::SelectOp::create(lb, l, part, one32, fullKind);
        Value lane0 = arith::ConstantIndexOp::create(lb, l, 0);
        Value first =
            arith::CmpIOp::create(lb, l, arith::CmpIPredicate::eq, lane, lane0);
        auto write = scf::IfOp::create(lb, l, TypeRange{}, first,
                                       /*withElseRegion=*/false);
        OpBuilder wb = write.getThenBodyBuilder();
        SmallVector<Value> idx(row.begin(), row.end());
        idx.push_back(kb);
        memref::StoreOp::create(wb, l, kind, indices, idx);
        scf::YieldOp::create(lb, l);
      });
  gpu::BarrierOp::create(b, loc);

  // (2) warp 0 compacts the kinds into the lists.
  Value isWarp0 =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp, c0);
  auto compact = scf::IfOp::create(b, loc, TypeRange{}, isWarp0,
                                   /*withElseRegion=*/false);
  b.setInsertionPointToStart(compact.thenBlock());
  Value isLane0 =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, c0);
  SmallVector<Value> inits = {c0};
  if (fullIndices)
    inits.push_back(c0);
  auto steps = scf::ForOp::create(
      b, loc, c0, stored, im.cst(32), inits,
      [&](OpBuilder &lb, Location l, Value kb0, ValueRange args) {
        IndexMath lm{lb, l};
        Value kb = lm.add(kb0, lane);
        Value active =
            arith::CmpIOp::create(lb, l, arith::CmpIPredicate::slt, kb, stored);
        auto read = scf::IfOp::create(lb, l, TypeRange{i32}, active,
                                      /*withElseRegion=*/true);
        {
          OpBuilder tb = read.getThenBodyBuilder();
          SmallVector<Value> idx(row.begin(), row.end());
          idx.push_back(kb);
          Value kind = memref::LoadOp::create(tb, l, indices, idx);
          scf::YieldOp::create(tb, l, kind);
          OpBuilder eb = read.getElseBodyBuilder();
          scf::YieldOp::create(eb, l, zero32);
        }
        Value kind = read.getResult(0);
        Value part =
            arith::CmpIOp::create(lb, l, arith::CmpIPredicate::eq, kind, one32);
        Value full =
            arith::CmpIOp::create(lb, l, arith::CmpIPredicate::eq, kind, two32);
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
        SmallVector<Value> next = {place(part, args[0], cap, indices)};
        if (fullIndices)
          next.push_back(place(full, args[1], fullCap, fullIndices));
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
