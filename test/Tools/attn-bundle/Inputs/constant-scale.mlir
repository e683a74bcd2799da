// A problem with a compile-time scale: not a kernel the runtime can launch
// (its memref ABI ends with the f32 scale).
func.func @attn_constant_scale(%q: memref<?x?x?x64xbf16>,
                               %k: memref<?x?x?x64xbf16>,
                               %v: memref<?x?x?x64xbf16>,
                               %o: memref<?x?x?x64xbf16>) {
  attn.attention %q, %k, %v into %o {scale = 0.125 : f32}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
