//===- Outlining.h - tile grids to GPU kernels ------------------*- C++ -*-===//
//
// The outlining half of convert-attn-gpu-to-nvvm (Outlining.cpp): a laid-out
// scf.forall grid becomes a gpu.func with its #attn.kernel_info, shared
// memory given to the ops that own some, and on the host a gpu.launch_func;
// the block order of the launch (TileScheduler.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_LIB_CONVERSION_ATTNGPUTONVVM_OUTLINING_H
#define ATTN_LIB_CONVERSION_ATTNGPUTONVVM_OUTLINING_H

#include "PatternsCommon.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::attn::gpu_lowering {

/// Whether `t` is a tile with a GPU layout (or a ring of such tiles).
bool isLaidOut(Type t);

/// convert-attn-gpu-to-nvvm's options that the outlining reads.
struct OutlineOptions {
  /// Causal programs: thread blocks per group of heads (mapGridIndices);
  /// -1: kGroupBlocksPerSm per SM of the device.
  int64_t groupBlocks = -1;
  /// attn.dot's B-fragment prefetch distance (-1: by head dim).
  int64_t fragmentPrefetch = -1;
};

/// A grid outlined into a kernel whose body is still tile ops.
struct OutlinedKernel {
  gpu::GPUFuncOp fn;
  KernelInfo info;
  /// One tensor map: its memref (a function argument) and box (rows by one
  /// slab of `bytes`, 128 or 64, swizzled by that width).
  struct Map {
    unsigned arg;
    int64_t rows, bytes;
  };
  /// The tensor maps, in the order of the kernel's trailing arguments.
  SmallVector<Map> maps;
  int64_t smemBytes = 0;
};

/// Outlines `grid` (the `index`-th of its function) into a gpu.func of the
/// gpu.module `attn_kernels` of `top`: its arguments are the function's and
/// one tensor map per memref read with bulk copies; the grid indices come
/// from the block index; values from outside the grid are recomputed from
/// the arguments. Sets attn.kernel. The grid itself is left in place.
FailureOr<OutlinedKernel> outlineKernel(scf::ForallOp grid, ModuleOp top,
                                        int64_t index,
                                        const OutlineOptions &opts);

/// Replaces `grid` by a launch of `kernel` (grid, block, shared memory and
/// tensor maps from it) and erases what only the grid used.
void launchKernel(scf::ForallOp grid, const OutlinedKernel &kernel);

/// Causal programs: thread blocks per SM in one group of heads. Two to four
/// waves (1-2 resident blocks per SM), enough for the order to even out the
/// tail; H100, causal N = 1k-16k: 4 and 8 per SM within 2%, one group of
/// every head 2-5% slower at D = 64 (K and V of many heads at once), the
/// query blocks of each head together 5-15% slower at D = 128 and 256.
constexpr int64_t kGroupBlocksPerSm = 4;

/// Maps the grid's (batch, head, query block) indices to what thread
/// block L = x + X·(y + Y·z) runs (the hardware starts blocks in order of
/// L). `groupBlocks` 0: the query blocks of one head together, the last
/// first; > 0: heads in groups of about that many blocks, each group's
/// query blocks longest (last) first; < 0: the same with
/// kGroupBlocksPerSm blocks per SM of the device.
void mapGridIndices(OpBuilder &b, Location loc, scf::ForallOp grid,
                    IRMapping &map, int64_t groupBlocks);

} // namespace mlir::attn::gpu_lowering

#endif // ATTN_LIB_CONVERSION_ATTNGPUTONVVM_OUTLINING_H
