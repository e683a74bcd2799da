// The built-in ALiBi under a causal mask: only keys left of the diagonal
// are visible, where −slopes[h]·|i + Nk − Nq − j| = slopes[h]·(j − i −
// (Nk − Nq)), so attn-expand-alibi writes the bias without the |·| and the
// distance stays affine in the positions (one conversion a thread and
// constant offsets, not one a score). The GPU check (gpu_programs.py,
// variant "alibi_fa") compares it with float64 and times it beside the
// plain causal kernel and score-mod-alibi.mlir (the same bias by hand,
// without the diagonal offset).
// program: {"variant": "alibi_fa", "dtype": "bf16", "head_dim": 128, "causal": true, "args": ["q", "k", "v", "o", "lse", "slopes", "scale"], "bench": true}
// RUN: attn-opt %s --attn-expand-alibi | FileCheck %s --check-prefix=REGION
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// REGION:      score_mod {
// REGION:        %[[D:.*]] = arith.sitofp %{{.*}} : i32 to f32
// REGION-NEXT:   %[[B:.*]] = arith.mulf %{{.*}}, %[[D]] fastmath<contract> : f32
// REGION-NEXT:   %[[R:.*]] = arith.addf %{{.*}}, %[[B]] fastmath<contract> : f32
// REGION-NEXT:   attn.yield %[[R]] : f32
// PTX-NOT: __nv_
// PTX: .entry attention_kernel
// PTX: wgmma.mma_async.sync.aligned
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>, %slopes: memref<?xf32>,
                     %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) alibi(%slopes : memref<?xf32>) {causal}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
