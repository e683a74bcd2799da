// RUN: attn-opt %s -attn-gpu-kernel-pipeline="chip=sm_90a" \
// RUN:   -mlir-print-ir-before=attn-assign-layouts -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WGMMA
// RUN: attn-opt %s -attn-gpu-kernel-pipeline="chip=sm_90a wgmma=0" \
// RUN:   -mlir-print-ir-before=attn-assign-layouts -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MMASYNC

// The GPU pipeline carries the online softmax's row sum as 8 column-group
// partials (attn-defer-row-sums) in programs that take wgmma layouts at any
// head dim, and in mma.sync programs only up to 64 columns of O: at D = 128
// the mma.sync kernel has no registers to spare for them.
// WGMMA-LABEL:   func.func @attention
// WGMMA:           attn.reduce sum %{{.*}} : tensor<128x128xf32> -> tensor<128x8xf32>
// WGMMA:           attn.reduce sum %{{.*}} : tensor<128x8xf32> -> tensor<128xf32>
// MMASYNC-LABEL: func.func @attention
// MMASYNC-NOT:     x8xf32>
// MMASYNC:         attn.reduce sum %{{.*}} -> tensor<128xf32>
// MMASYNC-NOT:     x8xf32>
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  attn.attention %q, %k, %v into %o {causal}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
