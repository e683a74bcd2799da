// FIXED BUG (regression test, formerly XFAIL): attn-run checks only the entry
// function's arguments, not its body. A function that does more than the
// attention (here it overwrites O[0,0,0,0] afterwards) is compiled and run;
// --check then blames the kernel ("FAIL"), and without --check it exits 0. It
// should say "unsupported" at the extra op.

// RUN: not attn-run %S/Inputs/run-extra-op.mlir --seq-q 16 --seed 1 2>&1 | FileCheck %s
// CHECK: run-extra-op.mlir:{{[0-9]+}}:{{[0-9]+}}: error: unsupported
// CHECK-NOT: seed=
