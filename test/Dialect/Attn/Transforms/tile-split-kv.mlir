// RUN: attn-opt %s -split-input-file --attn-tile-attention | FileCheck %s

// split_kv: the grid's last dim is query blocks × S; x = qBlock·S + s.
// Split s loops over key blocks [L, M) unmasked, then [M, H) masked, with
//   C = ceil(ceil(Nk / Bc) / S), L = min(s·C, nEnd), H = min(L + C, nEnd),
//   M = min(max(nFull, L), H)
// so the masked loop starts where the unmasked one ends; its partial O
// and LSE are stored at split index s.
// CHECK-LABEL: func.func @split
// CHECK-SAME:    %[[Q:[^:]+]]: memref<?x?x?x64xbf16>, %[[K:[^:]+]]: memref<?x?x?x64xbf16>, %[[PO:[^:]+]]: memref<?x?x?x?x64xf32>, %[[PL:[^:]+]]: memref<?x?x?x?xf32>
// CHECK-DAG:   %[[NQB:.+]] = arith.ceildivsi %{{.*}}, %c64
// CHECK-DAG:   %[[S:.+]] = memref.dim %[[PO]], %c0
// CHECK:       %[[GX:.+]] = arith.muli %[[NQB]], %[[S]]
// CHECK:       scf.forall (%[[B:.+]], %[[H:.+]], %[[X:.+]]) in (%{{.*}}, %{{.*}}, %[[GX]])
// CHECK:         %[[SPLIT:.+]] = arith.remui %[[X]], %[[S]]
// CHECK:         %[[QB:.+]] = arith.divui %[[X]], %[[S]]
// CHECK:         %[[QSTART:.+]] = arith.muli %[[QB]], %c64
// CHECK:         %[[NEND:.+]] = arith.ceildivsi %{{.*}}, %c32
// CHECK:         %[[NFULL:.+]] = arith.minsi %{{.*}}, %[[NEND]]
// CHECK:         %[[NKB:.+]] = arith.ceildivsi %{{.*}}, %c32
// CHECK:         %[[C:.+]] = arith.ceildivsi %[[NKB]], %[[S]]
// CHECK:         %[[SC:.+]] = arith.muli %[[SPLIT]], %[[C]]
// CHECK:         %[[L:.+]] = arith.minsi %[[SC]], %[[NEND]]
// CHECK:         %[[LC:.+]] = arith.addi %[[L]], %[[C]]
// CHECK:         %[[HI:.+]] = arith.minsi %[[LC]], %[[NEND]]
// CHECK:         %[[MX:.+]] = arith.maxsi %[[NFULL]], %[[L]]
// CHECK:         %[[M:.+]] = arith.minsi %[[MX]], %[[HI]]
// CHECK:         scf.for %{{.*}} = %[[L]] to %[[M]]
// CHECK:         } {attn.softmax_pass = "max"
// CHECK:         scf.for %{{.*}} = %[[M]] to %[[HI]]
// CHECK:           attn.mask
// CHECK:         } {attn.softmax_pass = "max"
// CHECK:         attn.store_tile %{{.*}}, %[[PO]][%[[SPLIT]], %[[B]], %[[H]], %[[QSTART]]] rows %{{.*}} : tensor<64x64xf32>, memref<?x?x?x?x64xf32>
// CHECK:         attn.store_tile %{{.*}}, %[[PL]][%[[SPLIT]], %[[B]], %[[H]], %[[QSTART]]] rows %{{.*}} : tensor<64xf32>, memref<?x?x?x?xf32>
// CHECK:       } {attn.grid = ["batch", "heads_q", "q_blocks*splits"], attn.program = "split_kv"
func.func @split(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                 %po: memref<?x?x?x?x64xf32>, %pl: memref<?x?x?x?xf32>) {
  attn.attention %q, %k, %k into %po lse(%pl : memref<?x?x?x?xf32>)
      {causal, split_kv, block_q = 64 : i64, block_kv = 32 : i64}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x?x64xf32>
  return
}

// -----

