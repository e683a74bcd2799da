// RUN: attn-opt %s -split-input-file | attn-opt -split-input-file | FileCheck %s
// RUN: attn-opt %s -split-input-file --mlir-print-op-generic | attn-opt -split-input-file | FileCheck %s

// Round trips of attn.attention's dropout(...) operands, in the custom and
// in the generic form.

// CHECK-LABEL: func.func @dropout
// CHECK-SAME:    %[[P:[^:]+]]: f32, %[[SEED:[^:]+]]: i64, %[[OFF:[^:]+]]: i32
// CHECK:       attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} lse(%{{.*}} : memref<?x?x?xf32>) dropout(%[[P]], %[[SEED]], %[[OFF]]) {causal}
func.func @dropout(%q: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>,
                   %lse: memref<?x?x?xf32>, %p: f32, %seed: i64,
                   %offset: i32) {
  attn.attention %q, %q, %q into %o lse(%lse : memref<?x?x?xf32>)
      dropout(%p, %seed, %offset) {causal}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// A constant rate, beside a bias and a score_mod.
// CHECK-LABEL: func.func @dropout_variants
// CHECK:       bias(%{{.*}} : memref<?x?x?x?xf32>) dropout(%{{.*}}, %{{.*}}, %{{.*}}) score_mod
func.func @dropout_variants(%q: memref<?x?x?x64xf32>,
                            %bias: memref<?x?x?x?xf32>, %seed: i64,
                            %offset: i32) {
  %p = arith.constant 0.25 : f32
  attn.attention %q, %q, %q into %q bias(%bias : memref<?x?x?x?xf32>)
      dropout(%p, %seed, %offset) score_mod {
  ^bb0(%s: f32):
    attn.yield %s : f32
  } : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
      memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}

// -----

// attn.random: a score tile's Philox words.
// CHECK-LABEL: func.func @random
// CHECK:       attn.random key(%{{.*}}) counter(%{{.*}}, %{{.*}}) q(%{{.*}}) kv(%{{.*}}) : tensor<64x32xi32>
func.func @random(%seed: i64, %bh: i32, %off: i32, %q0: index,
                  %k0: index) -> tensor<64x32xi32> {
  %u = attn.random key(%seed) counter(%bh, %off) q(%q0) kv(%k0)
      : tensor<64x32xi32>
  return %u : tensor<64x32xi32>
}
