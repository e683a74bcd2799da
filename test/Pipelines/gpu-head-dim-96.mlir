// RUN: attn-opt %s -split-input-file --attn-gpu-kernel-pipeline="chip=sm_90a" | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-gpu-kernel-pipeline="chip=sm_80" | FileCheck %s --check-prefix=SM80

// Head dim 96 on sm_90a: rows of 192 bytes are three 64-byte slabs, so the
// program takes warpgroup MMA (two consumer warpgroups of 64 rows behind a
// producer of bulk tensor copies, 384 threads) with Q, K and V in 64-byte
// swizzled slabs: every tensor map's box is 128 rows by one 64-byte slab.
// With or without the causal mask the program claims its tiles at run time
// (a static schedule over tiles of 64-byte slabs stalled; see
// attn-persist-tiles). On sm_80 it stays on mma.sync (128 threads, no tensor
// maps).
// CHECK-LABEL: gpu.func @attention_kernel
// CHECK-SAME:    threads = 384, smem_bytes = {{[0-9]+}}, head_dim = 96, head_dim_v = 96, dtype = "bf16", causal = false
// CHECK-SAME:    tensor_maps = [0, 128, 64, 1, 128, 64, 2, 128, 64], register_estimate = {{[0-9]+}}, persistent = true, tile_counter = true>
// CHECK:         wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16
// SM80-LABEL:  gpu.func @attention_kernel
// SM80-SAME:     threads = 128, smem_bytes = {{[0-9]+}}, head_dim = 96, head_dim_v = 96, dtype = "bf16", causal = false, grid = ["q_blocks", "heads_q", "batch"], register_estimate = {{[0-9]+}}>
// SM80:          nvvm.mma.sync
func.func @attention(%q: memref<?x?x?x96xbf16>, %k: memref<?x?x?x96xbf16>,
                     %v: memref<?x?x?x96xbf16>, %o: memref<?x?x?x96xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>,
        memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>
  return
}

// -----

// CHECK-LABEL: gpu.func @attention_kernel
// CHECK-SAME:    head_dim = 96, head_dim_v = 96, dtype = "f16", causal = true
// CHECK-SAME:    tensor_maps = [0, 128, 64, 1, 128, 64, 2, 128, 64]
// CHECK-SAME:    persistent = true, tile_counter = true
// SM80-LABEL:  gpu.func @attention_kernel
// SM80-SAME:     threads = 128
func.func @attention(%q: memref<?x?x?x96xf16>, %k: memref<?x?x?x96xf16>,
                     %v: memref<?x?x?x96xf16>, %o: memref<?x?x?x96xf16>) {
  attn.attention %q, %k, %v into %o {causal}
      : memref<?x?x?x96xf16>, memref<?x?x?x96xf16>,
        memref<?x?x?x96xf16>, memref<?x?x?x96xf16>
  return
}
