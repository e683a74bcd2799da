//===- Passes.td - attn conversion passes ------------------*- tablegen -*-===//
#ifndef ATTN_CONVERSION_PASSES_TD
#define ATTN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertAttnToLinalg : Pass<"convert-attn-to-linalg"> {
  let summary = "Lower attn tile ops to linalg, tensor and bufferization ops";
  let description = [{
    The CPU path: each tile op becomes its linalg (or tensor/memref)
    equivalent on tensors, ready for one-shot bufferization. Loads read a
    `memref.subview` of the valid rows and pad the rest with zeros; stores
    write the valid rows through `bufferization.materialize_in_destination`.
    `attn.attention` must be tiled first; one left over is an error.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def ConvertAttnToNVVM : Pass<"convert-attn-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "Legacy: build the mma.sync GPU kernel from a recognised "
                "fused tile program (attn-codegen backend=legacy)";
  let description = [{
    Superseded by attn-assign-layouts + attn-pipeline-kv-loop +
    convert-attn-gpu-to-nvvm (the default backend), which lower what the
    tile level says op by op; this pass recognises one canonical program and
    is kept, as `--attn-codegen="backend=legacy"`, until the new path is at
    least as fast for every bundle kernel (results/PERF-NOTES.md, v8).

    Each fused tile-level program (the scf.forall grid of
    attn-tile-attention after attn-fuse-online-softmax) becomes a kernel in
    `gpu.module @attn_kernels`, written with NVVM ops (cp.async, ldmatrix,
    mma.sync m16n8k16, shfl) and LLVM pointer arithmetic, and the grid
    becomes a `gpu.launch_func` of it: a thread block per (query block,
    head, batch), 16·MT whole query rows per warp, K and V through a
    cp.async ring in swizzled shared memory, the online softmax in
    registers with exp2 as P = exp2((S − m)·c).

    Kernel ABI: (q, k, v, o, lse: !llvm.ptr<1>; B, Hq, Hkv, Nq, Nk: i32;
    the (batch, head, row) element strides of q, k, v, o: i32; scale: f32).
    A null lse writes no LSE. f16/bf16, head dims 64 and 128, a contiguous
    head dimension and LSE, query blocks of 16·MT·warps rows, key blocks of
    16..128 rows, shared memory within the target's; anything else is
    reported as unsupported. The launch this pass emits passes sizes and
    strides as i32 without checking them: the runtime (runtime/) validates
    its arguments (32-bit offsets, Hq % Hkv, alignment) before a launch.

    Inside the kernel, each warp owns `m-tiles` 16-row tiles (2 halves the
    shared-memory traffic per mma) and keeps Q's fragments in registers or
    re-reads them from shared memory; by default the first of (2, shared),
    (2, in registers), (1, in registers), (1, shared) whose estimated
    register need (MT·(D/2 + Bc/2 + [D/4]) + 95, calibrated on ptxas's
    counts) fits in 255.
  }];
  let options = [
    Option<"mTiles", "m-tiles", "int64_t", /*default=*/"0",
           "16-row m-tiles per warp: 1 or 2 (0: heuristic)">,
    Option<"qInRegisters", "q-in-registers", "int64_t", /*default=*/"-1",
           "Keep Q fragments in registers: 1, 0 (-1: heuristic)">,
    Option<"kvStages", "kv-stages", "int64_t", /*default=*/"0",
           "Shared-memory buffers per K and V tile: 1 (K of block j+1 loads "
           "during P·V_j) or 2 (a ring; block j+1 loads during block j) "
           "(0: 2)">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}


def ConvertAttnGPUToNVVM : Pass<"convert-attn-gpu-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "Lower laid-out tile programs to GPU kernels, one pattern "
                "per tile op";
  let description = [{
    The last step of the GPU backend. Each tile-level grid whose tiles carry
    layouts (attn-assign-layouts, optionally attn-pipeline-kv-loop) becomes
    a `gpu.func` kernel in `gpu.module @attn_kernels` and a
    `gpu.launch_func` of it. The kernel takes the enclosing function's
    arguments, in order (memrefs as MLIR memref descriptors: see
    runtime/include/attn/runtime/KernelABI.h); the grid is
    (iterations of the grid's last dim, ..., of its first), the last
    one in reverse so that the longest causal query blocks start first;
    a block has 32·W threads (the warps of the `#attn.mma` layout).
    Scalar values the grid reads from outside are recomputed in the kernel
    from the arguments (only side-effect-free ops; else unsupported).

    Inside the kernel every tile op is lowered by its own pattern, given its
    operands' layouts: a tile in a register layout becomes the vector of the
    elements one thread holds (#attn.mma: MT·(C/8)·4; #attn.slice: 2·MT),
    a shared-memory tile the `!llvm.ptr<3>` of its first byte.

      attn.load_tile -> #shared   cp.async (16 B, zero-fill), wait, barrier
      attn.load_tile -> #mma      per-thread global loads
      attn.async_load_tile        cp.async into a ring slot
      attn.async_commit / wait    cp.async.commit/wait_group + bar.sync
      attn.ring_slot              slot address
      attn.dot                    ldmatrix (.trans) + mma.sync.m16n8k16
      attn.convert_layout         #shared -> #mma: ldmatrix
      attn.reduce                 in-thread, then shfl.bfly 1, 2
      attn.broadcast              a register permutation (no data movement)
      attn.mask                   compares on each element's (row, col)
      arith / math / tensor.splat the same op on the vector of elements
                                  (exp2, exp, log: ex2/lg2.approx per element)
      attn.store_tile             packed stores of each thread's elements

    Anything else in a grid (an op on a tile without a layout, a layout pair
    convert_layout cannot move between) is reported as unsupported.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

#endif // ATTN_CONVERSION_PASSES_TD
