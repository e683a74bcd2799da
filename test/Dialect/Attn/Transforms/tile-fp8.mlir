// RUN: attn-opt %s -attn-tile-attention="target=sm_90a" -cse | FileCheck %s
// RUN: not attn-opt %s -attn-tile-attention 2>&1 | FileCheck %s --check-prefix=CPU

// fp8 inputs: the scores of the dequantised inputs are
// scale·(qd·Q8)·(kd·K8)ᵀ = (scale·qd·kd)·Q8·K8ᵀ, one run-time scale; V's
// block is a column window [Dv, Bc] of the transposed V, the transposed
// operand of P·V; P is rounded to e4m3; O = vd·(P·V8).

// CHECK-LABEL: func.func @fp8
// CHECK-SAME:    %[[QD:[^:]+]]: f32, %[[KD:[^:]+]]: f32, %[[VD:[^:]+]]: f32)
// CHECK:         %[[S0:.*]] = arith.mulf %{{.*}}, %[[QD]] : f32
// CHECK:         %[[S:.*]] = arith.mulf %[[S0]], %[[KD]] : f32
// CHECK:         scf.forall
// CHECK:           attn.load_tile %arg0[{{.*}}] rows %{{.*}} : memref<?x?x?x128xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
// CHECK:           attn.dot %{{.*}}, %{{.*}}, %{{.*}} {rhs_transposed} : tensor<64x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<64x128xf32>
// CHECK:           } {attn.softmax_pass = "max"}
// CHECK:           tensor.splat %[[S]] : tensor<64x128xf32>
// CHECK:           } {attn.softmax_pass = "sum"}
// CHECK:           arith.truncf %{{.*}} : tensor<64x128xf32> to tensor<64x128xf8E4M3FN>
// CHECK:           %[[VT:.*]] = attn.load_tile %arg2[%{{.*}}, %{{.*}}, %c0, %{{.*}}] rows %c128 cols %{{.*}} : memref<?x?x128x?xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
// CHECK:           attn.dot %{{.*}}, %[[VT]], %{{.*}} {rhs_transposed} : tensor<64x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<64x128xf32>
// CHECK:           } {attn.softmax_pass = "pv"}
// CHECK:           %[[VDS:.*]] = tensor.splat %[[VD]] : tensor<64x128xf32>
// CHECK:           %[[O:.*]] = arith.mulf %{{.*}}, %[[VDS]] : tensor<64x128xf32>
// CHECK:           attn.store_tile %[[O]], %arg3{{.*}} : tensor<64x128xf32>, memref<?x?x?x128xbf16>

// CPU: error: unsupported: fp8 attention on target cpu (it lowers to wgmma only: sm_90a)
func.func @fp8(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>,
               %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>,
               %qd: f32, %kd: f32, %vd: f32) {
  attn.attention %q, %k, %v into %o descale(%qd, %kd, %vd)
      {v_transposed, block_q = 64 : i64, block_kv = 128 : i64}
      : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>,
        memref<?x?x128x?xf8E4M3FN>, memref<?x?x?x128xbf16>
  return
}
