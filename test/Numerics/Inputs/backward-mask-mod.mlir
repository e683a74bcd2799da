// A backward with kinked ops in its score_mod (S' = max(S > 0 ? S : 0.25·S,
// −1) − 0.2·|S|: a select, maximumf, absf) and a mask_mod that hides keys
// more than 40 positions before the query and every key j with j mod 7 = 3
// (cpu-backward-score-mod.mlir).
!t = memref<?x?x?x64xf32>
!r = memref<?x?x?xf32>
func.func @attention_grad(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t, %lse: !r,
                          %dq: !t, %dk: !t, %dv: !t, %delta: !r) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) score_mod {
  ^bb0(%s: f32):
    %z = arith.constant 0.0 : f32
    %c = arith.constant 0.25 : f32
    %pos = arith.cmpf ogt, %s, %z : f32
    %l = arith.mulf %s, %c : f32
    %r = arith.select %pos, %s, %l : f32
    %m1 = arith.constant -1.0 : f32
    %x = arith.maximumf %r, %m1 : f32
    %a = math.absf %s : f32
    %c2 = arith.constant 0.2 : f32
    %a2 = arith.mulf %a, %c2 : f32
    %y = arith.subf %x, %a2 : f32
    attn.yield %y : f32
  } mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %d = arith.subi %i, %j : i32
    %w = arith.constant 40 : i32
    %near = arith.cmpi sle, %d, %w : i32
    %seven = arith.constant 7 : i32
    %m = arith.remsi %j, %seven : i32
    %three = arith.constant 3 : i32
    %hole = arith.cmpi ne, %m, %three : i32
    %keep = arith.andi %near, %hole : i1
    attn.yield %keep : i1
  } {causal}
      : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}
