// An additive score bias of the inputs' type (attn.attention bias(...)):
// O = softmax(scale·QKᵀ + Bias)·V with Bias [B, Hq, Nq, Nk] bf16, widened to
// f32 in the kernel; bf16 Q, K, V, D = 128, not causal. The GPU check
// (tools/scripts/gpu_programs.py, variant "bias") compares the kernel with
// float64 on a fresh bias. One 16-bit load an element of the window.
// program: {"variant": "bias", "bias_dtype": "bf16", "dtype": "bf16", "head_dim": 128, "causal": false, "args": ["q", "k", "v", "o", "lse", "bias", "scale"], "bench": false}
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.ptx
// RUN: attn-opt %s --attn-codegen="chip=sm_80" --emit=ptx -o %t.sm80.ptx
// RUN: FileCheck %s < %t.sm80.ptx
// CHECK-LABEL: .entry attention_kernel
// SM90-DAG: wgmma.mma_async
// CHECK-DAG: ld.global.b16
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>, %bias: memref<?x?x?x?xbf16>,
                     %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) bias(%bias : memref<?x?x?x?xbf16>)
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
