// RUN: attn-opt %s -convert-attn-to-linalg | FileCheck %s

// A windowed load reads [rows, cols] at (row, col) of the source's last two
// dims through a rank-reduced subview, and pads the rest of the tile (rows
// past `rows`, columns past `cols`) with zeros.

// CHECK-LABEL: func.func @window
// CHECK:         %[[V:.*]] = memref.subview %arg0[%arg1, %arg1, %arg2, %arg3] [1, 1, %arg4, %arg5] [1, 1, 1, 1] : memref<?x?x?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK:         %[[T:.*]] = bufferization.to_tensor %[[V]] restrict
// CHECK:         %[[Z:.*]] = linalg.fill
// CHECK:         tensor.insert_slice %[[T]] into %[[Z]][0, 0] [%arg4, %arg5] [1, 1]
func.func @window(%bias: memref<?x?x?x?xf32>, %b: index, %r: index,
                  %c: index, %nr: index, %nc: index) -> tensor<64x32xf32> {
  %t = attn.load_tile %bias[%b, %b, %r, %c] rows %nr cols %nc
      : memref<?x?x?x?xf32> -> tensor<64x32xf32>
  return %t : tensor<64x32xf32>
}
