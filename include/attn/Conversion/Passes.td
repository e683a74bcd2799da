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
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"
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
    (iterations of the grid's last dim, ..., of its first) and a block has
    32·W threads (the warps of the `#attn.mma` layout).

    Which (batch, head, query block) a thread block runs: blocks start in
    launch order L = x + X·(y + Y·z). Without a causal mask every query block
    costs the same and block L runs query block X - 1 - x of head y of batch
    z: the blocks of one head run together and share its K and V in L2.
    With a causal mask query block t reads t + 1 key blocks, and that order
    leaves a tail: the last heads' longest blocks start late. Instead the
    B·H heads are split into equal groups of about `group-blocks` thread
    blocks (several waves), and inside a group the query blocks run from
    the last (most work) to the first, the group's heads innermost: the
    longest blocks start first and each group ends on its shortest ones
    (longest-processing-time-first, as FlashAttention-3 schedules causal
    tiles). About (resident blocks) / G of each head's query blocks run at
    once and share its K and V in L2.

      G = ceil(B·H / ceil(B·H / ceil(group-blocks / T)))   (T = X)
      g = L / (G·T),  r = L % (G·T),  Gg = min(G, B·H - g·G)
      query block = T - 1 - r / Gg,  n = g·G + r % Gg
      batch = n / H,  head = n % H
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
  let options = [
    Option<"groupBlocks", "group-blocks", "int64_t", /*default=*/"-1",
           "Causal programs: thread blocks per group of heads run longest "
           "first (-1: 4 per SM of the device, read at run time from "
           "%nsmid; 0: the query blocks of one head together, the last "
           "first)">,
    Option<"fragmentPrefetch", "fragment-prefetch", "int64_t",
           /*default=*/"-1",
           "attn.dot: issue each B-fragment ldmatrix this many (k-step, "
           "n-tile pair) steps before the mma.sync that reads it (-1: by "
           "head dim: 0 up to 64, 4 up to 128, else 8; 0: right before "
           "it)">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def AttnGPUModuleToBinary : Pass<"attn-gpu-module-to-binary",
                                 "::mlir::ModuleOp"> {
  let summary = "gpu-module-to-binary with attn's NVPTX code generation "
                "settings";
  let description = [{
    Serialises the `gpu.module`s as upstream `gpu-module-to-binary` does
    (their NVVM target attributes say the chip, features and optimisation
    level), with one difference: where one of them holds a kernel whose
    `#attn.kernel_info` register_estimate (attn-assign-layouts' count for
    its warp tiling) reaches `lsr-register-limit` and whose tile copies have
    a run-time row stride (`dynamic_row_stride`, set by
    convert-attn-gpu-to-nvvm), LLVM's loop strength
    reduction is off while they are translated. There, LSR turns each
    cp.async pass's address ((row0 + r_p)·stride, one per pass and tile)
    into its own loop-carried induction variable: 8 per K or V tile at
    D = 128, registers the mma accumulators need, and ptxas spilled (16
    bytes per iteration on sm_90a). Without it each address is one
    multiply-add from the block's row. With a static row stride the pass
    offsets are immediates and LSR is left on (off, the same kernel with
    identity-layout memrefs spilled 12 bytes). The decision is
    recorded as `attn.lsr = false` on the `gpu.binary` ops.

    LLVM's options are process-wide, so this pass's translations in one
    process run one at a time (libattn_jit compiles kernels on several
    threads; each one's PTX must not depend on another's setting), and the
    setting is restored after each. Other LLVM code generation in the
    process at that moment (a CPU kernel on another thread) would also run
    without LSR. LLVM's own `-disable-lsr`, when given, stays in force for
    every module.

    Example:
      gpu.module @attn_kernels [#nvvm.target<chip = "sm_90a">] {
        gpu.func @k() kernel attributes {attn.kernel = #attn.kernel_info<...,
            register_estimate = 255, dynamic_row_stride = true>}
      }
    becomes
      gpu.binary @attn_kernels {attn.lsr = false} [#gpu.object<...>]
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"isa\"",
           "What each module becomes, as gpu-module-to-binary's format "
           "option (offloading/llvm, assembly/isa, binary/bin, "
           "fatbinary/fatbin)">,
    Option<"lsrRegisterLimit", "lsr-register-limit", "int64_t",
           /*default=*/"255",
           "Loop strength reduction is off for a module with a kernel "
           "whose register estimate is at least this (0: never)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // ATTN_CONVERSION_PASSES_TD
