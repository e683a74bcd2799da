// RUN: attn-opt %s -split-input-file -attn-tile-attention -cse | FileCheck %s

// Non-causal, cpu target (1 MiB): the FlashAttention rule gives
// Bc = ceil(M/4d) >= 128 and Br = min(Bc, d) = 64, both clamped to 128.
// The grid is (B, Hq, ceil(Nq/Br)); each pass is split into an unmasked
// segment [0, Nk/Bc) and a masked tail [Nk/Bc, ceil(Nk/Bc)).

// CHECK-LABEL: func.func @plain
// CHECK:         %[[B:.*]] = memref.dim %arg0, %c0
// CHECK:         %[[HQ:.*]] = memref.dim %arg0, %c1
// CHECK:         %[[NQ:.*]] = memref.dim %arg0, %c2
// CHECK:         %[[NK:.*]] = memref.dim %arg1, %c2
// CHECK:         %[[NQB:.*]] = arith.ceildivsi %[[NQ]], %c64
// CHECK:         scf.forall (%[[BI:.*]], %[[HI:.*]], %[[QB:.*]]) in (%[[B]], %[[HQ]], %[[NQB]])
// CHECK:           %[[Q:.*]] = attn.load_tile %arg0[%[[BI]], %[[HI]], %{{.*}}] rows %{{.*}} : memref<?x?x?x64xf32> -> tensor<64x64xf32>
// CHECK:           %[[NEND:.*]] = arith.ceildivsi %[[NK]], %c128
// CHECK:           %[[NFULL:.*]] = arith.floordivsi %[[NK]], %c128
// CHECK:           scf.for %{{.*}} = %c0{{.*}} to %[[NFULL]]
// CHECK:             attn.load_tile %arg1{{.*}} -> tensor<128x64xf32>
// CHECK:             attn.dot %[[Q]], %{{.*}} {rhs_transposed} : tensor<64x64xf32>, tensor<128x64xf32> -> tensor<64x128xf32>
// CHECK-NOT:         attn.mask
// CHECK:             attn.reduce max
// CHECK:           } {attn.softmax_pass = "max", attn.softmax_scale = 1.250000e-01 : f32}
// CHECK:           scf.for %{{.*}} = %[[NFULL]] to %[[NEND]]
// CHECK:             attn.mask %{{.*}} q(%{{.*}}, %[[NQ]]) kv(%{{.*}}, %[[NK]]) : tensor<64x128xf32>
// CHECK:           } {attn.softmax_pass = "max"
// CHECK:           } {attn.softmax_pass = "sum"
// CHECK:           } {attn.softmax_pass = "sum"
// CHECK:             attn.load_tile %arg2{{.*}} -> tensor<128x64xf32>
// CHECK:           } {attn.softmax_pass = "pv"
// CHECK:           } {attn.softmax_pass = "pv"
// CHECK:           attn.store_tile %{{.*}}, %arg3[%[[BI]], %[[HI]], %{{.*}}] rows %{{.*}} : tensor<64x64xf32>, memref<?x?x?x64xf32>
// CHECK-NOT:     attn.attention
func.func @plain(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>,
                 %v: memref<?x?x?x64xf32>, %o: memref<?x?x?x64xf32>) {
  attn.attention %q, %k, %v into %o
      : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>,
        memref<?x?x?x64xf32>
  return
}

// -----

// Causal, bottom-right aligned: with diag = Nk - Nq, the last valid row of
// the block sees keys [0, qStart + qRows + diag), so blocks from
// ceil(that / Bc) on are never visited; blocks below
// floor((qStart + diag + 1) / Bc) are whole for every row and unmasked.
// The LSE is scale·m + log(l), -inf where no key is visible.

