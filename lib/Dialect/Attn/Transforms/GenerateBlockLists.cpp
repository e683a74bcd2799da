//===- GenerateBlockLists.cpp - block lists from the op's mask_mod -*- C++ -*-//
//
// attn.attention block_mask(%c, %x) mask_mod {...}  ==>
//   attn.block_lists %c, %x sizes(B, Hq, Nq, Nk) mask_mod {...}
//   attn.attention ...   (unchanged: it reads what the helper wrote)
//
//===----------------------------------------------------------------------===//
#include "attn/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNGENERATEBLOCKLISTS
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

struct AttnGenerateBlockLists
    : public mlir::attn::impl::AttnGenerateBlockListsBase<
          AttnGenerateBlockLists> {
  LogicalResult generate(AttentionOp op) {
    int64_t bk = op.getMaskBlockSizes().second;
    // K entries hold every key block of the problem (a static K and Nk).
    auto k = cast<MemRefType>(op.getKey().getType());
    for (Value list : {op.getBlockIndices(), op.getFullIndices()}) {
      if (!list)
        continue;
      int64_t entries = cast<MemRefType>(list.getType()).getDimSize(3);
      int64_t nk = k.getDimSize(2);
      if (!ShapedType::isDynamic(entries) && !ShapedType::isDynamic(nk) &&
          entries < (nk + bk - 1) / bk)
        return op.emitOpError()
               << "block lists of " << entries << " entries cannot hold the "
               << (nk + bk - 1) / bk << " key blocks of " << nk
               << " keys in blocks of " << bk
               << " (attn-generate-block-lists lists every visible block)";
    }
    // The helper writes the lists before the op: a mask_mod that reads
    // them would read what it is computing.
    SmallVector<Value> written = {op.getBlockCounts(), op.getBlockIndices()};
    if (op.hasFullBlocks())
      written.append({op.getFullCounts(), op.getFullIndices()});
    WalkResult reads = op.getMaskMod().walk([&](memref::LoadOp load) {
      if (llvm::is_contained(written, load.getMemRef()))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (reads.wasInterrupted())
      return op.emitOpError()
             << "unsupported: its mask_mod reads the block lists, which "
                "attn-generate-block-lists writes from it";
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto dim = [&](Value m, int64_t d) -> Value {
      return memref::DimOp::create(b, loc, m, d);
    };
    Value batch = dim(op.getQuery(), 0), heads = dim(op.getQuery(), 1),
          nq = dim(op.getQuery(), 2), nk = dim(op.getKey(), 2);
    auto lists = BlockListsOp::create(
        b, loc, op.getBlockCounts(), op.getBlockIndices(), op.getFullCounts(),
        op.getFullIndices(), batch, heads, nq, nk, op.getCausalAttr(),
        op.getWindowLeftAttr(), op.getWindowRightAttr(), op.getMaskBlockAttr(),
        op.getTargetAttr());
    IRMapping map;
    op.getMaskMod().cloneInto(&lists.getMaskMod(), map);
    return success();
  }

  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) {
      if (op.hasBlockMask() && op.hasMaskMod())
        ops.push_back(op);
    });
    for (AttentionOp op : ops)
      if (failed(generate(op)))
        return signalPassFailure();
  }
};

} // namespace
