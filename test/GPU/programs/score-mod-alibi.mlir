// A problem-level ALiBi (BLOOM, MPT) written as a score_mod that reads the
// query and key positions and a captured table of per-head slopes:
//   S' = scale·QKᵀ + slopes[h]·(j − i),  causal,
// scale a run-time parameter (last, as the runtime's kernels take it). The
// region's per-head part (the slope's load) runs once per program, the rest
// on whole score tiles (attn.iota for the positions). The GPU check
// (tools/scripts/gpu_programs.py, variant "alibi") compares the kernel with
// float64 on fresh slopes, and times it beside FlashAttention-4 with the
// same bias as a user score_mod (FA4's one slope for all heads, 0.0625).
// program: {"variant": "alibi", "dtype": "bf16", "head_dim": 128, "causal": true, "args": ["q", "k", "v", "o", "lse", "slopes", "scale"], "bench": true}
// RUN: attn-opt %s --attn-tile-attention="target=sm_90a" | FileCheck %s --check-prefix=TILE
// RUN: attn-opt %s --attn-codegen="chip=sm_90a" --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// The slope is loaded once per program, before the key/value loops. The
// bias is affine in the positions: each loop adds its columns' part,
// slopes[h]·(j − q0) (q0 the program's first query row), a 1-d tile of the
// block's keys broadcast along the rows; the rows' part −slopes[h]·(i − q0)
// goes to the LSE only (attn::tiling::PositionBias). On the GPU the
// columns' part is one FMA a column with the layout's offsets as
// immediates, and one conversion a thread.
// TILE:       scf.forall
// TILE:         memref.load %arg5[
// TILE:         scf.for
// TILE:           attn.iota %{{.*}} dim 0 : tensor<128xi32>
// TILE:           arith.sitofp %{{.*}} : tensor<128xi32> to tensor<128xf32>
// TILE:           attn.broadcast %{{.*}} {per_column} : tensor<128xf32> -> tensor<128x128xf32>
// TILE-NOT:       tensor<128x128xi32>
// TILE:         attn.iota %{{.*}} dim 0 : tensor<128xi32>
// TILE:         attn.store_tile %{{.*}}, %arg3
// TILE:         math.log
// TILE:         attn.store_tile %{{.*}}, %arg4
// PTX-NOT: __nv_
// PTX: .entry attention_kernel
// PTX: wgmma.mma_async.sync.aligned
// PTX: cvt.rn.f32.s32
// PTX: fma.rn.f32 %{{.*}}, 0f41000000,
func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>, %slopes: memref<?xf32>,
                     %scale: f32) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>)
      scale(%scale) score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %hi = arith.index_cast %h : i32 to index
    %slope = memref.load %slopes[%hi] : memref<?xf32>
    %d = arith.subi %j, %i : i32
    %df = arith.sitofp %d : i32 to f32
    %bias = arith.mulf %slope, %df : f32
    %r = arith.addf %s, %bias : f32
    attn.yield %r : f32
  } {causal} : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
      memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
