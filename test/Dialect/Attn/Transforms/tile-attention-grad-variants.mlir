// RUN: attn-opt %s -split-input-file --attn-expand-alibi --attn-tile-attention --canonicalize --cse | FileCheck %s

// The forward's score variants in the backward's two grids: the same
// modified scores S' = mod(scale·S) before the masks, P = exp(S' − LSE),
// and dS = P∘(dP − Δ)∘∂S'/∂(scale·S).

// A sliding window (L = 40, R = 8): grid 1 visits the key blocks that
// cross the window's left edge (masked), the whole ones, then those that
// cross its right edge (masked), as the forward does; grid 2 the query
// blocks that see a key block in part (masked), whole, in part (masked).
// CHECK-LABEL: func.func @window
// CHECK:       scf.forall
// CHECK:         scf.for
// CHECK:           attn.mask %{{.*}} q(%{{.*}}, %{{.*}}) kv(%{{.*}}, %{{.*}}) {window_left = 40 : i64, window_right = 8 : i64} : tensor<16x16xf32>
// CHECK:         scf.for
// CHECK-NOT:       attn.mask
// CHECK:           attn.dot
// CHECK:         scf.for
// CHECK:           attn.mask %{{.*}} {window_left = 40 : i64, window_right = 8 : i64} : tensor<16x16xf32>
// CHECK:       scf.forall
// key-major: query blocks [floor((kv − diag − R)/Br), ...); the window is
// wide (L + R = 48 >= Br + Bc − 2 = 30): the first masked range crosses
// only the right edge, the last only the left one.
// CHECK:         arith.floordivsi
// CHECK:         scf.for
// CHECK:           attn.mask %{{.*}} {transposed, window_right = 8 : i64} : tensor<16x16xf32>
// CHECK:         scf.for
// CHECK-NOT:       attn.mask
// CHECK:           attn.dot
// CHECK:         scf.for
// CHECK:           attn.mask %{{.*}} {transposed, window_left = 40 : i64} : tensor<16x16xf32>
// CHECK:       return
func.func @window(%t: memref<1x2x100x32xbf16>, %r: memref<1x2x100xf32>) {
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      {window_left = 40, window_right = 8, block_q = 16, block_kv = 16}
      : memref<1x2x100x32xbf16>, memref<1x2x100x32xbf16>,
        memref<1x2x100x32xbf16>, memref<1x2x100x32xbf16>,
        memref<1x2x100x32xbf16>, memref<1x2x100xf32>, memref<1x2x100x32xbf16>,
        memref<1x2x100x32xbf16>, memref<1x2x100x32xbf16>, memref<1x2x100xf32>
  return
}

// -----

// A narrow window (L + R = 8 < 30): a block range may cross both edges,
// so both masked ranges of the key-major grid carry both bounds.
// CHECK-LABEL: func.func @narrow_window
// CHECK:       scf.forall
// CHECK:       scf.forall
// CHECK:         scf.for
// CHECK:           attn.mask %{{.*}} {transposed, window_left = 6 : i64, window_right = 2 : i64} : tensor<16x16xf32>
// CHECK:         scf.for
// CHECK:         scf.for
// CHECK:           attn.mask %{{.*}} {transposed, window_left = 6 : i64, window_right = 2 : i64} : tensor<16x16xf32>
// CHECK:       return
func.func @narrow_window(%t: memref<1x2x100x32xbf16>, %r: memref<1x2x100xf32>) {
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      {window_left = 6, window_right = 2, block_q = 16, block_kv = 16}
      : memref<1x2x100x32xbf16>, memref<1x2x100x32xbf16>,
        memref<1x2x100x32xbf16>, memref<1x2x100x32xbf16>,
        memref<1x2x100x32xbf16>, memref<1x2x100xf32>, memref<1x2x100x32xbf16>,
        memref<1x2x100x32xbf16>, memref<1x2x100x32xbf16>, memref<1x2x100xf32>
  return
}

// -----

