// Fully dynamic strided layouts: the strides and offset come from the
// descriptors attn-run passes, so contiguous buffers fit them.
func.func @attention(%q: memref<?x?x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>,
                     %k: memref<?x?x?x64xf32, strided<[?, ?, 64, 1]>>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x64xf32, strided<[?, ?, 64, 1]>>,
        memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
