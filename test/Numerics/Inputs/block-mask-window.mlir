// Block sparsity with lists per batch and query head ([B, Hq, QB] and
// [B, Hq, QB, K]) of [32, 16] mask blocks, under a sliding window of 40
// keys to the left and 8 to the right (cpu-block-mask.mlir).
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                     %lse: memref<?x?x?xf32>, %counts: memref<?x?x?xi32>,
                     %indices: memref<?x?x?x?xi32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      block_mask(%counts, %indices : memref<?x?x?xi32>, memref<?x?x?x?xi32>)
      {window_left = 40 : i64, window_right = 8 : i64,
       mask_block = array<i64: 32, 16>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
