// Numerics on the CPU path: attn-run compiles attn.attention through the
// whole CPU pipeline (tiling, online softmax, linalg, LLVM), runs it on
// fresh random N(0,1) inputs with NaN-poisoned outputs, and compares O and
// LSE with a float64 reference (relative error bound 1e-2 for bf16).
// Sequence lengths 1, 17, 128, 130, 1000 (not multiples of the block too),
// causal and not, batch and heads > 1.
//
// RUN: attn-run --dtype bf16 --head-dim 128 --seq-q 1 --batch 2 --heads 3  --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 128 --seq-q 1 --batch 2 --heads 3 --causal --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 128 --seq-q 17 --batch 2 --heads 3  --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 128 --seq-q 17 --batch 2 --heads 3 --causal --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 128 --seq-q 128 --batch 2 --heads 3  --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 128 --seq-q 128 --batch 2 --heads 3 --causal --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 128 --seq-q 130 --batch 2 --heads 3  --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 128 --seq-q 130 --batch 2 --heads 3 --causal --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 128 --seq-q 1000 --batch 1 --heads 2  --check | FileCheck %s
// RUN: attn-run --dtype bf16 --head-dim 128 --seq-q 1000 --batch 1 --heads 2 --causal --check | FileCheck %s

// CHECK: check O:
// CHECK: check LSE:
// CHECK: PASS
