//===- AttnDialect.h - attn dialect -----------------------------*- C++ -*-===//
#ifndef ATTN_DIALECT_ATTN_IR_ATTNDIALECT_H
#define ATTN_DIALECT_ATTN_IR_ATTNDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include <string>

#include "attn/Dialect/Attn/IR/AttnOpsDialect.h.inc"

namespace mlir::attn {
/// Discardable attribute names the dialect owns (verified by the dialect).
/// `attn.target` on any op: the target description for ops nested in it.
constexpr llvm::StringLiteral kTargetAttrName = "attn.target";
/// `attn.softmax_pass` on an scf.for: which pass of the naive (three-pass)
/// tiled softmax the loop is: "max", "sum" or "pv".
constexpr llvm::StringLiteral kSoftmaxPassAttrName = "attn.softmax_pass";
/// `attn.softmax_scale` on such a loop: the softmax scale (f32). Absent
/// when the scale is a run-time value: the sum and pv loops then multiply by
/// a tensor.splat of it.
constexpr llvm::StringLiteral kSoftmaxScaleAttrName = "attn.softmax_scale";
/// `attn.online_softmax` on an scf.for: the loop is a fused (one-pass) online
/// softmax loop with iter_args (m, l, acc).
constexpr llvm::StringLiteral kOnlineSoftmaxAttrName = "attn.online_softmax";
/// `attn.skip_unit_factors` on an arith.mulf of a laid-out tile by a
/// broadcast row vector (the online softmax's A·α): the GPU lowering skips a
/// thread's multiplications when all its rows' factors are 1 (set by
/// attn-assign-layouts where that pays).
constexpr llvm::StringLiteral kSkipUnitFactorsAttrName =
    "attn.skip_unit_factors";
/// `attn.fused_exponent` on an arith.mulf (x − broadcast(m))·c of a
/// laid-out tile, c a splat (set by attn-assign-layouts): the GPU lowering
/// computes fma(x, c, −m·c) in each thread whose rows all have |m·c| <=
/// 2^12, and the exact form elsewhere.
constexpr llvm::StringLiteral kFusedExponentAttrName = "attn.fused_exponent";
/// `attn.polynomial_exp2 = K` (an i64 >= 1) on a math.exp2 of a laid-out
/// 2-d tile (set by attn-assign-layouts): the GPU lowering computes one
/// element in K of each thread by a polynomial on the FMA pipe instead of
/// the special-function unit (ex2), which serves 16 lanes a clock an SM.
constexpr llvm::StringLiteral kPolynomialExp2AttrName = "attn.polynomial_exp2";
/// `attn.register_estimate` on a GPU grid (scf.forall): the registers per
/// thread attn-assign-layouts estimated for the warp tiling it chose (an
/// i64; 255 is the hardware's limit). Carried into `attn.kernel` as
/// register_estimate; attn-gpu-module-to-binary reads it.
constexpr llvm::StringLiteral kRegisterEstimateAttrName =
    "attn.register_estimate";
/// `attn.lsr = false` on a gpu.binary: attn-gpu-module-to-binary translated
/// it with LLVM's loop strength reduction off.
constexpr llvm::StringLiteral kLSRAttrName = "attn.lsr";
/// `attn.program` on a tile grid (scf.forall) that is not a plain
/// attention: "split_kv" (attn.attention {split_kv}: dim 2 of the grid is
/// query block · splits + split), "merge_splits" (attn.merge_splits), the
/// backward's grids, or "block_lists" (attn.block_lists on the GPU: one
/// warp per list row).
/// Carried into `attn.kernel` as program; launchers read it.
constexpr llvm::StringLiteral kProgramAttrName = "attn.program";
/// `attn.cpu_only` (unit) on a grid of scalar code that only the CPU
/// pipeline lowers (attn.block_lists' CPU program): the GPU conversion
/// refuses it rather than leave it to the host code it drops.
constexpr llvm::StringLiteral kCPUOnlyAttrName = "attn.cpu_only";
/// `attn.mask_block` on a "block_lists" grid (scf.forall): the [BQ, BK]
/// mask block its lists count in, carried into `attn.kernel` as block_m
/// and block_n (a launcher's q_blocks = ceil(Nq / BQ)).
constexpr llvm::StringLiteral kMaskBlockAttrName = "attn.mask_block";
/// `attn.grid` on a tile grid (scf.forall): what each of its dims counts,
/// in order, as products of the launch's factors (batch, heads_q, heads_kv,
/// q_blocks = ceil(Nq / block rows), splits), e.g. ["batch", "heads_q",
/// "q_blocks*splits"]. Set by the pass that builds the grid; carried into
/// `attn.kernel` as grid (launch order x, y, z), from which launchers size
/// the grid instead of assuming it.
constexpr llvm::StringLiteral kGridAttrName = "attn.grid";
/// `attn.persistent` (unit) on a persistent tile grid (attn-persist-tiles):
/// a one-dimensional scf.forall of attn.num_programs programs, each looping
/// over the tiles of the grid `attn.grid` names (batch, heads, query
/// blocks, as before the pass). Carried into `attn.kernel` as persistent;
/// launchers launch min(SMs, tiles) thread blocks.
constexpr llvm::StringLiteral kPersistentAttrName = "attn.persistent";
/// `attn.softcap` on a tile grid (scf.forall): the soft-cap C (a positive
/// f32) its score tiles pass through (attn.attention's softcap). Carried
/// into `attn.kernel` as softcap; the runtime serves the kernel to problems
/// of that cap only.
constexpr llvm::StringLiteral kSoftcapAttrName = "attn.softcap";
/// `attn.score_grad_tile` (unit) on an scf.for of the backward's tiling:
/// each step keeps a score modifier's derivative (the soft-cap's 1 − t², a
/// score_mod's) as one more score-sized tile beside P.
/// attn-prefetch-vectors leaves such loops alone (at D = 128 the two
/// spilled 16 bytes).
constexpr llvm::StringLiteral kScoreGradTileAttrName = "attn.score_grad_tile";
/// `attn.kernel` on a generated GPU kernel: its #attn.kernel_info, what a
/// launcher needs.
constexpr llvm::StringLiteral kKernelInfoAttrName = "attn.kernel";

/// The chip a GPU compilation targets when none is named (the chip table's
/// kDefaultChip, attn/runtime/Chips.h).
std::string defaultChip();
} // namespace mlir::attn

#endif // ATTN_DIALECT_ATTN_IR_ATTNDIALECT_H
