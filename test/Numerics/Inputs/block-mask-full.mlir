// Block sparsity with full blocks (cpu-block-mask.mlir): documents of 100
// positions as a mask_mod, a score_mod (a small distance bias, applied in
// every visited block, full ones too), causal, 64x32 mask blocks; blocks
// whose keys the mask_mod keeps whole are in the full list, where it is not
// evaluated.
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                     %lse: memref<?x?x?xf32>, %counts: memref<?x1x?xi32>,
                     %indices: memref<?x1x?x?xi32>,
                     %full_counts: memref<?x1x?xi32>,
                     %full_indices: memref<?x1x?x?xi32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      block_mask(%counts, %indices : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      full_blocks(%full_counts, %full_indices
                  : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %d = arith.subi %j, %i : i32
    %df = arith.sitofp %d : i32 to f32
    %c = arith.constant 0.01 : f32
    %bias = arith.mulf %df, %c : f32
    %r = arith.addf %s, %bias : f32
    attn.yield %r : f32
  } mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %c100 = arith.constant 100 : i32
    %di = arith.divsi %i, %c100 : i32
    %dj = arith.divsi %j, %c100 : i32
    %same = arith.cmpi eq, %di, %dj : i32
    attn.yield %same : i1
  } {causal, mask_block = array<i64: 64, 32>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
