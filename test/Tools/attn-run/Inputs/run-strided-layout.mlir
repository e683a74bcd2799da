// Q has a static offset and inner stride 2: attn-run's contiguous buffers
// do not match this layout.
func.func @attention(%q: memref<?x?x?x64xf32, strided<[?, ?, ?, 2], offset: 5>>,
                     %k: memref<?x?x?x64xf32>, %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf32, strided<[?, ?, ?, 2], offset: 5>>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
