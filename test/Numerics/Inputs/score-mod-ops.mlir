// The rest of score_mod's op list (divf, exp2, log, sqrt, minimumf, maxnumf,
// minnumf), run by cpu-score-mod.mlir.
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o score_mod {
  ^bb0(%s: f32):
    %two = arith.constant 2.0 : f32
    %one = arith.constant 1.0 : f32
    %a = arith.divf %s, %two : f32
    %b = math.exp2 %a : f32
    %c = arith.addf %b, %one : f32
    %d = math.log %c : f32
    %e = math.sqrt %c : f32
    %f = arith.minimumf %d, %e : f32
    %g = arith.maxnumf %f, %s : f32
    %h = arith.minnumf %g, %two : f32
    attn.yield %h : f32
  } : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
      memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
