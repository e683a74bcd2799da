// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-specialize-warpgroups -attn-persist-tiles="dynamic=1" | FileCheck %s
// With rotation (the pipelines' default):
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-rotate-kv-loop -attn-specialize-warpgroups -attn-persist-tiles="grids=2 causal-group-rounds=4 dynamic=0" | FileCheck %s --check-prefix=ROT
// Tiles claimed at run time (dynamic=2, the default, with grids=2):
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-rotate-kv-loop -attn-specialize-warpgroups -attn-persist-tiles="grids=2" | FileCheck %s --check-prefix=DYN
// Three warpgroups taking turns (192-row blocks at D = 64):
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a block-q=192" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-rotate-kv-loop -attn-alternate-warpgroups -attn-specialize-warpgroups -attn-persist-tiles | FileCheck %s --check-prefix=TURNS
// Causal grids are left alone by default (grids=1):
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-rotate-kv-loop -attn-specialize-warpgroups -attn-persist-tiles | FileCheck %s --check-prefix=DEF
// RUN: not attn-opt %s -attn-persist-tiles="grids=3" 2>&1 | FileCheck %s --check-prefix=BADGRIDS
// BADGRIDS: pass option grids (attn-codegen's persistent) must be 1 (grids without a causal mask) or 2 (all), got 3
// RUN: not attn-opt %s -attn-persist-tiles="causal-group-rounds=-1" 2>&1 | FileCheck %s --check-prefix=BADROUNDS
// BADROUNDS: pass option causal-group-rounds must be in [0, 64], got -1
// RUN: not attn-opt %s -attn-persist-tiles="dynamic=3" 2>&1 | FileCheck %s --check-prefix=BADDYN
// BADDYN: pass option dynamic must be 0 (no grid), 1 (causal grids) or 2 (every grid), got 3

