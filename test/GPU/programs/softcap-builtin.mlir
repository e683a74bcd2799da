// The built-in soft-cap (attn.attention {softcap = 50}, Gemma 2's), bf16,
// D = 256, causal, the kernel the runtime serves (examples/
// attention-softcap.mlir's): S' = 50·tanh(scale·QKᵀ / 50). The GPU check
// (tools/scripts/gpu_programs.py) compares it with float64 through its
// "softcap" variant, softmax(scale·c·tanh(QKᵀ/c)), the same function at
// c = 50/scale = 800, and times it beside FlashAttention-4 with softcap=50
// when the GPU check carries FA4.
// program: {"variant": "softcap", "softcap": 800.0, "score_mod_softcap": 50.0, "dtype": "bf16", "head_dim": 256, "causal": true, "args": ["q", "k", "v", "o", "lse", "scale"], "bench": true}
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// CHECK: .entry attention_kernel
// CHECK: wgmma.mma_async.sync.aligned
// CHECK: tanh.approx.f32
func.func @attention(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>,
                     %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>,
                     %lse: memref<?x?x?xf32>, %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) {causal, softcap = 50.0 : f32}
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>
  return
}
