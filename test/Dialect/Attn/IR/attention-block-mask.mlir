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

// -----

// full_blocks beside block_mask, and a mask_mod region (with a score_mod).
// CHECK-LABEL: func.func @full_blocks
// CHECK:       block_mask(%{{.*}}, %{{.*}} : memref<?x1x?xi32>, memref<?x1x?x?xi32>) full_blocks(%{{.*}}, %{{.*}} : memref<?x1x?xi32>, memref<?x1x?x?xi32>) score_mod {
// CHECK:         attn.yield %{{.*}} : f32
// CHECK:       } mask_mod {
// CHECK:       ^bb0(%{{.*}}: i32, %{{.*}}: i32, %[[I:.*]]: i32, %[[J:.*]]: i32):
// CHECK:         %[[SAME:.*]] = arith.cmpi eq
// CHECK:         attn.yield %[[SAME]] : i1
// CHECK:       } {causal}
func.func @full_blocks(%q: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>,
                       %c: memref<?x1x?xi32>, %x: memref<?x1x?x?xi32>,
                       %fc: memref<?x1x?xi32>, %fx: memref<?x1x?x?xi32>,
                       %docs: memref<?x?xi32>) {
  attn.attention %q, %q, %q into %o
      block_mask(%c, %x : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      full_blocks(%fc, %fx : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      score_mod {
  ^bb0(%s: f32):
    %t = math.tanh %s : f32
    attn.yield %t : f32
  } mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %b : i32 to index
    %ix = arith.index_cast %i : i32 to index
    %jx = arith.index_cast %j : i32 to index
    %di = memref.load %docs[%bx, %ix] : memref<?x?xi32>
    %dj = memref.load %docs[%bx, %jx] : memref<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    attn.yield %same : i1
  } {causal} : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
      memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// A mask_mod alone (no block lists): a local window of 64 keys each side.
// CHECK-LABEL: func.func @mask_mod_alone
// CHECK:       attn.attention {{.*}} mask_mod {
func.func @mask_mod_alone(%q: memref<?x?x?x64xf32>) {
  attn.attention %q, %q, %q into %q mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %d = arith.subi %i, %j : i32
    %a = math.absi %d : i32
    %w = arith.constant 64 : i32
    %in = arith.cmpi sle, %a, %w : i32
    attn.yield %in : i1
  } : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
      memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
