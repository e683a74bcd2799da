// RUN: attn-opt %s -split-input-file --attn-tile-attention --canonicalize --cse | FileCheck %s

// attn.attention_grad becomes two grids. The first, over (batch, query
// head, query block), writes Δ = rowsum(dO∘O) and dQ = scale·Σ dS·K over
// the key blocks its rows see (the causal diagonal's blocks masked); the
// second, over (batch, kv head, key block), sums dV = Pᵀ·dO and
// dK = scale·dSᵀ·Q over the G = 4 query heads of the group and the query
// blocks that see the keys, on key-major tiles (Sᵀ = K·Qᵀ).

// CHECK-LABEL: func.func @grad_causal_gqa
// scale·log2 e = 0.125 · 1.4427
// CHECK-DAG:   %[[C:.*]] = arith.constant dense<0.180336878> : tensor<64x32xf32>
// CHECK-DAG:   %[[FLOOR:.*]] = arith.constant dense<-3.40282347E+38> : tensor<64xf32>
// CHECK-DAG:   %[[LOG2E:.*]] = arith.constant dense<1.44269502> : tensor<64xf32>
// Grid 1: Δ first, then the key blocks (unmasked, then masked).
// CHECK:       scf.forall (%[[B:.*]], %[[H:.*]], %[[QB:.*]]) in (2, 8, 2)
// CHECK:         %[[DO:.*]] = attn.load_tile %arg0[%[[B]], %[[H]], %{{.*}}] {{.*}} -> tensor<64x32xbf16>
// CHECK:         %[[O:.*]] = attn.load_tile %arg4[%[[B]], %[[H]], %{{.*}}] {{.*}} -> tensor<64x32xbf16>
// CHECK:         %[[DOF:.*]] = arith.extf %[[DO]] : tensor<64x32xbf16> to tensor<64x32xf32>
// CHECK:         %[[OF:.*]] = arith.extf %[[O]] : tensor<64x32xbf16> to tensor<64x32xf32>
// CHECK:         %[[PROD:.*]] = arith.mulf %[[DOF]], %[[OF]]
// CHECK:         %[[DELTA:.*]] = attn.reduce sum %[[PROD]] : tensor<64x32xf32> -> tensor<64xf32>
// CHECK:         attn.store_tile %[[DELTA]], %arg9[%[[B]], %[[H]], %{{.*}}]
// CHECK:         %[[LSE:.*]] = attn.load_tile %arg5[%[[B]], %[[H]], %{{.*}}] {{.*}} -> tensor<64xf32>
// L = max(LSE·log2 e, −FLT_MAX), once per row.
// CHECK:         %[[L2:.*]] = arith.mulf %[[LSE]], %[[LOG2E]] : tensor<64xf32>
// CHECK:         %[[L:.*]] = arith.maximumf %[[L2]], %[[FLOOR]] : tensor<64xf32>
// CHECK:         scf.for
// CHECK-NOT:       attn.mask
// CHECK:           %[[S:.*]] = attn.dot %{{.*}}, %{{.*}}, %{{.*}} {rhs_transposed} : tensor<64x64xbf16>, tensor<32x64xbf16> -> tensor<64x32xf32>
// P = 2^(S·(scale·log2 e) − L): one FMA and one ex2 a score.
// CHECK:           %[[SC:.*]] = arith.mulf %[[S]], %[[C]] fastmath<contract> : tensor<64x32xf32>
// CHECK:           %[[LB:.*]] = attn.broadcast %[[L]] : tensor<64xf32> -> tensor<64x32xf32>
// CHECK:           %[[E:.*]] = arith.subf %[[SC]], %[[LB]] fastmath<contract> : tensor<64x32xf32>
// CHECK:           math.exp2 %[[E]] : tensor<64x32xf32>
// CHECK:           attn.dot %[[DO]], %{{.*}}, %{{.*}} {rhs_transposed} : tensor<64x32xbf16>, tensor<32x32xbf16> -> tensor<64x32xf32>
// CHECK:           attn.broadcast %[[DELTA]] : tensor<64xf32> -> tensor<64x32xf32>
// CHECK:           arith.truncf %{{.*}} : tensor<64x32xf32> to tensor<64x32xbf16>
// CHECK:           attn.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
// CHECK:         scf.for
// CHECK:           attn.mask %{{.*}} q(%{{.*}}, %{{.*}}) kv(%{{.*}}, %{{.*}}) {causal} : tensor<64x32xf32>
// CHECK:         %[[DQ:.*]] = arith.mulf %{{.*}}, %{{.*}} : tensor<64x64xf32>
// CHECK:         attn.store_tile %[[DQ]], %arg6[%[[B]], %[[H]], %{{.*}}]
// Grid 2: the kv heads' key blocks, the group's heads, the query blocks
// (masked ones across the diagonal, then whole ones).
// CHECK:       scf.forall (%[[B2:.*]], %[[HK:.*]], %[[KB:.*]]) in (2, 2, 4)
// CHECK:         %[[K:.*]] = attn.load_tile %arg2[%[[B2]], %[[HK]], %{{.*}}] {{.*}} -> tensor<32x64xbf16>
// CHECK:         %[[V:.*]] = attn.load_tile %arg3[%[[B2]], %[[HK]], %{{.*}}] {{.*}} -> tensor<32x32xbf16>
// CHECK:         %[[ACC:.*]]:2 = scf.for %[[G:.*]] = %c0 to %c4
// CHECK:           scf.for
// CHECK:             %[[LT:.*]] = attn.load_tile %arg5
// CHECK:             attn.load_tile %arg9
// CHECK:             %[[ST:.*]] = attn.dot %[[K]], %{{.*}}, %{{.*}} {rhs_transposed} : tensor<32x64xbf16>, tensor<64x64xbf16> -> tensor<32x64xf32>
// CHECK:             %[[MT:.*]] = attn.mask %[[ST]] q(%{{.*}}, %{{.*}}) kv(%{{.*}}, %{{.*}}) {causal, transposed} : tensor<32x64xf32>
// CHECK:             %[[LT2:.*]] = arith.mulf %[[LT]], %[[LOG2E]] : tensor<64xf32>
// CHECK:             %[[LTF:.*]] = arith.maximumf %[[LT2]], %[[FLOOR]] : tensor<64xf32>
// CHECK:             %[[SCT:.*]] = arith.mulf %[[MT]], %{{.*}} fastmath<contract> : tensor<32x64xf32>
// CHECK:             %[[LBT:.*]] = attn.broadcast %[[LTF]] {per_column} : tensor<64xf32> -> tensor<32x64xf32>
// CHECK:             %[[ET:.*]] = arith.subf %[[SCT]], %[[LBT]] fastmath<contract> : tensor<32x64xf32>
// CHECK:             math.exp2 %[[ET]] : tensor<32x64xf32>
// CHECK:             attn.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x64xbf16>, tensor<64x32xbf16> -> tensor<32x32xf32>
// CHECK:             attn.dot %[[V]], %{{.*}}, %{{.*}} {rhs_transposed} : tensor<32x32xbf16>, tensor<64x32xbf16> -> tensor<32x64xf32>
// CHECK:             attn.broadcast %{{.*}} {per_column} : tensor<64xf32> -> tensor<32x64xf32>
// CHECK:             attn.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x64xbf16>, tensor<64x64xbf16> -> tensor<32x64xf32>
// CHECK:           scf.for
// CHECK-NOT:         attn.mask
// CHECK:             attn.dot
// CHECK:         %[[DK:.*]] = arith.mulf %[[ACC]]#0, %{{.*}} : tensor<32x64xf32>
// CHECK:         attn.store_tile %[[DK]], %arg7[%[[B2]], %[[HK]], %{{.*}}]
// CHECK:         attn.store_tile %[[ACC]]#1, %arg8[%[[B2]], %[[HK]], %{{.*}}]
func.func @grad_causal_gqa(%do: memref<2x8x100x32xbf16>,
                           %q: memref<2x8x100x64xbf16>,
                           %k: memref<2x2x100x64xbf16>,
                           %v: memref<2x2x100x32xbf16>,
                           %o: memref<2x8x100x32xbf16>,
                           %lse: memref<2x8x100xf32>,
                           %dq: memref<2x8x100x64xbf16>,
                           %dk: memref<2x2x100x64xbf16>,
                           %dv: memref<2x2x100x32xbf16>,
                           %delta: memref<2x8x100xf32>) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) {causal, block_q = 64, block_kv = 32}
      : memref<2x8x100x32xbf16>, memref<2x8x100x64xbf16>,
        memref<2x2x100x64xbf16>, memref<2x2x100x32xbf16>,
        memref<2x8x100x32xbf16>, memref<2x8x100xf32>,
        memref<2x8x100x64xbf16>, memref<2x2x100x64xbf16>,
        memref<2x2x100x32xbf16>, memref<2x8x100xf32>
  return
}

