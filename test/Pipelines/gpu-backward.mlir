// RUN: attn-opt %s --attn-gpu-kernel-pipeline="chip=sm_90a" | FileCheck %s
// RUN: attn-opt %s --attn-gpu-kernel-pipeline="chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: attn-opt %s --attn-tile-pipeline="target=sm_90a" | attn-opt --attn-assign-layouts | FileCheck %s --check-prefix=LAYOUT

// attn.attention_grad on a GPU: two kernels launched in order, the first
// (grad_q: Δ and dQ) over (query blocks, query heads, batch), the second
// (grad_kv: dK and dV) over (key blocks, key/value heads, batch), each
// described for the runtime by its #attn.kernel_info, with their K/V or
// Q/dO tiles copied ahead by cp.async. On sm_90a every product of both is
// a warpgroup MMA (S, dP from shared memory; dS·K, Pᵀ·dO, dSᵀ·Q with the
// left operand in registers), on sm_80 an mma.sync.

// CHECK-LABEL: func.func @grad
// CHECK:       gpu.launch_func @attn_kernels::@grad_kernel blocks in (%{{.*}}) threads in (%c128, %c1, %c1)
// CHECK:       gpu.launch_func @attn_kernels::@grad_kernel_1 blocks in (%{{.*}}) threads in (%c128, %c1, %c1)
// CHECK:       gpu.func @grad_kernel
// CHECK-SAME:    block_m = 64, block_n = 64, threads = 128, {{.*}} head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = true, program = "grad_q", grid = ["q_blocks", "heads_q", "batch"]
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         nvvm.cp.async
// CHECK:         nvvm.wgmma.mma_async
// CHECK-NOT:     nvvm.mma.sync
// CHECK:       gpu.func @grad_kernel_1
// CHECK-SAME:    block_m = 64, block_n = 32, threads = 128, {{.*}} head_dim = 64, head_dim_v = 64, dtype = "bf16", causal = true, program = "grad_kv", grid = ["kv_blocks", "heads_kv", "batch"]
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         nvvm.wgmma.mma_async
// CHECK-NOT:     nvvm.mma.sync

// SM80-LABEL: func.func @grad
// SM80:       gpu.func @grad_kernel
// SM80-SAME:    program = "grad_q"
// SM80-NOT:     wgmma
// SM80:         nvvm.mma.sync
// SM80:       gpu.func @grad_kernel_1
// SM80-SAME:    block_m = 64, block_n = 32, {{.*}} program = "grad_kv"
// SM80-NOT:     wgmma
// SM80:         nvvm.mma.sync

// The key-major grid's per-query vectors (LSE, Δ) are per-column slices of
// the warpgroup accumulator layout (a grid's attributes print after its
// body).
// LAYOUT-LABEL: func.func @grad
// LAYOUT:       attn.load_tile %{{.*}} -> tensor<64xf32, #attn.slice<#attn.mma<warps = 4, version = 3>>>
// LAYOUT:       attn.program = "grad_q"
// LAYOUT:       attn.load_tile %{{.*}} -> tensor<32xf32, #attn.slice<#attn.mma<warps = 4, version = 3>, dim = 1>>
// LAYOUT:       attn.mask %{{.*}} {causal, transposed} : tensor<64x32xf32, #attn.mma<warps = 4, version = 3>>
// LAYOUT:       attn.broadcast %{{.*}} {per_column} : tensor<32xf32, #attn.slice<#attn.mma<warps = 4, version = 3>, dim = 1>> -> tensor<64x32xf32, #attn.mma<warps = 4, version = 3>>
// LAYOUT:       attn.program = "grad_kv"
func.func @grad(%do: memref<?x?x?x64xbf16>, %q: memref<?x?x?x64xbf16>,
                %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>,
                %o: memref<?x?x?x64xbf16>, %lse: memref<?x?x?xf32>,
                %dq: memref<?x?x?x64xbf16>, %dk: memref<?x?x?x64xbf16>,
                %dv: memref<?x?x?x64xbf16>, %delta: memref<?x?x?xf32>,
                %s: f32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) scale(%s) {causal}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?xf32>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?xf32>
  return
}
