//===- AlternateWarpgroups.cpp - ping-pong between warpgroups ---*- C++ -*-===//
//
// The warpgroups of a wgmma program run the same schedule. Left alone they
// tend to reach Q·Kᵀ together, then compute their softmax together while
// the tensor cores idle. Taking turns at issuing the products staggers
// them:
//
//   attn.start_turns                        (program start)
//   scf.for j {
//     attn.await_turn
//     S' = attn.dot Q, K_j {rhs_transposed, async}
//     attn.pass_turn
//     S = attn.dot_wait S'
//     softmax(S) ...                        (runs under the next warpgroup's
//     attn.await_turn                        products)
//     O' = attn.dot P, V_j {async}
//     attn.pass_turn
//     O = attn.dot_wait O'
//   }
//
// On the tensor cores the products then come as S_0, S_1, PV_0, PV_1, ...:
// warpgroup 0's softmax runs under warpgroup 1's Q·Kᵀ, and the other way.
//   attn.end_turns                          (program end)
//
//===----------------------------------------------------------------------===//
#include "attn/Transforms/Passes.h"

#include "LoopUtils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNALTERNATEWARPGROUPS
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {

/// Whether a product reads 8-bit (fp8) operands.
bool isEightBit(DotOp dot) {
  return cast<RankedTensorType>(dot.getLhs().getType())
             .getElementType()
             .getIntOrFloatBitWidth() == 8;
}

struct AlternateWarpgroupsPass
    : public attn::impl::AttnAlternateWarpgroupsBase<AlternateWarpgroupsPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->walk([&](scf::ForallOp grid) {
      const int64_t warpgroups = wgmmaWarps(grid) / 4;
      if (warpgroups < 2)
        return;
      Block *body = grid.getBody();
      SmallVector<DotOp> turns;
      // Products already asynchronous (attn-rotate-kv-loop issues S_j and
      // P_{j-1}·V_{j-1} back to back): one turn from the first issue to
      // the last, waits included where they already are.
      SmallVector<std::pair<DotOp, DotOp>> spans;
      for (Operation &op : *body) {
        auto loop = dyn_cast<scf::ForOp>(op);
        if (!loop)
          continue;
        SmallVector<DotOp> issued;
        for (Operation &inner : *loop.getBody())
          if (auto dot = dyn_cast<DotOp>(inner)) {
            if (dot.getAsync())
              issued.push_back(dot);
            else
              turns.push_back(dot);
          }
        if (issued.empty())
          continue;
        bool oneRun = true;
        for (Operation *op = issued.front(); op != issued.back();
             op = op->getNextNode())
          oneRun &= !isa<DotWaitOp>(op);
        if (oneRun)
          spans.emplace_back(issued.front(), issued.back());
      }
      if (turns.empty() && spans.empty())
        return;
      // Programs of fewer than min-warpgroups take turns only without a
      // causal mask and with accumulators of at most noncausal-max-columns
      // columns.
      if (warpgroups < minWarpgroups) {
        int64_t columns = 0;
        for (DotOp dot : turns)
          columns = std::max(columns, dot.getType().getDimSize(1));
        for (auto [first, last] : spans)
          for (DotOp dot : {first, last})
            columns = std::max(columns, dot.getType().getDimSize(1));
        bool causal = body->walk([](MaskOp mask) {
                            return mask.getCausal() ? WalkResult::interrupt()
                                                    : WalkResult::advance();
                          })
                          .wasInterrupted();
        // fp8 (D = 128, H100, turns against none, TFLOP/s): 663 / 682
        // against 615 / 653 at N = 4k / 16k, causal 622 / 674 against
        // 542 / 662; at D = 256 the turns lost 1-3%.
        bool eightBit =
            llvm::any_of(turns, isEightBit) ||
            llvm::any_of(spans, [](auto span) {
              return isEightBit(span.first) || isEightBit(span.second);
            });
        bool fp8Turns = eightBit && columns <= fp8MaxColumns;
        if (!fp8Turns && (causal || columns > noncausalMaxColumns))
          return;
      }
      OpBuilder b(grid.getContext());
      b.setInsertionPointToStart(body);
      StartTurnsOp::create(b, grid.getLoc());
      b.setInsertionPoint(body->getTerminator());
      EndTurnsOp::create(b, grid.getLoc());
      for (auto [first, last] : spans) {
        b.setInsertionPoint(first);
        AwaitTurnOp::create(b, first.getLoc());
        b.setInsertionPointAfter(last);
        PassTurnOp::create(b, last.getLoc());
      }
      for (DotOp dot : turns) {
        // await_turn; dot {async}; pass_turn; dot_wait: the turn covers
        // issuing the product, not waiting for it. The turn and the wait go
        // right after the product, so a slot release that followed it (as
        // attn-pipeline-kv-loop places them) now follows the wait, where
        // the product's reads of shared memory end.
        b.setInsertionPoint(dot);
        AwaitTurnOp::create(b, dot.getLoc());
        b.setInsertionPointAfter(dot);
        PassTurnOp::create(b, dot.getLoc());
        auto wait = DotWaitOp::create(b, dot.getLoc(), dot.getType(),
                                      dot.getResult(), b.getI64IntegerAttr(0));
        dot.getResult().replaceAllUsesExcept(wait.getResult(), wait);
        dot.setAsync(true);
      }
    });
  }
};
} // namespace
