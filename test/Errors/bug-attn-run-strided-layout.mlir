// FIXED BUG (regression test, formerly XFAIL): attn-run passes contiguous,
// offset-0 buffers whatever layout the IR's memrefs declare. With a static
// offset or static strides that differ from the contiguous ones the kernel
// reads out of bounds and the result is wrong; without --check attn-run exits
// 0. It should refuse such a file ("unsupported: ... layout") before compiling.

// RUN: not attn-run %S/Inputs/run-strided-layout.mlir --seq-q 16 --seed 1 2>&1 | FileCheck %s
// CHECK: run-strided-layout.mlir:{{[0-9]+}}:{{[0-9]+}}: error: unsupported
// CHECK-NOT: seed=
