// A bf16 score bias under a causal mask (bottom-right): O = softmax(scale·QKᵀ
// + Bias, causal)·V with Bias [B, Hq, Nq, Nk] bf16, bf16 Q, K, V, D = 128.
// On sm_90a the window is staged by the producer's bulk copies in both key
// loops: the unmasked one takes whole [128, 64] blocks, the masked one
// (the diagonal, the keys' end) bounds its columns by the bias's own Nk, as
// a bulk copy does. The GPU check (tools/scripts/gpu_programs.py, variant
// "bias") compares the kernel with float64 on a fresh bias.
// program: {"variant": "bias", "bias_dtype": "bf16", "dtype": "bf16", "head_dim": 128, "causal": true, "args": ["q", "k", "v", "o", "lse", "bias", "scale"], "bench": false}
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s --implicit-check-not=ld.global.b16 < %t.ptx
// CHECK-LABEL: .entry attention_kernel
// CHECK-COUNT-4: .param .align 64 .b8 attention_kernel_param_{{[0-9]+}}[128]
// CHECK-NOT:     .param .align 64
// CHECK-DAG:     cp.async.bulk.tensor.4d
// CHECK-DAG:     ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG:     wgmma.mma_async
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>, %bias: memref<?x?x?x?xbf16>,
                     %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) bias(%bias : memref<?x?x?x?xbf16>) {causal}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
