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
  let summary = "Lower the fused tile level to an mma.sync GPU kernel "
                "(FlashAttention-2 partitioning) and a launch";
  let description = [{
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

#endif // ATTN_CONVERSION_PASSES_TD
