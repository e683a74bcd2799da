// Block lists the program builds itself (cpu-block-lists.mlir): a mask_mod
// that gathers document ids from a captured [2, 300] table (random ids in
// [0, 4): interleaved documents) and narrows each query head's band (key j
// within 60 + 40·h of query i), under a left window of 200; one list row
// per batch, head and 32-row query block, full lists beside the partial.
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                     %lse: memref<?x?x?xf32>, %counts: memref<2x?x?xi32>,
                     %indices: memref<2x?x?x?xi32>,
                     %full_counts: memref<2x?x?xi32>,
                     %full_indices: memref<2x?x?x?xi32>,
                     %docs: memref<2x300xi32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      block_mask(%counts, %indices : memref<2x?x?xi32>, memref<2x?x?x?xi32>)
      full_blocks(%full_counts, %full_indices
                  : memref<2x?x?xi32>, memref<2x?x?x?xi32>)
      mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %b : i32 to index
    %ix = arith.index_cast %i : i32 to index
    %jx = arith.index_cast %j : i32 to index
    %di = memref.load %docs[%bx, %ix] : memref<2x300xi32>
    %dj = memref.load %docs[%bx, %jx] : memref<2x300xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    %d = arith.subi %i, %j : i32
    %a = math.absi %d : i32
    %c40 = arith.constant 40 : i32
    %c60 = arith.constant 60 : i32
    %h40 = arith.muli %h, %c40 : i32
    %w = arith.addi %h40, %c60 : i32
    %near = arith.cmpi sle, %a, %w : i32
    %keep = arith.andi %same, %near : i1
    attn.yield %keep : i1
  } {window_left = 200, mask_block = array<i64: 32, 32>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
