// RUN: attn-opt %s -convert-attn-gpu-to-nvvm="fragment-prefetch=0" | FileCheck %s --check-prefix=NOW
// RUN: attn-opt %s -convert-attn-gpu-to-nvvm="fragment-prefetch=2" | FileCheck %s --check-prefix=AHEAD2
// RUN: attn-opt %s -convert-attn-gpu-to-nvvm="fragment-prefetch=100" | FileCheck %s --check-prefix=ALL
// RUN: attn-opt %s -convert-attn-gpu-to-nvvm | FileCheck %s --check-prefix=DEFAULT

// attn.dot's B-fragment loads issued ahead of the mma.sync that reads them.
// S = Q·Kᵀ, 16x64 · (16x64)ᵀ: 4 k-steps of one n-tile pair: steps s = 0..3,
// each an A ldmatrix.x4 (Q, k-step s), a B ldmatrix.x4 (K) and 2 mma.sync.

#mma = #attn.mma<warps = 1>
#sh = #attn.shared<swizzle = 8, pad = 0>

// fragment-prefetch=0: each step's loads right before its mma.
// NOW-LABEL:     gpu.func @qk_kernel
// NOW-COUNT-2:   nvvm.ldmatrix
// NOW-NOT:       nvvm.ldmatrix
// NOW-NOT:       nvvm.mma.sync
// NOW-COUNT-2:   nvvm.mma.sync
// NOW-NOT:       nvvm.mma.sync
// NOW-COUNT-2:   nvvm.ldmatrix
// NOW-NOT:       nvvm.ldmatrix
// NOW-NOT:       nvvm.mma.sync
// NOW-COUNT-2:   nvvm.mma.sync
// NOW-NOT:       nvvm.mma.sync
// NOW-COUNT-2:   nvvm.ldmatrix
// NOW-NOT:       nvvm.ldmatrix
// NOW-NOT:       nvvm.mma.sync
// NOW-COUNT-2:   nvvm.mma.sync
// NOW-NOT:       nvvm.mma.sync
// NOW-COUNT-2:   nvvm.ldmatrix
// NOW-NOT:       nvvm.ldmatrix
// NOW-NOT:       nvvm.mma.sync
// NOW-COUNT-2:   nvvm.mma.sync
// NOW-NOT:       nvvm.ldmatrix
// NOW-LABEL:     gpu.func @qk128_kernel

// fragment-prefetch=2: steps 0 and 1 loaded, then step 2's loads before
// step 0's mma and step 3's before step 1's; steps 2 and 3 only multiply.
// AHEAD2-LABEL:   gpu.func @qk_kernel
// AHEAD2-COUNT-6: nvvm.ldmatrix
// AHEAD2-NOT:     nvvm.ldmatrix
// AHEAD2-NOT:     nvvm.mma.sync
// AHEAD2-COUNT-2: nvvm.mma.sync
// AHEAD2-NOT:     nvvm.mma.sync
// AHEAD2-COUNT-2: nvvm.ldmatrix
// AHEAD2-NOT:     nvvm.ldmatrix
// AHEAD2-COUNT-6: nvvm.mma.sync
// AHEAD2-NOT:     nvvm.ldmatrix
// AHEAD2-LABEL:   gpu.func @qk128_kernel

// At least as many steps ahead as there are (100):
// every load first.
// ALL-LABEL:     gpu.func @qk_kernel
// ALL-COUNT-8:   nvvm.ldmatrix
// ALL-NOT:       nvvm.ldmatrix
// ALL-NOT:       nvvm.mma.sync
// ALL-COUNT-8:   nvvm.mma.sync
// ALL-NOT:       nvvm.ldmatrix
// ALL-LABEL:     gpu.func @qk128_kernel
func.func @qk(%q: memref<?x64xbf16>, %k: memref<?x64xbf16>, %s: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %qt = attn.load_tile %q[%c0] rows %c16 : memref<?x64xbf16> -> tensor<16x64xbf16, #sh>
    %kt = attn.load_tile %k[%c0] rows %c16 : memref<?x64xbf16> -> tensor<16x64xbf16, #sh>
    %z = arith.constant dense<0.0> : tensor<16x16xf32, #mma>
    %st = attn.dot %qt, %kt, %z {rhs_transposed} : tensor<16x64xbf16, #sh>, tensor<16x64xbf16, #sh> -> tensor<16x16xf32, #mma>
    attn.store_tile %st, %s[%c0] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}

// The default at head dim 64: none ahead.
// DEFAULT-LABEL:   gpu.func @qk_kernel
// DEFAULT-COUNT-2: nvvm.ldmatrix
// DEFAULT-NOT:     nvvm.ldmatrix
// DEFAULT-COUNT-2: nvvm.mma.sync
// DEFAULT-NOT:     nvvm.mma.sync
// DEFAULT-COUNT-2: nvvm.ldmatrix

// The default at head dim 128 (the K of Q·Kᵀ): 4 steps ahead. 8 k-steps:
// steps 0-3 loaded (A and B each), then one step's two loads before each
// of the first 4 steps' mma, then 4 steps of mma only.
// DEFAULT-LABEL:   gpu.func @qk128_kernel
// DEFAULT-COUNT-8: nvvm.ldmatrix
// DEFAULT-NOT:     nvvm.ldmatrix
// DEFAULT-NOT:     nvvm.mma.sync
// DEFAULT-COUNT-2: nvvm.ldmatrix
// DEFAULT-NOT:     nvvm.ldmatrix
// DEFAULT-COUNT-2: nvvm.mma.sync
// DEFAULT-NOT:     nvvm.mma.sync
// DEFAULT-COUNT-2: nvvm.ldmatrix
// DEFAULT:         nvvm.mma.sync
// DEFAULT-COUNT-2: nvvm.ldmatrix
// DEFAULT:         nvvm.mma.sync
// DEFAULT-COUNT-2: nvvm.ldmatrix
// DEFAULT-NOT:     nvvm.ldmatrix
// DEFAULT-COUNT-10: nvvm.mma.sync
// DEFAULT-NOT:     nvvm.mma.sync
// DEFAULT-NOT:     nvvm.ldmatrix
func.func @qk128(%q: memref<?x128xbf16>, %k: memref<?x128xbf16>, %s: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %qt = attn.load_tile %q[%c0] rows %c16 : memref<?x128xbf16> -> tensor<16x128xbf16, #sh>
    %kt = attn.load_tile %k[%c0] rows %c16 : memref<?x128xbf16> -> tensor<16x128xbf16, #sh>
    %z = arith.constant dense<0.0> : tensor<16x16xf32, #mma>
    %st = attn.dot %qt, %kt, %z {rhs_transposed} : tensor<16x128xbf16, #sh>, tensor<16x128xbf16, #sh> -> tensor<16x16xf32, #mma>
    attn.store_tile %st, %s[%c0] rows %c16 : tensor<16x16xf32, #mma>, memref<?x16xf32>
  }
  return
}
