// RUN: attn-opt %s -split-input-file -attn-tile-attention -canonicalize -cse | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse | FileCheck %s --check-prefix=FUSED

// A score_mod (soft-cap c = 30) on the CPU target: in every pass, each score
// tile S = Q·Kᵀ is scaled first (0.125 = 1/sqrt(64)), then the body runs on
// the whole tile (scalar ops become tile ops, constants splat tiles), then
// the causal mask (a masked key stays -inf); the passes' softmax scale is 1.
// CHECK-LABEL: func.func @softcap
// CHECK-DAG:     %[[SCALE:.*]] = arith.constant dense<1.250000e-01> : tensor<64x128xf32>
// CHECK-DAG:     %[[CAP:.*]] = arith.constant dense<3.000000e+01> : tensor<64x128xf32>
// CHECK:         scf.for
// CHECK:           %[[S:.*]] = attn.dot %{{.*}}, %{{.*}}, %{{.*}} {rhs_transposed}
// CHECK-NEXT:      %[[X:.*]] = arith.mulf %[[S]], %[[SCALE]] : tensor<64x128xf32>
// CHECK-NEXT:      %[[D:.*]] = arith.divf %[[X]], %[[CAP]] : tensor<64x128xf32>
// CHECK-NEXT:      %[[T:.*]] = math.tanh %[[D]] : tensor<64x128xf32>
// CHECK-NEXT:      %[[Y:.*]] = arith.mulf %[[T]], %[[CAP]] : tensor<64x128xf32>
// CHECK-NEXT:      attn.reduce max %[[Y]]
// CHECK:         } {attn.softmax_pass = "max", attn.softmax_scale = 1.000000e+00 : f32}
// CHECK:         scf.for
// CHECK:           %[[S2:.*]] = attn.dot
// CHECK-NEXT:      %[[X2:.*]] = arith.mulf %[[S2]], %[[SCALE]]
// CHECK-NEXT:      %[[D2:.*]] = arith.divf %[[X2]], %[[CAP]]
// CHECK-NEXT:      %[[T2:.*]] = math.tanh %[[D2]]
// CHECK-NEXT:      %[[Y2:.*]] = arith.mulf %[[T2]], %[[CAP]]
// CHECK-NEXT:      attn.mask %[[Y2]] q(%{{.*}}) kv(%{{.*}}) {causal}
// CHECK:         } {attn.softmax_pass = "max", attn.softmax_scale = 1.000000e+00 : f32}
// The three passes fuse into one online-softmax loop per segment, the
// modifier once per block.
// FUSED-LABEL: func.func @softcap
// FUSED:         scf.for
// FUSED:           attn.dot
// FUSED-NEXT:      arith.mulf
// FUSED-NEXT:      arith.divf
// FUSED-NEXT:      math.tanh
// FUSED-NEXT:      arith.mulf
// FUSED-NOT:       math.tanh
// FUSED:         } {attn.online_softmax, attn.softmax_scale = 1.000000e+00 : f32}
func.func @softcap(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                   %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o score_mod {
  ^bb0(%s: f32):
    %c = arith.constant 30.0 : f32
    %x = arith.divf %s, %c : f32
    %t = math.tanh %x : f32
    %y = arith.mulf %t, %c : f32
    attn.yield %y : f32
  } {causal, target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// A run-time scale multiplies S as a splat of the scale operand, and the
// modifier's ops keep their attributes (fastmath here).
// CHECK-LABEL: func.func @dynamic_scale
// CHECK:         %[[S:.*]] = attn.dot
// CHECK-NEXT:    %[[SPLAT:.*]] = tensor.splat %{{.*}} : tensor<64x128xf32>
// CHECK-NEXT:    %[[X:.*]] = arith.mulf %[[S]], %[[SPLAT]]
// CHECK-NEXT:    arith.maximumf %[[X]], %{{.*}} fastmath<nnan> : tensor<64x128xf32>
// CHECK:         attn.softmax_scale = 1.000000e+00 : f32
func.func @dynamic_scale(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                         %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                         %scale: f32) {
  attn.attention %q, %k, %v into %o scale(%scale) score_mod {
  ^bb0(%s: f32):
    %lo = arith.constant -5.0 : f32
    %y = arith.maximumf %s, %lo fastmath<nnan> : f32
    attn.yield %y : f32
  } {target = #attn.target<arch = "cpu", smem_per_block = 1048576, num_sms = 1>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}
