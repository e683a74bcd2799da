// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts="skip-unit-factors=0" | FileCheck %s --check-prefix=NEVER --implicit-check-not=attn.skip_unit_factors
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts="skip-unit-factors=1" | FileCheck %s --check-prefix=ALWAYS
// RUN: not attn-opt %s -attn-assign-layouts="skip-unit-factors=2" 2>&1 | FileCheck %s --check-prefix=BADOPT

// wgmma layouts: the rescale of O, A·broadcast(α), is marked for the
// lowering to skip where α = 1 from D = 256 (O is 128 registers a thread
// against 32 scores), not at D = 128; skip-unit-factors forces either way.

// CHECK-LABEL: func.func @d256
// CHECK:         scf.for
// CHECK:           arith.mulf %{{.*}}, %{{.*}} {attn.skip_unit_factors} : tensor<128x256xf32, #attn.mma<warps = 8, version = 3>>
// NEVER-LABEL:   func.func @d256
// ALWAYS-LABEL:  func.func @d256
// ALWAYS:          arith.mulf %{{.*}}, %{{.*}} {attn.skip_unit_factors} : tensor<128x256xf32, #attn.mma<warps = 8, version = 3>>
func.func @d256(%q: memref<1x8x4096x256xbf16>, %k: memref<1x8x4096x256xbf16>,
                %v: memref<1x8x4096x256xbf16>, %o: memref<1x8x4096x256xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<1x8x4096x256xbf16>, memref<1x8x4096x256xbf16>,
        memref<1x8x4096x256xbf16>, memref<1x8x4096x256xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @d128
// CHECK-NOT:     attn.skip_unit_factors
// CHECK:         return
// NEVER-LABEL:   func.func @d128
// ALWAYS-LABEL:  func.func @d128
// ALWAYS:          arith.mulf %{{.*}}, %{{.*}} {attn.skip_unit_factors} : tensor<128x128xf32, #attn.mma<warps = 8, version = 3>>
func.func @d128(%q: memref<1x16x4096x128xbf16>, %k: memref<1x16x4096x128xbf16>,
                %v: memref<1x16x4096x128xbf16>, %o: memref<1x16x4096x128xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<1x16x4096x128xbf16>, memref<1x16x4096x128xbf16>,
        memref<1x16x4096x128xbf16>, memref<1x16x4096x128xbf16>
  return
}

// BADOPT: pass option skip-unit-factors must be -1 (heuristic), 0 or 1, got 2
