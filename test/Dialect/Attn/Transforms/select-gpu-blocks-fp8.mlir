// RUN: attn-opt %s -attn-select-gpu-blocks="chip=sm_90a" | FileCheck %s

// fp8: 128 query rows (bulk copies behind a producer); 256 keys a block at
// D = 128 (S's 128 registers a thread beside O's 64, no rotation), 128 at
// D = 256 (O takes 128); V's transposed block is whole 128-byte slabs of
// keys either way.
// CHECK-LABEL: func.func @fp8_d128
// CHECK: block_kv = 256 : i64, block_q = 128 : i64
func.func @fp8_d128(%q: memref<?x?x?x128xf8E4M3FN>,
                    %v: memref<?x?x128x?xf8E4M3FN>,
                    %o: memref<?x?x?x128xbf16>) {
  attn.attention %q, %q, %v into %o {v_transposed}
      : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>,
        memref<?x?x128x?xf8E4M3FN>, memref<?x?x?x128xbf16>
  return
}

// CHECK-LABEL: func.func @fp8_d256
// CHECK: block_kv = 128 : i64, block_q = 128 : i64
func.func @fp8_d256(%q: memref<?x?x?x256xf8E4M3FN>,
                    %v: memref<?x?x256x?xf8E4M3FN>,
                    %o: memref<?x?x?x256xbf16>) {
  attn.attention %q, %q, %v into %o {causal, v_transposed}
      : memref<?x?x?x256xf8E4M3FN>, memref<?x?x?x256xf8E4M3FN>,
        memref<?x?x256x?xf8E4M3FN>, memref<?x?x?x256xbf16>
  return
}

// fp8 keeps 128 rows for a few static rows too (its tiles arrive by bulk
// copies behind a producer; no 64-row twin).
// CHECK-LABEL: func.func @fp8_few_rows
// CHECK: block_kv = 256 : i64, block_q = 128 : i64
func.func @fp8_few_rows(%q: memref<32x8x4x128xf8E4M3FN>,
                        %k: memref<32x8x16384x128xf8E4M3FN>,
                        %v: memref<32x8x128x16384xf8E4M3FN>,
                        %o: memref<32x8x4x128xbf16>) {
  attn.attention %q, %k, %v into %o {v_transposed}
      : memref<32x8x4x128xf8E4M3FN>, memref<32x8x16384x128xf8E4M3FN>,
        memref<32x8x128x16384xf8E4M3FN>, memref<32x8x4x128xbf16>
  return
}
