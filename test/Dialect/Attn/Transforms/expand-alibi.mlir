// RUN: attn-opt %s -split-input-file --attn-expand-alibi | FileCheck %s

// ALiBi as the score_mod region users write: S − slope[h]·|j − i − (Nk − Nq)|
// with Nk − Nq a constant for static sequence lengths (here 1000 − 130).
// CHECK-LABEL: func.func @static_lengths
// CHECK:       attn.attention %arg0, %arg1, %arg2 into %arg3 score_mod {
// CHECK-NEXT:  ^bb0(%[[S:.*]]: f32, %{{.*}}: i32, %[[H:.*]]: i32, %[[I:.*]]: i32, %[[J:.*]]: i32):
// CHECK-NEXT:    %[[OFF:.*]] = arith.constant 870 : i32
// CHECK-NEXT:    %[[HI:.*]] = arith.index_cast %[[H]] : i32 to index
// CHECK-NEXT:    %[[SLOPE:.*]] = memref.load %arg4[%[[HI]]] : memref<8xf32>
// CHECK-NEXT:    %[[JI:.*]] = arith.subi %[[J]], %[[I]] : i32
// CHECK-NEXT:    %[[D:.*]] = arith.subi %[[JI]], %[[OFF]] : i32
// CHECK-NEXT:    %[[DF:.*]] = arith.sitofp %[[D]] : i32 to f32
// CHECK-NEXT:    %[[A:.*]] = math.absf %[[DF]] : f32
// CHECK-NEXT:    %[[B:.*]] = arith.mulf %[[SLOPE]], %[[A]] fastmath<contract> : f32
// CHECK-NEXT:    %[[R:.*]] = arith.subf %[[S]], %[[B]] fastmath<contract> : f32
// CHECK-NEXT:    attn.yield %[[R]] : f32
// CHECK-NEXT:  } : memref
// CHECK-NOT:   alibi
func.func @static_lengths(%q: memref<2x8x130x64xbf16>, %k: memref<2x2x1000x64xbf16>,
                          %v: memref<2x2x1000x64xbf16>, %o: memref<2x8x130x64xbf16>,
                          %slopes: memref<8xf32>) {
  attn.attention %q, %k, %v into %o alibi(%slopes : memref<8xf32>)
      : memref<2x8x130x64xbf16>, memref<2x2x1000x64xbf16>,
        memref<2x2x1000x64xbf16>, memref<2x8x130x64xbf16>
  return
}

// -----

// Dynamic lengths: Nk − Nq from the K and Q memrefs (per program). Causal:
// only keys left of the diagonal are visible, where −slope·|d| = slope·d.
// CHECK-LABEL: func.func @causal_dynamic_lengths
// CHECK:       score_mod {
// CHECK:         %[[NQ:.*]] = memref.dim %arg0, %{{.*}} : memref<?x?x?x64xf32>
// CHECK:         %[[NK:.*]] = memref.dim %arg1, %{{.*}} : memref<?x?x?x64xf32>
// CHECK:         %[[DIFF:.*]] = arith.subi %[[NK]], %[[NQ]] : index
// CHECK:         arith.index_cast %[[DIFF]] : index to i32
// CHECK:         %[[DF:.*]] = arith.sitofp
// CHECK-NEXT:    %[[B:.*]] = arith.mulf %{{.*}}, %[[DF]] fastmath<contract> : f32
// CHECK-NEXT:    %[[R:.*]] = arith.addf %{{.*}}, %[[B]] fastmath<contract> : f32
// CHECK-NEXT:    attn.yield %[[R]] : f32
// CHECK-NEXT:  } {causal}
func.func @causal_dynamic_lengths(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                                  %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                                  %slopes: memref<?xf32>) {
  attn.attention %q, %k, %v into %o alibi(%slopes : memref<?xf32>) {causal}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// A window whose right bound is the diagonal: no |·| either; one that
// reaches right of it keeps it.
// CHECK-LABEL: func.func @windows
// CHECK:       score_mod {
// CHECK-NOT:     math.absf
// CHECK:         arith.addf
// CHECK:       window_left = 64 : i64, window_right = 0 : i64
// CHECK:       score_mod {
// CHECK:         math.absf
// CHECK:         arith.subf
// CHECK:       window_left = 64 : i64, window_right = 16 : i64
func.func @windows(%q: memref<?x?x?x64xf32>, %slopes: memref<?xf32>,
                   %o1: memref<?x?x?x64xf32>, %o2: memref<?x?x?x64xf32>) {
  attn.attention %q, %q, %q into %o1 alibi(%slopes : memref<?xf32>)
      {window_left = 64, window_right = 0}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  attn.attention %q, %q, %q into %o2 alibi(%slopes : memref<?xf32>)
      {window_left = 64, window_right = 16}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// Without alibi nothing changes.
// CHECK-LABEL: func.func @plain
// CHECK-NOT:   score_mod
func.func @plain(%q: memref<?x?x?x64xf32>) {
  attn.attention %q, %q, %q into %q
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}
