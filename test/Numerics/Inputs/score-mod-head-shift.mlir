// A score_mod whose bias is one value per program, log(h): a per-row shift
// that attn-tile-attention leaves out of the scores (the LSE takes it), and
// −inf for head 0, whose every score is then −inf: its rows see no key (O
// = 0, LSE = −inf) on the kernel as in the reference, which evaluates the
// body per score (cpu-score-mod-positions.mlir).
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                     %lse: memref<?x?x?xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %hf = arith.sitofp %h : i32 to f32
    %shift = math.log %hf : f32
    %r = arith.addf %s, %shift : f32
    attn.yield %r : f32
  } : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
      memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
