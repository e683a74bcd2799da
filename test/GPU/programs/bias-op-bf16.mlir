// An additive score bias of the inputs' type (attn.attention bias(...)):
// O = softmax(scale·QKᵀ + Bias)·V with Bias [B, Hq, Nq, Nk] bf16, widened to
// f32 in the kernel; bf16 Q, K, V, D = 128, not causal. The GPU check
// (tools/scripts/gpu_programs.py, variant "bias") compares the kernel with
// float64 on a fresh bias. On sm_90a the window is staged in shared
// memory: the producer copies it with bulk tensor copies beside K and V (a
// fourth tensor map, of the bias: argument 5) and the consumers read it
// with ldmatrix; with stage-windows=0, and on sm_80, one 16-bit load an
// element of the window.
// program: {"variant": "bias", "bias_dtype": "bf16", "dtype": "bf16", "head_dim": 128, "causal": false, "args": ["q", "k", "v", "o", "lse", "bias", "scale"], "bench": false}
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=SM90 --implicit-check-not=ld.global.b16 < %t.ptx
// RUN: attn-opt %s --attn-codegen="chip=sm_90a stage-windows=0" --emit=ptx -o %t.rows.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,ROWS < %t.rows.ptx
// RUN: attn-opt %s --attn-codegen="chip=sm_80" --emit=ptx -o %t.sm80.ptx
// RUN: FileCheck %s < %t.sm80.ptx
// SM90-LABEL: .entry attention_kernel
// SM90-COUNT-4: .param .align 64 .b8 attention_kernel_param_{{[0-9]+}}[128]
// SM90-NOT:     .param .align 64
// SM90-DAG:     cp.async.bulk.tensor.4d
// SM90-DAG:     ldmatrix.sync.aligned.m8n8.x4.shared.b16
// SM90-DAG:     wgmma.mma_async
// CHECK-LABEL: .entry attention_kernel
// ROWS-COUNT-3: .param .align 64 .b8 attention_kernel_param_{{[0-9]+}}[128]
// ROWS-NOT:     .param .align 64
// ROWS-DAG: wgmma.mma_async
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
