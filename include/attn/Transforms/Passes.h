//===- Passes.h - attn transformation passes --------------------*- C++ -*-===//
#ifndef ATTN_TRANSFORMS_PASSES_H
#define ATTN_TRANSFORMS_PASSES_H

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <string>

namespace mlir::attn {

#define GEN_PASS_DECL
#include "attn/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "attn/Transforms/Passes.h.inc"

/// Whether `op` is, or lies in, a grid of the backward pass (attn.program
/// "grad_q" or "grad_kv"): the scheduling passes written for the forward's
/// key/value loop (pipelining, rotation, warp specialisation, persistence,
/// deferred row sums, wgmma layouts) leave such grids alone.
bool isBackwardGrid(Operation *op);

/// Block sizes (rows of a query block Br, rows of a key/value block Bc).
struct BlockSizes {
  int64_t blockQ;
  int64_t blockKV;
};

/// The default block sizes for head dims d (Q, K) and dv (V) with elements
/// of `elemBytes` bytes on `target`: the FlashAttention rule Bc = ceil(M/4d),
/// Br = min(Bc, d), M the on-chip memory in elements, rounded down to powers
/// of two, clamped to [16, 128], then shrunk until Q, K and V tiles fit.
BlockSizes deriveBlockSizes(TargetAttr target, int64_t d, int64_t dv,
                            int64_t elemBytes);

/// A query block other than attn-select-gpu-blocks' default that pays only
/// for some sequence lengths: `rows` query rows for problems of `minSeqQ`
/// to `maxSeqQ` query rows (0: no bound). A static sequence length in that
/// range takes it; the bundle builds it beside the default kernel and the
/// runtime picks it from the length.
struct QueryBlockTwin {
  int64_t rows = 0;
  int64_t minSeqQ = 0;
  int64_t maxSeqQ = 0;
  bool covers(int64_t seqQ) const {
    return seqQ >= minSeqQ && (!maxSeqQ || seqQ <= maxSeqQ);
  }
};
/// The twins of the default query block on `target` (none off wgmma): for
/// the forward a taller block for long sequences at D = 64, a 64-row one
/// for at most 64 rows (a decode step's packed query heads) where the
/// default has 128; over a KV cache (`kvCache`) only the short one. With
/// `packedHeads` (pack_query_heads: at most 128 packed rows) only the
/// shorter ones, and for a `splitKv` program (none unpacked) a 128-row one
/// from 65 packed rows where the default has 64.
SmallVector<QueryBlockTwin, 2>
queryBlockTwins(TargetAttr target, int64_t headDim, int64_t headDimV,
                bool causal, bool kvCache, bool packedHeads = false,
                bool splitKv = false);

/// Bytes of on-chip memory a (Br, Bc) tiling needs: one Q block and one K
/// and one V block.
int64_t tileFootprintBytes(BlockSizes b, int64_t d, int64_t dv,
                           int64_t elemBytes);

} // namespace mlir::attn

#endif // ATTN_TRANSFORMS_PASSES_H
