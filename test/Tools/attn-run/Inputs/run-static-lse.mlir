// Q, K, V, O are dynamic; the LSE has a static Nq = 16.
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>, %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>, %lse: memref<?x?x16xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x16xf32>)
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  return
}
