// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts="wgmma=1" -verify-diagnostics
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts | FileCheck %s --check-prefix=AUTO
// RUN: not attn-opt %s -attn-assign-layouts="wgmma=2" 2>&1 | FileCheck %s --check-prefix=BADWGMMA
// RUN: not attn-opt %s -attn-select-gpu-blocks="chip=sm_90a wgmma=-2" 2>&1 | FileCheck %s --check-prefix=BADSELECT

// D = 80 rows are 2.5 slabs of 64 bytes: forced wgmma is unsupported, and
// the heuristic keeps sm_90a on mma.sync for it.
// AUTO-LABEL: func.func @d80
// AUTO-NOT:     version = 3
// AUTO:         #attn.mma<warps = 4>
// AUTO-NOT:     version = 3
// AUTO:         attn.register_estimate
// BADWGMMA: error: pass option wgmma must be -1 (heuristic), 0 or 1, got 2{{$}}
// BADSELECT: error: pass option wgmma must be -1 (heuristic), 0 or 1, got -2{{$}}
func.func @d80(%q: memref<?x?x?x80xbf16>, %k: memref<?x?x?x80xbf16>,
               %v: memref<?x?x?x80xbf16>, %o: memref<?x?x?x80xbf16>) {
  // expected-error @+1 {{unsupported: wgmma layouts with a dot operand of 80 columns of 16-bit elements (wgmma's 64-byte slabs need multiples of 32)}}
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x80xbf16>, memref<?x?x?x80xbf16>, memref<?x?x?x80xbf16>,
        memref<?x?x?x80xbf16>
  return
}

// -----

// D = 96 rows are three 64-byte slabs: the heuristic takes wgmma, with Q,
// K and V tiles in 64-byte swizzled slabs.
// AUTO-LABEL: func.func @d96
// AUTO:         tensor<128x96xbf16, #attn.shared<swizzle = 4, pad = 0, slab = 64>>
// AUTO:         #attn.mma<warps = 8, version = 3>
func.func @d96(%q: memref<?x?x?x96xbf16>, %k: memref<?x?x?x96xbf16>,
               %v: memref<?x?x?x96xbf16>, %o: memref<?x?x?x96xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>, memref<?x?x?x96xbf16>,
        memref<?x?x?x96xbf16>
  return
}