// The merge: per (batch, head, 64-row block), the max of the S partial
// LSE rows, then the weighted sum of the partial O tiles and their
// weights; O = A / l, LSE = M' + log l (-inf where l = 0). Each loop reads
// several splits an iteration, all loads first (8 LSE rows; 256 / Dv O
// tiles, at most 4), the split index clamped to S - 1; in the sum a clamped
// split weighs 0.
// CHECK-LABEL: func.func @merge
// CHECK-SAME:    %[[PO:[^:]+]]: memref<?x?x?x?x64xf32>, %[[PL:[^:]+]]: memref<?x?x?x?xf32>, %[[O:[^:]+]]: memref<?x?x?x64xbf16>, %[[L:[^:]+]]: memref<?x?x?xf32>
// CHECK:       %[[S:.+]] = memref.dim %[[PO]], %c0
// CHECK:       scf.forall (%[[B:.+]], %[[H:.+]], %[[X:.+]]) in
// CHECK:         %[[R0:.+]] = arith.muli %[[X]], %c64
// CHECK:         %[[LAST:.+]] = arith.subi %[[S]], %c1
// CHECK:         %[[M:.+]] = scf.for %[[I:.+]] = %{{.*}} to %[[S]] step %c8 {{.*}} -> (tensor<64xf32>)
// CHECK:           attn.load_tile %[[PL]][%[[I]], %[[B]], %[[H]], %[[R0]]] {{.*}} -> tensor<64xf32>
// CHECK:           %[[I1:.+]] = arith.addi %[[I]], %c1
// CHECK:           %[[C1:.+]] = arith.minsi %[[I1]], %[[LAST]]
// CHECK:           attn.load_tile %[[PL]][%[[C1]], %[[B]], %[[H]], %[[R0]]]
// CHECK-COUNT-6:   attn.load_tile %[[PL]]
// CHECK-COUNT-8:   arith.maximumf
// CHECK:         %[[NOKEY:.+]] = arith.cmpf oeq, %[[M]]
// CHECK:         %[[MS:.+]] = arith.select %[[NOKEY]]
// CHECK:         %[[SUM:.+]]:2 = scf.for %[[J:.+]] = %{{.*}} to %[[S]] step %c4 {{.*}} -> (tensor<64xf32>, tensor<64x64xf32>)
// CHECK:           %[[LJ:.+]] = attn.load_tile %[[PL]][%[[J]], %[[B]], %[[H]], %[[R0]]]
// CHECK:           attn.load_tile %[[PO]][%[[J]], %[[B]], %[[H]], %[[R0]]] {{.*}} -> tensor<64x64xf32>
// CHECK-COUNT-3:   attn.load_tile %[[PO]]
// CHECK:           %[[D:.+]] = arith.subf %[[LJ]], %[[MS]]
// CHECK:           %[[W:.+]] = math.exp %[[D]]
// CHECK:           attn.broadcast %[[W]]
// CHECK:           %[[J1:.+]] = arith.addi %[[J]], %c1
// CHECK:           %[[IN:.+]] = arith.cmpi slt, %[[J1]], %[[S]]
// CHECK:           %[[KEEP:.+]] = arith.select %[[IN]], %{{.*}}, %{{.*}} : f32
// CHECK:           tensor.splat %[[KEEP]] : tensor<64xf32>
// CHECK:         arith.divf %[[SUM]]#1
// CHECK:         attn.store_tile %{{.*}}, %[[O]][%[[B]], %[[H]], %[[R0]]]
// CHECK:         math.log
// CHECK:         attn.store_tile %{{.*}}, %[[L]][%[[B]], %[[H]], %[[R0]]]
// CHECK:       } {attn.grid = ["batch", "heads_q", "q_blocks"], attn.program = "merge_splits"
func.func @merge(%po: memref<?x?x?x?x64xf32>, %pl: memref<?x?x?x?xf32>,
                 %o: memref<?x?x?x64xbf16>, %l: memref<?x?x?xf32>) {
  attn.merge_splits %po, %pl into %o lse(%l : memref<?x?x?xf32>)
      : memref<?x?x?x?x64xf32>, memref<?x?x?x?xf32>, memref<?x?x?x64xbf16>
  return
}