// CHECK-LABEL: func.func @causal_lse
// CHECK:         %[[NQ:.*]] = memref.dim %arg0, %c2
// CHECK:         %[[NK:.*]] = memref.dim %arg1, %c2
// CHECK:         scf.forall
// CHECK:           %[[QSTART:.*]] = arith.muli %{{.*}}, %c128
// CHECK:           %[[QROWS:.*]] = arith.minsi
// CHECK:           %[[DIAG:.*]] = arith.subi %[[NK]], %[[NQ]]
// CHECK:           %[[END0:.*]] = arith.addi %[[QSTART]], %[[QROWS]]
// CHECK:           %[[END1:.*]] = arith.addi %[[END0]], %[[DIAG]]
// CHECK:           %[[END2:.*]] = arith.minsi %[[NK]], %[[END1]]
// CHECK:           %[[END3:.*]] = arith.maxsi %[[END2]], %c0
// CHECK:           %[[NEND:.*]] = arith.ceildivsi %[[END3]], %c128
// CHECK:           %[[F0:.*]] = arith.addi %[[QSTART]], %[[DIAG]]
// CHECK:           %[[F1:.*]] = arith.addi %[[F0]], %c1
// CHECK:           arith.floordivsi %[[F1]], %c128
// CHECK:           %[[NFULL:.*]] = arith.minsi %{{.*}}, %[[NEND]]
// CHECK:           scf.for %{{.*}} = %[[NFULL]] to %[[NEND]]
// CHECK:             attn.mask %{{.*}} q(%[[QSTART]], %[[NQ]]) kv(%{{.*}}, %[[NK]]) {causal}
// CHECK:           attn.store_tile %{{.*}}, %arg3{{.*}} : tensor<128x128xf32>, memref<?x?x?x128xbf16>
// CHECK:           math.log
// CHECK:           attn.store_tile %{{.*}}, %arg4{{.*}} : tensor<128xf32>, memref<?x?x?xf32>
func.func @causal_lse(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                      %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                      %lse: memref<?x?x?xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) {causal}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// A sliding window (causal, L = 1000): row i sees keys
// [i + diag - L, i + diag]. With a = diag - L, key blocks before
// floor(max(qStart + a, 0) / Bc) are skipped; up to
// ceil(max(qStart + qRows - 1 + a, 0) / Bc) they are masked (the left edge
// crosses them), then whole blocks, then the diagonal's masked ones: three
// segments, one ring sequence [nBegin, nEnd).

