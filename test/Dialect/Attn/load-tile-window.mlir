// RUN: attn-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// attn.load_tile with a column window: one index per source dim, the last
// the first column; `cols` valid columns.

// CHECK-LABEL: func.func @window
// CHECK:         attn.load_tile %arg0[%arg1, %arg1, %arg2, %arg3] rows %arg2 cols %arg3 : memref<?x?x?x?xf32> -> tensor<64x32xf32>
func.func @window(%bias: memref<?x?x?x?xf32>, %b: index, %r: index, %c: index)
    -> tensor<64x32xf32> {
  %t = attn.load_tile %bias[%b, %b, %r, %c] rows %r cols %c
      : memref<?x?x?x?xf32> -> tensor<64x32xf32>
  return %t : tensor<64x32xf32>
}

// -----

func.func @window_indices(%bias: memref<?x?x?x?xf32>, %i: index) {
  // expected-error @+1 {{with cols, expected one index per source dim (4), got 3}}
  %t = attn.load_tile %bias[%i, %i, %i] rows %i cols %i
      : memref<?x?x?x?xf32> -> tensor<64x32xf32>
  return
}

// -----

func.func @window_rank(%bias: memref<?x?x?xf32>, %i: index) {
  // expected-error @+1 {{with cols, the tile must be a static 2-d tile, got 'tensor<64xf32>'}}
  %t = attn.load_tile %bias[%i, %i, %i] rows %i cols %i
      : memref<?x?x?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @no_window_dynamic_cols(%bias: memref<?x?x?x?xf32>, %i: index) {
  // expected-error @+1 {{source's last dim must be static to match the tile columns (32)}}
  %t = attn.load_tile %bias[%i, %i, %i] rows %i
      : memref<?x?x?x?xf32> -> tensor<64x32xf32>
  return
}
