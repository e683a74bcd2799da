// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts="polynomial-exp2=4" | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts | FileCheck %s --check-prefix=OFF --implicit-check-not=attn.polynomial_exp2
// RUN: not attn-opt %s -attn-assign-layouts="polynomial-exp2=-1" 2>&1 | FileCheck %s --check-prefix=BADOPT

// polynomial-exp2=K marks the exponentials of the P tile (rounded to bf16
// for P·V) for one element in K on the FMA pipe; the row vectors' exp2
// (the rescale factor α) stays on the special-function unit. Off by
// default.

// CHECK-LABEL: func.func @bf16
// CHECK:         scf.for
// CHECK:           math.exp2 %{{.*}} {attn.polynomial_exp2 = 4 : i64} : tensor<128x128xf32, #attn.mma<warps = 8, version = 3>>
// CHECK:           math.exp2 %{{.*}} : tensor<128xf32, #attn.slice<#attn.mma<warps = 8, version = 3>>>
// CHECK:           arith.truncf %{{.*}} : tensor<128x128xf32, #attn.mma<warps = 8, version = 3>> to tensor<128x128xbf16, #attn.mma<warps = 8, version = 3>>
// OFF-LABEL:   func.func @bf16
func.func @bf16(%q: memref<1x16x4096x128xbf16>, %k: memref<1x16x4096x128xbf16>,
                %v: memref<1x16x4096x128xbf16>, %o: memref<1x16x4096x128xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<1x16x4096x128xbf16>, memref<1x16x4096x128xbf16>,
        memref<1x16x4096x128xbf16>, memref<1x16x4096x128xbf16>
  return
}

// -----

// fp8 (256 keys a block at D = 128): P is rounded to e4m3 for its product,
// marked as well.

// CHECK-LABEL: func.func @fp8
// CHECK:         scf.for
// CHECK:           math.exp2 %{{.*}} {attn.polynomial_exp2 = 4 : i64} : tensor<128x256xf32, #attn.mma<warps = 8, version = 3>>
// OFF-LABEL:   func.func @fp8
func.func @fp8(%q: memref<1x16x4096x128xf8E4M3FN>,
               %k: memref<1x16x4096x128xf8E4M3FN>,
               %vt: memref<1x16x128x4096xf8E4M3FN>,
               %o: memref<1x16x4096x128xbf16>, %qd: f32, %kd: f32, %vd: f32) {
  attn.attention %q, %k, %vt into %o descale(%qd, %kd, %vd) {v_transposed}
      : memref<1x16x4096x128xf8E4M3FN>, memref<1x16x4096x128xf8E4M3FN>,
        memref<1x16x128x4096xf8E4M3FN>, memref<1x16x4096x128xbf16>
  return
}

// BADOPT: pass option polynomial-exp2 must be 0 (none) or K >= 1 (one element in K), got -1
