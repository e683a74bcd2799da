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

// The merge: per (batch, head, 16-row block, block of 16 columns of O),
// one pass over the S partials, 16 an iteration (the program's columns of
// O_s and O through views), loads first, the split index clamped to S - 1
// (a clamped split weighs 0): the running max M_new, M' = M_new or 0 where
// it is -inf, α = exp(M − M') rescales l and A, w_u = exp(LSE_u − M').
// After the loop O = A / l, LSE = M' + log l (-inf where l = 0). The
// grid's x counts query blocks times the 4 column blocks.
// CHECK-LABEL: func.func @merge
// CHECK-SAME:    %[[PO:[^:]+]]: memref<?x?x?x?x64xf32>, %[[PL:[^:]+]]: memref<?x?x?x?xf32>, %[[O:[^:]+]]: memref<?x?x?x64xbf16>, %[[L:[^:]+]]: memref<?x?x?xf32>
// CHECK:       %[[S:.+]] = memref.dim %[[PO]], %c0
// CHECK:       %[[QB:.+]] = arith.ceildivsi
// CHECK:       %[[X4:.+]] = arith.muli %[[QB]], %c4
// CHECK:       scf.forall (%[[B:.+]], %[[H:.+]], %[[X:.+]]) in ({{.*}}, {{.*}}, %[[X4]])
// CHECK:         %[[QBLK:.+]] = arith.divui %[[X]], %[[C4:.+]] : index
// CHECK:         %[[R0:.+]] = arith.muli %[[QBLK]], %c16
// CHECK:         %[[CB:.+]] = arith.remui %[[X]], %[[C4]] : index
// CHECK:         %[[COL:.+]] = arith.muli %[[CB]], %c16
// CHECK:         %[[POV:.+]] = memref.subview %[[PO]][0, 0, 0, 0, %[[COL]]] [{{.*}}, 16] [1, 1, 1, 1, 1] : memref<?x?x?x?x64xf32> to memref<?x?x?x?x16xf32, strided<[?, ?, ?, 64, 1], offset: ?>>
// CHECK:         %[[OV:.+]] = memref.subview %[[O]][0, 0, 0, %[[COL]]] [{{.*}}, 16] [1, 1, 1, 1] : memref<?x?x?x64xbf16> to memref<?x?x?x16xbf16, strided<[?, ?, 64, 1], offset: ?>>
// CHECK:         %[[LAST:.+]] = arith.subi %[[S]], %c1
// CHECK:         %[[R:.+]]:3 = scf.for %[[I:.+]] = %{{.*}} to %[[S]] step %c16{{.*}} iter_args(%[[M:.+]] = %{{.*}}, %[[LS:.+]] = %{{.*}}, %[[A:.+]] = %{{.*}}) -> (tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>)
// CHECK:           attn.load_tile %[[POV]][%[[I]], %[[B]], %[[H]], %[[R0]]] {{.*}} -> tensor<16x16xf32>
// CHECK:           %[[I1:.+]] = arith.addi %[[I]], %c1
// CHECK:           %[[C1:.+]] = arith.minsi %[[I1]], %[[LAST]]
// CHECK:           attn.load_tile %[[POV]][%[[C1]], %[[B]], %[[H]], %[[R0]]]
// CHECK-COUNT-14:  attn.load_tile %[[POV]]
// CHECK:           %[[L0:.+]] = attn.load_tile %[[PL]][%[[I]], %[[B]], %[[H]], %[[R0]]] {{.*}} -> tensor<16xf32>
// CHECK-COUNT-15:  attn.load_tile %[[PL]]
// CHECK:           %[[MX:.+]] = arith.maximumf %[[M]], %[[L0]]
// CHECK-COUNT-15:  arith.maximumf
// CHECK:           %[[NONE:.+]] = arith.cmpf oeq, %[[MN:.+]], %{{.*}} : tensor<16xf32>
// CHECK:           %[[MS:.+]] = arith.select %[[NONE]], %{{.*}}, %[[MN]]
// CHECK:           %[[DA:.+]] = arith.subf %[[M]], %[[MS]]
// CHECK:           %[[ALPHA:.+]] = math.exp %[[DA]]
// CHECK:           arith.mulf %[[ALPHA]], %[[LS]]
// CHECK:           %[[AB:.+]] = attn.broadcast %[[ALPHA]]
// CHECK:           arith.mulf %[[AB]], %[[A]]
// CHECK:           %[[D:.+]] = arith.subf %[[L0]], %[[MS]]
// CHECK:           %[[W:.+]] = math.exp %[[D]]
// CHECK:           attn.broadcast %[[W]]
// CHECK:           %[[J1:.+]] = arith.addi %[[I]], %c1
// CHECK:           %[[IN:.+]] = arith.cmpi slt, %[[J1]], %[[S]]
// CHECK:           %[[KEEP:.+]] = arith.select %[[IN]], %{{.*}}, %{{.*}} : f32
// CHECK:           tensor.splat %[[KEEP]] : tensor<16xf32>
// CHECK:           scf.yield %[[MN]]
// CHECK:         arith.cmpf oeq, %[[R]]#0
// CHECK:         arith.divf %[[R]]#2
// CHECK:         attn.store_tile %{{.*}}, %[[OV]][%[[B]], %[[H]], %[[R0]]]
// CHECK:         math.log
// CHECK:         attn.store_tile %{{.*}}, %[[L]][%[[B]], %[[H]], %[[R0]]]
// CHECK:       } {attn.grid = ["batch", "heads_q", "q_blocks*4"], attn.program = "merge_splits"
func.func @merge(%po: memref<?x?x?x?x64xf32>, %pl: memref<?x?x?x?xf32>,
                 %o: memref<?x?x?x64xbf16>, %l: memref<?x?x?xf32>) {
  attn.merge_splits %po, %pl into %o lse(%l : memref<?x?x?xf32>)
      : memref<?x?x?x?x64xf32>, memref<?x?x?x?xf32>, memref<?x?x?x64xbf16>
  return
}
