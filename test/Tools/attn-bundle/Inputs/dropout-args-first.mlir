// Dropout's rate, key and offset before the scale: the runtime passes them
// after it.
func.func @attn_dropout_misplaced(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                                  %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>,
                                  %p: f32, %seed: i64, %offset: i32, %scale: f32) {
  attn.attention %q, %k, %v into %o scale(%scale) dropout(%p, %seed, %offset)
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>
  return
}