// bf16, D = 128, non-causal. The grid becomes attn.num_programs programs
// over the B·H·Q tiles; each role loops over tiles %p, %p + P, ... with one
// offset per ring (K, V, Q), the tile's query block the last of its head
// first. Ring ops move by their ring's offset:
//   slot' = (s + off) mod 2,  fill' = f + (s + off) div 2
// Q's ring (one slot, never released before) gets its release after the
// last loop that reads it (the masked loop of the ragged last key block), and the producer acquires it before each fill at
// fill off. The offsets advance by the tile's fill counts (ring_fills, now
// gone). The producer's tile loop needs 32 registers (at 24 it spills);
// the consumers get floor8((168·384 − 128·32) / 256) = 232.
// CHECK-LABEL: func.func @d128
// CHECK:         %[[BH:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[TILES:.*]] = arith.muli %[[BH]], %{{.*}} : index
// CHECK-NEXT:    %[[P:.*]] = attn.num_programs %[[TILES]]
// CHECK-NEXT:    scf.forall (%[[PID:.*]]) in (%[[P]]) {
// CHECK-NEXT:      %[[KR:.*]] = attn.alloc_ring : !attn.ring<2
// CHECK-NEXT:      %[[VR:.*]] = attn.alloc_ring : !attn.ring<2
// CHECK-NEXT:      %[[QR:.*]] = attn.alloc_ring : !attn.ring<1
// CHECK-NEXT:      attn.warp_specialize registers(consumers = 232, producer = 32) {
// CHECK-NEXT:        %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:        %{{.*}}:3 = scf.for %[[T:.*]] = %[[PID]] to %[[TILES]] step %[[P]] iter_args(%[[OFF0:.*]] = %[[Z]], %[[OFF1:.*]] = %[[Z]], %[[OFF2:.*]] = %[[Z]]) -> (index, index, index) {
// CHECK:               %[[T32:.*]] = arith.index_castui %[[T]] : index to i32
// CHECK:               arith.remui %[[T32]]
// CHECK:               attn.ring_wait %[[QR]][%{{.*}}] fill %{{.*}}
// CHECK:               scf.for
// The block's position p in the loop's numbering (slot p mod 2, fill
// p div 2) moves by the ring's offset: slot (p + off) mod 2, fill
// (p + off) div 2.
// CHECK:                 %[[P0:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK:                 %[[SUM:.*]] = arith.addi %[[P0]], %[[OFF:arg[0-9]+]] : index
// CHECK-NEXT:            %[[FILL:.*]] = arith.divui %[[SUM]], %{{.*}} : index
// CHECK-NEXT:            %[[SLOT:.*]] = arith.remui %[[SUM]], %{{.*}} : index
// CHECK-NEXT:            attn.ring_wait %[[KR]][%[[SLOT]]] fill %[[FILL]]
// CHECK:                 attn.ring_release %[[KR]]
// CHECK:                 attn.ring_release %[[VR]]
// CHECK:               } {attn.online_softmax
// CHECK:               } {attn.online_softmax
// CHECK-NEXT:          %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:          attn.ring_release %[[QR]][%[[C0]]]
// CHECK:               attn.store_tile
// CHECK:               %[[N0:.*]] = arith.addi %[[OFF0]], %{{.*}} : index
// CHECK-NEXT:          %[[N1:.*]] = arith.addi %[[OFF1]], %{{.*}} : index
// CHECK-NEXT:          %[[N2:.*]] = arith.addi %[[OFF2]], %{{.*}} : index
// CHECK-NEXT:          scf.yield %[[N0]], %[[N1]], %[[N2]] : index, index, index
// CHECK:           } producer {
// CHECK-NEXT:        %[[PZ:.*]] = arith.constant 0 : index
// CHECK-NEXT:        scf.for %{{.*}} = %[[PID]] to %[[TILES]] step %[[P]] iter_args(%[[QOFF:.*]] = %[[PZ]], %{{.*}} = %[[PZ]], %{{.*}} = %[[PZ]])
// CHECK:               %[[QF:.*]] = arith.addi %{{.*}}, %[[QOFF]] : index
// CHECK-NEXT:          attn.ring_acquire %[[QR]][%{{.*}}] fill %[[QF]]
// CHECK-NEXT:          attn.async_load_tile %{{.*}}, %[[QR]][%{{.*}}] {bulk}
// CHECK-NEXT:          attn.async_arrive %[[QR]]
// CHECK:               attn.ring_acquire %[[KR]]
// CHECK-NOT:         attn.ring_fills
// CHECK:         } {attn.grid = ["batch", "heads_q", "q_blocks"], attn.persistent
// By default (dynamic=2) equal tiles are claimed too: the producer runs in
// one thread with 48 registers (two consumer warpgroups over a 16-bit Q of
// 128 columns, whose descriptors the GPU lowering hoists: with 40 the
// producer spilled), the consumers 224, and no static loop is left.
// DYN-LABEL: func.func @d128
// DYN:         attn.warp_specialize registers(consumers = 224, producer = 48) {
// DYN-NOT:       scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// DYN:           attn.take_tile
// DYN:         } producer {
// DYN:           attn.claim_tile
func.func @d128(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// Causal (grids=2): odd rounds of P tiles run backwards where whole,
//   L = r·P + P − 1 − q  (r = t / P odd, (r + 1)·P <= tiles), else t,
// then groups of causal-group-rounds · P = 4·P tiles, each group's longest
// query blocks first (tileAt). By default causal grids keep a block a tile.
// DEF-LABEL: func.func @causal
// DEF-NOT:     attn.num_programs
// DEF:         attn.warp_specialize
// Claimed at run time: a two-slot tile queue; the producer posts the
// program's first tile (%pid) and, at the start of each tile k, claims the
// one after it into entry k + 1 (slot (k+1) mod 2, fill (k+1) div 2);
// every role takes entry k at the top of an scf.while that ends at the
// first index past the tiles. Claims go in tileAt's longest-first order
// (groups of 4·P tiles), with no snake.
// DYN-LABEL: func.func @causal
// DYN:         %[[BH:.*]] = arith.muli
// DYN-NEXT:    %[[TILES:.*]] = arith.muli %[[BH]]
// DYN-NEXT:    %[[P:.*]] = attn.num_programs %[[TILES]]
// DYN-NEXT:    scf.forall (%[[PID:.*]]) in (%[[P]]) {
// DYN:           %[[QUEUE:.*]] = attn.alloc_ring : !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
// DYN-NEXT:      attn.warp_specialize registers(consumers = 224, producer = 48) {
// DYN-NEXT:        %[[Z:.*]] = arith.constant 0 : index
// DYN-NEXT:        %{{.*}}:5 = scf.while (%[[K:.*]] = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %[[Z]], %{{.*}} = %[[Z]]) : (index, index, index, index) -> (index, index, index, index, index) {
// DYN-NEXT:          %[[TWO:.*]] = arith.constant 2 : index
// DYN-NEXT:          %[[S:.*]] = arith.remui %[[K]], %[[TWO]] : index
// DYN-NEXT:          %[[F:.*]] = arith.divui %[[K]], %[[TWO]] : index
// DYN-NEXT:          %[[T:.*]] = attn.take_tile %[[QUEUE]][%[[S]]] fill %[[F]]
// DYN-NEXT:          %[[MORE:.*]] = arith.cmpi ult, %[[T]], %[[TILES]] : index
// DYN-NEXT:          scf.condition(%[[MORE]]) %[[T]], %[[K]], %{{.*}}, %{{.*}}, %{{.*}} : index, index, index, index, index
// DYN-NEXT:        } do {
// DYN-NEXT:        ^bb0(%[[TT:[^:]*]]: index, %[[KK:[^:]*]]: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index):
// DYN-NOT:           attn.claim_tile
// DYN:               %[[C4:.*]] = arith.constant 4 : i32
// DYN:               arith.index_castui %[[TT]] : index to i32
// DYN:               attn.mask {{.*}} {causal}
// DYN:               %[[K1:.*]] = arith.addi %[[KK]], %{{.*}} : index
// DYN-NEXT:          %{{.*}} = arith.addi
// DYN-NEXT:          %{{.*}} = arith.addi
// DYN-NEXT:          %{{.*}} = arith.addi
// DYN-NEXT:          scf.yield %[[K1]], %{{.*}}, %{{.*}}, %{{.*}} : index, index, index, index
// DYN:           } producer {
// DYN-NEXT:        %[[PZ:.*]] = arith.constant 0 : index
// DYN-NEXT:        attn.post_tile %[[QUEUE]][%[[PZ]]] fill %[[PZ]], %[[PID]]
// DYN-NEXT:        scf.while
// DYN:               attn.take_tile %[[QUEUE]]
// DYN:             } do {
// DYN-NEXT:        ^bb0(%{{[^:]*}}: index, %[[PK:[^:]*]]: index,
// DYN-NEXT:          %[[ONE:.*]] = arith.constant 1 : index
// DYN-NEXT:          %[[NEXT:.*]] = arith.addi %[[PK]], %[[ONE]] : index
// DYN-NEXT:          %[[TWO2:.*]] = arith.constant 2 : index
// DYN-NEXT:          %[[NS:.*]] = arith.remui %[[NEXT]], %[[TWO2]] : index
// DYN-NEXT:          %[[NF:.*]] = arith.divui %[[NEXT]], %[[TWO2]] : index
// DYN-NEXT:          attn.claim_tile %[[QUEUE]][%[[NS]]] fill %[[NF]], tiles %[[TILES]] programs %[[P]]
// DYN:               attn.async_load_tile
// DYN:         } {attn.grid = ["batch", "heads_q", "q_blocks"], attn.persistent
// ROT-LABEL: func.func @causal
// ROT:         %[[BH:.*]] = arith.muli
// ROT-NEXT:    %[[TILES:.*]] = arith.muli %[[BH]]
// ROT-NEXT:    %[[P:.*]] = attn.num_programs %[[TILES]]
// ROT:         attn.warp_specialize
// ROT:           scf.for %[[T:.*]] = %{{.*}} to %[[TILES]] step %[[P]]
// ROT:             %[[C4:.*]] = arith.constant 4 : i32
// ROT:             %[[P32:.*]] = arith.index_castui %[[P]] : index to i32
// ROT-NEXT:        %[[G:.*]] = arith.muli %[[P32]], %[[C4]] : i32
// ROT:             %[[R:.*]] = arith.divui %[[T]], %[[P]] : index
// ROT-NEXT:        %[[START:.*]] = arith.muli %[[R]], %[[P]] : index
// ROT-NEXT:        %[[Q:.*]] = arith.subi %[[T]], %[[START]] : index
// ROT-NEXT:        %[[END:.*]] = arith.addi %[[START]], %[[P]] : index
// ROT:             %[[WHOLE:.*]] = arith.cmpi ule, %[[END]], %[[TILES]] : index
// ROT:             %[[BACK:.*]] = arith.subi %{{.*}}, %[[Q]] : index
// ROT:             %[[L:.*]] = arith.select %{{.*}}, %[[BACK]], %[[T]] : index
// ROT:             arith.index_castui %[[L]] : index to i32
// ROT:             arith.ceildivui %[[G]]
// ROT:             attn.dot {{.*}} {async, rhs_transposed}
// ROT:             attn.mask {{.*}} {causal}
// ROT:         } producer {
// ROT:           scf.for
// ROT:             arith.ceildivui
// ROT:         attn.persistent
func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                  %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  attn.attention %q, %k, %v into %o {causal}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// With turns: one start before the tile loop and one end after it, so the
// order carries on across tiles (each warpgroup takes as many turns a
// tile); per tile, warpgroup 2's start of the next tile could reach the
// named barrier before warpgroup 0's end of this one passed it (a launch
// hung that way). The consumers keep 160 registers with the producer's 32.
// TURNS-LABEL: func.func @d64
// TURNS:         attn.warp_specialize registers(consumers = 160, producer = 32) {
// TURNS-NEXT:      %{{.*}} = arith.constant 0 : index
// TURNS-NEXT:      attn.start_turns
// TURNS-NEXT:      %{{.*}}:3 = scf.for
// TURNS-NOT:         attn.start_turns
// TURNS:             attn.await_turn
// TURNS:             attn.pass_turn
// TURNS-NOT:         attn.end_turns
// TURNS:             scf.yield %{{.*}}, %{{.*}}, %{{.*}} : index, index, index
// TURNS-NEXT:      }
// TURNS-NEXT:      attn.end_turns
// TURNS-NEXT:    } producer {
// D = 64 copies in groups: no producer, not persistent.
// CHECK-LABEL: func.func @d64
// CHECK-NOT:     attn.num_programs
// CHECK:         scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in
// CHECK-NOT:     attn.persistent
func.func @d64(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
               %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// D = 256: four 128-byte slabs a row, one copy each; the claiming producer
// gets 48 registers (40 spilled 16 B), the two consumer warpgroups
// floor8((168·384 − 128·48) / 256) = 224. With dynamic=1 the static
// schedule's producer keeps 32 and the consumers 232.
// DYN-LABEL: func.func @d256
// DYN:         attn.warp_specialize registers(consumers = 224, producer = 48) {
// DYN:           attn.take_tile
// CHECK-LABEL: func.func @d256
// CHECK:         attn.warp_specialize registers(consumers = 232, producer = 32) {
// CHECK-NOT:       attn.take_tile
func.func @d256(%q: memref<?x?x?x256xbf16>, %k: memref<?x?x?x256xbf16>,
                %v: memref<?x?x?x256xbf16>, %o: memref<?x?x?x256xbf16>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>,
        memref<?x?x?x256xbf16>, memref<?x?x?x256xbf16>
  return
}
