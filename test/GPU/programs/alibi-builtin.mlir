// The built-in ALiBi (FlashAttention's alibi_slopes, bottom-right aligned):
//   S' = scale·QKᵀ − slopes[h]·|i + Nk − Nq − j|,  not causal,
// scale a run-time parameter (last, as the runtime's kernels take it).
// attn-expand-alibi writes it as the score_mod region users write by hand
// (score-mod-alibi.mlir): the slope and Nk − Nq (memref.dim of K and Q) run
// once per program, the distance on whole score tiles (in f32, then |·|). The GPU check
// (tools/scripts/gpu_programs.py, variant "alibi_fa") compares the kernel
// with float64 on fresh slopes and Nq != Nk, and times it beside the plain
// kernel.
// program: {"variant": "alibi_fa", "dtype": "bf16", "head_dim": 128, "causal": false, "args": ["q", "k", "v", "o", "lse", "slopes", "scale"], "bench": true}
// RUN: attn-opt %s --attn-expand-alibi --attn-tile-attention="target=sm_90a" | FileCheck %s --check-prefix=TILE
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// The slope and the diagonal offset once per program, before the key/value
// loops; the distance |j − i − (Nk − Nq)| on iota tiles in each loop.
// TILE:       scf.forall
// TILE:         memref.load %arg5[
// TILE:         scf.for
// TILE:           attn.iota %{{.*}} dim 0 : tensor<128x128xi32>
// TILE:           attn.iota %{{.*}} dim 1 : tensor<128x128xi32>
// TILE:           arith.sitofp
// TILE:           math.absf %{{.*}} : tensor<128x128xf32>
// The distance's |x| clears the sign bit: no libdevice call (a kernel must
// not need libdevice).
// PTX-NOT: __nv_
// PTX: .entry attention_kernel
// PTX: wgmma.mma_async.sync.aligned
// PTX: abs.f32
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>, %slopes: memref<?xf32>,
                     %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) alibi(%slopes : memref<?xf32>)
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
