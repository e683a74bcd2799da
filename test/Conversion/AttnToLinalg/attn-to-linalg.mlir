// RUN: attn-opt %s -split-input-file -convert-attn-to-linalg -verify-diagnostics | FileCheck %s

// A load reads the valid rows through a rank-reduced subview and pads the
// rest of the tile with zeros.

// CHECK-LABEL: func.func @load
// CHECK-SAME:    (%[[SRC:.*]]: memref<?x?x?x64xbf16>, %[[B:.*]]: index, %[[H:.*]]: index, %[[ROW:.*]]: index, %[[N:.*]]: index)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : bf16
// CHECK:         %[[VIEW:.*]] = memref.subview %[[SRC]][%[[B]], %[[H]], %[[ROW]], 0] [1, 1, %[[N]], 64] [1, 1, 1, 1] : memref<?x?x?x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
// CHECK:         %[[VALID:.*]] = bufferization.to_tensor %[[VIEW]] restrict
// CHECK:         %[[PAD:.*]] = linalg.fill ins(%[[ZERO]] : bf16) outs(%{{.*}} : tensor<32x64xbf16>)
// CHECK:         %[[TILE:.*]] = tensor.insert_slice %[[VALID]] into %[[PAD]][0, 0] [%[[N]], 64] [1, 1]
// CHECK:         return %[[TILE]]
func.func @load(%src: memref<?x?x?x64xbf16>, %b: index, %h: index, %row: index, %n: index) -> tensor<32x64xbf16> {
  %t = attn.load_tile %src[%b, %h, %row] rows %n : memref<?x?x?x64xbf16> -> tensor<32x64xbf16>
  return %t : tensor<32x64xbf16>
}

// -----

// An f32 tile stored to bf16 is rounded first; only the valid rows are
// written, in place.

// CHECK-LABEL: func.func @store
// CHECK:         %[[T:.*]] = arith.truncf %arg0 : tensor<32x64xf32> to tensor<32x64xbf16>
// CHECK:         %[[VIEW:.*]] = memref.subview %arg1[%arg2, %arg3, %arg4, 0] [1, 1, %arg5, 64] [1, 1, 1, 1]
// CHECK:         %[[SLICE:.*]] = tensor.extract_slice %[[T]][0, 0] [%arg5, 64] [1, 1]
// CHECK:         bufferization.materialize_in_destination %[[SLICE]] in restrict writable %[[VIEW]]
func.func @store(%t: tensor<32x64xf32>, %dst: memref<?x?x?x64xbf16>, %b: index, %h: index, %row: index, %n: index) {
  attn.store_tile %t, %dst[%b, %h, %row] rows %n : tensor<32x64xf32>, memref<?x?x?x64xbf16>
  return
}

// -----

// A rank-1 tile (the row log-sum-exp) covers the last dim of a rank-3 memref.

// CHECK-LABEL: func.func @store_rows
// CHECK:         memref.subview %arg1[%arg2, %arg3, %arg4] [1, 1, %arg5] [1, 1, 1] : memref<?x?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK:         tensor.extract_slice %arg0[0] [%arg5] [1] : tensor<32xf32> to tensor<?xf32>
func.func @store_rows(%t: tensor<32xf32>, %dst: memref<?x?x?xf32>, %b: index, %h: index, %row: index, %n: index) {
  attn.store_tile %t, %dst[%b, %h, %row] rows %n : tensor<32xf32>, memref<?x?x?xf32>
  return
}

// -----

// S = Q·Kᵀ: a contraction over d with the operands widened to f32.

