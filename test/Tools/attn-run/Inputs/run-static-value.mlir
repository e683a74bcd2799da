// Q and K are dynamic; V has a static Nk = 8.
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>, %v: memref<?x?x8x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x8x64xf32>, memref<?x?x?x64xf32>
  return
}
