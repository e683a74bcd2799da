// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts="skip-unit-factors=0" | FileCheck %s --check-prefix=NEVER --implicit-check-not=attn.skip_unit_factors
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts="skip-unit-factors=1" | FileCheck %s --check-prefix=ALWAYS
// RUN: not attn-opt %s -attn-assign-layouts="skip-unit-factors=2" 2>&1 | FileCheck %s --check-prefix=BADOPT

// wgmma layouts: the rescale of O, A·broadcast(α), is marked for the
// lowering to skip where α = 1 from D = 256 (O is 128 registers a thread
// against 32 scores) and at D = 64 in blocks of three consumer warpgroups,
// not at D = 128; skip-unit-factors forces either way.

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

// -----

// D = 64 in the 192-row block of three consumer warpgroups: marked (the
// most exponentials a clock share the issue slots with the rescale).
// CHECK-LABEL: func.func @d64_three_warpgroups
// CHECK:         scf.for
// CHECK:           arith.mulf %{{.*}}, %{{.*}} {attn.skip_unit_factors} : tensor<192x64xf32, #attn.mma<warps = 12, version = 3>>
// NEVER-LABEL:   func.func @d64_three_warpgroups
// ALWAYS-LABEL:  func.func @d64_three_warpgroups
func.func @d64_three_warpgroups(%q: memref<2x32x2048x64xbf16>,
                                %k: memref<2x32x2048x64xbf16>,
                                %v: memref<2x32x2048x64xbf16>,
                                %o: memref<2x32x2048x64xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<2x32x2048x64xbf16>, memref<2x32x2048x64xbf16>,
        memref<2x32x2048x64xbf16>, memref<2x32x2048x64xbf16>
  return
}

// -----

// The 128-row causal D = 64 program (below 8192 rows) is not marked.
// CHECK-LABEL: func.func @d64_two_warpgroups
// CHECK-NOT:     attn.skip_unit_factors
// CHECK:         return
// NEVER-LABEL:   func.func @d64_two_warpgroups
// ALWAYS-LABEL:  func.func @d64_two_warpgroups
// ALWAYS:          arith.mulf %{{.*}}, %{{.*}} {attn.skip_unit_factors} : tensor<128x64xf32, #attn.mma<warps = 8, version = 3>>
func.func @d64_two_warpgroups(%q: memref<2x32x2048x64xbf16>,
                              %k: memref<2x32x2048x64xbf16>,
                              %v: memref<2x32x2048x64xbf16>,
                              %o: memref<2x32x2048x64xbf16>) {
  attn.attention %q, %k, %v into %o {causal}
      : memref<2x32x2048x64xbf16>, memref<2x32x2048x64xbf16>,
        memref<2x32x2048x64xbf16>, memref<2x32x2048x64xbf16>
  return
}
