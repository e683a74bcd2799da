// RUN: attn-opt %s -attn-select-gpu-blocks="chip=sm_90a" | FileCheck %s

// fp8: 128x128 blocks at D = 256 too (bulk copies behind a producer; V's
// transposed block is a whole 128-byte slab of keys).
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
