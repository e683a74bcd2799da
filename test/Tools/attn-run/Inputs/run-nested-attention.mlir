// The attention runs only under a condition attn-run does not know.
func.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                     %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  %c = arith.constant false
  scf.if %c {
    attn.attention %q, %k, %v into %o : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
  }
  return
}
