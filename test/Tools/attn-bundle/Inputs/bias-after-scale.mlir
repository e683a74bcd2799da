// The bias after the scale: the runtime passes it just before it.
func.func @attn_bias_misplaced(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                               %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>,
                               %scale: f32, %bias: memref<?x?x?x?xf32>) {
  attn.attention %q, %k, %v into %o scale(%scale) bias(%bias : memref<?x?x?x?xf32>)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>
  return
}
