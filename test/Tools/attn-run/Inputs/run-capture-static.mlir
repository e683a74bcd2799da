// A score_mod reading a per-head table of 4 entries (attn-run fills it).
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>, %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>, %t: memref<4xf32>) {
  attn.attention %q, %k, %v into %o score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %hi = arith.index_cast %h : i32 to index
    %x = memref.load %t[%hi] : memref<4xf32>
    %r = arith.addf %s, %x : f32
    attn.yield %r : f32
  } : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
