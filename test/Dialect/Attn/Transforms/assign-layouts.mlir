// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_80" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -verify-diagnostics | FileCheck %s --implicit-check-not=attn.skip_unit_factors
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a block-kv=64" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts="wgmma=0" -verify-diagnostics | FileCheck %s --check-prefix=SKIP
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -verify-diagnostics | FileCheck %s --check-prefix=WGMMA --implicit-check-not=attn.skip_unit_factors
//
// On sm_90a with mma.sync (D = 128: Bc = 64, two m-tiles) the loops'
// rescale A·α is marked for the lowering to skip where α = 1; with Bc = 32
// (sm_80) it is not.
// SKIP-LABEL: func.func @attention
// SKIP:         scf.for
// SKIP:           arith.mulf %{{.*}}, %{{.*}} {attn.skip_unit_factors} : tensor<128x128xf32, #attn.mma<warps = 4>>
// SKIP:         scf.for
// SKIP:           arith.mulf %{{.*}}, %{{.*}} {attn.skip_unit_factors} : tensor<128x128xf32, #attn.mma<warps = 4>>
// SKIP-NOT:     attn.skip_unit_factors
// SKIP:         attn.store_tile
// The register estimate of that tiling, 2·(D/2 + Bc/2) + 63: at the limit.
// SKIP:         } {attn.grid = {{.*}}, attn.register_estimate = 255 : i64
// On sm_90a by default, wgmma layouts (Br = Bc = 128): the register tiles
// are #attn.mma version 3 over 8 warps (two warpgroups of 64 rows, one
// m-tile per warp), Q, K and V sit in 128-byte-swizzled slabs, Q is read by
// wgmma from there (no conversion to registers), and the register estimate
// is D/2 + Bc/2 + 63.
// WGMMA-LABEL: func.func @attention
// WGMMA:         scf.forall
// WGMMA-DAG:       arith.constant dense<0.000000e+00> : tensor<128x128xf32, #attn.mma<warps = 8, version = 3>>
// WGMMA-DAG:       arith.constant dense<0xFF800000> : tensor<128xf32, #attn.slice<#attn.mma<warps = 8, version = 3>>>
// WGMMA:           %[[Q:.*]] = attn.load_tile %{{.*}} -> tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>
// WGMMA-NOT:       attn.convert_layout
// WGMMA:           scf.for
// WGMMA:             %[[K:.*]] = attn.load_tile %{{.*}} -> tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>
// WGMMA:             attn.dot %[[Q]], %[[K]], %{{.*}} {rhs_transposed} : tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>>, tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>> -> tensor<128x128xf32, #attn.mma<warps = 8, version = 3>>
// The exponent (S − m)·c is marked for the lowering's one fma per score
// (S·c − m·c where every row of a thread has |m·c| <= 2^12).
// WGMMA:             %[[MB:.*]] = attn.broadcast %{{.*}} : tensor<128xf32, #attn.slice<#attn.mma<warps = 8, version = 3>>> -> tensor<128x128xf32, #attn.mma<warps = 8, version = 3>>
// WGMMA-NEXT:        %[[D:.*]] = arith.subf %{{.*}}, %[[MB]] : tensor<128x128xf32, #attn.mma<warps = 8, version = 3>>
// WGMMA-NEXT:        %[[E:.*]] = arith.mulf %[[D]], %{{.*}} {attn.fused_exponent} : tensor<128x128xf32, #attn.mma<warps = 8, version = 3>>
// WGMMA-NEXT:        math.exp2 %[[E]]
// WGMMA:             arith.truncf %{{.*}} : tensor<128x128xf32, #attn.mma<warps = 8, version = 3>> to tensor<128x128xbf16, #attn.mma<warps = 8, version = 3>>
// WGMMA:             attn.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x128xbf16, #attn.mma<warps = 8, version = 3>>, tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0, slab = 128>> -> tensor<128x128xf32, #attn.mma<warps = 8, version = 3>>
// WGMMA:         } {attn.grid = {{.*}}, attn.register_estimate = 191 : i64
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_80" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts="m-tiles=1 q-in-registers=1" -verify-diagnostics | FileCheck %s --check-prefix=QREG
// RUN: not attn-opt %s -attn-assign-layouts="m-tiles=3" 2>&1 | FileCheck %s --check-prefix=BADOPT

