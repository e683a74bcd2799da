// Numerics of an additive score bias (attn.attention bias(...)) on the CPU
// path against the float64 reference: attn-run fills the bias with fresh
// N(0, 1) values and hands the same buffer to both. From flags
// (--bias: [B, Hq, Nq, Nk]) with causal, GQA, cross attention both ways, a
// soft-cap (the bias after the cap) and bf16/f16; this file: a bias
// broadcast over the batch ([1, Hq, Nq, Nk]) beside a score_mod that halves
// the biased scores (the bias before the score_mod), in f32 and bf16.
//
// RUN: attn-run --bias --batch 2 --heads 4 --kv-heads 2 --seq-q 130 --seq-k 200 --head-dim 64 --dtype f32 --check | FileCheck %s
// RUN: attn-run --bias --causal --heads 3 --seq-q 300 --seq-k 100 --head-dim 64 --dtype bf16 --lse --check | FileCheck %s
// RUN: attn-run --bias --causal --softcap 20 --batch 2 --heads 2 --seq-q 77 --seq-k 333 --head-dim 128 --dtype f16 --check | FileCheck %s
// RUN: attn-run %s --batch 3 --heads 4 --kv-heads 1 --seq-q 150 --seq-k 170 --check | FileCheck %s
// RUN: sed -e 's/64xf32/64xbf16/g' %s > %t.bf16.mlir
// RUN: attn-run %t.bf16.mlir --batch 2 --heads 2 --seq-q 257 --seq-k 31 --check | FileCheck %s
// A bias of the inputs' element type (bf16, widened in the kernel):
// RUN: sed -e 's/64xf32/64xbf16/g; s/1x?x?x?xf32/1x?x?x?xbf16/g' %s > %t.bf16bias.mlir
// RUN: attn-run %t.bf16bias.mlir --batch 2 --heads 3 --seq-q 130 --seq-k 200 --check | FileCheck %s
// A bias's gradient, and --bias against an IR without one, are refused
// (on the GPU a bias runs through the runtime's kernels: the GPU check).
// RUN: not attn-run --bias --backward --seq-q 64 2>&1 | FileCheck %s --check-prefix=BWD
// BWD: attn-run: error: unsupported: --bias with --backward (the gradient has no bias yet)
// RUN: not attn-run %S/Inputs/block-mask-window.mlir --bias 2>&1 | FileCheck %s --check-prefix=NOBIAS
// NOBIAS: attn-run: error: --bias disagrees with the IR, whose attn.attention has no bias operand
// CHECK: PASS
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                     %lse: memref<?x?x?xf32>, %bias: memref<1x?x?x?xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      bias(%bias : memref<1x?x?x?xf32>) score_mod {
  ^bb0(%s: f32):
    %half = arith.constant 0.5 : f32
    %r = arith.mulf %s, %half : f32
    attn.yield %r : f32
  } : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
      memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
