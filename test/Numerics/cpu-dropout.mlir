// Numerics of attention dropout (attn.attention dropout(p, seed, offset)) on
// the CPU path against the float64 reference, which drops exactly the
// scores the op's Philox mask drops (attn/runtime/Philox.h) and scales the
// kept ones by 1/(1 − p): a kernel that used another word, half, counter or
// threshold, dropped before the row sums or forgot the factor fails (a
// reference reading the other half of each word gave rel 0.64). Fresh
// inputs and key each run. From flags: GQA, cross attention, causal,
// f32/bf16/f16, a KV cache (paged), varlen, split-KV, a window, a soft-cap
// with a bias, ALiBi; this file: a run-time rate beside a score_mod and a
// run-time scale.
//
// RUN: attn-run --dropout 0.2 --batch 2 --heads 4 --kv-heads 2 --seq-q 130 --seq-k 200 --head-dim 64 --dtype f32 --lse --check | FileCheck %s
// RUN: attn-run --dropout 0.5 --causal --seq-q 100 --seq-k 300 --head-dim 128 --dtype bf16 --check | FileCheck %s
// RUN: attn-run --dropout 0.9 --causal --heads 3 --seq-q 77 --seq-k 50 --dtype f16 --dropout-offset 4000000000 --check | FileCheck %s
// RUN: attn-run --dropout 0.3 --kv-lens 100,37 --batch 2 --seq-q 5 --seq-k 128 --paged 32 --causal --dtype bf16 --check | FileCheck %s
// RUN: attn-run --dropout 0.3 --varlen 33,70,1 --varlen-k 50,70,200 --causal --heads 2 --dtype f16 --check | FileCheck %s
// RUN: attn-run --dropout 0.3 --kv-splits 3 --seq-q 1 --seq-k 700 --heads 8 --kv-heads 2 --dtype bf16 --check | FileCheck %s
// RUN: attn-run --dropout 0.1 --window 20,5 --seq-q 200 --seq-k 200 --dtype f32 --check | FileCheck %s
// RUN: attn-run --dropout 0.1 --softcap 30 --bias --batch 2 --heads 2 --seq-q 77 --seq-k 333 --dtype f16 --check | FileCheck %s
// RUN: attn-run --dropout 0.1 --alibi --heads 4 --seq-q 64 --seq-k 96 --dtype bf16 --check | FileCheck %s
// A rate of 0 drops nothing: the same O as without dropout.
// RUN: attn-run --dropout 0 --seq-q 64 --seq-k 64 --dtype f32 --dropout-seed 7 --check | FileCheck %s
// RUN: attn-run %s --dropout 0.25 --batch 2 --heads 2 --seq-q 150 --seq-k 170 --dropout-seed 18446744073709551615 --check | FileCheck %s
// RUN: sed -e 's/64xf32/64xbf16/g' %s > %t.bf16.mlir
// RUN: attn-run %t.bf16.mlir --dropout 0.6 --batch 1 --heads 3 --seq-q 257 --seq-k 31 --check | FileCheck %s
// CHECK: PASS
//
// What is refused: a rate outside [0, 1), a file without dropout given
// --dropout, a file with it run without a rate or on the GPU (the runtime
// takes dropout from flags), the backward's dropout on the GPU (the
// runtime's backward takes none; the CPU path runs it:
// cpu-backward-dropout.mlir), and the seed without --dropout.
// RUN: not attn-run --dropout 1 --seq-q 8 2>&1 | FileCheck %s --check-prefix=RATE
// RATE: attn-run: error: --dropout must be in [0, 1), got 1
// RUN: not attn-run %S/Inputs/block-mask-window.mlir --dropout 0.1 2>&1 | FileCheck %s --check-prefix=NODROP
// NODROP: attn-run: error: --dropout disagrees with the IR, whose attn.attention has no dropout operands
// RUN: not attn-run %s 2>&1 | FileCheck %s --check-prefix=NORATE
// NORATE: attn-run: error: the IR's attn.attention takes dropout(...): give its rate with --dropout P
// RUN: not attn-run %s --dropout 0.1 --target gpu --seq-q 64 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: attn-run: error: unsupported: a file's dropout on --target gpu
// RUN: not attn-run --dropout 0.1 --backward --target gpu --seq-q 64 2>&1 | FileCheck %s --check-prefix=BWD
// BWD: attn-run: error: unsupported: --dropout with --backward on the GPU (the runtime's backward takes no dropout yet
// RUN: not attn-run --dropout-seed 3 --seq-q 64 2>&1 | FileCheck %s --check-prefix=SEED
// SEED: attn-run: error: --dropout-seed and --dropout-offset need --dropout
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                     %scale: f32, %p: f32, %seed: i64, %offset: i32) {
  attn.attention %q, %k, %v into %o scale(%scale)
      dropout(%p, %seed, %offset) score_mod {
  ^bb0(%s: f32):
    %half = arith.constant 0.5 : f32
    %r = arith.mulf %s, %half : f32
    attn.yield %r : f32
  } {causal} : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
      memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
