// Attention dropout, causal, D = 64 (dropout.mlir says what the kernel does
// and how the GPU check tests it): the masked diagonal blocks and the
// dropout mask together.
// program: {"variant": "dropout", "dtype": "bf16", "head_dim": 64, "causal": true, "args": ["q", "k", "v", "o", "lse", "scale", "dropout_p", "seed", "offset"], "bench": true}
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.ptx
// RUN: attn-opt %s --attn-codegen="chip=sm_80" --emit=ptx -o %t.sm80.ptx
// RUN: FileCheck %s < %t.sm80.ptx
// CHECK-LABEL: .entry attention_kernel
// SM90-DAG: wgmma.mma_async
// CHECK-DAG: mul.wide.u32
// CHECK-DAG: setp.lt.u32
func.func @attention(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                     %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>,
                     %lse: memref<?x?x?xf32>, %scale: f32, %p: f32,
                     %seed: i64, %offset: i32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) dropout(%p, %seed, %offset) {causal}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
