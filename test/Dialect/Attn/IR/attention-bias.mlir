// RUN: attn-opt %s -split-input-file | attn-opt -split-input-file | FileCheck %s
// RUN: attn-opt %s -split-input-file --mlir-print-op-generic | attn-opt -split-input-file | FileCheck %s

// Round trips of attn.attention's bias(...) operand, in the custom and in
// the generic form.

// CHECK-LABEL: func.func @bias
// CHECK:       attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} lse(%{{.*}} : memref<?x?x?xf32>) bias(%{{.*}} : memref<?x?x?x?xf32>) {causal}
func.func @bias(%q: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>,
                %lse: memref<?x?x?xf32>, %bias: memref<?x?x?x?xf32>) {
  attn.attention %q, %q, %q into %o lse(%lse : memref<?x?x?xf32>)
      bias(%bias : memref<?x?x?x?xf32>) {causal}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// A bias of the inputs' element type.
// CHECK-LABEL: func.func @bias_bf16
// CHECK:       bias(%{{.*}} : memref<?x?x?x?xbf16>)
func.func @bias_bf16(%q: memref<?x?x?x64xbf16>, %bias: memref<?x?x?x?xbf16>) {
  attn.attention %q, %q, %q into %q bias(%bias : memref<?x?x?x?xbf16>)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// Broadcast over the batch and the heads (a [1, 1, Nq, Nk] bias).
// CHECK-LABEL: func.func @broadcast
// CHECK:       bias(%{{.*}} : memref<1x1x128x256xf32>) score_mod {
func.func @broadcast(%q: memref<2x8x128x64xf16>, %k: memref<2x8x256x64xf16>,
                     %o: memref<2x8x128x64xf16>,
                     %bias: memref<1x1x128x256xf32>) {
  attn.attention %q, %k, %k into %o bias(%bias : memref<1x1x128x256xf32>)
      score_mod {
  ^bb0(%s: f32):
    attn.yield %s : f32
  } : memref<2x8x128x64xf16>, memref<2x8x256x64xf16>,
      memref<2x8x256x64xf16>, memref<2x8x128x64xf16>
  return
}
