// Numerics of score_mod regions that read the positions (b, h, q_idx,
// kv_idx) and captured memrefs on the CPU path, against the float64
// reference evaluating the same region (attn-run fills each capture with
// fresh random values and hands the same buffer to both). This file: ALiBi
// with per-head slopes from a captured [8] table, causal; Inputs/: chunked
// attention (a mask written as a score_mod: -inf outside the query's chunk
// of 48, rows past the keys' last chunk see nothing), a body of every
// integer op, cast and comparison, and two gathers (a relative-position
// bias, document ids). f32 as written, bf16 and f16 through sed;
// GQA, cross attention both ways, several key blocks, one-row blocks.
//
// RUN: attn-run %s --batch 2 --heads 4 --kv-heads 2 --seq-q 130 --seq-k 200 --check | FileCheck %s
// RUN: attn-run %s --heads 8 --seq-q 300 --seq-k 100 --block-q 16 --block-kv 32 --check | FileCheck %s
// RUN: sed -e 's/64xf32/64xbf16/g' %s > %t.bf16.mlir
// RUN: attn-run %t.bf16.mlir --batch 2 --heads 4 --kv-heads 2 --seq-q 1000 --seq-k 130 --check | FileCheck %s
// RUN: sed -e 's/64xf32/64xf16/g' %s > %t.f16.mlir
// RUN: attn-run %t.f16.mlir --heads 2 --seq-q 1 --seq-k 777 --check | FileCheck %s
// RUN: attn-run %S/Inputs/score-mod-chunked.mlir --batch 2 --heads 3 --seq-q 300 --seq-k 200 --check | FileCheck %s
// RUN: attn-run %S/Inputs/score-mod-chunked.mlir --heads 2 --seq-q 130 --seq-k 500 --no-fuse --check | FileCheck %s
// RUN: sed -e 's/64xf32/64xbf16/g' %S/Inputs/score-mod-chunked.mlir > %t.chunked.bf16.mlir
// RUN: attn-run %t.chunked.bf16.mlir --batch 3 --heads 4 --kv-heads 1 --seq-q 257 --seq-k 257 --check | FileCheck %s
// RUN: attn-run %S/Inputs/score-mod-int-ops.mlir --batch 3 --heads 5 --seq-q 70 --seq-k 90 --check | FileCheck %s
// A bias affine in the positions, split into columns and rows (the LSE):
// RUN: attn-run %S/Inputs/score-mod-position-bias.mlir --batch 2 --heads 4 --kv-heads 2 --seq-q 130 --seq-k 200 --check | FileCheck %s
// RUN: attn-run %S/Inputs/score-mod-position-bias.mlir --heads 8 --seq-q 300 --seq-k 100 --block-q 16 --block-kv 32 --check | FileCheck %s
// RUN: sed -e 's/64xf32/64xbf16/g' %S/Inputs/score-mod-position-bias.mlir > %t.posbias.bf16.mlir
// RUN: attn-run %t.posbias.bf16.mlir --batch 3 --heads 8 --kv-heads 2 --seq-q 257 --seq-k 300 --check | FileCheck %s
// A per-program shift that is −inf for one head (its rows see no key):
// RUN: attn-run %S/Inputs/score-mod-head-shift.mlir --heads 3 --seq-q 100 --seq-k 130 --check | FileCheck %s
// Gathers (a load indexed by the positions): a relative-position bias and
// document ids; the padded rows and columns of the last blocks read the
// last position's entry (clamped iotas), so no load leaves the tables.
// RUN: attn-run %S/Inputs/score-mod-relbias.mlir --batch 2 --heads 8 --kv-heads 2 --seq-q 130 --seq-k 200 --check | FileCheck %s
// RUN: sed -e 's/64xf32/64xbf16/g' %S/Inputs/score-mod-relbias.mlir > %t.relbias.bf16.mlir
// RUN: attn-run %t.relbias.bf16.mlir --heads 4 --seq-q 1000 --seq-k 33 --check | FileCheck %s
// RUN: attn-run %S/Inputs/score-mod-docmask.mlir --batch 2 --heads 3 --seq-q 300 --check | FileCheck %s
// RUN: attn-run %S/Inputs/score-mod-docmask.mlir --batch 2 --heads 2 --seq-q 77 --seq-k 300 --block-q 16 --block-kv 32 --no-fuse --check | FileCheck %s
// A kernel that ignored the positions or the captures would fail: the
// reference applies them.

// CHECK: check O:
// CHECK-SAME: non_finite=0
// CHECK: check LSE:
// CHECK-SAME: non_finite=0
// CHECK: PASS

func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                     %lse: memref<?x?x?xf32>, %slopes: memref<8xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    // S' = S + slopes[h]·(j − i)
    %hi = arith.index_cast %h : i32 to index
    %slope = memref.load %slopes[%hi] : memref<8xf32>
    %d = arith.subi %j, %i : i32
    %df = arith.sitofp %d : i32 to f32
    %bias = arith.mulf %slope, %df : f32
    %r = arith.addf %s, %bias : f32
    attn.yield %r : f32
  } {causal} : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
      memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
