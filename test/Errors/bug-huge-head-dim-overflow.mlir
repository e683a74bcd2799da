// FIXED BUG (regression test, formerly XFAIL): with a head dim of 2^61 the tile
// footprint (Br*D + Bc*D + Bc*Dv) * bytes overflows int64 and wraps to 0, so
// the "tiles do not fit" check passes and tiling succeeds (exit 0) with 16 x
// 2^61 tiles. It should be rejected at the op, as D = 100000 is.

// RUN: not attn-opt %s --attn-tile-attention 2>&1 | FileCheck %s
// CHECK: bug-huge-head-dim-overflow.mlir:[[@LINE+4]]:3: error:

func.func @attention(%q: memref<?x?x?x2305843009213693952xf32>, %k: memref<?x?x?x2305843009213693952xf32>,
                     %v: memref<?x?x?x2305843009213693952xf32>, %o: memref<?x?x?x2305843009213693952xf32>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x2305843009213693952xf32>, memref<?x?x?x2305843009213693952xf32>,
        memref<?x?x?x2305843009213693952xf32>, memref<?x?x?x2305843009213693952xf32>
  return
}
