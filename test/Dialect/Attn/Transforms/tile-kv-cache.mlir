// RUN: attn-opt %s -split-input-file --attn-tile-attention="target=sm_80" | FileCheck %s

// A paged KV cache: each program reads its sequence's key count from
// kv_lens (Nk_b = lens[b], used for the loop bounds, the causal diagonal and
// the mask), and each key/value block from page table[b, kvStart / P] at row
// kvStart mod P. The derived key block shrinks to the static page size
// (16), so that a block never straddles two pages.
// CHECK-LABEL: func.func @paged
// CHECK-SAME:    %[[K:[^:]+]]: memref<?x?x16x64xbf16>, %{{[^:]+}}: memref<?x?x?x64xbf16>, %[[LENS:[^:]+]]: memref<?xi32>, %[[TABLE:[^:]+]]: memref<?x?xi32>
// CHECK:       scf.forall (%[[B:.+]], %[[H:.+]], %{{.+}}) in
// CHECK:         %[[KVH:.+]] = arith.divui %[[H]],
// CHECK:         %[[LEN:.+]] = memref.load %[[LENS]][%[[B]]] : memref<?xi32>
// CHECK:         %[[NK:.+]] = arith.index_cast %[[LEN]] : i32 to index
// CHECK:         arith.ceildivsi %{{.*}}, %c16{{(_[0-9]+)?}}
// CHECK:         scf.for %[[J:[^ ]+]] = 
// CHECK:           %[[START:.+]] = arith.muli %[[J]], %c16{{(_[0-9]+)?}}
// CHECK:           %[[P:.+]] = memref.dim %[[K]], %c2{{(_[0-9]+)?}}
// CHECK:           %[[SLOT:.+]] = arith.divui %[[START]], %[[P]]
// CHECK:           %[[E:.+]] = memref.load %[[TABLE]][%[[B]], %[[SLOT]]] : memref<?x?xi32>
// CHECK:           %[[PAGE:.+]] = arith.index_cast %[[E]] : i32 to index
// CHECK:           %[[ROW:.+]] = arith.remui %[[START]], %[[P]]
// CHECK:           attn.load_tile %[[K]][%[[PAGE]], %[[KVH]], %[[ROW]]] rows %c16{{(_[0-9]+)?}} : memref<?x?x16x64xbf16> -> tensor<16x64xbf16>
// CHECK:         } {attn.softmax_pass = "max"
// CHECK:         scf.for
// CHECK:           %[[MSTART:.+]] = arith.muli %{{.*}}, %c16{{(_[0-9]+)?}}
// CHECK:           %[[LEFT:.+]] = arith.subi %[[NK]], %[[MSTART]]
// CHECK:           %[[MROWS:.+]] = arith.minsi %[[LEFT]], %c16{{(_[0-9]+)?}}
// CHECK:           attn.load_tile %[[K]][%{{.*}}, %[[KVH]], %{{.*}}] rows %[[MROWS]]
// CHECK:           attn.mask %{{.*}} q(%{{.*}}, %{{.*}}) kv(%[[MSTART]], %[[NK]]) {causal}
func.func @paged(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x16x64xbf16>,
                 %o: memref<?x?x?x64xbf16>, %lens: memref<?xi32>,
                 %table: memref<?x?xi32>) {
  attn.attention %q, %k, %k into %o kv_lens(%lens : memref<?xi32>)
      pages(%table : memref<?x?xi32>) {causal}
      : memref<?x?x?x64xbf16>, memref<?x?x16x64xbf16>,
        memref<?x?x16x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// A GPU key block of whole pages (block_kv = 64 over pages of 16, as
// attn-select-gpu-blocks gives sm_90a): K and V are read at [b, kvHead,
// kvStart] and gather their rows through the block table (`pages`), with
// no scalar table load of the program's own.
// CHECK-LABEL: func.func @paged_gather
// CHECK-SAME:    %[[K:[^:]+]]: memref<?x?x16x64xbf16>, %{{[^:]+}}: memref<?x?x?x64xbf16>, %[[LENS:[^:]+]]: memref<?xi32>, %[[TABLE:[^:]+]]: memref<?x?xi32>
// CHECK:       scf.forall (%[[B:.+]], %[[H:.+]], %{{.+}}) in
// CHECK:         %[[KVH:.+]] = arith.divui %[[H]],
// CHECK-NOT:     memref.load %[[TABLE]]
// CHECK:         scf.for %[[J:[^ ]+]] =
// CHECK:           %[[START:.+]] = arith.muli %[[J]], %c64{{(_[0-9]+)?}}
// CHECK:           attn.load_tile %[[K]][%[[B]], %[[KVH]], %[[START]]] rows %c64{{(_[0-9]+)?}} pages(%[[TABLE]] : memref<?x?xi32>) : memref<?x?x16x64xbf16> -> tensor<64x64xbf16>
// CHECK:         } {attn.softmax_pass = "max"
// CHECK:         scf.for
// CHECK:           attn.load_tile %[[K]][%[[B]], %[[KVH]], %{{.*}}] rows %{{.*}} pages(%[[TABLE]] : memref<?x?xi32>)
func.func @paged_gather(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x16x64xbf16>,
                        %o: memref<?x?x?x64xbf16>, %lens: memref<?xi32>,
                        %table: memref<?x?xi32>) {
  attn.attention %q, %k, %k into %o kv_lens(%lens : memref<?xi32>)
      pages(%table : memref<?x?xi32>) {block_q = 64 : i64, block_kv = 64 : i64}
      : memref<?x?x?x64xbf16>, memref<?x?x16x64xbf16>,
        memref<?x?x16x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// Sequence lengths over a contiguous cache: V's rows in a masked block are
// bounded by the sequence's key count, not by V's length (rows past a
// sequence's end are stale and may hold anything, NaN included).
// CHECK-LABEL: func.func @seq_lens
// CHECK:         %[[LEN:.+]] = memref.load %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK:         %[[NK:.+]] = arith.index_cast %[[LEN]] : i32 to index
// CHECK:       attn.softmax_pass = "sum"
// CHECK:       scf.for
// CHECK:         %[[START:.+]] = arith.muli
// CHECK:         %[[LEFT:.+]] = arith.subi %[[NK]], %[[START]]
// CHECK:         %[[ROWS:.+]] = arith.minsi %[[LEFT]], %c64{{(_[0-9]+)?}}
// CHECK:         attn.load_tile %{{.*}} rows %[[ROWS]] : memref<?x?x?x64xbf16> -> tensor<64x64xbf16>
// CHECK-NOT:     memref.dim
// CHECK:         attn.load_tile %{{.*}} rows %[[ROWS]] : memref<?x?x?x64xbf16> -> tensor<64x64xbf16>
// CHECK:       attn.softmax_pass = "pv"
func.func @seq_lens(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                    %o: memref<?x?x?x64xbf16>, %lens: memref<?xi32>) {
  attn.attention %q, %k, %k into %o kv_lens(%lens : memref<?xi32>)
      {block_kv = 64 : i64}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// A packed batch (varlen): B = entries of cu_q − 1 programs per head and
// query block; program b reads its sequence's offsets, loads Q at row
// cu_q[b] + qStart and K/V at cu_k[b] + kvStart (batch index 0), masks with
// the sequence's own positions (qStart, Nq_b, kvStart, Nk_b) and visits no
// key block when its query block is past the sequence's end.
// CHECK-LABEL: func.func @varlen
// CHECK-SAME:    %[[Q:[^:]+]]: memref<1x?x?x64xbf16>, %[[K:[^:]+]]: memref<1x?x?x64xbf16>, %{{[^:]+}}: memref<1x?x?x64xbf16>, %[[CQ:[^:]+]]: memref<?xi32>, %[[CK:[^:]+]]: memref<?xi32>
// CHECK:       %[[E:.+]] = memref.dim %[[CQ]], %c0
// CHECK:       %[[NB:.+]] = arith.subi %[[E]], %c1
// CHECK:       scf.forall (%[[B:.+]], %[[H:.+]], %[[X:.+]]) in (%[[NB]], %{{.*}}, %{{.*}})
// CHECK:         %[[B1:.+]] = arith.addi %[[B]], %c1
// CHECK:         memref.load %[[CQ]][%[[B]]]
// CHECK:         %[[Q0:.+]] = arith.index_cast
// CHECK:         memref.load %[[CK]][%[[B]]]
// CHECK:         %[[K0:.+]] = arith.index_cast
// CHECK:         memref.load %[[CQ]][%[[B1]]]
// CHECK:         memref.load %[[CK]][%[[B1]]]
// CHECK:         %[[QSTART:.+]] = arith.muli %[[X]], %c64
// CHECK:         %[[ROWS0:.+]] = arith.minsi
// CHECK:         %[[ROWS:.+]] = arith.maxsi %[[ROWS0]], %c0
// CHECK:         %[[QROW:.+]] = arith.addi %[[Q0]], %[[QSTART]]
// CHECK:         attn.load_tile %[[Q]][%c0{{.*}}, %[[H]], %[[QROW]]] rows %[[ROWS]]
// CHECK:         %[[HAS:.+]] = arith.cmpi sgt, %[[ROWS]], %c0
// CHECK:         %[[NEND:.+]] = arith.select %[[HAS]], %{{.*}}, %c0
// CHECK:         scf.for
// CHECK:           %[[KSTART:.+]] = arith.muli
// CHECK:           %[[KROW:.+]] = arith.addi %[[K0]], %[[KSTART]]
// CHECK:           attn.load_tile %[[K]][%c0{{.*}}, %{{.*}}, %[[KROW]]]
// CHECK:         attn.store_tile %{{.*}}[%c0{{.*}}, %[[H]], %[[QROW]]] rows %[[ROWS]]
func.func @varlen(%q: memref<1x?x?x64xbf16>, %k: memref<1x?x?x64xbf16>,
                  %o: memref<1x?x?x64xbf16>, %cq: memref<?xi32>,
                  %ck: memref<?xi32>) {
  attn.attention %q, %k, %k into %o
      varlen(%cq, %ck : memref<?xi32>, memref<?xi32>)
      {causal, block_q = 64 : i64, block_kv = 64 : i64}
      : memref<1x?x?x64xbf16>, memref<1x?x?x64xbf16>,
        memref<1x?x?x64xbf16>, memref<1x?x?x64xbf16>
  return
}