// CHECK-LABEL: func.func @window_causal
// CHECK:         %[[NQ:.*]] = memref.dim %arg0, %c2
// CHECK:         %[[NK:.*]] = memref.dim %arg1, %c2
// CHECK:         scf.forall
// CHECK:           %[[QSTART:.*]] = arith.muli %{{.*}}, %c128
// CHECK:           %[[QROWS:.*]] = arith.minsi
// CHECK:           %[[DIAG:.*]] = arith.subi %[[NK]], %[[NQ]]
// CHECK:           %[[END0:.*]] = arith.addi %[[QSTART]], %[[QROWS]]
// CHECK:           %[[NEND:.*]] = arith.ceildivsi %{{.*}}, %c128
// CHECK:           %[[NFULL:.*]] = arith.minsi %{{.*}}, %[[NEND]]
// CHECK:           %[[A:.*]] = arith.subi %[[DIAG]], %c1000
// CHECK:           %[[FIRST0:.*]] = arith.addi %[[QSTART]], %[[A]]
// CHECK:           %[[FIRST:.*]] = arith.maxsi %[[FIRST0]], %c0
// CHECK:           %[[LAST0:.*]] = arith.subi %[[END0]], %c1
// CHECK:           %[[LAST1:.*]] = arith.addi %[[LAST0]], %[[A]]
// CHECK:           %[[LAST:.*]] = arith.maxsi %[[LAST1]], %c0
// CHECK:           %[[B0:.*]] = arith.floordivsi %[[FIRST]], %c128
// CHECK:           %[[NBEGIN:.*]] = arith.minsi %[[B0]], %[[NEND]]
// CHECK:           %[[F0:.*]] = arith.ceildivsi %[[LAST]], %c128
// CHECK:           %[[F1:.*]] = arith.minsi %[[F0]], %[[NEND]]
// CHECK:           %[[FBEGIN:.*]] = arith.maxsi %[[F1]], %[[NBEGIN]]
// CHECK:           %[[FEND:.*]] = arith.maxsi %[[NFULL]], %[[FBEGIN]]
// CHECK:           scf.for %{{.*}} = %[[NBEGIN]] to %[[FBEGIN]]
// CHECK:             attn.mask %{{.*}} q(%[[QSTART]], %[[NQ]]) kv(%{{.*}}, %[[NK]]) {causal, window_left = 1000 : i64}
// CHECK:           } {attn.softmax_pass = "max"
// CHECK:           scf.for %{{.*}} = %[[FBEGIN]] to %[[FEND]]
// CHECK-NOT:         attn.mask
// CHECK:           } {attn.softmax_pass = "max"
// CHECK:           scf.for %{{.*}} = %[[FEND]] to %[[NEND]]
// CHECK:             attn.mask %{{.*}} {causal, window_left = 1000 : i64}
// CHECK:           } {attn.softmax_pass = "max"
func.func @window_causal(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                         %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  attn.attention %q, %k, %v into %o {causal, window_left = 1000}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// A window's right bound alone (R = 64, no left bound): the causal rule
// shifted by R, two segments as without a window.

// CHECK-LABEL: func.func @window_right
// CHECK:         %[[NQ:.*]] = memref.dim %arg0, %c2
// CHECK:         %[[NK:.*]] = memref.dim %arg1, %c2
// CHECK:           %[[DIAG:.*]] = arith.subi %[[NK]], %[[NQ]]
// CHECK:           %[[DIAGR:.*]] = arith.addi %[[DIAG]], %c64
// CHECK:           arith.addi %{{.*}}, %[[DIAGR]]
// CHECK:           scf.for
// CHECK-NOT:         attn.mask
// CHECK:           } {attn.softmax_pass = "max"
// CHECK:           scf.for
// CHECK:             attn.mask %{{.*}} {window_right = 64 : i64}
// CHECK:           } {attn.softmax_pass = "max"
// CHECK-NOT:       attn.softmax_pass = "max"
// CHECK:           } {attn.softmax_pass = "sum"
func.func @window_right(%q: memref<?x?x?x64xf16>, %k: memref<?x?x?x64xf16>,
                        %v: memref<?x?x?x64xf16>, %o: memref<?x?x?x64xf16>) {
  attn.attention %q, %k, %v into %o {window_right = 64}
      : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>,
        memref<?x?x?x64xf16>, memref<?x?x?x64xf16>
  return
}

// -----

// GQA: query head h reads key/value head h / (Hq / Hkv).

// CHECK-LABEL: func.func @gqa
// CHECK:         %[[HQ:.*]] = memref.dim %arg0, %c1
// CHECK:         %[[HKV:.*]] = memref.dim %arg1, %c1
// CHECK:         %[[G:.*]] = arith.divui %[[HQ]], %[[HKV]]
// CHECK:         scf.forall (%[[B:.*]], %[[H:.*]], %{{.*}}) in
// CHECK:           %[[KVH:.*]] = arith.divui %[[H]], %[[G]]
// CHECK:           attn.load_tile %arg1[%[[B]], %[[KVH]], %{{.*}}]
// CHECK:           attn.load_tile %arg2[%[[B]], %[[KVH]], %{{.*}}]
func.func @gqa(%q: memref<2x8x?x64xf16>, %k: memref<2x2x?x64xf16>,
               %v: memref<2x2x?x64xf16>, %o: memref<2x8x?x64xf16>) {
  attn.attention %q, %k, %v into %o
      : memref<2x8x?x64xf16>, memref<2x2x?x64xf16>, memref<2x2x?x64xf16>,
        memref<2x8x?x64xf16>
  return
}

// -----

// Block sizes follow the target's on-chip memory (bf16, d = 128):
//   sm_90 (232448 B): M = 116224, Bc = ceil(M/512) = 227 -> 128, Br -> 128
//   sm_86 (101376 B): M = 50688,  Bc = 99 -> 64,  Br = min(99, 128) -> 64
//   16 KiB:           M = 8192,   Bc = 16,        Br = 16
// An explicit block_q/block_kv attribute wins over the derived sizes.

// CHECK-LABEL: func.func @targets
// CHECK:         attn.load_tile %arg0{{.*}} -> tensor<128x128xbf16>
// CHECK:         attn.load_tile %arg1{{.*}} -> tensor<128x128xbf16>
// CHECK:         attn.load_tile %arg0{{.*}} -> tensor<64x128xbf16>
// CHECK:         attn.load_tile %arg1{{.*}} -> tensor<64x128xbf16>
// CHECK:         attn.load_tile %arg0{{.*}} -> tensor<16x128xbf16>
// CHECK:         attn.load_tile %arg1{{.*}} -> tensor<16x128xbf16>
// CHECK:         attn.load_tile %arg0{{.*}} -> tensor<32x128xbf16>
// CHECK:         attn.load_tile %arg1{{.*}} -> tensor<16x128xbf16>
func.func @targets(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                   %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>) {
  attn.attention %q, %k, %v into %o
      {target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  attn.attention %q, %k, %v into %o
      {target = #attn.target<arch = "sm_86", smem_per_block = 101376, num_sms = 84>}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  attn.attention %q, %k, %v into %o
      {target = #attn.target<arch = "sm_80", smem_per_block = 16384, num_sms = 1>}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  attn.attention %q, %k, %v into %o {block_q = 32 : i64, block_kv = 16 : i64}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}

// -----

// A target on an enclosing op applies to the attention ops inside it.

// CHECK-LABEL: module attributes {attn.target = #attn.target<arch = "sm_86"
// CHECK:         func.func @module_target
// CHECK:           attn.load_tile %arg0{{.*}} -> tensor<64x64xf16>
// CHECK:           attn.load_tile %arg1{{.*}} -> tensor<128x64xf16>
module attributes {attn.target = #attn.target<arch = "sm_86", smem_per_block = 101376, num_sms = 84>} {
  func.func @module_target(%q: memref<?x?x?x64xf16>, %k: memref<?x?x?x64xf16>,
                           %v: memref<?x?x?x64xf16>, %o: memref<?x?x?x64xf16>) {
    attn.attention %q, %k, %v into %o
        : memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x64xf16>,
          memref<?x?x?x64xf16>
    return
  }
}
