// A learned relative-position bias (T5's and Swin's, without T5's log
// buckets), written as a score_mod region: each score gets the bias of its
// head and clamped distance from a [heads, 2·128 + 1] table,
//   S' = scale·QKᵀ + table[h, clamp(j − i, −128, 128) + 128],
// bf16, head dim 128, not causal. The body is scalar code; the tiling turns
// it into tile code (the distance from attn.iota position tiles, the load a
// gather: one element per score), on the CPU and the GPU alike. attn-run
// fills the captured table with random values and its float64 reference
// evaluates the same region:
//   build/bin/attn-run examples/attention-relative-bias.mlir --batch 2 \
//       --heads 16 --kv-heads 4 --seq-q 1000 --check
// (16 heads at most: the table's first dim.)
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>, %table: memref<16x257xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    // bucket = clamp(j − i, −128, 128) + 128
    %d = arith.subi %j, %i : i32
    %lo = arith.constant -128 : i32
    %hi = arith.constant 128 : i32
    %c = arith.maxsi %d, %lo : i32
    %c2 = arith.minsi %c, %hi : i32
    %bucket = arith.addi %c2, %hi : i32
    %bx = arith.index_cast %bucket : i32 to index
    %hx = arith.index_cast %h : i32 to index
    %bias = memref.load %table[%hx, %bx] : memref<16x257xf32>
    %r = arith.addf %s, %bias : f32
    attn.yield %r : f32
  } : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
      memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
