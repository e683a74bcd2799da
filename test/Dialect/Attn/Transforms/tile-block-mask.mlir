// RUN: attn-opt %s -split-input-file --attn-tile-attention | FileCheck %s

// Block sparsity: query block qb of (b, h) visits only the key blocks its
// row of the block lists names. With 64x32 blocks inside [128, 64] mask
// blocks, a program reads row qStart / 128 of the lists, broadcast over the
// mask's batch dim of 1 (b' = 0) and the heads (h' = h), and steps
//   t in [0, counts[0, h, qStart / 128] · 2)
// over the key blocks kb = indices[0, h, qStart / 128, t / 2]·2 + t mod 2.
// Without a mask_mod the leading entries whose key blocks every row sees
// whole (below the causal diagonal's first row) carry no mask: a scan
// counts them (W), steps [0, 2W) are unmasked, [2W, 2·count) masked (the
// keys' end; here the causal diagonal).
// CHECK-LABEL: func.func @listed
// CHECK-SAME:    %[[CNT:[^:]+]]: memref<1x?x?xi32>, %[[IDX:[^:]+]]: memref<1x?x?x?xi32>
// CHECK:       scf.forall (%[[B:.+]], %[[H:.+]], %[[X:.+]]) in
// CHECK:         %[[QSTART:.+]] = arith.muli %[[X]], %{{c64(_[0-9]+)?}}
// CHECK:         %[[ONE:.+]] = arith.cmpi eq, %{{.*}}, %{{c1(_[0-9]+)?}}
// CHECK:         %[[MH:.+]] = arith.select %[[ONE]], %{{c0(_[0-9]+)?}}, %[[H]]
// CHECK:         %[[ROW:.+]] = arith.divui %[[QSTART]], %{{c128(_[0-9]+)?}}
// CHECK:         %[[N:.+]] = memref.load %[[CNT]][%{{c0(_[0-9]+)?}}, %[[MH]], %[[ROW]]]
// CHECK:         %[[NX:.+]] = arith.index_cast %[[N]]
// CHECK:         %[[STEPS:.+]] = arith.muli %[[NX]], %{{c2(_[0-9]+)?}}
// CHECK:         %[[W:.+]] = scf.while
// CHECK:           memref.load %[[IDX]][%{{c0(_[0-9]+)?}}, %[[MH]], %[[ROW]], %{{.*}}]
// CHECK:         %[[WHOLE:.+]] = arith.muli %[[W]], %{{c2(_[0-9]+)?}}
// CHECK:         scf.for %[[T:.+]] = %{{c0(_[0-9]+)?}} to %[[WHOLE]] step %{{c1(_[0-9]+)?}}
// CHECK:           %[[T2:.+]] = arith.divui %[[T]], %{{c2(_[0-9]+)?}}
// CHECK:           %[[E:.+]] = memref.load %[[IDX]][%{{c0(_[0-9]+)?}}, %[[MH]], %[[ROW]], %[[T2]]]
// CHECK:           %[[EX:.+]] = arith.index_cast %[[E]]
// CHECK:           %[[SUB:.+]] = arith.remui %[[T]], %{{c2(_[0-9]+)?}}
// CHECK:           %[[KB2:.+]] = arith.muli %[[EX]], %{{c2(_[0-9]+)?}}
// CHECK:           %[[KB:.+]] = arith.addi %[[KB2]], %[[SUB]]
// CHECK:           %[[KVSTART:.+]] = arith.muli %[[KB]], %{{c32(_[0-9]+)?}}
// CHECK:           attn.load_tile %{{.*}}[%[[B]], %{{.*}}, %[[KVSTART]]]
// CHECK-NOT:       attn.mask
// CHECK:         } {attn.softmax_pass = "max"
// CHECK:         scf.for %[[T:.+]] = %[[WHOLE]] to %[[STEPS]] step %{{c1(_[0-9]+)?}}
// CHECK:           %[[T2:.+]] = arith.divui %[[T]], %{{c2(_[0-9]+)?}}
// CHECK:           %[[E:.+]] = memref.load %[[IDX]][%{{c0(_[0-9]+)?}}, %[[MH]], %[[ROW]], %[[T2]]]
// CHECK:           %[[EX:.+]] = arith.index_cast %[[E]]
// CHECK:           %[[SUB:.+]] = arith.remui %[[T]], %{{c2(_[0-9]+)?}}
// CHECK:           %[[KB2:.+]] = arith.muli %[[EX]], %{{c2(_[0-9]+)?}}
// CHECK:           %[[KB:.+]] = arith.addi %[[KB2]], %[[SUB]]
// CHECK:           %[[KVSTART:.+]] = arith.muli %[[KB]], %{{c32(_[0-9]+)?}}
// CHECK:           %[[LEFT:.+]] = arith.subi %{{.*}}, %[[KVSTART]]
// CHECK:           %[[ROWS:.+]] = arith.minsi %[[LEFT]], %{{c32(_[0-9]+)?}}
// CHECK:           %[[KVROWS:.+]] = arith.maxsi %[[ROWS]], %{{c0(_[0-9]+)?}}
// CHECK:           attn.load_tile %{{.*}}[%[[B]], %{{.*}}, %[[KVSTART]]] rows %[[KVROWS]]
// CHECK:           attn.mask %{{.*}} q(%[[QSTART]], %{{.*}}) kv(%[[KVSTART]], %{{.*}}) {causal}
// CHECK:         } {attn.softmax_pass = "max"
// CHECK-NOT:     scf.for
// CHECK:         scf.for %{{.*}} = %{{c0(_[0-9]+)?}} to %[[WHOLE]] step %{{c1(_[0-9]+)?}}
// CHECK:         } {attn.softmax_pass = "sum"
// CHECK:         scf.for %{{.*}} = %[[WHOLE]] to %[[STEPS]] step %{{c1(_[0-9]+)?}}
// CHECK:         } {attn.softmax_pass = "sum"
// CHECK:         scf.for %{{.*}} = %{{c0(_[0-9]+)?}} to %[[WHOLE]] step %{{c1(_[0-9]+)?}}
// CHECK:         } {attn.softmax_pass = "pv"
func.func @listed(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                  %o: memref<?x?x?x64xbf16>, %cnt: memref<1x?x?xi32>,
                  %idx: memref<1x?x?x?xi32>) {
  attn.attention %q, %k, %k into %o
      block_mask(%cnt, %idx : memref<1x?x?xi32>, memref<1x?x?x?xi32>)
      {causal, mask_block = array<i64: 128, 64>, block_q = 64 : i64,
       block_kv = 32 : i64}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// Derived blocks shrink to divide the mask's: the CPU target's blocks
// inside [32, 16] mask blocks are 32x16 at most, one key block a mask
// block (no division of t), and a batch dim of B indexes the lists by b.
// CHECK-LABEL: func.func @shrink
// CHECK:       scf.forall (%[[B:.+]], %[[H:.+]], %[[X:.+]]) in
// CHECK:         %[[QSTART:.+]] = arith.muli %[[X]], %{{c32(_[0-9]+)?}}
// CHECK:         %[[ROW:.+]] = arith.divui %[[QSTART]], %{{c32(_[0-9]+)?}}
// CHECK:         memref.load %{{.*}}[%[[B]], %{{.*}}, %[[ROW]]]
// CHECK:         scf.for %[[T:.+]] = %{{c0(_[0-9]+)?}} to
// CHECK-NEXT:      %[[E:.+]] = memref.load %{{.*}}[%[[B]], %{{.*}}, %[[ROW]], %[[T]]]
// CHECK-NEXT:      %[[KB:.+]] = arith.index_cast %[[E]]
// CHECK:           arith.muli %[[KB]], %{{c16(_[0-9]+)?}}
// CHECK:           attn.load_tile {{.*}} -> tensor<16x64xf32>
func.func @shrink(%q: memref<2x4x100x64xf32>, %k: memref<2x4x90x64xf32>,
                  %o: memref<2x4x100x64xf32>, %cnt: memref<2x4x4xi32>,
                  %idx: memref<2x4x4x6xi32>) {
  attn.attention %q, %k, %k into %o
      block_mask(%cnt, %idx : memref<2x4x4xi32>, memref<2x4x4x6xi32>)
      {mask_block = array<i64: 32, 16>}
      : memref<2x4x100x64xf32>, memref<2x4x90x64xf32>,
        memref<2x4x90x64xf32>, memref<2x4x100x64xf32>
  return
}


// -----

// Full blocks first, steps [0, F) over the full list without the mask_mod,
// then the partial blocks, steps [F, F + P) over block_mask's list at entry
// t − F, where the mask_mod selects -inf for the keys it hides (one gather
// of each position's document id). The full list's leading entries whose
// key blocks every row sees whole (here: causal, blocks [0, nFull)) carry
// no mask at all: a scan counts them (W, up to the first entry that is not
// whole, so the list's order never matters for the result), steps [0, W)
// are unmasked and [W, F) keep the causal mask.
// CHECK-LABEL: func.func @full
// CHECK-SAME:    %[[CNT:[^:]+]]: memref<1x1x?xi32>, %[[IDX:[^:]+]]: memref<1x1x?x?xi32>, %[[FCNT:[^:]+]]: memref<1x1x?xi32>, %[[FIDX:[^:]+]]: memref<1x1x?x?xi32>
// CHECK:         %[[F:.+]] = memref.load %[[FCNT]]
// CHECK:         %[[FX:.+]] = arith.index_cast %[[F]]
// CHECK:         %[[W:.+]] = scf.while (%[[E:.+]] = %{{c0(_[0-9]+)?}}) : (index) -> index {
// CHECK:           %[[MORE:.+]] = arith.cmpi slt, %[[E]], %[[FX]] : index
// CHECK:           %[[OK:.+]] = scf.if %[[MORE]] -> (i1) {
// CHECK:             memref.load %[[FIDX]][%{{.*}}, %{{.*}}, %{{.*}}, %[[E]]]
// CHECK:             %[[LO:.+]] = arith.cmpi sge
// CHECK:             %[[HI:.+]] = arith.cmpi sle
// CHECK:             %[[BOTH:.+]] = arith.andi %[[LO]], %[[HI]] : i1
// CHECK:             scf.yield %[[BOTH]] : i1
// CHECK:           } else {
// CHECK:             scf.yield %false : i1
// CHECK:           scf.condition(%[[OK]]) %[[E]] : index
// CHECK:         } do {
// CHECK:           arith.addi %{{.*}}, %{{c1(_[0-9]+)?}} : index
// CHECK:         %[[P:.+]] = memref.load %[[CNT]]
// CHECK:         %[[PX:.+]] = arith.index_cast %[[P]]
// CHECK:         %[[END:.+]] = arith.addi %[[FX]], %[[PX]]
// CHECK:         scf.for %[[T:.+]] = %{{c0(_[0-9]+)?}} to %[[W]]
// CHECK:           memref.load %[[FIDX]][%{{.*}}, %{{.*}}, %{{.*}}, %[[T]]]
// CHECK-NOT:       attn.gather
// CHECK-NOT:       attn.mask
// CHECK:         } {attn.softmax_pass = "max"
// CHECK:         scf.for %[[T1:.+]] = %[[W]] to %[[FX]]
// CHECK:           memref.load %[[FIDX]][%{{.*}}, %{{.*}}, %{{.*}}, %[[T1]]]
// CHECK-NOT:       attn.gather
// CHECK:           attn.mask
// CHECK:         } {attn.softmax_pass = "max"
// CHECK:         scf.for %[[T2:.+]] = %[[FX]] to %[[END]]
// CHECK:           %[[U:.+]] = arith.subi %[[T2]], %[[FX]]
// CHECK:           memref.load %[[IDX]][%{{.*}}, %{{.*}}, %{{.*}}, %[[U]]]
// CHECK:           attn.gather
// CHECK:           %[[SAME:.+]] = arith.cmpi eq
// CHECK:           arith.select %[[SAME]], %{{.*}}, %{{.*}} : tensor<64x32xi1>, tensor<64x32xf32>
// CHECK:           attn.mask
// CHECK:         } {attn.softmax_pass = "max"
func.func @full(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                %o: memref<?x?x?x64xbf16>, %cnt: memref<1x1x?xi32>,
                %idx: memref<1x1x?x?xi32>, %fcnt: memref<1x1x?xi32>,
                %fidx: memref<1x1x?x?xi32>, %docs: memref<?x?xi32>) {
  attn.attention %q, %k, %k into %o
      block_mask(%cnt, %idx : memref<1x1x?xi32>, memref<1x1x?x?xi32>)
      full_blocks(%fcnt, %fidx : memref<1x1x?xi32>, memref<1x1x?x?xi32>)
      mask_mod {
  ^bb0(%b: i32, %h: i32, %i: i32, %j: i32):
    %bx = arith.index_cast %b : i32 to index
    %ix = arith.index_cast %i : i32 to index
    %jx = arith.index_cast %j : i32 to index
    %di = memref.load %docs[%bx, %ix] : memref<?x?xi32>
    %dj = memref.load %docs[%bx, %jx] : memref<?x?xi32>
    %same = arith.cmpi eq, %di, %dj : i32
    attn.yield %same : i1
  } {causal, mask_block = array<i64: 64, 32>, block_q = 64 : i64,
     block_kv = 32 : i64}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
