// Attention dropout (attn.attention dropout(p, seed, offset), FlashAttention's
// dropout_p): bf16, D = 128, not causal, the rate, Philox key and offset
// run-time arguments. The kernel draws one Philox4x32-10 call for the four
// scores a thread holds of each n-tile (mul.wide.u32 for the rounds' 32×32
// products), keeps a score iff its word >= T and scales it by 1/(1 − p)
// before the P·V product; the row sums stay undropped. The GPU check
// (tools/scripts/gpu_programs.py, variant "dropout") draws a fresh p, seed
// and offset per case and computes the op's mask in torch for the float64
// reference; the benchmark times it beside SDPA's FlashAttention-2 and
// cuDNN kernels with the same dropout_p.
// program: {"variant": "dropout", "dtype": "bf16", "head_dim": 128, "causal": false, "args": ["q", "k", "v", "o", "lse", "scale", "dropout_p", "seed", "offset"], "bench": true}
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.ptx
// RUN: attn-opt %s --attn-codegen="chip=sm_80" --emit=ptx -o %t.sm80.ptx
// RUN: FileCheck %s < %t.sm80.ptx
// CHECK-LABEL: .entry attention_kernel
// SM90-DAG: wgmma.mma_async
// CHECK-DAG: mul.wide.u32
// CHECK-DAG: setp.lt.u32
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>, %scale: f32, %p: f32,
                     %seed: i64, %offset: i32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) dropout(%p, %seed, %offset)
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
