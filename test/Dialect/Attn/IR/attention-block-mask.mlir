// RUN: attn-opt %s -split-input-file | attn-opt -split-input-file | FileCheck %s
// RUN: attn-opt %s -split-input-file --mlir-print-op-generic | attn-opt -split-input-file | FileCheck %s

// Round trips of attn.attention's block_mask(...) operands and mask_block,
// in the custom and in the generic form.

// CHECK-LABEL: func.func @block_mask
// CHECK:       attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} lse(%{{.*}} : memref<?x?x?xf32>) block_mask(%{{.*}}, %{{.*}} : memref<1x?x?xi32>, memref<1x?x?x?xi32>) score_mod {
// CHECK:       } {causal, mask_block = array<i64: 128, 64>}
func.func @block_mask(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                      %o: memref<?x?x?x64xbf16>, %lse: memref<?x?x?xf32>,
                      %c: memref<1x?x?xi32>, %x: memref<1x?x?x?xi32>) {
  attn.attention %q, %k, %k into %o lse(%lse : memref<?x?x?xf32>)
      block_mask(%c, %x : memref<1x?x?xi32>, memref<1x?x?x?xi32>) score_mod {
  ^bb0(%s: f32):
    attn.yield %s : f32
  } {causal, mask_block = array<i64: 128, 64>}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// The default mask block ([128, 128]) fits 2048 rows in 16 query blocks.
// CHECK-LABEL: func.func @default_block
// CHECK:       block_mask(%{{.*}}, %{{.*}} : memref<4x8x16xi32>, memref<4x8x16x16xi32>)
// CHECK-NOT:   mask_block
func.func @default_block(%q: memref<4x8x2048x64xf16>,
                         %o: memref<4x8x2048x64xf16>,
                         %c: memref<4x8x16xi32>, %x: memref<4x8x16x16xi32>) {
  attn.attention %q, %q, %q into %o
      block_mask(%c, %x : memref<4x8x16xi32>, memref<4x8x16x16xi32>)
      : memref<4x8x2048x64xf16>, memref<4x8x2048x64xf16>,
        memref<4x8x2048x64xf16>, memref<4x8x2048x64xf16>
  return
}
