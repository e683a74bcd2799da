// Numerics on the CPU path: attn-run compiles attn.attention through the
// whole CPU pipeline (tiling, online softmax, linalg, LLVM), runs it on
// fresh random N(0,1) inputs with NaN-poisoned outputs, and compares O and
// LSE with a float64 reference (relative error bound 1e-2 for f16).
// Sequence lengths 1, 17, 128, 130, 1000 (not multiples of the block too),
// causal and not, batch and heads > 1; one compile per RUN line (the kernel
// takes any shape), five runs on fresh inputs, each checked.
//
// RUN: attn-run --dtype f16 --head-dim 64 --seq-q 1 --more-seq 17,128,130,1000 --batch 2 --heads 3 --check | FileCheck %s --implicit-check-not=FAIL
// RUN: attn-run --dtype f16 --head-dim 64 --seq-q 1 --more-seq 17,128,130,1000 --batch 2 --heads 3 --causal --check | FileCheck %s --implicit-check-not=FAIL

// CHECK:       Nq=1 Nk=1
// CHECK:       check O:
// CHECK:       check LSE:
// CHECK:       PASS
// CHECK:       same kernel, Nq=17 Nk=17
// CHECK:       PASS
// CHECK:       same kernel, Nq=128 Nk=128
// CHECK:       PASS
// CHECK:       same kernel, Nq=130 Nk=130
// CHECK:       PASS
// CHECK:       same kernel, Nq=1000 Nk=1000
// CHECK:       check O:
// CHECK:       check LSE:
// CHECK:       PASS
