// RUN: attn-opt %s -split-input-file -attn-tile-pipeline -convert-attn-to-linalg \
// RUN:   -convert-elementwise-to-linalg -attn-vectorize-cpu-tiles="avx512 row-chunk=16" \
// RUN:   -canonicalize -cse | FileCheck %s --check-prefix=AVX512
// RUN: attn-opt %s -split-input-file -attn-tile-pipeline -convert-attn-to-linalg \
// RUN:   -convert-elementwise-to-linalg -attn-vectorize-cpu-tiles="vnni" \
// RUN:   -canonicalize -cse | FileCheck %s --check-prefix=AMX

// avx512: exp2 through vscalefps (x86vector.avx512.mask.scalef), 16 lanes at
// a time, no generic exp expansion and its clamps; the elementwise row ops
// in chunks of row-chunk columns (P = exp2((S − m)·c) over 32-key rows: two
// 16-column steps), the reductions over whole rows.
// AVX512-LABEL: func.func @f32
// AVX512:         vector.reduction <maximumf>, {{.*}} fastmath<nnan,nsz> : vector<32xf32>
// AVX512:         scf.for {{.*}} = %c0 to %c32 step %c16
// AVX512:           math.roundeven {{.*}} : vector<16xf32>
// AVX512:           arith.cmpf ord
// AVX512-COUNT-6:   math.fma {{.*}} : vector<16xf32>
// AVX512:           x86vector.avx512.mask.scalef {{.*}} : vector<16xf32>
// AVX512-NOT:     math.exp
func.func @f32(%q: memref<?x?x?x32xf32>, %k: memref<?x?x?x32xf32>,
               %v: memref<?x?x?x32xf32>, %o: memref<?x?x?x32xf32>) {
  attn.attention %q, %k, %v into %o {block_q = 32 : i64, block_kv = 32 : i64}
      : memref<?x?x?x32xf32>, memref<?x?x?x32xf32>, memref<?x?x?x32xf32>,
        memref<?x?x?x32xf32>
  return
}

// -----

// vnni (the amx and avx512bf16 levels): the bf16 products become pair-interleaved (VNNI) contractions for
// attn-lower-cpu-bf16-contractions after bufferization. Their right
// operands are packed straight from the blocks' sources (the zero-padded
// copy of the K and V blocks is gone; rows past a partial block read as
// zeros through an explicit row check): K by 16×16 transposes of 32-bit
// pairs, V by interleaving row pairs, each into [K/2, 2N + 32] (a spare
// cache line per row) of which the first 2N columns are the operand. P is
// materialised as bf16 (arith.truncf, not rounded in f32 registers).
// AMX-LABEL: func.func @bf16
// AMX:         tensor.empty() : tensor<16x96xbf16>
// AMX:         scf.for {{.*}} step %c16
// AMX:           scf.for {{.*}} step %c16
// AMX-COUNT-16:    scf.if %{{.*}} -> (vector<16xi32>)
// AMX:             vector.shuffle
// AMX-COUNT-16:    vector.transfer_write {{.*}} : vector<32xbf16>, tensor<16x96xbf16>
// AMX:         %[[KS:.*]] = tensor.extract_slice %{{.*}}[0, 0] [16, 64] [1, 1] : tensor<16x96xbf16> to tensor<16x64xbf16>
// AMX:         %[[Q3:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [32, 16, 2]
// AMX:         %[[K3:.*]] = tensor.expand_shape %[[KS]] {{\[}}[0], [1, 2]] output_shape [16, 32, 2]
// AMX:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// AMX-SAME:      ins(%[[Q3]], %[[K3]] : tensor<32x16x2xbf16>, tensor<16x32x2xbf16>) outs({{.*}} : tensor<32x32xf32>)
// AMX:         arith.truncf {{.*}} : vector<32xf32> to vector<32xbf16>
// AMX:         vector.interleave {{.*}} : vector<32xi16> -> vector<64xi16>
// AMX:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// AMX-SAME:      ins({{.*}} : tensor<32x16x2xbf16>, tensor<16x32x2xbf16>) outs({{.*}} : tensor<32x32xf32>)
// AMX-NOT:     vector.fma
func.func @bf16(%q: memref<?x?x?x32xbf16>, %k: memref<?x?x?x32xbf16>,
                %v: memref<?x?x?x32xbf16>, %o: memref<?x?x?x32xbf16>) {
  attn.attention %q, %k, %v into %o {block_q = 32 : i64, block_kv = 32 : i64}
      : memref<?x?x?x32xbf16>, memref<?x?x?x32xbf16>, memref<?x?x?x32xbf16>,
        memref<?x?x?x32xbf16>
  return
}

// -----

// RUN: not attn-opt %s -split-input-file -attn-vectorize-cpu-tiles="row-chunk=-1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
// BAD: error: attn-vectorize-cpu-tiles: row-chunk must be >= 0 (0: whole rows), got -1
func.func @empty() {
  return
}
