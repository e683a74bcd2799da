// FIXED BUG (regression test, formerly XFAIL): the attn.load_tile verifier
// accepts a tile with zero rows; convert-attn-to-linalg then builds an invalid
// tensor.insert_slice and fails with "offset 0 is out-of-bounds: 0 >= 0" (exit
// 1, but the message is about an op the user never wrote). The verifier should
// reject zero-sized tiles.

// RUN: not attn-opt %s 2>&1 | FileCheck %s
// CHECK: bug-load-tile-zero-rows.mlir:[[@LINE+3]]:8: error: 'attn.load_tile' op

func.func @f(%m: memref<?x8xf32>, %i: index, %n: index) -> tensor<0x8xf32> {
  %t = attn.load_tile %m[%i] rows %n : memref<?x8xf32> -> tensor<0x8xf32>
  return %t : tensor<0x8xf32>
}
