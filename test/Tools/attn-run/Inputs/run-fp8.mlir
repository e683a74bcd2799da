// An fp8 attention (e4m3 Q, K, Vᵀ; bf16 O): attn-run takes fp8 from flags.
func.func @attention(%q: memref<?x?x?x128xf8E4M3FN>, %k: memref<?x?x?x128xf8E4M3FN>,
                     %v: memref<?x?x128x?xf8E4M3FN>, %o: memref<?x?x?x128xbf16>,
                     %qd: f32, %kd: f32, %vd: f32) {
  attn.attention %q, %k, %v into %o descale(%qd, %kd, %vd) {v_transposed}
      : memref<?x?x?x128xf8E4M3FN>, memref<?x?x?x128xf8E4M3FN>,
        memref<?x?x128x?xf8E4M3FN>, memref<?x?x?x128xbf16>
  return
}