// bf16, D = 128, Br = 128, Bc = 32: two m-tiles per warp (4 warps), Q read
// from shared memory. Every register tile is #attn.mma<warps = 4>, every
// per-row vector its slice; Q, K and V, which attn.dot reads, are in
// swizzled shared memory. Tile constants hoisted out of the grid come back
// in with the grid's layouts, and O = A / l becomes A · (1/l).

// CHECK-LABEL: func.func @attention
// CHECK:         scf.forall
// CHECK-DAG:       arith.constant dense<0xFF800000> : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
// CHECK-DAG:       arith.constant dense<0.000000e+00> : tensor<128x128xf32, #attn.mma<warps = 4>>
// CHECK:           attn.load_tile %{{.*}} -> tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0>>
// CHECK:           scf.for
// CHECK:             attn.load_tile %{{.*}} -> tensor<32x128xbf16, #attn.shared<swizzle = 8, pad = 0>>
// CHECK:             attn.dot %{{.*}} {rhs_transposed} : tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0>>, tensor<32x128xbf16, #attn.shared<swizzle = 8, pad = 0>> -> tensor<128x32xf32, #attn.mma<warps = 4>>
// CHECK:             attn.reduce  max %{{.*}} : tensor<128x32xf32, #attn.mma<warps = 4>> -> tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
// CHECK:             arith.truncf %{{.*}} : tensor<128x32xf32, #attn.mma<warps = 4>> to tensor<128x32xbf16, #attn.mma<warps = 4>>
// CHECK:             attn.dot %{{.*}} : tensor<128x32xbf16, #attn.mma<warps = 4>>, tensor<32x128xbf16, #attn.shared<swizzle = 8, pad = 0>> -> tensor<128x128xf32, #attn.mma<warps = 4>>
// CHECK:           %[[INV:.*]] = arith.divf %{{.*}}, %{{.*}} : tensor<128xf32, #attn.slice<#attn.mma<warps = 4>>>
// CHECK:           %[[B:.*]] = attn.broadcast %[[INV]]
// CHECK:           arith.mulf %{{.*}}, %[[B]] : tensor<128x128xf32, #attn.mma<warps = 4>>
// CHECK-NOT:       arith.divf %{{.*}} : tensor<128x128xf32
// The grid records the registers per thread estimated for its tiling:
// MT·(D/2 + Bc/2) + 63 = 2·(64 + 16) + 63.
// CHECK:         } {attn.grid = {{.*}}, attn.register_estimate = 223 : i64

// One m-tile per warp with Q in registers: 8 warps, and Q converted once
// from shared memory to the mma (A operand) layout.
// QREG-LABEL: func.func @attention
// QREG:         %[[Q:.*]] = attn.load_tile %{{.*}} -> tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0>>
// QREG-NEXT:    %[[QR:.*]] = attn.convert_layout %[[Q]] : tensor<128x128xbf16, #attn.shared<swizzle = 8, pad = 0>> -> tensor<128x128xbf16, #attn.mma<warps = 8>>
// QREG:         attn.dot %[[QR]], %{{.*}} {rhs_transposed} : tensor<128x128xbf16, #attn.mma<warps = 8>>
// 1·(D/2 + Bc/2 + D/4) + 63 with Q's A fragments in registers.
// QREG:         } {attn.grid = {{.*}}, attn.register_estimate = 175 : i64

// BADOPT: pass option m-tiles must be 0 (heuristic), 1 or 2, got 3

func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) {causal}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// A query block the warps cannot split into 16-row m-tiles is unsupported.
func.func @small_block(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                       %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  // expected-error @+1 {{unsupported: no warp tiling of 8-row tiles at head dim 64 fits the register budget}}
  attn.attention %q, %k, %v into %o {block_q = 8 : i64, block_kv = 16 : i64}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