// -----

// Without the causal mask, grid 1 masks only the block at the end of the
// keys and grid 2 masks nothing (rows past Nq and keys past Nk are zero and
// never stored); a run-time scale is a splat of the operand.

// CHECK-LABEL: func.func @grad_full_dynamic_scale
// CHECK:       scf.forall
// CHECK:         %[[SL:.*]] = arith.mulf %arg6, %{{.*}} : f32
// CHECK:         tensor.splat %[[SL]] : tensor<16x16xf32>
// CHECK:         attn.mask %{{.*}} q(%{{.*}}, %{{.*}}) kv(%{{.*}}, %{{.*}}) : tensor<16x16xf32>
// CHECK:       scf.forall
// CHECK-NOT:     attn.mask
// CHECK:       return
func.func @grad_full_dynamic_scale(%t: memref<?x?x?x16xf32>,
                                   %r: memref<?x?x?xf32>, %dq: memref<?x?x?x16xf32>,
                                   %dk: memref<?x?x?x16xf32>, %dv: memref<?x?x?x16xf32>,
                                   %d: memref<?x?x?xf32>, %s: f32) {
  attn.attention_grad %t, %t, %t, %t, %t, %r into %dq, %dk, %dv delta(%d)
      scale(%s) {block_q = 16, block_kv = 16}
      : memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>,
        memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?xf32>,
        memref<?x?x?x16xf32>, memref<?x?x?x16xf32>, memref<?x?x?x16xf32>,
        memref<?x?x?xf32>
  return
}