// CHECK-DAG:   #[[LHS:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[RHST:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[RHS:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG:   #[[ACC:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @dots
// CHECK:         linalg.generic {indexing_maps = [#[[LHS]], #[[RHST]], #[[ACC]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%arg0, %arg1 : tensor<16x64xf16>, tensor<32x64xf16>) outs(%arg2 : tensor<16x32xf32>)
// CHECK:           %[[A:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK:           %[[B:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK:           %[[P:.*]] = arith.mulf %[[A]], %[[B]]
// CHECK:           %[[S:.*]] = arith.addf %{{.*}}, %[[P]]
// CHECK:           linalg.yield %[[S]]
// CHECK:         linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[ACC]]]
// CHECK-NOT:       arith.extf
// CHECK:           arith.mulf
func.func @dots(%q: tensor<16x64xf16>, %k: tensor<32x64xf16>, %acc: tensor<16x32xf32>,
                %p: tensor<16x32xf32>, %v: tensor<32x64xf32>, %acc2: tensor<16x64xf32>) -> (tensor<16x32xf32>, tensor<16x64xf32>) {
  %s = attn.dot %q, %k, %acc {rhs_transposed} : tensor<16x64xf16>, tensor<32x64xf16> -> tensor<16x32xf32>
  %o = attn.dot %p, %v, %acc2 : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  return %s, %o : tensor<16x32xf32>, tensor<16x64xf32>
}

// -----

// Mask: key kj = kv_start + j is hidden when kj >= kv_len, or (causal) when
// kj > q_start + i + (kv_len - q_len).

// CHECK-LABEL: func.func @mask
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK:           %[[I:.*]] = linalg.index 0
// CHECK:           %[[J:.*]] = linalg.index 1
// CHECK:           %[[KJ:.*]] = arith.addi %arg3, %[[J]]
// CHECK:           %[[PAST:.*]] = arith.cmpi sge, %[[KJ]], %arg4
// CHECK:           %[[QI:.*]] = arith.addi %arg1, %[[I]]
// CHECK:           %[[DIAG:.*]] = arith.subi %arg4, %arg2
// CHECK:           %[[LAST:.*]] = arith.addi %[[QI]], %[[DIAG]]
// CHECK:           %[[ABOVE:.*]] = arith.cmpi sgt, %[[KJ]], %[[LAST]]
// CHECK:           %[[HIDDEN:.*]] = arith.ori %[[PAST]], %[[ABOVE]]
// CHECK:           arith.select %[[HIDDEN]], %[[NINF]], %{{.*}}
// CHECK-LABEL: func.func @mask_plain
// CHECK:           arith.cmpi sge
// CHECK-NOT:       arith.cmpi sgt
func.func @mask(%s: tensor<16x32xf32>, %q0: index, %nq: index, %k0: index, %nk: index) -> tensor<16x32xf32> {
  %m = attn.mask %s q(%q0, %nq) kv(%k0, %nk) {causal} : tensor<16x32xf32>
  return %m : tensor<16x32xf32>
}
func.func @mask_plain(%s: tensor<16x32xf32>, %q0: index, %nq: index, %k0: index, %nk: index) -> tensor<16x32xf32> {
  %m = attn.mask %s q(%q0, %nq) kv(%k0, %nk) : tensor<16x32xf32>
  return %m : tensor<16x32xf32>
}

// -----

// A sliding window: with a = q_start + i + (kv_len - q_len), key kj is
// hidden when kj > a + R or kj < a - L (causal is R = 0).

