//===- SelectGPUBlocks.cpp - block sizes for the GPU kernel -----*- C++ -*-===//
#include "WarpgroupTiling.h"
#include "attn/Transforms/Passes.h"
#include "attn/runtime/Chips.h"

#include <numeric>

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNSELECTGPUBLOCKS
#include "attn/Transforms/Passes.h.inc"
} // namespace mlir::attn

using namespace mlir;
using namespace mlir::attn;

namespace {
struct SelectGPUBlocksPass
    : public mlir::attn::impl::AttnSelectGPUBlocksBase<SelectGPUBlocksPass> {
  using Base::Base;

  // Bad options fail the pass even when no op would read them.
  LogicalResult initialize(MLIRContext *ctx) override {
    TargetAttr target = TargetAttr::getKnown(ctx, chip);
    if (!target || !target.isGPU())
      return emitError(UnknownLoc::get(ctx))
             << ::attn::unsupportedChipMessage(chip);
    if (wgmma < -1 || wgmma > 1)
      return emitError(UnknownLoc::get(ctx))
             << "pass option wgmma must be -1 (heuristic), 0 or 1, got "
             << int64_t(wgmma);
    for (auto [name, v] : {std::pair{"block-q", int64_t(blockQ)},
                           std::pair{"block-kv", int64_t(blockKV)}})
      if (v != 0 &&
          (v < 16 || !isValidBlockRows(v, 256, name == StringRef("block-q"))))
        return emitError(UnknownLoc::get(ctx))
               << "pass option " << name << " must be 0 (heuristic) or a power "
               << "of two"
               << (name == StringRef("block-q") ? " or a multiple of 64" : "")
               << " in [16, 256], got " << v;
    return success();
  }

  void runOnOperation() override {
    // Block lists built for an attention are built on its GPU too.
    getOperation()->walk([&](BlockListsOp op) {
      if (!op.getTargetAttr())
        op.setTargetAttr(TargetAttr::getKnown(op.getContext(), chip));
    });
    WalkResult r = getOperation()->walk([&](AttentionOp op) {
      TargetAttr target = TargetAttr::getKnown(op.getContext(), chip);
      if (!target || !target.isGPU()) {
        op.emitError() << ::attn::unsupportedChipMessage(chip);
        return WalkResult::interrupt();
      }
      // The tensor cores take 16-bit inputs: an f32 problem runs on the CPU
      // path, not as a GPU kernel that would fail deep in the lowering.
      Type et = cast<ShapedType>(op.getQuery().getType()).getElementType();
      if (!et.isF16() && !et.isBF16() && !op.isFp8()) {
        op.emitError() << "unsupported: " << et
                       << " attention on the GPU (the tensor cores take f16, "
                          "bf16 and, on sm_90a, f8E4M3FN; f32 runs on the "
                          "CPU path)";
        return WalkResult::interrupt();
      }
      Builder b(op.getContext());
      if (!op.getTargetAttr())
        op.setTargetAttr(target);
      // The mma.sync kernel runs warps of 16-row m-tiles, two per warp
      // where the O and S fragments fit (one K/V fragment from shared
      // memory feeds two mma.sync: shared-memory bandwidth, not the tensor
      // cores, bounds one m-tile per warp on Hopper). Per thread that holds
      // O (Dv/2 f32 per m-tile) and S (Bc/2): Br = 128 and Bc = 64, as
      // FlashAttention-2 on sm_90, at D = 64 and 128 (4 warps of two
      // m-tiles; Q re-read from shared memory) and at D = 256 (8 warps of
      // one m-tile: O alone is 128 registers); Bc = 32 at D = 96 (padded
      // rows; 64 unmeasured there), and at D = 128 off Hopper (sm_80
      // spills the 128x64 kernel; no Ampere to measure). Measured on an
      // H100: at D = 128, 128x64 with lazy rescaling beats 128x32 by 5-8%
      // non-causal and 0-4% causal; at D = 256, 128x64 with 8 warps beats
      // 64x32 with 4 by 2-8%.
      // A chip whose shared memory cannot hold Q (Br·D) and the two-slot
      // K/V ring (2·2·Bc·D) of 16-bit elements takes 64x32 (sm_80 and
      // sm_86/89 at D = 256).
      int64_t d = std::max(op.getHeadDim(), op.getValueHeadDim());
      bool hopper = ::attn::findChip(chip)->ccMajor == 9;
      int64_t bq = 128, bkv = d > 64 && d <= 96 ? 32 : 64;
      // Unmeasured off Hopper, where ptxas spills the 128x64 kernel at
      // D = 128: the 128x32 blocks measured before.
      if (!hopper && d > 96 && d <= 128)
        bkv = 32;
      // sm_90a's warpgroup MMA (attn-assign-layouts takes it where the
      // head dims are multiples of 64, or of 32 in 64-byte slabs). The
      // warpgroups of one program synchronise at every key/value block (the
      // ring's barrier), so one warpgroup's softmax does not run under the
      // other's wgmma; programs on one SM do overlap. At D = 64 a program of
      // one warpgroup (64x128, 72 KiB: three per SM) beats two (128x128) by
      // 14-20% (H100, N = 4k and 16k); at D = 128 the same 64-row programs lose
      // 10-15% (each reads K and V for half the rows: L2-bound), so 128 query
      // rows (two warpgroups) and 128-row K/V blocks; at D = 256 O alone is 128
      // registers per thread, and 64-row K/V blocks keep S at 32.
      bool warpgroups =
          wgmma == 1 ||
          (wgmma == -1 &&
           headDimsTakeWgmma(target, op.getHeadDim(), op.getValueHeadDim(),
                             /*forward=*/true));
      // fp8 rows are whole 64- or 128-byte slabs (head dims of a multiple
      // of 64; V's transposed block has rows of Bc keys).
      if (op.isFp8() && (op.getHeadDim() % 64 || op.getValueHeadDim() % 64)) {
        op.emitError() << "unsupported: fp8 attention at head dims "
                       << op.getHeadDim() << "/" << op.getValueHeadDim()
                       << " (multiples of 64 only: a row of fp8 tiles fills "
                          "whole 64- or 128-byte swizzled slabs)";
        return WalkResult::interrupt();
      }
      if (op.isFp8() && !(warpgroups && target.hasWarpgroupMma())) {
        op.emitError() << "unsupported: fp8 attention on " << chip
                       << (target.hasWarpgroupMma()
                               ? " without wgmma (head dims must be multiples "
                                 "of 64, and wgmma not turned off)"
                               : " (fp8 products are sm_90a's wgmma)");
        return WalkResult::interrupt();
      }
      if (warpgroups) {
        bq = d <= 64 ? 64 : 128;
        bkv = d <= 128 ? 128 : 64;
        // Plain causal attention at D = 64: 128 query rows (two consumer
        // warpgroups behind a bulk-copy producer), whose grid is persistent
        // with tiles claimed at run time (attn-persist-tiles), against the
        // 64-row program's 163 / 238 / 308 / 324 / 369 / 389 TFLOP/s: 164 /
        // 251 / 344 / 383 / 421 / 433 at N = 512 / 1k / 2k / 4k / 8k / 16k
        // (H100, bf16, two runs); 192 rows from 8k (queryBlockTwins).
        if (d == 64 && op.getCausal() && !op.getKvLens() && !op.isVarlen() &&
            !op.getSplitKv() && !op.getWindowLeft() && !op.getWindowRight() &&
            op.getScoreMod().empty())
          bq = 128;
        // A split-KV program at D = 128 (decoding: the G query heads of a
        // key/value head packed as 4-8 rows) takes 64 query rows, one
        // consumer warpgroup behind the producer (per-slot barriers:
        // attn-pipeline-kv-loop): 128 rows spend two warpgroups' products
        // and exponentials per block on padding, each block's compute
        // about its copy's time. bf16 GQA 32:8, H200, 64 against 128 rows:
        // B = 1, Nk = 4k / 16k / 64k +7 / +5 / +3% back to back (+19 / +10
        // / +4% in CUDA graphs), B = 8 4k +2%, 64k -2..+3%; KV caches
        // (64-key blocks) B = 8 64k +17..18%, pages of 16 +19..24%.
        if (op.getSplitKv() && d == 128)
          bq = 64;
        // fp8 tiles arrive by bulk copies only: 128 rows, two consumer
        // warpgroups behind the copying producer; V's transposed block
        // has rows of Bc bytes, whole 128-byte slabs. At D = 128, 256 keys
        // a block: S's 128 registers a thread and O's 64 fit without
        // rotation or turns (attn-rotate-kv-loop and
        // attn-alternate-warpgroups leave 256-column accumulators alone),
        // and a block's fixed costs (the row max's shuffles, the rescale,
        // the barriers) come half as often. Against 128 keys rotated with
        // turns (H200, N = 512 / 1k / 2k / 4k / 16k): +1 / +3 / +4 / +5 /
        // +5.5%, causal 0 / +3 / +5 / +6 / +8.5%; 256 keys with turns tie
        // 128. D = 256 keeps 128 keys (O alone takes 128 registers).
        if (op.isFp8()) {
          bq = 128;
          bkv = d <= 128 ? 256 : 128;
        }
        // A static sequence length that a twin covers takes its block
        // (queryBlockTwins, as the bundle builds them): the packed rows
        // G·Nq where the query heads are packed (static head counts).
        auto qType = cast<MemRefType>(op.getQuery().getType());
        auto kType = cast<MemRefType>(op.getKey().getType());
        int64_t nq = qType.getDimSize(2);
        if (op.getPackQueryHeads() && !ShapedType::isDynamic(nq))
          nq = qType.isDynamicDim(1) || kType.isDynamicDim(1)
                   ? ShapedType::kDynamic
                   : nq * (qType.getDimSize(1) / kType.getDimSize(1));
        // A twin tuned from a minimum length (a taller block) also needs a
        // grid of two waves where batch and heads are static, as the
        // runtime chooses (::attn::fillsTwoWaves); a split-KV grid
        // multiplies its query blocks by the splits instead.
        auto fillsDevice = [&](const QueryBlockTwin &twin) {
          int64_t b = qType.getDimSize(0);
          int64_t h = op.getPackQueryHeads() ? kType.getDimSize(1)
                                             : qType.getDimSize(1);
          if (!twin.minSeqQ || op.getSplitKv() || ShapedType::isDynamic(b) ||
              ShapedType::isDynamic(h))
            return true;
          return ::attn::fillsTwoWaves((nq + twin.rows - 1) / twin.rows * h * b,
                                       int(target.getNumSms()));
        };
        if (!op.isVarlen() && !op.isFp8() && !ShapedType::isDynamic(nq))
          for (QueryBlockTwin twin : queryBlockTwins(
                   target, op.getHeadDim(), op.getValueHeadDim(),
                   op.getCausal(), static_cast<bool>(op.getKvLens()),
                   op.getPackQueryHeads(), op.getSplitKv()))
            if (twin.covers(nq) && fillsDevice(twin))
              bq = twin.rows;
      }
      const int64_t elemBytes = op.isFp8() ? 1 : 2;
      if ((bq * d + 4 * bkv * d) * elemBytes > target.getSmemPerBlock()) {
        bq = 64;
        bkv = 32;
      }
      // Programs over a KV cache or a packed batch bound V's rows by the
      // sequence, so their copies are cp.async (never bulk copies, which
      // fill zeros only past the tensor's end), and a cp.async producer
      // keeps its copies' addresses: on sm_90a, 128-row key blocks leave
      // the consumers spilling (52-64 bytes at D = 128), 64-row ones fit up
      // to D = 128 and 32-row ones at D = 256 (76 bytes at 64).
      if (warpgroups && (op.getKvLens() || op.isVarlen()))
        bkv = std::min<int64_t>(bkv, d <= 128 ? 64 : 32);
      // A paged cache: on wgmma a static page smaller than the key block
      // keeps the block, whose rows are gathered from Bc / P pages through
      // the block table (attn-tile-attention); elsewhere the block shrinks
      // to the page (a power-of-two block divides a power-of-two page).
      // H200, bf16 D = 128, GQA 32:8, pages of 16, back to back, 64-key
      // blocks against 16-key ones (two leases): B = 1 Nk = 16k 1582 ->
      // 1950 GB/s, B = 8 4k 2078 -> 2595, B = 8 64k 2581 -> 4189, B = 32 16k
      // 3245 -> 4338 (0.92-0.96x the dense cache, was 0.59-0.79x). An
      // explicit option still wins, and the tiling pass refuses one that
      // straddles part of a page.
      if (op.isPaged()) {
        int64_t page = cast<MemRefType>(op.getKey().getType()).getDimSize(2);
        bool smallPage = !ShapedType::isDynamic(page) &&
                         llvm::isPowerOf2_64(page) && page >= 16 && page < 64;
        if (!ShapedType::isDynamic(page) && llvm::isPowerOf2_64(page) &&
            page >= 16 && !warpgroups)
          bkv = std::min(bkv, page);
        // Pages of fewer than 64 keys make blocks that move so few bytes per
        // step that a second consumer warpgroup only halves each one's
        // share: one warpgroup of 64 query rows (decoding packs 4-8 rows;
        // with the deep ring attn-pipeline-kv-loop gives such small tiles:
        // H100, pages of 16, bf16 D 128, 1.05-1.7x the 128-row blocks).
        if (warpgroups && smallPage)
          bq = 64;
      }
      // An additive bias adds its [Br, Bc] window beside the scores (two
      // score tiles live under rotation): up to D = 128, 64-key blocks fit
      // (bf16 D = 128: no spill with a bf16 or an f32 bias; 128 keys spilled
      // 568 bytes) and beat 32 (H200, a bias [1, H, N, N], N 1k-4k: +12..14%
      // bf16, +11..13% f32); D = 256 with 64 keys spilled 372 bytes.
      // A window staged in shared memory (attn-assign-layouts'
      // stage-windows: every copy a bulk one) holds no registers between
      // steps. At D = 64 it takes 128 query rows (two consumer warpgroups
      // behind the producer) and 128 keys: H200, a bf16 bias [1, H, N, N],
      // N 1k-4k, 130-140 TFLOP/s with 64x64 blocks, 232-247 with 128x64,
      // 250-266 with 128x128 (the window in registers spilled 520 bytes
      // there). At D = 128 a 16-bit window takes 128 keys too: Q, two
      // slots each of K, V and the window, 224 KiB (an f32 one's slots
      // would need 288); at D = 256 64 keys (224 KiB again).
      if (warpgroups && op.getBias()) {
        auto biasTy = cast<MemRefType>(op.getBias().getType());
        unsigned bits = biasTy.getElementTypeBitWidth();
        bool staged = stageWindows && (bits == 16 || bits == 32) &&
                      !op.isPaged() && !op.getKvLens() && !op.isVarlen() &&
                      !op.getPackQueryHeads() && !op.getSplitKv();
        if (staged && (d <= 64 || (d <= 128 && bits == 16))) {
          bq = 128;
          bkv = 128;
        } else if (staged && bits == 16) {
          // D = 256: 64 keys, whose 16-bit window rows are one 128-byte
          // slab (32 keys' would be 64-byte rows, not staged).
          bkv = std::min<int64_t>(bkv, 64);
        } else {
          bkv = std::min<int64_t>(bkv, d <= 128 ? 64 : 32);
        }
      }
      // Packed query heads (pack_query_heads: at most 128 rows, a few
      // positions of G heads) copy their own tiles (no producer: Q's rows
      // have an address each) and keep a position per row for the mask:
      // on wgmma 64-key blocks (the D = 128 causal split program spilled 8
      // bytes with 128), on mma.sync 64 query rows (one m-tile a warp: the
      // D = 128 paged causal programs spilled 24-36 bytes with two).
      if (op.getPackQueryHeads()) {
        if (warpgroups)
          bkv = std::min<int64_t>(bkv, 64);
        else
          bq = 64;
      }
      // Block sparsity: a program's blocks lie inside the mask's (Br | BQ,
      // Bc | BK: the 192-row block becomes 64 rows under 128-row mask
      // blocks).
      if (op.hasBlockMask()) {
        auto [mq, mk] = op.getMaskBlockSizes();
        bq = std::gcd(bq, mq);
        bkv = std::gcd(bkv, mk);
      }
      if (blockQ)
        bq = blockQ;
      if (blockKV)
        bkv = blockKV;
      if (!op.getBlockQAttr())
        op.setBlockQAttr(b.getI64IntegerAttr(bq));
      if (!op.getBlockKvAttr())
        op.setBlockKvAttr(b.getI64IntegerAttr(bkv));
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

SmallVector<QueryBlockTwin, 2>
mlir::attn::queryBlockTwins(TargetAttr target, int64_t headDim,
                            int64_t headDimV, bool causal, bool kvCache,
                            bool packedHeads, bool splitKv) {
  if (!target || !target.hasWarpgroupMma() || headDim % 64 || headDimV % 64)
    return {};
  // The packed split kernel of 64 rows at D = 128 reads each key block
  // twice for 65-128 packed rows (two programs a key/value head): a 128-row
  // twin (two consumer warpgroups) from 65. H200, bf16, causal, CUDA
  // graphs, GB/s: 64:8 Nq = 16 B = 8 16k 1956 -> 2871, 32:8 Nq = 32 B = 4
  // 16k 2033 -> 2718, Nq = 20 B = 1 64k 1896 -> 2712; at D = 64 (64:8,
  // Nq = 12) 1879 -> 1863: not there.
  if (splitKv)
    return packedHeads && headDim == 128 && headDimV == 128
               ? SmallVector<QueryBlockTwin, 2>{{128, 65, 0}}
               : SmallVector<QueryBlockTwin, 2>();
  // Packed heads are at most 128 rows (the runtime's bound): the tall
  // block never pays.
  if (packedHeads)
    kvCache = true;
  // At D = 64 a 64-row program (one warpgroup, no producer, three per SM)
  // is the default; 192 rows make three consumer warpgroups share each K/V
  // tile behind a bulk-copy producer, one program per SM, taking turns
  // (ping-pong). H100, bf16, TFLOP/s 192 rows vs 64 at N = 1k / 2k / 4k /
  // 16k: full 355 / 422 / 459 / 496 vs 409 / 413 / 413 / 426; causal 191 /
  // 315 / 378 / 474 vs 266 / 352 / 371 / 411. Short sequences lose to the
  // partial last block and the longer causal diagonal: from 2k rows on
  // the tall block wins. Causal grids of 128 rows claim their tiles at run
  // time: against them 192 rows ties at 8k (423 vs 421) and wins at 16k
  // (463 vs 433), loses at 4k (364 vs 383). Without a mask the persistent
  // 192-row program wins from 512 rows (H200, bf16, B·N = 16384, mirrored:
  // N = 512 / 1k / 2k 301-310 / 367-369 / 424-425 vs 278-295 / 332-333 /
  // 350-358) where its grid has two waves (::attn::fillsTwoWaves).
  if (headDim == 64 && headDimV == 64)
    return kvCache
               ? SmallVector<QueryBlockTwin, 2>()
               : SmallVector<QueryBlockTwin, 2>{{192, causal ? 8192 : 512, 0}};
  // At D = 128 the default has 128 rows: two consumer warpgroups behind a
  // producer, one program an SM. A problem of at most 64 rows (a decode
  // step's G query heads packed as rows, a few speculated tokens) leaves
  // the second warpgroup only padding; 64 rows (one warpgroup on its own
  // cp.async copies) stream K and V faster: H200, bf16, GQA 32:8, CUDA
  // graphs, B = 32, Nk = 16k, one row packed: 3925-4051 -> 4458-4621 GB/s
  // (cuDNN 4450-4518); causal, unpacked: B = 8, Nq = 4, 64k 1261 -> 1394,
  // B = 4, Nq = 8, 16k 1272 -> 1362, B = 16, Nq = 16, 8k 1237 -> 1354.
  if (headDim >= 128 && headDimV >= 128)
    return {{64, 0, 64}};
  return {};
}