// -----

// Dropout: both grids draw the forward's mask for their tiles (attn.random
// with the program's stream b·Hq + h; key-major tiles {transposed}) and
// keep z = 1/(1 − p) where the value passes the threshold, else 0. Grid 1:
// dP' = z∘dP before dS; grid 2: dV += (Pᵀ∘zᵀ)·dO and dPᵀ' = zᵀ∘dPᵀ.
// CHECK-LABEL: func.func @grad_dropout
// CHECK:       scf.forall
// CHECK:         scf.for
// CHECK:           %[[S:.*]] = attn.dot {{.*}} -> tensor<64x32xf32>
// CHECK:           %[[DP:.*]] = attn.dot {{.*}} -> tensor<64x32xf32>
// CHECK:           %[[U:.*]] = attn.random key(%arg11) counter(%{{.*}}, %arg12) q(%{{.*}}) kv(%{{.*}}) : tensor<64x32xi32>
// CHECK:           %[[KEEP:.*]] = arith.cmpi uge, %[[U]], %{{.*}} : tensor<64x32xi32>
// CHECK:           %[[Z:.*]] = arith.select %[[KEEP]], %{{.*}}, %{{.*}} : tensor<64x32xi1>, tensor<64x32xf32>
// CHECK:           arith.mulf %[[DP]], %[[Z]] : tensor<64x32xf32>
// CHECK:       attn.program = "grad_q"
// CHECK:       scf.forall
// CHECK:           %[[UT:.*]] = attn.random key(%arg11) counter(%{{.*}}, %arg12) q(%{{.*}}) kv(%{{.*}}) {transposed} : tensor<32x64xi32>
// CHECK:           %[[KEEPT:.*]] = arith.cmpi uge, %[[UT]], %{{.*}} : tensor<32x64xi32>
// CHECK:           %[[ZT:.*]] = arith.select %[[KEEPT]], %{{.*}}, %{{.*}} : tensor<32x64xi1>, tensor<32x64xf32>
// CHECK:           %[[PZ:.*]] = arith.mulf %{{.*}}, %[[ZT]] : tensor<32x64xf32>
// CHECK:           attn.dot %[[PZ]], %{{.*}}, %{{.*}} : tensor<32x64xf32>, tensor<64x32xf32> -> tensor<32x32xf32>
// CHECK:           %[[DPT:.*]] = attn.dot {{.*}} {rhs_transposed} : tensor<32x32xf32>, tensor<64x32xf32> -> tensor<32x64xf32>
// CHECK:           arith.mulf %[[DPT]], %[[ZT]] : tensor<32x64xf32>
// CHECK:       attn.program = "grad_kv"
func.func @grad_dropout(%do: memref<1x2x100x32xf32>, %q: memref<1x2x100x64xf32>,
                        %k: memref<1x2x100x64xf32>, %v: memref<1x2x100x32xf32>,
                        %o: memref<1x2x100x32xf32>, %lse: memref<1x2x100xf32>,
                        %dq: memref<1x2x100x64xf32>, %dk: memref<1x2x100x64xf32>,
                        %dv: memref<1x2x100x32xf32>, %delta: memref<1x2x100xf32>,
                        %p: f32, %seed: i64, %off: i32) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) dropout(%p, %seed, %off) {block_q = 64, block_kv = 32}
      : memref<1x2x100x32xf32>, memref<1x2x100x64xf32>,
        memref<1x2x100x64xf32>, memref<1x2x100x32xf32>,
        memref<1x2x100x32xf32>, memref<1x2x100xf32>,
        memref<1x2x100x64xf32>, memref<1x2x100x64xf32>,
        memref<1x2x100x32xf32>, memref<1x2x100xf32>
  return
}
