// The function returns a value.
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>, %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) -> index {
  attn.attention %q, %k, %v into %o : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  %c0 = arith.constant 0 : index
  return %c0 : index
}
