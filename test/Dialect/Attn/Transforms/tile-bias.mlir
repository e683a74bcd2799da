// RUN: attn-opt %s -split-input-file --attn-tile-attention | FileCheck %s

// An additive bias: S' = scale·S + bias[0, h, i, j] (its batch dim of 1
// broadcasts), each block's [Br, Bc] window a windowed load (rows of the
// query block, columns of the key block), then the softmax at scale 1.
// CHECK-LABEL: func.func @bias
// CHECK-SAME:    %[[BIAS:[^:]+]]: memref<1x?x?x?xf32>
// CHECK:       scf.forall (%[[B:.+]], %[[H:.+]], %[[X:.+]]) in
// CHECK:         %[[QSTART:.+]] = arith.muli %[[X]], %{{c64(_[0-9]+)?}}
// CHECK:         %[[QROWS:.+]] = arith.minsi
// CHECK:         %[[ONE:.+]] = arith.cmpi eq, %{{.*}}, %{{c1(_[0-9]+)?}}
// CHECK:         %[[BH:.+]] = arith.select %[[ONE]], %{{c0(_[0-9]+)?}}, %[[H]]
// CHECK:         scf.for %[[KB:[^ ]+]] =
// CHECK:           %[[KVSTART:.+]] = arith.muli %[[KB]], %{{c32(_[0-9]+)?}}
// CHECK:           %[[S:.+]] = attn.dot
// CHECK:           %[[SS:.+]] = arith.mulf %[[S]], %{{.*}} : tensor<64x32xf32>
// CHECK:           %[[W:.+]] = attn.load_tile %[[BIAS]][%{{c0(_[0-9]+)?}}, %[[BH]], %[[QSTART]], %[[KVSTART]]] rows %[[QROWS]] cols %{{.*}} : memref<1x?x?x?xf32> -> tensor<64x32xf32>
// CHECK:           arith.addf %[[SS]], %[[W]] : tensor<64x32xf32>
// CHECK:         } {attn.softmax_pass = "max", attn.softmax_scale = 1.000000e+00 : f32}
func.func @bias(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                %o: memref<?x?x?x64xbf16>, %bias: memref<1x?x?x?xf32>) {
  attn.attention %q, %k, %k into %o bias(%bias : memref<1x?x?x?xf32>)
      {block_q = 64 : i64, block_kv = 32 : i64}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// A bf16 bias is loaded as bf16 and widened before the add.
// CHECK-LABEL: func.func @bias_bf16
// CHECK:         %[[W:.+]] = attn.load_tile {{.*}} : memref<?x?x?x?xbf16> -> tensor<64x32xbf16>
// CHECK:         %[[WF:.+]] = arith.extf %[[W]] : tensor<64x32xbf16> to tensor<64x32xf32>
// CHECK:         arith.addf %{{.*}}, %[[WF]] : tensor<64x32xf32>
func.func @bias_bf16(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                     %o: memref<?x?x?x64xbf16>, %bias: memref<?x?x?x?xbf16>) {
  attn.attention %q, %k, %k into %o bias(%bias : memref<?x?x?x?xbf16>)
      {block_q = 64 : i64, block_kv = 32 : i64}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
