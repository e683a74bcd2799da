// RUN: not attn-opt %s -attn-tile-attention="block-q=3" 2>&1 | FileCheck %s --check-prefix=POW2
// RUN: not attn-opt %s -attn-tile-attention="block-kv=4096" 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not attn-opt %s -attn-tile-attention="target=sm_12" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not attn-opt %s -attn-tile-attention="target=sm_86 block-q=1024 block-kv=1024" 2>&1 | FileCheck %s --check-prefix=FIT

// Bad options are reported before any IR is read, without a location.
// POW2: error: pass option block-q must be a power of two or a multiple of 64 in [1, 1024], got 3
// RANGE: error: pass option block-kv must be a power of two in [1, 1024], got 4096
// TARGET: error: pass option target: unknown target 'sm_12'
// FIT: tile-attention-errors.mlir:[[@LINE+7]]:3: error: block sizes Br=1024, Bc=1024 need 786432 bytes of on-chip memory for the Q, K and V tiles, but target sm_86 offers 101376
func.func @f(%q: memref<?x?x?x128xf16>, %k: memref<?x?x?x128xf16>,
             %v: memref<?x?x?x128xf16>, %o: memref<?x?x?x128xf16>) {
  // The problem itself is valid: only the tiling request is not. The op is
  // left untouched.


  attn.attention %q, %k, %v into %o
      : memref<?x?x?x128xf16>, memref<?x?x?x128xf16>, memref<?x?x?x128xf16>,
        memref<?x?x?x128xf16>
  return
}
