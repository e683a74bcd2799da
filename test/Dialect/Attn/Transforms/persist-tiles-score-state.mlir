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

// -----

// Listed key blocks are the exception: their tiles are as long as their
// lists, and a document mask's gathers (the ids of the row and of the
// column) fit the 224 registers a list-walking claiming producer (48)
// leaves two consumer warpgroups, with rows of at most two slabs.
// CHECK-LABEL: func.func @listed_documents
// CHECK:         attn.num_programs
// CHECK:         attn.warp_specialize registers(consumers = 224, producer = 48)
// CHECK:         attn.claim_tile
// CHECK:         attn.persistent
func.func @listed_documents(%q: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                            %counts: memref<?x1x?xi32>,
                            %indices: memref<?x1x?x?xi32>,
                            %docs: memref<?x?xi32>) {
  attn.attention %q, %q, %q into %o
      block_mask(%counts, %indices : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %b : i32 to index
    %ix = arith.index_cast %i : i32 to index
    %jx = arith.index_cast %j : i32 to index
    %di = memref.load %docs[%bx, %ix] : memref<?x?xi32>
    %dj = memref.load %docs[%bx, %jx] : memref<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    attn.yield %same : i1
  } {causal, mask_block = array<i64: 128, 128>}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// At D = 256 (rows of four slabs) the same program keeps a block per tile:
// persistent, its consumers spilled 32 B. With one list its producer keeps
// 24 registers (test/Pipelines/gpu-block-lists.mlir: 32 with two).
// CHECK-LABEL: func.func @listed_documents_d256
// CHECK:         attn.warp_specialize registers(consumers = 240, producer = 24)
// CHECK-NOT:     attn.persistent
// CHECK:         attn.grid = ["batch", "heads_q", "q_blocks"]
// CHECK-NOT:     attn.persistent
func.func @listed_documents_d256(%q: memref<?x?x?x256xbf16>,
                                 %o: memref<?x?x?x256xbf16>,
                                 %counts: memref<?x1x?xi32>,
                                 %indices: memref<?x1x?x?xi32>,
                                 %docs: memref<?x?xi32>) {
  attn.attention %q, %q, %q into %o
      block_mask(%counts, %indices : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %b : i32 to index
    %ix = arith.index_cast %i : i32 to index
    %jx = arith.index_cast %j : i32 to index
    %di = memref.load %docs[%bx, %ix] : memref<?x?xi32>
    %dj = memref.load %docs[%bx, %jx] : memref<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    attn.yield %same : i1
  } {causal, mask_block = array<i64: 128, 128>}
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>
  return
}

// -----

// A producer that walks block lists claims with 48 registers (at 40 it
// spilled 16 B at D = 128), its two consumer warpgroups keeping 224.
// CHECK-LABEL: func.func @listed
// CHECK:         attn.warp_specialize registers(consumers = 224, producer = 48)
// CHECK:         attn.claim_tile
// CHECK:         attn.persistent
func.func @listed(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                  %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                  %counts: memref<?x1x?xi32>, %indices: memref<?x1x?x?xi32>) {
  attn.attention %q, %k, %v into %o
      block_mask(%counts, %indices : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      {causal, mask_block = array<i64: 128, 128>}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// Lists without gathers at D = 256 (rows of four slabs) keep a block per
// tile: claimed, ptxas spilled 4 B (a value across the consumers'
// setmaxnreg).

// CHECK-LABEL: func.func @listed_d256
// CHECK:         attn.warp_specialize registers(consumers = 240, producer = 24)
// CHECK-NOT:     attn.claim_tile
// CHECK-NOT:     attn.persistent
func.func @listed_d256(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>,
                       %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>,
                       %counts: memref<?x1x?xi32>,
                       %indices: memref<?x1x?x?xi32>) {
  attn.attention %q, %k, %v into %o
      block_mask(%counts, %indices : memref<?x1x?xi32>, memref<?x1x?x?xi32>)
      {causal, mask_block = array<i64: 128, 128>}
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>
  return
}
