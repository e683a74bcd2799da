// FIXED BUG (regression test, formerly XFAIL): attn-run checks the flags only
// against the static sizes of Q and K. A static size on V, O or the LSE that
// disagrees with the problem (here LSE Nq = 16 or V Nk = 8, with --seq-q 32) is
// not noticed: the kernel indexes the buffers with the wrong strides
// (out-of-bounds writes for the LSE) and, without --check, attn-run exits 0.

// RUN: not attn-run %S/Inputs/run-static-lse.mlir --seq-q 32 --heads 2 --seed 1 2>&1 | FileCheck %s --check-prefix=LSE
// LSE: run-static-lse.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}disagrees
// LSE-NOT: seed=
// RUN: not attn-run %S/Inputs/run-static-value.mlir --seq-q 32 --heads 2 --seed 1 2>&1 | FileCheck %s --check-prefix=VALUE
// VALUE: run-static-value.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}disagrees
// VALUE-NOT: seed=