// The soft-cap C = 10: t = tanh(S·scale/C) (tanh.approx under afn), P from
// t·(C·log2 e) − L (one FMA), and dS = (P∘g)∘(dP − Δ) with g = 1 − t² from
// the unmasked t, built once P is (g replaces t, P∘g replaces P: no tile
// more than the plain backward's is live). D = 32: scale/C = 0.0177,
// C·log2 e = 14.43.
// CHECK-LABEL: func.func @softcap
// CHECK-DAG:   %[[CL2E:.*]] = arith.constant dense<14.4269505> : tensor<16x16xf32>
// CHECK-DAG:   %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<16x16xf32>
// CHECK-DAG:   %[[SC:.*]] = arith.constant dense<0.0176776685> : tensor<16x16xf32>
// CHECK:       scf.forall
// CHECK:         scf.for
// CHECK:           %[[S:.*]] = attn.dot {{.*}} {rhs_transposed}
// CHECK:           %[[X:.*]] = arith.mulf %[[S]], %[[SC]] : tensor<16x16xf32>
// CHECK:           %[[T:.*]] = math.tanh %[[X]] fastmath<afn> : tensor<16x16xf32>
// CHECK:           %[[TC:.*]] = arith.mulf %[[T]], %[[CL2E]] fastmath<contract>
// CHECK:           %[[E:.*]] = arith.subf %[[TC]], %{{.*}} fastmath<contract>
// CHECK:           %[[P:.*]] = math.exp2 %[[E]]
// CHECK:           %[[T2:.*]] = arith.mulf %[[T]], %[[T]] : tensor<16x16xf32>
// CHECK:           %[[G:.*]] = arith.subf %[[ONE]], %[[T2]] : tensor<16x16xf32>
// CHECK:           %[[PG:.*]] = arith.mulf %[[P]], %[[G]] : tensor<16x16xf32>
// CHECK:           %[[DS:.*]] = arith.mulf %[[PG]], %{{.*}} : tensor<16x16xf32>
// CHECK:           arith.truncf %[[DS]]
// CHECK:       scf.forall
// CHECK:         scf.for
// CHECK:           math.tanh %{{.*}} fastmath<afn> : tensor<16x16xf32>
// CHECK-NOT:       arith.minimumf
// CHECK:           %[[PT:.*]] = math.exp2
// CHECK:           %[[DV:.*]] = attn.dot
// CHECK:           arith.mulf %[[PT]], %{{.*}} : tensor<16x16xf32>
// The step keeps g beside P: no vector is prefetched into it.
// CHECK:         } {attn.score_grad_tile}
// CHECK:       return
func.func @softcap(%t: memref<1x2x64x32xbf16>, %r: memref<1x2x64xf32>) {
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      {softcap = 10.0 : f32, block_q = 16, block_kv = 16}
      : memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>,
        memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>,
        memref<1x2x64x32xbf16>, memref<1x2x64xf32>, memref<1x2x64x32xbf16>,
        memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64xf32>
  return
}

// -----

// A score_mod differentiated in forward mode: mod(u) = u·u has the
// tangent u' ·u + u·u' = u + u (u' = 1, symbolic). In the key-major grid,
// P's exponent is clamped at 0 (a column past Nq: zero Q, zero-filled LSE,
// and whatever the region makes of a zero score).
// CHECK-LABEL: func.func @square
// CHECK:       scf.forall
// CHECK:         scf.for
// CHECK:           %[[S:.*]] = attn.dot {{.*}} {rhs_transposed}
// CHECK:           %[[U:.*]] = arith.mulf %[[S]], %{{.*}} : tensor<16x16xf32>
// CHECK:           %[[Y:.*]] = arith.mulf %[[U]], %[[U]] : tensor<16x16xf32>
// CHECK:           %[[DU:.*]] = arith.addf %[[U]], %[[U]] : tensor<16x16xf32>
// CHECK:           %[[YL:.*]] = arith.mulf %[[Y]], %{{.*}} fastmath<contract>
// CHECK:           %[[E:.*]] = arith.subf %[[YL]], %{{.*}} fastmath<contract>
// CHECK-NOT:       arith.minimumf
// CHECK:           %[[P:.*]] = math.exp2 %[[E]]
// CHECK:           %[[PG:.*]] = arith.mulf %[[P]], %[[DU]] : tensor<16x16xf32>
// CHECK:           arith.mulf %[[PG]], %{{.*}} : tensor<16x16xf32>
// CHECK:       scf.forall
// CHECK:         scf.for
// CHECK:           %[[ET:.*]] = arith.subf %{{.*}}, %{{.*}} fastmath<contract> : tensor<16x16xf32>
// CHECK:           %[[EC:.*]] = arith.minimumf %[[ET]], %{{.*}} : tensor<16x16xf32>
// CHECK:           math.exp2 %[[EC]]
// CHECK:       return
func.func @square(%t: memref<1x2x64x32xbf16>, %r: memref<1x2x64xf32>) {
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      score_mod {
      ^bb0(%s: f32):
        %y = arith.mulf %s, %s : f32
        attn.yield %y : f32
      } {block_q = 16, block_kv = 16}
      : memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>,
        memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>,
        memref<1x2x64x32xbf16>, memref<1x2x64xf32>, memref<1x2x64x32xbf16>,
        memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64xf32>
  return
}

