// RUN: attn-opt %s -split-input-file -attn-lower-cpu-bf16-contractions | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-lower-cpu-bf16-contractions="amx=false" | FileCheck %s --check-prefix=DOT

// amx=false (AVX512-BF16 without the tile unit): only the packed
// contractions are taken, as vdpbf16ps register tiles of 8 rows × 32
// columns (16 f32 accumulators carried across the k pairs: two packed B
// rows loaded, each A pair broadcast, 16 dot products a pair); the plain
// ones stay linalg ops.
// DOT-LABEL: func.func @scores
// DOT:         linalg.generic
// DOT-NOT:     amx.
// DOT-LABEL: func.func @values
// DOT:         linalg.generic
// DOT-LABEL: func.func @packed
// DOT:         scf.for %{{.*}} = %c0 to %c32 step %c8
// DOT:           scf.for %{{.*}} = %c0 to %c32 step %c32
// DOT-COUNT-16:    vector.load %{{.*}} : memref<32x32xf32>, vector<16xf32>
// DOT:             scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(
// DOT-COUNT-2:       vector.load %{{.*}} : memref<32x64xbf16, strided<[80, 1]>>, vector<32xbf16>
// DOT:               vector.broadcast {{.*}} : vector<1xi32> to vector<16xi32>
// DOT-COUNT-16:      x86vector.avx512.dot
// DOT-COUNT-16:    vector.store
// DOT-NOT:     amx.

// S = Q·Kᵀ on buffers (K read as [n, k]): K packed once into pairs along k
// by 16×16 transposes of 32-bit pairs (the AVX-512 shuffle network), then
// 32×32 blocks of S (columns in chunks whose packed K fits 16 KB, the rows
// inside): four zeroed accumulator tiles (S was a copy of zeros:
// the copy is gone), k in two unrolled 32-wide steps of two A and two B
// tiles and four tile products, four tile stores.
#qk = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
       affine_map<(m, n, k) -> (m, n)>]
memref.global "private" constant @zeros : memref<64x32xf32> = dense<0.0>
// CHECK-LABEL: func.func @scores
// CHECK-SAME:    (%[[Q:.*]]: memref<64x64xbf16>, %[[K:.*]]: memref<32x64xbf16>)
// CHECK:         %[[BP:.*]] = memref.alloca() {alignment = 64 : i64} : memref<32x64xbf16>
// CHECK:         %[[S:.*]] = memref.alloc() : memref<64x32xf32>
// CHECK-NOT:     memref.copy
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK-COUNT-16:    vector.load %[[K]]
// CHECK:             vector.shuffle
// CHECK-COUNT-16:    vector.store {{.*}}, %[[BP]]
// CHECK:         scf.for %[[NC:.*]] = %c0 to %c32 step %c32
// CHECK:           scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK:             scf.for %{{.*}} = %[[NC]] to %{{.*}} step %c32
// CHECK-COUNT-4:     amx.tile_zero : !amx.tile<16x16xf32>
// CHECK:             amx.tile_load %[[Q]]{{.*}} into !amx.tile<16x32xbf16>
// CHECK:             amx.tile_load %[[Q]]{{.*}} into !amx.tile<16x32xbf16>
// CHECK:             amx.tile_load %[[BP]]{{.*}} into !amx.tile<16x32xbf16>
// CHECK:             amx.tile_load %[[BP]]{{.*}} into !amx.tile<16x32xbf16>
// CHECK-COUNT-4:     amx.tile_mulf
// CHECK-COUNT-4:     amx.tile_load
// CHECK-COUNT-4:     amx.tile_mulf
// CHECK-COUNT-4:     amx.tile_store %[[S]]
// CHECK-NOT:     linalg.generic
func.func @scores(%q: memref<64x64xbf16>, %k: memref<32x64xbf16>) -> memref<64x32xf32> {
  %zeros = memref.get_global @zeros : memref<64x32xf32>
  %s = memref.alloc() : memref<64x32xf32>
  memref.copy %zeros, %s : memref<64x32xf32> to memref<64x32xf32>
  linalg.generic {indexing_maps = #qk, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<64x64xbf16>, memref<32x64xbf16>) outs(%s : memref<64x32xf32>) {
  ^bb0(%a: bf16, %b: bf16, %c: f32):
    %x = arith.extf %a : bf16 to f32
    %y = arith.extf %b : bf16 to f32
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %c, %p : f32
    linalg.yield %r : f32
  }
  return %s : memref<64x32xf32>
}

// -----

// A += P·V (V read as [k, n]) inside a grid program: the packed V is a stack
// buffer at the top of the scf.forall body, filled by interleaving rows 2r
// and 2r + 1; N = 48 is no multiple of 32, so the blocks are 32×16 (two
// accumulator tiles) and the accumulators are loaded from A, not zeroed.
#pv = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
       affine_map<(m, n, k) -> (m, n)>]
