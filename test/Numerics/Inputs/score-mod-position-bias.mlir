// A score_mod that attn-tile-attention splits into a per-column vector and
// a per-row part for the LSE (attn::tiling::PositionBias): several terms
// affine in the positions with every sign and form the split must carry —
// a per-head factor times float(j − 2·i − 3) (a constant multiple of i), a
// negation, a per-column term alone (0.5·j), a per-row term alone
// (−0.125·i), a per-program term (−b) and a constant, the score not the
// first operand of its add. The reference evaluates the body as written
// (cpu-score-mod-positions.mlir): a part dropped or added twice, in the
// scores or in the LSE, fails. Not causal: the positive biases right of
// the diagonal weigh too.
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                     %lse: memref<?x?x?xf32>, %slopes: memref<8xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %hi = arith.index_cast %h : i32 to index
    %slope = memref.load %slopes[%hi] : memref<8xf32>
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %i2 = arith.muli %c2, %i : i32
    %d = arith.subi %j, %i2 : i32
    %d3 = arith.subi %d, %c3 : i32
    %df = arith.sitofp %d3 : i32 to f32
    %scaled = arith.constant 0.01 : f32
    %sl = arith.mulf %slope, %scaled : f32
    %t1 = arith.mulf %df, %sl : f32
    %n1 = arith.negf %t1 : f32
    %jf = arith.sitofp %j : i32 to f32
    %half = arith.constant 0.005 : f32
    %t2 = arith.mulf %half, %jf : f32
    %if = arith.sitofp %i : i32 to f32
    %eighth = arith.constant -0.125 : f32
    %t3 = arith.mulf %if, %eighth : f32
    %bf = arith.sitofp %b : i32 to f32
    %one = arith.constant 1.5 : f32
    %a1 = arith.addf %n1, %s : f32
    %a2 = arith.addf %a1, %t2 : f32
    %a3 = arith.subf %a2, %bf : f32
    %a4 = arith.addf %t3, %a3 : f32
    %a5 = arith.addf %a4, %one : f32
    attn.yield %a5 : f32
  } : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
      memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
