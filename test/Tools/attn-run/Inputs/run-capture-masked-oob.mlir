// A score_mod whose load is inside its table for every visible (causal)
// pair but not for the masked ones (i − j < 0): the kernel evaluates the
// region there too, so attn-run refuses to run it.
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>, %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>, %t: memref<64xf32>) {
  attn.attention %q, %k, %v into %o score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %d = arith.subi %i, %j : i32
    %x = arith.index_cast %d : i32 to index
    %y = memref.load %t[%x] : memref<64xf32>
    %r = arith.addf %s, %y : f32
    attn.yield %r : f32
  } {causal} : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
