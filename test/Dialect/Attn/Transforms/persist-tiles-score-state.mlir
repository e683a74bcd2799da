// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-rotate-kv-loop -attn-specialize-warpgroups -attn-persist-tiles="grids=2" | FileCheck %s

// Scores that read memory per element (a score_mod's attn.gather) keep a
// block per tile: their consumers need the registers a looping producer
// takes (a relative bias spilled 56 B at 232).
// CHECK-LABEL: func.func @gather
// CHECK:         attn.warp_specialize
// CHECK-NOT:     attn.persistent
// CHECK:         attn.grid = ["batch", "heads_q", "q_blocks"]
// CHECK-NOT:     attn.persistent
func.func @gather(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                  %o: memref<?x?x?x128xbf16>, %table: memref<?x?xf32>) {
  attn.attention %q, %k, %k into %o score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %i: i32, %j: i32):
    %d = arith.subi %j, %i : i32
    %lo = arith.constant -128 : i32
    %hi = arith.constant 128 : i32
    %c = arith.maxsi %d, %lo : i32
    %c2 = arith.minsi %c, %hi : i32
    %bk = arith.addi %c2, %hi : i32
    %bx = arith.index_cast %bk : i32 to index
    %hx = arith.index_cast %h : i32 to index
    %bias = memref.load %table[%hx, %bx] : memref<?x?xf32>
    %r = arith.addf %s, %bias : f32
    attn.yield %r : f32
  } : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
      memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// Dropout with the causal mask keeps a block per tile (16 B of spills at
// D = 64 when its tiles were claimed); without the mask its grid persists.
// CHECK-LABEL: func.func @dropout_causal
// CHECK-NOT:     attn.persistent
// CHECK-NOT:     attn.claim_tile
// CHECK:         attn.grid = ["batch", "heads_q", "q_blocks"]
// CHECK-LABEL: func.func @dropout
// CHECK:         attn.persistent
func.func @dropout_causal(%q: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>,
                          %p: f32, %seed: i64, %offset: i32) {
  attn.attention %q, %q, %q into %o dropout(%p, %seed, %offset) {causal}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
func.func @dropout(%q: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                   %p: f32, %seed: i64, %offset: i32) {
  attn.attention %q, %q, %q into %o dropout(%p, %seed, %offset)
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
