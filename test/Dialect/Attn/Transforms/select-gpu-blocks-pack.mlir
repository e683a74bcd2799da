// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" | FileCheck %s

// A static problem with packed query heads takes the twin that covers its
// packed rows G·Nq (queryBlockTwins), not its Nq: 20 positions of G = 4
// heads are 80 rows, past the 64-row forward twin; a packed split program
// takes the 128-row twin from 65 packed rows; 2 positions (8 rows) the
// 64-row forward.
// CHECK-LABEL: func.func @fwd_80_rows
// CHECK:         block_q = 128
func.func @fwd_80_rows(%q: memref<1x32x20x128xbf16>, %k: memref<1x8x?x128xbf16>) {
  attn.attention %q, %k, %k into %q {causal, pack_query_heads}
      : memref<1x32x20x128xbf16>, memref<1x8x?x128xbf16>,
        memref<1x8x?x128xbf16>, memref<1x32x20x128xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @split_80_rows
// CHECK:         block_q = 128
func.func @split_80_rows(%q: memref<1x32x20x128xbf16>, %k: memref<1x8x?x128xbf16>,
                         %po: memref<?x1x32x20x128xf32>, %pl: memref<?x1x32x20xf32>) {
  attn.attention %q, %k, %k into %po lse(%pl : memref<?x1x32x20xf32>)
      {causal, split_kv, pack_query_heads}
      : memref<1x32x20x128xbf16>, memref<1x8x?x128xbf16>,
        memref<1x8x?x128xbf16>, memref<?x1x32x20x128xf32>
  return
}

// -----

// CHECK-LABEL: func.func @fwd_8_rows
// CHECK:         block_q = 64
func.func @fwd_8_rows(%q: memref<1x32x2x128xbf16>, %k: memref<1x8x?x128xbf16>) {
  attn.attention %q, %k, %k into %q {causal, pack_query_heads}
      : memref<1x32x2x128xbf16>, memref<1x8x?x128xbf16>,
        memref<1x8x?x128xbf16>, memref<1x32x2x128xbf16>
  return
}
