// Block sparsity over packed documents whose ids are gathered from a
// captured [2, 300] table (ids in [0, 4), interleaved), causal, the lists
// before the capture in the function's arguments (cpu-block-mask.mlir).
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                     %lse: memref<?x?x?xf32>, %counts: memref<2x1x?xi32>,
                     %indices: memref<2x1x?x?xi32>, %docs: memref<2x300xi32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      block_mask(%counts, %indices : memref<2x1x?xi32>, memref<2x1x?x?xi32>)
      score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %b : i32 to index
    %ix = arith.index_cast %i : i32 to index
    %jx = arith.index_cast %j : i32 to index
    %di = memref.load %docs[%bx, %ix] : memref<2x300xi32>
    %dj = memref.load %docs[%bx, %jx] : memref<2x300xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %same, %s, %ninf : f32
    attn.yield %r : f32
  } {causal, mask_block = array<i64: 32, 32>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
