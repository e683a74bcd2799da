// RUN: attn-opt %s -split-input-file | attn-opt -split-input-file | FileCheck %s

// fp8 inputs (e4m3) with their dequantisation factors, V transposed
// ([B, Hkv, Dv, Nk]), a bf16 output.
// CHECK-LABEL: func.func @fp8
// CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} lse(%{{.*}} : memref<?x?x?xf32>) descale(%arg5, %arg6, %arg7) {causal, v_transposed} : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>, memref<?x?x128x?xf8E4M3FN>, memref<?x?x?x128xbf16>
func.func @fp8(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>,
               %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>,
               %lse: memref<?x?x?xf32>, %qd: f32, %kd: f32, %vd: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      descale(%qd, %kd, %vd) {causal, v_transposed}
      : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>,
        memref<?x?x128x?xf8E4M3FN>, memref<?x?x?x128xbf16>
  return
}

// -----

// Without descale factors (each 1), a run-time scale and an f16 output;
// GQA and Nq != Nk with static shapes (V's keys in dim 3).
// CHECK-LABEL: func.func @fp8_static
// CHECK: attn.attention %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} scale(%arg4) {v_transposed} : memref<2x8x100x256xf8E4M3FN>, memref<2x2x300x256xf8E4M3FN>, memref<2x2x256x300xf8E4M3FN>, memref<2x8x100x256xf16>
func.func @fp8_static(%q: memref<2x8x100x256xf8E4M3FN>,
                      %k: memref<2x2x300x256xf8E4M3FN>,
                      %v: memref<2x2x256x300xf8E4M3FN>,
                      %o: memref<2x8x100x256xf16>, %s: f32) {
  attn.attention %q, %k, %v into %o scale(%s) {v_transposed}
      : memref<2x8x100x256xf8E4M3FN>, memref<2x2x300x256xf8E4M3FN>,
        memref<2x2x256x300xf8E4M3FN>, memref<2x8x100x256xf16>
  return
}
