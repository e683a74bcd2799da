// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-specialize-warpgroups | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-specialize-warpgroups="split-kv-max-tile-bytes=0" | FileCheck %s --check-prefix=ANY
// RUN: not attn-opt %s -attn-specialize-warpgroups="split-kv-max-tile-bytes=-1" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: pass option split-kv-max-tile-bytes must be >= 0, got -1

// A decode step's split_kv program at D = 128 (one warpgroup of 64 rows,
// 128-key tiles of 32 KiB) keeps its copies: the warpgroup issues them
// into its per-slot rings itself, no producer. With no size bound it gets
// one.
// CHECK-LABEL: func.func @split_d128
// CHECK:         attn.alloc_ring : !attn.ring<2, tensor<128x128xbf16
// CHECK-NOT:     attn.warp_specialize
// CHECK:         attn.async_load_tile
// CHECK:         attn.ring_wait
// CHECK:         } {attn.grid = {{.*}}, attn.program = "split_kv"
// ANY-LABEL:   func.func @split_d128
// ANY:           attn.warp_specialize registers(consumers = 256, producer = 24)
// ANY:           } producer {
func.func @split_d128(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                      %po: memref<?x?x?x?x128xf32>, %pl: memref<?x?x?x?xf32>) {
  attn.attention %q, %k, %k into %po lse(%pl : memref<?x?x?x?xf32>) {split_kv}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x?x128xf32>
  return
}

// -----

// With the causal mask (a chunk of queries against the keys) the program
// keeps its producer: without it ptxas spilled 12 bytes.
// CHECK-LABEL: func.func @split_d128_causal
// CHECK:         attn.warp_specialize registers(consumers = 256, producer = 24)
func.func @split_d128_causal(%q: memref<?x?x?x128xbf16>,
                             %k: memref<?x?x?x128xbf16>,
                             %po: memref<?x?x?x?x128xf32>,
                             %pl: memref<?x?x?x?xf32>) {
  attn.attention %q, %k, %k into %po lse(%pl : memref<?x?x?x?xf32>)
      {causal, split_kv}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x?x128xf32>
  return
}

// -----

// D = 64's 16 KiB tiles (three slots) keep the producer.
// CHECK-LABEL: func.func @split_d64
// CHECK:         attn.alloc_ring : !attn.ring<3, tensor<128x64xbf16
// CHECK:         attn.warp_specialize
func.func @split_d64(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                     %po: memref<?x?x?x?x64xf32>, %pl: memref<?x?x?x?xf32>) {
  attn.attention %q, %k, %k into %po lse(%pl : memref<?x?x?x?xf32>) {split_kv}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x?x64xf32>
  return
}

// -----

// D = 256: two consumer warpgroups (128 rows) keep the producer.
// CHECK-LABEL: func.func @split_d256
// CHECK:         attn.warp_specialize
func.func @split_d256(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>,
                      %po: memref<?x?x?x?x256xf32>, %pl: memref<?x?x?x?xf32>) {
  attn.attention %q, %k, %k into %po lse(%pl : memref<?x?x?x?xf32>) {split_kv}
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x?x256xf32>
  return
}