// -----

// Causal ALiBi, expanded into its region: S' = u + slope[h]·(j − i − (Nk −
// Nq)) with query positions along the rows of S and along the columns of
// the key-major Sᵀ. Its derivative is 1: dS is P∘(dP − Δ) as it stands.
// CHECK-LABEL: func.func @alibi
// CHECK:       scf.forall
// CHECK:         %[[SLOPE:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<2xf32>
// CHECK:         scf.for
// CHECK:           attn.iota %{{.*}} dim 0 : tensor<16x16xi32>
// CHECK:           attn.iota %{{.*}} dim 1 : tensor<16x16xi32>
// CHECK:           %[[B:.*]] = arith.addf %{{.*}}, %{{.*}} fastmath<contract> : tensor<16x16xf32>
// CHECK:           %[[P:.*]] = math.exp2
// CHECK:           %[[DS:.*]] = arith.mulf %[[P]], %{{.*}} : tensor<16x16xf32>
// CHECK-NEXT:      arith.truncf %[[DS]]
// CHECK:       scf.forall
// CHECK:         scf.for
// CHECK:           memref.load %{{.*}}[%{{.*}}] : memref<2xf32>
// CHECK:           attn.iota %{{.*}} dim 1 : tensor<16x16xi32>
// CHECK:           attn.iota %{{.*}} dim 0 : tensor<16x16xi32>
// CHECK:           attn.mask %{{.*}} {causal, transposed}
// CHECK-NOT:     attn.score_grad_tile
// CHECK:       return
func.func @alibi(%t: memref<1x2x64x32xbf16>, %r: memref<1x2x64xf32>,
                 %sl: memref<2xf32>) {
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      alibi(%sl : memref<2xf32>) {causal, block_q = 16, block_kv = 16}
      : memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>,
        memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>,
        memref<1x2x64x32xbf16>, memref<1x2x64xf32>, memref<1x2x64x32xbf16>,
        memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64xf32>
  return
}

// -----

// A mask_mod on every block of both grids (the forward evaluates it on
// every block it visits), before the causal mask.
// CHECK-LABEL: func.func @mask_mod
// CHECK:       scf.forall
// CHECK:         scf.for
// CHECK:           %[[K:.*]] = arith.cmpi sle
// CHECK:           arith.select %[[K]], %{{.*}}, %{{.*}} : tensor<16x16xi1>, tensor<16x16xf32>
// CHECK:         scf.for
// CHECK:           arith.cmpi sle
// CHECK:           arith.select
// CHECK:           attn.mask %{{.*}} {causal}
// CHECK:       scf.forall
// CHECK:         scf.for
// CHECK:           arith.cmpi sle
// CHECK:           arith.select
// CHECK:           attn.mask %{{.*}} {causal, transposed}
// CHECK:       return
func.func @mask_mod(%t: memref<1x2x64x32xbf16>, %r: memref<1x2x64xf32>) {
  attn.attention_grad %t, %t, %t, %t, %t, %r into %t, %t, %t delta(%r)
      mask_mod {
      ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
        %d = arith.subi %i, %j : i32
        %c = arith.constant 20 : i32
        %k = arith.cmpi sle, %d, %c : i32
        attn.yield %k : i1
      } {causal, block_q = 16, block_kv = 16}
      : memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>,
        memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>,
        memref<1x2x64x32xbf16>, memref<1x2x64xf32>, memref<1x2x64x32xbf16>,
        memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64xf32>
  return
}
