// ALiBi's slopes after the scale: the runtime passes them just before it.
func.func @attn_alibi_misplaced(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                                %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>,
                                %scale: f32, %slopes: memref<?xf32>) {
  attn.attention %q, %k, %v into %o scale(%scale) alibi(%slopes : memref<?xf32>)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>
  return
}