// CHECK-LABEL: func.func @values
// CHECK:         scf.forall
// CHECK-NEXT:      %[[BP:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x96xbf16>
// CHECK:           scf.for %[[R:.*]] = %c0 to %c16 step %c1
// CHECK:             %[[E:.*]] = vector.load %{{.*}} : memref<32x48xbf16>, vector<16xbf16>
// CHECK:             %[[O:.*]] = vector.load %{{.*}} : memref<32x48xbf16>, vector<16xbf16>
// CHECK:             %[[I:.*]] = vector.interleave %[[E]], %[[O]] : vector<16xbf16> -> vector<32xbf16>
// CHECK:             vector.store %[[I]], %[[BP]][%[[R]],
// CHECK:           scf.for %{{.*}} = %c0 to %c48 step %c48
// CHECK:             scf.for %{{.*}} = %c0 to %c32 step %c32
// CHECK:               scf.for %{{.*}} step %c16
// CHECK-COUNT-2:       amx.tile_load %{{.*}} : memref<32x48xf32> into !amx.tile<16x16xf32>
// CHECK-COUNT-2:       amx.tile_mulf
// CHECK-COUNT-2:       amx.tile_store
func.func @values(%p: memref<32x32xbf16>, %v: memref<32x48xbf16>, %acc: memref<32x48xf32>, %n: index) {
  scf.forall (%i) in (%n) {
    linalg.generic {indexing_maps = #pv, iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%p, %v : memref<32x32xbf16>, memref<32x48xbf16>) outs(%acc : memref<32x48xf32>) {
    ^bb0(%a: bf16, %b: bf16, %c: f32):
      %x = arith.extf %a : bf16 to f32
      %y = arith.extf %b : bf16 to f32
      %m = arith.mulf %x, %y : f32
      %r = arith.addf %c, %m : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// The pair-interleaved contraction attn-vectorize-cpu-tiles{amx} builds
// (A [M, K/2, 2], B packed already [K/2, N, 2]): no packing here; the tiles
// read the 2-D buffers the 3-D views were expanded from.
#vnni = [affine_map<(m, n, r, j) -> (m, r, j)>, affine_map<(m, n, r, j) -> (r, n, j)>,
         affine_map<(m, n, r, j) -> (m, n)>]
// CHECK-LABEL: func.func @packed
// CHECK-SAME:    (%[[A:.*]]: memref<32x64xbf16>,
// CHECK:         %[[B:.*]] = memref.subview
// CHECK-NOT:     vector.
// CHECK-NOT:     memref.collapse_shape
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK-COUNT-4:     amx.tile_load %{{.*}} : memref<32x32xf32> into !amx.tile<16x16xf32>
// CHECK:             amx.tile_load %[[A]]
// CHECK:             amx.tile_load %[[A]]
// CHECK:             amx.tile_load %[[B]]
// CHECK:             amx.tile_load %[[B]]
// CHECK-COUNT-4:     amx.tile_mulf
// CHECK-COUNT-4:     amx.tile_load
// CHECK-COUNT-4:     amx.tile_mulf
// CHECK-COUNT-4:     amx.tile_store
// CHECK-NOT:     linalg.generic
func.func @packed(%a: memref<32x64xbf16>, %bp: memref<32x80xbf16>, %c: memref<32x32xf32>) {
  %a3 = memref.expand_shape %a [[0], [1, 2]] output_shape [32, 32, 2] : memref<32x64xbf16> into memref<32x32x2xbf16>
  %bs = memref.subview %bp[0, 0] [32, 64] [1, 1] : memref<32x80xbf16> to memref<32x64xbf16, strided<[80, 1]>>
  %b3 = memref.expand_shape %bs [[0], [1, 2]] output_shape [32, 32, 2] : memref<32x64xbf16, strided<[80, 1]>> into memref<32x32x2xbf16, strided<[80, 2, 1]>>
  linalg.generic {indexing_maps = #vnni, iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a3, %b3 : memref<32x32x2xbf16>, memref<32x32x2xbf16, strided<[80, 2, 1]>>) outs(%c : memref<32x32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %z: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %z, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// What the tile unit does not take stays a linalg op: f16 operands (no
// AMX-FP16 path), K = 16 (not a whole 32-wide bf16 tile row), a strided
// innermost dimension.
#mm = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
       affine_map<(m, n, k) -> (m, n)>]
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT:     amx.
func.func @left_alone(%a16: memref<16x32xf16>, %b16: memref<32x16xf16>,
                      %a: memref<16x16xbf16>, %b: memref<16x16xbf16>,
                      %as: memref<16x32xbf16, strided<[64, 2]>>, %bs: memref<32x16xbf16>,
                      %c: memref<16x16xf32>) {
  linalg.generic {indexing_maps = #mm, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a16, %b16 : memref<16x32xf16>, memref<32x16xf16>) outs(%c : memref<16x16xf32>) {
  ^bb0(%x: f16, %y: f16, %z: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %z, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = #mm, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>) outs(%c : memref<16x16xf32>) {
  ^bb0(%x: bf16, %y: bf16, %z: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %z, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = #mm, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%as, %bs : memref<16x32xbf16, strided<[64, 2]>>, memref<32x16xbf16>) outs(%c : memref<16x16xf32>) {
  ^bb0(%x: bf16, %y: bf16, %z: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %z, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
