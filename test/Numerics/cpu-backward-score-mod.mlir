// The backward of score_mod and mask_mod regions on the CPU path: attn-run
// --backward runs a file's attn.attention_grad, whose score_mod the tiling
// differentiates in forward mode, against float64 gradients whose
// derivative of the same region is a central difference of attn-run's own
// float64 evaluation of it (an independent check of the derivative). This
// file's modifier is smooth (a square, an exponential, a division, a tanh,
// and a relative-position bias gathered from a captured table, whose
// derivative is 0): f32 within 1e-5, and bf16 through sed. The kinked ops
// (maximumf, absf, select) and a mask_mod are in Inputs/backward-mask-mod
// .mlir, checked in bf16 and f16: at a kink the float64 reference and an
// f32 kernel may take different sides for a score within rounding of it,
// one element's derivative jump that f32's 1e-5 would not absorb (a
// central difference straddling it does the same). Causal, GQA, Nq != Nk,
// lengths that are not multiples of the blocks.
//
// RUN: attn-run %s --backward --batch 2 --heads 4 --kv-heads 2 --seq-q 130 --seq-k 200 --check | FileCheck %s
// RUN: sed -e 's/64xf32/64xbf16/g' %s > %t.bf16.mlir
// RUN: attn-run %t.bf16.mlir --backward --heads 8 --kv-heads 8 --seq-q 257 --seq-k 100 --check | FileCheck %s
// RUN: sed -e 's/64xf32/64xbf16/g' %S/Inputs/backward-mask-mod.mlir > %t.mask.bf16.mlir
// RUN: attn-run %t.mask.bf16.mlir --backward --heads 2 --seq-q 300 --check | FileCheck %s
// RUN: sed -e 's/64xf32/64xf16/g' %S/Inputs/backward-mask-mod.mlir > %t.mask.f16.mlir
// RUN: attn-run %t.mask.f16.mlir --backward --heads 4 --kv-heads 2 --seq-q 100 --seq-k 250 --check | FileCheck %s
// RUN: not attn-run %s --backward --dropout 0.1 2>&1 | FileCheck %s --check-prefix=FLAGS

// CHECK:       backward
// CHECK:       check dQ:
// CHECK-SAME:  non_finite=0
// CHECK:       check dK:
// CHECK:       check dV:
// CHECK:       deterministic: second run bit-identical
// CHECK:       PASS
// FLAGS: --dropout, --alibi, --window and --more-seq with --backward need the problem from flags

!t = memref<?x?x?x64xf32>
!r = memref<?x?x?xf32>
func.func @attention_grad(%do: !t, %q: !t, %k: !t, %v: !t, %o: !t, %lse: !r,
                          %dq: !t, %dk: !t, %dv: !t, %delta: !r,
                          %table: memref<8x33xf32>) {
  attn.attention_grad %do, %q, %k, %v, %o, %lse into %dq, %dk, %dv
      delta(%delta) score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    // S' = 3·tanh((S + 0.1·S² − 0.5·exp(−S²/2)) / 3) + bias[h, d]
    %c01 = arith.constant 0.1 : f32
    %sq = arith.mulf %s, %s : f32
    %t = arith.mulf %sq, %c01 : f32
    %y = arith.addf %s, %t : f32
    %mh = arith.constant -0.5 : f32
    %g = arith.mulf %sq, %mh : f32
    %e = math.exp %g : f32
    %c05 = arith.constant 0.5 : f32
    %he = arith.mulf %e, %c05 : f32
    %z = arith.subf %y, %he : f32
    %c3 = arith.constant 3.0 : f32
    %zc = arith.divf %z, %c3 : f32
    %th = math.tanh %zc : f32
    %w = arith.mulf %th, %c3 : f32
    // bucket = clamp(j - i, -16, 16) + 16
    %d = arith.subi %j, %i : i32
    %lo = arith.constant -16 : i32
    %hi = arith.constant 16 : i32
    %cl = arith.maxsi %d, %lo : i32
    %cl2 = arith.minsi %cl, %hi : i32
    %bk = arith.addi %cl2, %hi : i32
    %bx = arith.index_cast %bk : i32 to index
    %hx = arith.index_cast %h : i32 to index
    %bias = memref.load %table[%hx, %bx] : memref<8x33xf32>
    %r = arith.addf %w, %bias : f32
    attn.yield %r : f32
  } {causal}
      : !t, !t, !t, !t, !t, !r, !t, !t, !t, !r
  return
}
