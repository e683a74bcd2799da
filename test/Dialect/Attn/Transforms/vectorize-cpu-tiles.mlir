// RUN: attn-opt %s -split-input-file -attn-tile-pipeline -convert-attn-to-linalg \
// RUN:   -convert-elementwise-to-linalg -attn-vectorize-cpu-tiles -canonicalize -cse \
// RUN:   | FileCheck %s --implicit-check-not=linalg. --implicit-check-not=math.exp
// RUN: attn-opt %s -split-input-file -attn-tile-pipeline -convert-attn-to-linalg \
// RUN:   -convert-elementwise-to-linalg \
// RUN:   -attn-vectorize-cpu-tiles="tile-m=2 tile-n=8 tile-k=4" -canonicalize -cse \
// RUN:   | FileCheck %s --check-prefix=SMALL

// The CPU path's tile program (16×16 blocks, D = 32) as vector code: no
// linalg op and no exp left (exp2 became a polynomial: floor, FMAs); Kᵀ
// transposed once per block by 8×8 shuffles; both contractions as 4×16
// register tiles stepping k by 8, each step 4 outer products (FMAs on
// vector<16xf32>); P·V's accumulator tile carried across the k loop.

// CHECK-LABEL: func.func @attention
// CHECK:         scf.forall
// K tile -> Kᵀ, 8×8 at a time.
// CHECK:           scf.for {{.*}} step %c8
// CHECK:             scf.for {{.*}} step %c8
// CHECK:               vector.shuffle {{.*}} [0, 8, 16, 24, 32, 40, 48, 56, 1, 9,
// S = Q·Kᵀ: rows by 4, k by 8 (Bc = 16 = one column tile).
// CHECK:           scf.for {{.*}} step %c4
// CHECK:             scf.for {{.*}} step %c8
// CHECK-COUNT-32:      vector.fma {{.*}} : vector<16xf32>
// The row max and the exponent, one row at a time.
// CHECK:           vector.reduction <maximumf>
// CHECK:           math.floor
// CHECK:           math.fma
// A = α·A + P·V: rows by 4, columns by 16, k by 8.
// CHECK:           scf.for {{.*}} step %c4
// CHECK:             scf.for {{.*}} step %c16
// CHECK:               scf.for {{.*}} step %c8 iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<16x32xf32>)
// CHECK:                 vector.transfer_read %[[ACC]]
// CHECK-COUNT-32:        vector.fma {{.*}} : vector<16xf32>
// CHECK:                 vector.transfer_write {{.*}}, %[[ACC]]
// The output tile's valid rows go to O one vector row at a time (no
// memref.copy through the runtime's generic copy).
// CHECK:           %[[OV:.*]] = memref.subview %arg3
// CHECK:           scf.for %[[R:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK-NEXT:        %[[ROW:.*]] = vector.transfer_read %{{.*}}[%[[R]], %c0], %{{.*}} {in_bounds = [true]} : tensor<16x32xf32>, vector<32xf32>
// CHECK-NEXT:        vector.transfer_write %[[ROW]], %[[OV]][%[[R]], %c0] {in_bounds = [true]} : vector<32xf32>, memref<?x32xf32, strided<[32, 1], offset: ?>>
// CHECK-NOT:       bufferization.materialize_in_destination

// Smaller register tiles from the options.
// SMALL-LABEL: func.func @attention
// SMALL:         scf.for {{.*}} step %c2
// SMALL:           scf.for {{.*}} step %c8
// SMALL:             scf.for {{.*}} step %c4
// SMALL-COUNT-8:       vector.fma {{.*}} : vector<8xf32>
func.func @attention(%q: memref<?x?x?x32xf32>, %k: memref<?x?x?x32xf32>,
                     %v: memref<?x?x?x32xf32>, %o: memref<?x?x?x32xf32>) {
  attn.attention %q, %k, %v into %o {causal, block_q = 16 : i64, block_kv = 16 : i64}
      : memref<?x?x?x32xf32>, memref<?x?x?x32xf32>, memref<?x?x?x32xf32>,
        memref<?x?x?x32xf32>
  return
}

// -----

// bf16 tiles are widened to f32 once per tile (a row at a time), so the
// register tiles multiply f32 only.
// CHECK-LABEL: func.func @bf16
// CHECK:         arith.extf {{.*}} : vector<32xbf16> to vector<32xf32>
// CHECK:         vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT:     vector.fma {{.*}}bf16
// SMALL-LABEL: func.func @bf16
func.func @bf16(%q: memref<?x?x?x32xbf16>, %k: memref<?x?x?x32xbf16>,
                %v: memref<?x?x?x32xbf16>, %o: memref<?x?x?x32xbf16>) {
  attn.attention %q, %k, %v into %o {block_q = 16 : i64, block_kv = 16 : i64}
      : memref<?x?x?x32xbf16>, memref<?x?x?x32xbf16>, memref<?x?x?x32xbf16>,
        memref<?x?x?x32xbf16>
  return
}

// -----

// Register tiles must have a size.
// RUN: not attn-opt %s -split-input-file -attn-vectorize-cpu-tiles="tile-k=0" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
// BAD: error: attn-vectorize-cpu-tiles: tile sizes must be positive (tile-m=4, tile-n=16, tile-k=0)
func.func @empty() {
  return
}
