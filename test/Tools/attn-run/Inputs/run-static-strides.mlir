// Static strides of a [?, 2, 16, 64] output: they match a contiguous buffer
// only when Hq = 2 and Nq = 16.
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32, strided<[2048, 1024, 64, 1]>>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32, strided<[2048, 1024, 64, 1]>>
  return
}
