// The attention sits in a gpu.func, not a func.func.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @attention(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>, %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) kernel {
      attn.attention %q, %k, %v into %o : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>
      gpu.return
    }
  }
}