// CHECK-LABEL: func.func @mask_window
// CHECK:         linalg.generic
// CHECK:           %[[KJ:.*]] = arith.addi %arg3, %{{.*}}
// CHECK:           %[[PAST:.*]] = arith.cmpi sge, %[[KJ]], %arg4
// CHECK:           %[[QI:.*]] = arith.addi %arg1, %{{.*}}
// CHECK:           %[[D:.*]] = arith.subi %arg4, %arg2
// CHECK:           %[[A:.*]] = arith.addi %[[QI]], %[[D]]
// CHECK:           %[[R:.*]] = arith.addi %[[A]], %c5
// CHECK:           %[[ABOVE:.*]] = arith.cmpi sgt, %[[KJ]], %[[R]]
// CHECK:           %[[H1:.*]] = arith.ori %[[PAST]], %[[ABOVE]]
// CHECK:           %[[L:.*]] = arith.addi %[[A]], %c-300
// CHECK:           %[[BEFORE:.*]] = arith.cmpi slt, %[[KJ]], %[[L]]
// CHECK:           %[[H2:.*]] = arith.ori %[[H1]], %[[BEFORE]]
// CHECK:           arith.select %[[H2]]
// CHECK-LABEL: func.func @mask_window_causal
// CHECK:           %[[KJ:.*]] = arith.addi %arg3, %{{.*}}
// CHECK:           %[[QI:.*]] = arith.addi %arg1, %{{.*}}
// CHECK:           %[[D:.*]] = arith.subi %arg4, %arg2
// CHECK:           %[[A:.*]] = arith.addi %[[QI]], %[[D]]
// CHECK:           arith.cmpi sgt, %[[KJ]], %[[A]]
// CHECK:           %[[L:.*]] = arith.addi %[[A]], %c-64
// CHECK:           arith.cmpi slt, %[[KJ]], %[[L]]
func.func @mask_window(%s: tensor<16x32xf32>, %q0: index, %nq: index, %k0: index, %nk: index) -> tensor<16x32xf32> {
  %m = attn.mask %s q(%q0, %nq) kv(%k0, %nk) {window_left = 300, window_right = 5} : tensor<16x32xf32>
  return %m : tensor<16x32xf32>
}
func.func @mask_window_causal(%s: tensor<16x32xf32>, %q0: index, %nq: index, %k0: index, %nk: index) -> tensor<16x32xf32> {
  %m = attn.mask %s q(%q0, %nq) kv(%k0, %nk) {causal, window_left = 64} : tensor<16x32xf32>
  return %m : tensor<16x32xf32>
}

// -----

// Row max starts from -inf, row sum from 0; broadcast repeats along columns.

// CHECK-LABEL: func.func @rows
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[NINF]] : f32)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<16x32xf32>) outs(%[[INIT]] : tensor<16xf32>)
// CHECK:           arith.maximumf
// CHECK:         linalg.fill ins(%[[ZERO]] : f32)
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK:         linalg.broadcast ins(%arg1 : tensor<16xf32>) outs(%{{.*}} : tensor<16x32xf32>) dimensions = [1]
func.func @rows(%s: tensor<16x32xf32>, %m: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16x32xf32>) {
  %mx = attn.reduce max %s : tensor<16x32xf32> -> tensor<16xf32>
  %sm = attn.reduce sum %s : tensor<16x32xf32> -> tensor<16xf32>
  %b = attn.broadcast %m : tensor<16xf32> -> tensor<16x32xf32>
  return %mx, %sm, %b : tensor<16xf32>, tensor<16xf32>, tensor<16x32xf32>
}

// -----

// Column groups: result[i, w] = Σ_k s[i, w + 8k], with s seen as
// [16, 4, 8] (column 8k + w at (k, w)) and loops (i, k, w).

// CHECK-DAG:   #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @column_groups
// CHECK:         %[[G:.*]] = tensor.expand_shape %arg0 {{\[}}[0], [1, 2]] output_shape [16, 4, 8] : tensor<16x32xf32> into tensor<16x4x8xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[G]] : tensor<16x4x8xf32>) outs(%{{.*}} : tensor<16x8xf32>)
// CHECK:           arith.addf
func.func @column_groups(%s: tensor<16x32xf32>) -> tensor<16x8xf32> {
  %g = attn.reduce sum %s : tensor<16x32xf32> -> tensor<16x8xf32>
  return %g : tensor<16x8xf32>
}

// -----

// The problem-level op has no linalg form of its own: it must be tiled first.

func.func @untiled(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                   %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  // expected-error @+1 {{attn.attention must be tiled before convert-attn-to-linalg (run attn-tile-attention)}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// attn.iota: a linalg.generic without inputs whose element (i, j) is
// start + i (dim 0) or start + j (dim 1), cast to i32; 1-d, start + k.
// CHECK-LABEL: func.func @iota
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<16x32xi32>)
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK:           %[[P:.*]] = arith.addi %arg0, %[[I]] : index
// CHECK:           %[[P32:.*]] = arith.index_cast %[[P]] : index to i32
// CHECK:           linalg.yield %[[P32]] : i32
// CHECK:         linalg.generic
// CHECK:           linalg.index 1 : index
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}], iterator_types = ["parallel"]} outs(%{{.*}} : tensor<32xi32>)
// CHECK:           %[[K:.*]] = linalg.index 0 : index
// CHECK:           arith.addi %arg1, %[[K]] : index
func.func @iota(%q0: index, %k0: index) -> (tensor<16x32xi32>, tensor<16x32xi32>, tensor<32xi32>) {
  %i = attn.iota %q0 dim 0 : tensor<16x32xi32>
  %j = attn.iota %k0 dim 1 : tensor<16x32xi32>
  %c = attn.iota %k0 dim 0 : tensor<32xi32>
  return %i, %j, %c : tensor<16x32xi32>, tensor<16x32xi32>, tensor<32xi32>
}

