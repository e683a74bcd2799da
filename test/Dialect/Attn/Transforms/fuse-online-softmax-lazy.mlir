// RUN: attn-opt %s -split-input-file -attn-tile-attention="block-q=32 block-kv=16" \
// RUN:   -attn-fuse-online-softmax="rescale-threshold=8" -cse | FileCheck %s

// Lazy rescaling (rescale-threshold τ = 8): the running max m becomes a
// reference max that moves only when a block's max mb exceeds it by more
// than τ/c, c = scale·log2(e) = 0.125·1.44269504 = 0.18033688:
//   mb = max(m, rowmax(S));  m' = (mb − m)·c > 8 ? mb : m
// Everything after m' is the eager form's: P = exp2((S − m')·c) <= 2^8,
// α = exp2((m − m')·c) = 1 wherever m' = m.

// CHECK-LABEL: func.func @lazy
// CHECK:         scf.for {{.*}} iter_args(%[[M:[^ ]+]] = %{{.*}}, %[[L:[^ ]+]] = %{{.*}}, %[[A:[^ ]+]] = %{{.*}})
// CHECK:           %[[S:.*]] = attn.dot
// CHECK:           %[[RM:.*]] = attn.reduce max %[[S]]
// CHECK:           %[[MB:.*]] = arith.maximumf %[[M]], %[[RM]]
// CHECK-DAG:       %[[TAU:.*]] = arith.constant dense<8.000000e+00> : tensor<32xf32>
// CHECK-DAG:       %[[C:.*]] = arith.constant dense<0.180336878> : tensor<32xf32>
// CHECK:           %[[D:.*]] = arith.subf %[[MB]], %[[M]] : tensor<32xf32>
// CHECK:           %[[DC:.*]] = arith.mulf %[[D]], %[[C]]
// CHECK:           %[[GROW:.*]] = arith.cmpf ogt, %[[DC]], %[[TAU]]
// CHECK:           %[[MN:.*]] = arith.select %[[GROW]], %[[MB]], %[[M]]
// CHECK:           %[[NOKEY:.*]] = arith.cmpf oeq, %[[MN]], %{{.*}}
// CHECK:           %[[MS:.*]] = arith.select %[[NOKEY]], %{{.*}}, %[[MN]]
// CHECK:           %[[MSB:.*]] = attn.broadcast %[[MS]]
// CHECK:           arith.subf %[[S]], %[[MSB]]
// CHECK:           %[[MD:.*]] = arith.subf %[[M]], %[[MS]]
// CHECK:           %[[AX:.*]] = arith.mulf %[[MD]], %[[C]]
// CHECK:           %[[ALPHA:.*]] = math.exp2 %[[AX]]
// CHECK:           %[[AB:.*]] = attn.broadcast %[[ALPHA]]
// CHECK:           arith.mulf %[[AB]], %[[A]]
// CHECK:           scf.yield %[[MN]]
// LSE = m·scale + log(l) with the reference m the loop carried out.
// CHECK:         math.log
func.func @lazy(%q: memref<2x4x100x64xbf16>, %k: memref<2x4x100x64xbf16>,
                %v: memref<2x4x100x64xbf16>, %o: memref<2x4x100x64xbf16>,
                %lse: memref<2x4x100xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<2x4x100xf32>) {scale = 0.125 : f32}
      : memref<2x4x100x64xbf16>, memref<2x4x100x64xbf16>,
        memref<2x4x100x64xbf16>, memref<2x4x100x64xbf16>
  return
}
