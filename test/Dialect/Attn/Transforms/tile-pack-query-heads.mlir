// RUN: attn-opt %s -split-input-file --attn-tile-attention="target=sm_90a block-q=64 block-kv=64" | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-tile-attention="target=cpu" | FileCheck %s --check-prefix=CPU
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" | FileCheck %s --check-prefix=BLOCKS
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_80" | FileCheck %s --check-prefix=BLOCKS80
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_90a" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts -attn-pipeline-kv-loop -attn-specialize-warpgroups | FileCheck %s --check-prefix=SPEC
// RUN: attn-opt %s -split-input-file -attn-select-gpu-blocks="chip=sm_80" -attn-tile-attention -attn-fuse-online-softmax -canonicalize -cse -attn-assign-layouts | FileCheck %s --check-prefix=MTILES

// GQA packing (pack_query_heads): one program per key/value head, whose
// rows are the (position i, head g) pairs i·G + g of its G = Hq / Hkv query
// heads: the grid is (B, Hkv, ceil(G·Nq / Br)), Q is loaded and O and the
// LSE stored with group(G) at head h·G, the mask places row r at position
// (qStart + r) / G, and the key blocks are those of the block's positions
// qStart / G .. (qStart + rows − 1) / G.
// CHECK-LABEL: func.func @causal
// CHECK-SAME:    %[[Q:[^:]+]]: memref<?x?x?x128xbf16>, %[[K:[^:]+]]: memref<?x?x?x128xbf16>
// CHECK:         %[[NQ:.+]] = memref.dim %[[Q]], %c2
// CHECK:         %[[HKV:.+]] = memref.dim %[[K]], %c1
// CHECK:         %[[G:.+]] = arith.divui %{{.*}}, %[[HKV]] : index
// CHECK:         %[[ROWS:.+]] = arith.muli %[[NQ]], %[[G]] : index
// CHECK:         %[[NB:.+]] = arith.ceildivsi %[[ROWS]], %c64 : index
// CHECK:         scf.forall (%[[B:.+]], %[[H:.+]], %[[X:.+]]) in (%{{.*}}, %[[HKV]], %[[NB]])
// CHECK:           %[[H0:.+]] = arith.muli %[[H]], %[[G]] : index
// CHECK:           %[[P:.+]] = arith.muli %[[X]], %c64 : index
// CHECK:           %[[N:.+]] = arith.minsi %{{.*}}, %c64 : index
// CHECK:           attn.load_tile %[[Q]][%[[B]], %[[H0]], %[[P]]] rows %[[N]] group(%[[G]])
// CHECK:           %[[POS0:.+]] = arith.divui %[[P]], %[[G]] : index
// CHECK:           attn.load_tile %[[K]][%[[B]], %[[H]], %{{.*}}]
// CHECK:           attn.mask %{{.*}} q(%[[P]], %[[NQ]]) kv(%{{.*}}, %{{.*}}) group(%[[G]]) {causal}
// CHECK:         attn.store_tile %{{.*}}, %{{.*}}[%[[B]], %[[H0]], %[[P]]] rows %[[N]] group(%[[G]]) : tensor<64x128xf32>
// CHECK:         attn.store_tile %{{.*}}, %{{.*}}[%[[B]], %[[H0]], %[[P]]] rows %[[N]] group(%[[G]]) : tensor<64xf32>
// CHECK:       } {attn.grid = ["batch", "heads_kv", "group_q_blocks"]
// The CPU path tiles the heads one by one (the same result).
// CPU-LABEL:   func.func @causal
// CPU-NOT:       group(
// CPU:           } {attn.grid = ["batch", "heads_q", "q_blocks"]
// On sm_90a a packed program takes 64-key blocks (its rows keep their
// positions for the mask), on mma.sync 64 query rows.
// BLOCKS-LABEL: func.func @causal
// BLOCKS:         block_kv = 64
// BLOCKS80-LABEL: func.func @causal
// BLOCKS80:       block_q = 64
// ... of one m-tile a warp (four warps; two m-tiles would make it two).
// MTILES-LABEL:  func.func @causal
// MTILES-NOT:      #attn.mma<warps = 2>
// MTILES:          #attn.mma<warps = 4>
// MTILES-NOT:      #attn.mma<warps = 2>
// MTILES-LABEL:  func.func @split
// Q's rows have an address each (no bulk copy): the program keeps its own
// copies, no producer.
// SPEC-LABEL:  func.func @causal
// SPEC:          attn.async_load_tile %{{.*}} group(%{{.*}})
// SPEC-NOT:      attn.warp_specialize
// SPEC:        } {attn.grid = ["batch", "heads_kv", "group_q_blocks"]
func.func @causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                  %o: memref<?x?x?x128xbf16>, %lse: memref<?x?x?xf32>) {
  attn.attention %q, %k, %k into %o lse(%lse : memref<?x?x?xf32>)
      {causal, pack_query_heads}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// split_kv: the grid's last dim is packed query blocks × splits; the
// partials are stored at [split, b, h·G, p] with group(G).
// CHECK-LABEL: func.func @split
// CHECK:         scf.forall
// CHECK:           attn.load_tile %{{.*}} group(%{{.*}})
// CHECK:         attn.store_tile %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] rows %{{.*}} group(%{{.*}}) : tensor<64x128xf32>, memref<?x?x?x?x128xf32>
// CHECK:       } {attn.grid = ["batch", "heads_kv", "group_q_blocks*splits"], attn.program = "split_kv"
func.func @split(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                 %po: memref<?x?x?x?x128xf32>, %pl: memref<?x?x?x?xf32>) {
  attn.attention %q, %k, %k into %po lse(%pl : memref<?x?x?x?xf32>)
      {causal, split_kv, pack_query_heads}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x?x128xf32>
  return
}
