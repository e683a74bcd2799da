// A relative-position bias gathered from a captured [8, 33] table by the
// clamped distance (cpu-score-mod-positions.mlir).
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                     %lse: memref<?x?x?xf32>, %table: memref<8x33xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    // bucket = clamp(j - i, -16, 16) + 16
    %d = arith.subi %j, %i : i32
    %lo = arith.constant -16 : i32
    %hi = arith.constant 16 : i32
    %c = arith.maxsi %d, %lo : i32
    %c2 = arith.minsi %c, %hi : i32
    %bk = arith.addi %c2, %hi : i32
    %bx = arith.index_cast %bk : i32 to index
    %hx = arith.index_cast %h : i32 to index
    %bias = memref.load %table[%hx, %bx] : memref<8x33xf32>
    %r = arith.addf %s, %bias : f32
    attn.yield %r : f32
  } : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
      memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
