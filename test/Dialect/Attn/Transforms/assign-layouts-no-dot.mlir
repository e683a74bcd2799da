// RUN: attn-opt %s -split-input-file -attn-assign-layouts -verify-diagnostics

// A program without attn.dot (attn.merge_splits; its lowering is in
// Pipelines/gpu-split-kv.mlir) takes its rows from its 2-d tiles, one
// 16-row mma.sync fragment per warp. Without a 2-d tile, or with rows that
// are not whole fragments, it says so.

// Only per-row vectors: nothing says how many rows a warp holds.
func.func @rows_only(%s: memref<?x?x?xf32>, %d: memref<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %s, %c0 : memref<?x?x?xf32>
  // expected-error @+1 {{unsupported: a GPU tile program without attn.dot or a 2-d tile}}
  scf.forall (%b, %h, %i) in (%n, %c1, %c1) {
    %t = attn.load_tile %s[%b, %h, %c0] rows %c64 : memref<?x?x?xf32> -> tensor<64xf32>
    attn.store_tile %t, %d[%b, %h, %c0] rows %c64 : tensor<64xf32>, memref<?x?x?xf32>
  }
  return
}

// -----

// Rows that are not a whole number of 16-row fragments.
func.func @odd_rows(%s: memref<?x?x?x32xf32>, %d: memref<?x?x?x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c24 = arith.constant 24 : index
  %n = memref.dim %s, %c0 : memref<?x?x?x32xf32>
  // expected-error @+1 {{unsupported: 24-row tiles without attn.dot (16 per warp, 1-32 warps)}}
  scf.forall (%b, %h, %i) in (%n, %c1, %c1) {
    %t = attn.load_tile %s[%b, %h, %c0] rows %c24 : memref<?x?x?x32xf32> -> tensor<24x32xf32>
    attn.store_tile %t, %d[%b, %h, %c0] rows %c24 : tensor<24x32xf32>, memref<?x?x?x32xf32>
  }
  return
}
