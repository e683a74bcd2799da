// RUN: attn-opt %s -split-input-file | attn-opt -split-input-file | FileCheck %s

// The built-in ALiBi: one f32 slope per query head (static or dynamic).
// CHECK-LABEL: func.func @alibi
// CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} lse(%{{.*}} : memref<?x?x?xf32>) scale(%arg6) alibi(%arg5 : memref<16xf32>) {causal} : memref<?x16x?x128xbf16>, memref<?x4x?x128xbf16>, memref<?x4x?x128xbf16>, memref<?x16x?x128xbf16>
func.func @alibi(%q: memref<?x16x?x128xbf16>, %k: memref<?x4x?x128xbf16>,
                 %v: memref<?x4x?x128xbf16>, %o: memref<?x16x?x128xbf16>,
                 %lse: memref<?x?x?xf32>, %slopes: memref<16xf32>, %s: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) scale(%s)
      alibi(%slopes : memref<16xf32>) {causal}
      : memref<?x16x?x128xbf16>, memref<?x4x?x128xbf16>,
        memref<?x4x?x128xbf16>, memref<?x16x?x128xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @alibi_dynamic
// CHECK: alibi(%arg4 : memref<?xf32>) :
func.func @alibi_dynamic(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                         %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                         %slopes: memref<?xf32>) {
  attn.attention %q, %k, %v into %o alibi(%slopes : memref<?xf32>)
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}