// -----

// attn.iota clamped: min(start + j, n − 1). attn.gather: a linalg.generic
// over its tile indices whose body loads one element, scalar indices as
// they are.
// CHECK-LABEL: func.func @gather
// CHECK:         %[[LAST:.*]] = arith.subi %arg2, %c1
// CHECK:         linalg.generic
// CHECK:           arith.minsi %{{.*}}, %[[LAST]] : index
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<16x32xi32>) outs(%{{.*}} : tensor<16x32xf32>)
// CHECK:         ^bb0(%[[IDX:.*]]: i32, %{{.*}}: f32):
// CHECK:           %[[X:.*]] = arith.index_cast %[[IDX]] : i32 to index
// CHECK:           %[[V:.*]] = memref.load %arg3[%arg0, %[[X]]] : memref<?x?xf32>
// CHECK:           linalg.yield %[[V]] : f32
func.func @gather(%h: index, %k0: index, %nk: index, %t: memref<?x?xf32>) -> tensor<16x32xf32> {
  %j = attn.iota %k0 dim 1 clamp(%nk) : tensor<16x32xi32>
  %g = attn.gather %t[%h, %j] : memref<?x?xf32>, index, tensor<16x32xi32> -> tensor<16x32xf32>
  return %g : tensor<16x32xf32>
}

// -----

// A key-major (transposed) tile: the key is the row (linalg.index 0), the
// query the column (linalg.index 1); the rules are the same.

// CHECK-LABEL: func.func @mask_transposed
// CHECK:         linalg.generic
// CHECK:           %[[I:.*]] = linalg.index 1
// CHECK:           %[[J:.*]] = linalg.index 0
// CHECK:           %[[KJ:.*]] = arith.addi %arg3, %[[J]]
// CHECK:           %[[PAST:.*]] = arith.cmpi sge, %[[KJ]], %arg4
// CHECK:           %[[QI:.*]] = arith.addi %arg1, %[[I]]
// CHECK:           %[[DIAG:.*]] = arith.subi %arg4, %arg2
// CHECK:           %[[LAST:.*]] = arith.addi %[[QI]], %[[DIAG]]
// CHECK:           arith.cmpi sgt, %[[KJ]], %[[LAST]]
func.func @mask_transposed(%s: tensor<32x16xf32>, %q0: index, %nq: index, %k0: index, %nk: index) -> tensor<32x16xf32> {
  %m = attn.mask %s q(%q0, %nq) kv(%k0, %nk) {causal, transposed} : tensor<32x16xf32>
  return %m : tensor<32x16xf32>
}

// -----

// attn.broadcast along the rows (one value per row) adds the column dim;
// per_column (one value per column) adds the row dim.

// CHECK-LABEL: func.func @broadcasts
// CHECK:         linalg.broadcast ins(%arg0 : tensor<16xf32>) outs(%{{.*}} : tensor<16x32xf32>) dimensions = [1]
// CHECK:         linalg.broadcast ins(%arg1 : tensor<32xf32>) outs(%{{.*}} : tensor<16x32xf32>) dimensions = [0]
func.func @broadcasts(%r: tensor<16xf32>, %c: tensor<32xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
  %a = attn.broadcast %r : tensor<16xf32> -> tensor<16x32xf32>
  %b = attn.broadcast %c {per_column} : tensor<32xf32> -> tensor<16x32xf32>
  return %a, %b : tensor<16x32xf32>, tensor<16x32xf32>
}

// -----

