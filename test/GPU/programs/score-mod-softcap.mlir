// A problem-level soft-cap: attn.attention's score_mod region
//   S' = C·tanh(scale·QKᵀ / C),  C = 2, scale = 1/sqrt(128) (a run-time
//   parameter, last, as the runtime's kernels take it), causal,
// compiled by the whole pipeline (the region applied to each score tile by
// attn-tile-attention; tanh with `afn` becomes tanh.approx.f32). The GPU
// check (tools/scripts/gpu_programs.py) compares it with float64 through
// its "softcap" variant, softmax(scale·c·tanh(QKᵀ/c)), which is the same
// function at c = C/scale = 2·sqrt(128), and times it beside
// FlashAttention-4 with softcap=2 when the GPU check carries FA4.
// program: {"variant": "softcap", "softcap": 22.627416997969522, "score_mod_softcap": 2.0, "dtype": "bf16", "head_dim": 128, "causal": true, "args": ["q", "k", "v", "o", "lse", "scale"], "bench": true}
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// CHECK: .entry attention_kernel
// CHECK: wgmma.mma_async.sync.aligned
// tanh with `afn`: the special-function unit's tanh.approx.f32.
// CHECK: tanh.approx.f32
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>, %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) score_mod {
  ^bb0(%s: f32):
    %c = arith.constant 2.0 : f32
    %inv = arith.constant 0.5 : f32
    %x = arith.mulf %s, %inv : f32
    %t = math.tanh %x fastmath<afn> : f32
    %y = arith.mulf %t, %c : f32
    attn.yield %y : f32
  } {causal} : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
      memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
