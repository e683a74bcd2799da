// A relative-position bias (T5's and Swin's, without T5's log buckets): a
// learned table of 2M + 1 biases per head, indexed by the clamped distance,
// written as a score_mod that gathers from a captured [H, 2M + 1] table:
//   S' = scale·QKᵀ + table[h, clamp(j − i, −M, M) + M],  M = 128,
// bf16, D = 128, not causal, scale a run-time parameter (last). Each score
// reads its own table entry (attn.gather: one load an element, the table
// in L1). The GPU check (tools/scripts/gpu_programs.py, variant "relbias")
// compares the kernel with float64 on a fresh table.
// program: {"variant": "relbias", "max_distance": 128, "dtype": "bf16", "head_dim": 128, "causal": false, "args": ["q", "k", "v", "o", "lse", "table", "scale"], "bench": true}
// RUN: attn-opt %s --attn-tile-attention="target=sm_90a" | FileCheck %s --check-prefix=TILE
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// The distance's index is the i32 tile itself; in the masked (last) key
// block the key positions are clamped to the keys' end.
// TILE:       scf.for
// TILE:         %[[I:.*]] = attn.iota %{{.*}} dim 0 clamp(%{{.*}}) : tensor<128x128xi32>
// TILE:         %[[J:.*]] = attn.iota %{{.*}} dim 1 : tensor<128x128xi32>
// TILE:         attn.gather %arg5[%{{.*}}, %{{.*}}] : memref<?x?xf32>, index, tensor<128x128xi32> -> tensor<128x128xf32>
// TILE:       scf.for
// TILE:         attn.iota %{{.*}} dim 1 clamp(%{{.*}}) : tensor<128x128xi32>
// PTX: .entry attention_kernel
// PTX: wgmma.mma_async.sync.aligned
// PTX: ld.global.b32
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>, %table: memref<?x?xf32>,
                     %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %d = arith.subi %j, %i : i32
    %lo = arith.constant -128 : i32
    %hi = arith.constant 128 : i32
    %c = arith.maxsi %d, %lo : i32
    %c2 = arith.minsi %c, %hi : i32
    %bk = arith.addi %c2, %hi : i32
    %bx = arith.index_cast %bk : i32 to index
    %hx = arith.index_cast %h : i32 to index
    %bias = memref.load %table[%hx, %bx] : memref<?x?xf32>
    %r = arith.addf %s, %bias : f32
    attn.yield %r : f32
  } : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
      memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
