// FIXED BUG (regression test, formerly XFAIL): a head dim of 2^62 makes
// deriveBlockSizes divide by zero (4 * hd overflows int64 to 0 in
// llvm::divideCeil): attn-opt dies with SIGFPE (exit 136, "PLEASE submit a bug
// report"). It should say at the op that the head dim is too large.

// RUN: not attn-opt %s --attn-tile-attention 2>&1 | FileCheck %s
// CHECK-NOT: PLEASE submit a bug report
// CHECK: bug-huge-head-dim-crash.mlir:[[@LINE+5]]:3: error:
// CHECK-NOT: PLEASE submit a bug report

func.func @attention(%q: memref<1x1x16x4611686018427387904xf32>, %k: memref<1x1x16x4611686018427387904xf32>,
                     %v: memref<1x1x16x4611686018427387904xf32>, %o: memref<1x1x16x4611686018427387904xf32>) {
  attn.attention %q, %k, %v into %o
      : memref<1x1x16x4611686018427387904xf32>, memref<1x1x16x4611686018427387904xf32>,
        memref<1x1x16x4611686018427387904xf32>, memref<1x1x16x4611686018427387904xf32>
  return
}