// An accumulation adds element by element with atomic adds (the OpenMP
// grid's programs may add into the same elements); transposed, tile [c, r]
// goes to dest row r, column c, for the first `rows` rows. A transposed
// lhs is read through its indexing map.
// CHECK-DAG:   #[[LT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-LABEL: func.func @accumulate_and_transposed_lhs
// CHECK:         %[[ROWS:.*]] = arith.minsi %arg3, %c8 : index
// CHECK:         scf.for %[[R:.*]] = %c0 to %[[ROWS]] step %c1 {
// CHECK-NEXT:      scf.for %[[C:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT:        %[[X:.*]] = tensor.extract %arg0[%[[C]], %[[R]]] : tensor<4x8xf32>
// CHECK-NEXT:        %[[ROW:.*]] = arith.addi %arg2, %[[R]] : index
// CHECK-NEXT:        memref.atomic_rmw addf %[[X]], %arg1[%arg2, %arg2, %[[ROW]], %[[C]]]
// CHECK:         linalg.generic {indexing_maps = [#[[LT]],
func.func @accumulate_and_transposed_lhs(
    %t: tensor<4x8xf32>, %m: memref<?x?x?x4xf32>, %i: index, %n: index,
    %a: tensor<16x4xbf16>, %b: tensor<16x8xbf16>, %z: tensor<4x8xf32>)
    -> tensor<4x8xf32> {
  attn.accumulate_tile %t, %m[%i, %i, %i] rows %n {transposed}
      : tensor<4x8xf32>, memref<?x?x?x4xf32>
  %r = attn.dot %a, %b, %z {lhs_transposed}
      : tensor<16x4xbf16>, tensor<16x8xbf16> -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// attn.random: a linalg.generic whose body computes its element's own
// Philox4x32-10 call (ten rounds: 20 products of 32-bit values widened to
// i64) from the counter (4·(j >> 4) + ((j >> 1) & 3), 8·(i >> 4) + (i & 7),
// stream, offset), then picks the word 2·((i >> 3) & 1) + (j & 1) and its
// half (j >> 3) & 1.
// CHECK-LABEL: func.func @random
// CHECK:         %[[K0:.*]] = arith.trunci %arg0 : i64 to i32
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<16x32xi32>)
// CHECK:           %[[I:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:           %[[J:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-COUNT-20:  arith.muli %{{.*}}, %{{.*}} : i64
// CHECK:           arith.select
// CHECK-NEXT:      arith.select
// CHECK-NEXT:      %[[W:.*]] = arith.select
// CHECK-NEXT:      %[[LO:.*]] = arith.shli %[[W]], %{{.*}} : i32
// CHECK:           %[[V:.*]] = arith.select %{{.*}}, %[[W]], %[[LO]] : i32
// CHECK:           linalg.yield %[[V]] : i32
func.func @random(%seed: i64, %bh: i32, %off: i32, %q0: index,
                  %k0: index) -> tensor<16x32xi32> {
  %u = attn.random key(%seed) counter(%bh, %off) q(%q0) kv(%k0)
      : tensor<16x32xi32>
  return %u : tensor<16x32xi32>
}

// -----

// A transposed attn.random (rows are keys): the query position i comes
// from the columns (linalg.index 1), the key position j from the rows.
// CHECK-LABEL: func.func @random_transposed
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<32x16xi32>)
// CHECK:           %[[C:.*]] = linalg.index 1 : index
// CHECK:           %[[QI:.*]] = arith.addi %arg3, %[[C]] : index
// CHECK:           arith.index_cast %[[QI]] : index to i32
// CHECK:           %[[R:.*]] = linalg.index 0 : index
// CHECK:           %[[KJ:.*]] = arith.addi %arg4, %[[R]] : index
// CHECK:           arith.index_cast %[[KJ]] : index to i32
func.func @random_transposed(%seed: i64, %bh: i32, %off: i32, %q0: index,
                             %k0: index) -> tensor<32x16xi32> {
  %u = attn.random key(%seed) counter(%bh, %off) q(%q0) kv(%k0) {transposed}
      : tensor<32x16xi32>
  return %u : tensor<32x16xi32>
}
