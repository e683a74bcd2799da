// An additive score bias as the problem-level operand (attn.attention
// bias(...)): O = softmax(scale·QKᵀ + Bias)·V with Bias [B, Hq, Nq, Nk]
// f32, bf16, D = 128, not causal. Each program adds its [Br, Bc] windows of
// the bias: on sm_90a staged in shared memory by the producer's bulk copies
// (two 128-byte slabs of 32 f32 columns a row, a tensor map of argument 5)
// and read into the scores' layout with ld.shared.v2.b32; with
// stage-windows=0, and on sm_80, loaded straight into it. The GPU check
// (tools/scripts/gpu_programs.py, variant "bias") compares the kernel with
// float64 on a fresh bias.
// program: {"variant": "bias", "dtype": "bf16", "head_dim": 128, "causal": false, "args": ["q", "k", "v", "o", "lse", "bias", "scale"], "bench": false}
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=SM90 --implicit-check-not=ld.global.b32 < %t.ptx
// RUN: attn-opt %s --attn-codegen="chip=sm_90a stage-windows=0" --emit=ptx -o %t.rows.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,ROWS < %t.rows.ptx
// RUN: attn-opt %s --attn-codegen="chip=sm_80" --emit=ptx -o %t.sm80.ptx
// RUN: FileCheck %s < %t.sm80.ptx
// SM90-LABEL: .entry attention_kernel
// SM90-COUNT-4: .param .align 64 .b8 attention_kernel_param_{{[0-9]+}}[128]
// SM90-NOT:     .param .align 64
// SM90-DAG:     cp.async.bulk.tensor.4d
// SM90-DAG:     ld.shared.v2.b32
// SM90-DAG:     wgmma.mma_async
// CHECK-LABEL: .entry attention_kernel
// ROWS-DAG: wgmma.mma_async
// CHECK-DAG: ld.global.b32
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>, %bias: memref<?x?x?x?xf32>,
                     %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) bias(%bias : memref<?x?x?x?xf32>)
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
