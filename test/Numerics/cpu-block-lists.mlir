// Block lists the program builds from its own mask_mod
// (attn-generate-block-lists, attn.block_lists on the CPU path), into
// buffers attn-run poisons first: attn-run compares them with the lists it
// builds from the same masks (every row's count and blocks), then O and
// the LSE with the float64 reference. Documents of 100 positions as a
// mask_mod with full lists (causal, lists shared by the heads, GQA, Nq ≠ Nk,
// bf16), and Inputs/block-lists-generated.mlir: ids gathered from a
// captured table, a band per query head, a left window (and a right one),
// lists per batch and head.
//
// RUN: attn-run %S/Inputs/block-mask-full.mlir --batch 2 --heads 3 --seq-q 300 --seq-k 300 --generate-block-lists --check | FileCheck %s
// RUN: attn-run %S/Inputs/block-mask-full.mlir --batch 2 --heads 2 --kv-heads 1 --seq-q 250 --seq-k 333 --generate-block-lists --check | FileCheck %s
// RUN: sed -e 's/64xf32/64xbf16/g' %S/Inputs/block-mask-full.mlir > %t.bf16.mlir
// RUN: attn-run %t.bf16.mlir --batch 1 --heads 4 --kv-heads 2 --seq-q 333 --seq-k 200 --block-q 32 --block-kv 16 --generate-block-lists --check | FileCheck %s
// RUN: attn-run %S/Inputs/block-lists-generated.mlir --batch 2 --heads 3 --seq-q 300 --seq-k 300 --generate-block-lists --check | FileCheck %s
// RUN: attn-run %S/Inputs/block-lists-generated.mlir --batch 2 --heads 4 --kv-heads 2 --seq-q 200 --seq-k 300 --generate-block-lists --check | FileCheck %s
// RUN: sed -e 's/{window_left = 200,/{window_left = 200, window_right = 30,/' %S/Inputs/block-lists-generated.mlir > %t.right.mlir
// RUN: attn-run %t.right.mlir --batch 2 --heads 3 --kv-heads 1 --seq-q 256 --seq-k 300 --generate-block-lists --check | FileCheck %s
// CHECK: generated block lists: equal to attn-run's
// CHECK: PASS
//
// A program without a mask_mod, or lists left out on purpose, is refused.
// RUN: not attn-run %S/Inputs/block-mask-docs.mlir --batch 2 --heads 3 --seq-q 300 --generate-block-lists --check 2>&1 | FileCheck %s --check-prefix=NOMASK
// NOMASK: --generate-block-lists needs an input file whose attn.attention takes block_mask(...) and a mask_mod region
// RUN: not attn-run %S/Inputs/block-mask-full.mlir --seq-q 300 --seq-k 300 --generate-block-lists --block-mask-drop 0.2 --check 2>&1 | FileCheck %s --check-prefix=DROP
// DROP: --generate-block-lists builds exact lists: not with --block-mask-drop
