// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-rotate-kv-loop -attn-alternate-warpgroups -attn-specialize-warpgroups -attn-persist-tiles="grids=2" | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a block-q=192" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-rotate-kv-loop -attn-alternate-warpgroups -attn-specialize-warpgroups -attn-persist-tiles="grids=2" | FileCheck %s --check-prefix=TALL

// A claiming producer runs in one thread with 40 registers (48 where a
// tile row is four or more slabs; claimsFit). Causal grids where that does
// not fit keep a block per tile: a sliding
// window (its one-thread producer spilled even at 40) ...
// CHECK-LABEL: func.func @window
// CHECK-NOT:     attn.num_programs
// CHECK-NOT:     attn.claim_tile
// CHECK:         scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in
// CHECK-NOT:     attn.persistent
func.func @window(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                  %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  attn.attention %q, %k, %v into %o {causal, window_left = 256}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// ... and three consumer warpgroups (192 rows at D = 64), whose consumers
// would drop from 160 registers to 152.
// TALL-LABEL: func.func @three_warpgroups
// TALL-NOT:     attn.num_programs
// TALL-NOT:     attn.claim_tile
// TALL:         attn.warp_specialize registers(consumers = 160, producer = 24)
// TALL-NOT:     attn.persistent
// CHECK-LABEL: func.func @three_warpgroups
func.func @three_warpgroups(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                            %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  attn.attention %q, %k, %v into %o {causal}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// Without a mask a grid that cannot claim keeps the static schedule (tiles
// p, p + P, ...): three consumer warpgroups at 160, the producer at 32.
// TALL-LABEL: func.func @three_warpgroups_full
// TALL:         attn.num_programs
// TALL-NOT:     attn.claim_tile
// TALL:         attn.warp_specialize registers(consumers = 160, producer = 32)
// TALL-NOT:     attn.take_tile
// TALL:         attn.persistent
// CHECK-LABEL: func.func @three_warpgroups_full
func.func @three_warpgroups_full(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                                 %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
