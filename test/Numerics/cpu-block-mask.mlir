// Numerics of block sparsity (attn.attention block_mask(...)) on the CPU
// path against the float64 reference. attn-run builds the lists from the
// op's own masks (a key block is listed where any of its keys is visible),
// and with --block-mask-drop leaves out that fraction of the visible blocks
// and lists that fraction of the invisible ones, in a shuffled order, the
// entries past each count holding other blocks' indices: the reference
// masks every key of an unlisted block, so a kernel that visits a block it
// was not given, or skips one it was, fails.
// This file: documents of 100 positions (a score_mod that computes the id
// from the position), causal, one list row for every batch and head,
// 64x64 mask blocks; Inputs/: lists per batch and head of [32, 16] blocks
// under a sliding window, and document ids gathered from a captured table
// (the lists before the capture in the function's arguments), full blocks
// beside a mask_mod (with drop, some partial blocks listed as full: their
// mask_mod skipped, in the reference too), and a mask_mod alone.
//
// RUN: attn-run %s --batch 2 --heads 3 --seq-q 300 --seq-k 300 --check | FileCheck %s
// RUN: attn-run %s --batch 2 --heads 3 --seq-q 300 --seq-k 300 --block-mask-drop 0.3 --check | FileCheck %s
// RUN: attn-run %s --heads 4 --seq-q 200 --seq-k 333 --block-q 16 --block-kv 32 --block-mask-drop 0.5 --check | FileCheck %s
// RUN: attn-run %s --heads 2 --seq-q 333 --seq-k 130 --no-fuse --block-mask-drop 0.2 --check | FileCheck %s
// RUN: sed -e 's/64xf32/64xbf16/g' %s > %t.bf16.mlir
// RUN: attn-run %t.bf16.mlir --batch 2 --heads 4 --kv-heads 2 --seq-q 257 --seq-k 257 --block-mask-drop 0.25 --check | FileCheck %s
// RUN: attn-run %S/Inputs/block-mask-window.mlir --batch 2 --heads 4 --kv-heads 2 --seq-q 150 --seq-k 170 --check | FileCheck %s
// RUN: attn-run %S/Inputs/block-mask-window.mlir --batch 2 --heads 4 --kv-heads 1 --seq-q 150 --seq-k 170 --block-mask-drop 0.4 --check | FileCheck %s
// RUN: attn-run %S/Inputs/block-mask-docs.mlir --batch 2 --heads 3 --seq-q 300 --block-mask-drop 0.1 --check | FileCheck %s
// RUN: attn-run %S/Inputs/block-mask-full.mlir --batch 2 --heads 3 --seq-q 300 --seq-k 300 --check | FileCheck %s
// RUN: attn-run %S/Inputs/block-mask-full.mlir --batch 2 --heads 2 --kv-heads 1 --seq-q 250 --seq-k 333 --block-mask-drop 0.3 --check | FileCheck %s
// RUN: sed -e 's/64xf32/64xbf16/g' %S/Inputs/block-mask-full.mlir > %t.full.bf16.mlir
// RUN: attn-run %t.full.bf16.mlir --batch 2 --heads 2 --seq-q 300 --seq-k 300 --block-q 32 --block-kv 16 --block-mask-drop 0.2 --check | FileCheck %s
// RUN: attn-run %S/Inputs/mask-mod.mlir --batch 2 --heads 3 --seq-q 200 --seq-k 260 --check | FileCheck %s
// CHECK: PASS
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>,
                     %lse: memref<?x?x?xf32>, %counts: memref<1x1x?xi32>,
                     %indices: memref<1x1x?x?xi32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      block_mask(%counts, %indices : memref<1x1x?xi32>, memref<1x1x?x?xi32>)
      score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %c100 = arith.constant 100 : i32
    %di = arith.divsi %i, %c100 : i32
    %dj = arith.divsi %j, %c100 : i32
    %same = arith.cmpi eq, %di, %dj : i32
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %same, %s, %ninf : f32
    attn.yield %r : f32
  } {causal, mask_block = array<i64: 64, 64>}
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
