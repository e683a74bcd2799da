//===- TileBlockLists.cpp - attn.block_lists as a loop program --*- C++ -*-===//
//
// attn.block_lists  ==>  scf.forall over the lists' rows (b', h', qb); each
// program walks the key blocks in increasing order, classifies each from the
// mask_mod evaluated key by key (scalar code: the region's own ops), and
// appends it to the partial or the full list (part of attn-tile-attention).
//
//===----------------------------------------------------------------------===//
#include "TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

} // namespace

LogicalResult mlir::attn::tiling::tileBlockLists(BlockListsOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  IndexMath im{b, loc};
  auto [bq, bk] = op.getMaskBlockSizes();
  Value counts = op.getBlockCounts(), indices = op.getBlockIndices();
  Value fullCounts = op.getFullCounts(), fullIndices = op.getFullIndices();
  Value rowsB = im.dim(counts, 0), rowsH = im.dim(counts, 1),
        rowsQ = im.dim(counts, 2);
  Value cap = im.dim(indices, 3);
  Value fullCap = fullIndices ? im.dim(fullIndices, 3) : Value();
  Value nq = op.getQLen(), nk = op.getKvLen();
  Block &body = op.getMaskMod().front();

  auto forall =
      scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{rowsB, rowsH, rowsQ},
                            ValueRange{}, std::nullopt);
  forall->setAttr(kCPUOnlyAttrName, b.getUnitAttr());
  b.setInsertionPointToStart(forall.getBody());
  SmallVector<Value> row = {forall.getInductionVar(0),
                            forall.getInductionVar(1),
                            forall.getInductionVar(2)};
  auto [bLo, bHi] = span(im, rowsB, row[0], op.getBatch());
  auto [hLo, hHi] = span(im, rowsH, row[1], op.getHeads());
  Value qLo = im.mul(row[2], im.cst(bq));
  Value qHi = im.min(nq, im.add(qLo, im.cst(bq)));
  // Row i sees keys [first(i), last(i)) (bottom-right aligned, d = Nk − Nq):
  //   first(i) = max(i + d − L, 0)        (0 without a left bound)
  //   last(i)  = min(i + d + R + 1, Nk)   (R = 0 causal; Nk without a bound)
  Value diag = im.sub(nk, nq);
  std::optional<int64_t> left, right;
  if (auto l = op.getWindowLeft())
    left = int64_t(*l);
  if (op.getCausal())
    right = 0;
  else if (auto r = op.getWindowRight())
    right = int64_t(*r);
  Value c0 = im.cst(0), c1 = im.cst(1);
  auto firstKey = [&](IndexMath &m, Value i) -> Value {
    if (!left)
      return c0;
    return m.max(m.sub(m.add(i, diag), m.cst(*left)), c0);
  };
  auto lastKey = [&](IndexMath &m, Value i) -> Value {
    if (!right)
      return nk;
    return m.min(m.add(m.add(i, diag), m.cst(*right + 1)), nk);
  };
  Type i32 = b.getI32Type();

  Value numBlocks = im.ceilDiv(nk, im.cst(bk));
  SmallVector<Value> inits = {c0};
  if (fullIndices)
    inits.push_back(c0);
  auto blocks = scf::ForOp::create(
      b, loc, c0, numBlocks, c1, inits,
      [&](OpBuilder &lb, Location l, Value kb, ValueRange args) {
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
                            Value jLo =
                                seenOnly ? m.max(kLo, firstKey(m, i)) : kLo;
                            Value jHi =
                                seenOnly ? m.min(kHi, lastKey(m, i)) : kHi;
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
        Value kbI32 = arith::IndexCastOp::create(lb, l, i32, kb);
        SmallVector<Value> next;
        Value part = visible;
        if (fullIndices) {
          // full = visible ∧ the mask_mod keeps every key of the block
          // (looked at only where visible).
          auto branch = scf::IfOp::create(lb, l, TypeRange{lb.getI1Type()},
                                          visible, /*withElseRegion=*/true);
          OpBuilder tb = branch.getThenBodyBuilder();
          scf::YieldOp::create(tb, l,
                               overKeys(tb, l, /*decided=*/false,
                                        /*seenOnly=*/false));
          OpBuilder eb = branch.getElseBodyBuilder();
          Value no = arith::ConstantOp::create(eb, l, eb.getBoolAttr(false));
          scf::YieldOp::create(eb, l, no);
          Value full = branch.getResult(0);
          Value notFull = arith::XOrIOp::create(
              lb, l, full,
              arith::ConstantOp::create(lb, l, lb.getBoolAttr(true)));
          part = arith::AndIOp::create(lb, l, visible, notFull);
          next.push_back(
              append(lb, l, part, kbI32, args[0], cap, indices, row));
          next.push_back(
              append(lb, l, full, kbI32, args[1], fullCap, fullIndices, row));
        } else {
          next.push_back(
              append(lb, l, part, kbI32, args[0], cap, indices, row));
        }
        scf::YieldOp::create(lb, l, next);
      });
  // count = min(n, K): a list longer than its K entries is cut there (a
  // precondition excludes it; memory stays safe).
  auto storeCount = [&](Value n, Value c, Value list) {
    Value kept = im.min(n, c);
    memref::StoreOp::create(
        b, loc, arith::IndexCastOp::create(b, loc, i32, kept), list, row);
  };
  storeCount(blocks.getResult(0), cap, counts);
  if (fullIndices)
    storeCount(blocks.getResult(1), fullCap, fullCounts);
  op.erase();
  return success();
}
