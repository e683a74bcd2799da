// RUN: attn-opt %s -attn-tile-pipeline="target=sm_80" | FileCheck %s --check-prefix=TILE
// RUN: attn-opt %s -attn-gpu-kernel-pipeline="chip=sm_80" | FileCheck %s --check-prefix=KERNEL
// RUN: attn-opt %s -attn-tile-pipeline="target=sm_80 block-q=64 block-kv=32" | FileCheck %s --check-prefix=FORCED

// The tile pipeline with a GPU target shows the tile level the GPU kernel
// is built from: the blocks attn-codegen chooses (attn-select-gpu-blocks,
// from the kernel's register and shared-memory budget), not the
// FlashAttention rule alone, which gives 64x128 here (a kernel that
// spills). bf16, d = 64, sm_80: 128 query rows, 64 key/value rows.
// TILE-LABEL: func.func @attention
// TILE:         attn.load_tile %arg0{{.*}} -> tensor<128x64xbf16>
// TILE:         attn.load_tile %arg1{{.*}} -> tensor<64x64xbf16>
// TILE-NOT:     tensor<64x128xbf16>
// KERNEL:       block_m = 128, block_n = 64,
// Block options still choose:
// FORCED:       attn.load_tile %arg0{{.*}} -> tensor<64x64xbf16>
// FORCED:       attn.load_tile %arg1{{.*}} -> tensor<32x64xbf16>
func.func @attention(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                     %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
