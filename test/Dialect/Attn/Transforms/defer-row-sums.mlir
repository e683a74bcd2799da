// RUN: attn-opt %s -split-input-file -attn-tile-attention="block-q=64 block-kv=64" \
// RUN:   -attn-fuse-online-softmax -cse -attn-defer-row-sums="max-columns=0" | FileCheck %s
// RUN: attn-opt %s -split-input-file -attn-defer-row-sums="max-columns=32" \
// RUN:   | FileCheck %s --check-prefix=NARROW
// RUN: attn-opt %s -split-input-file -attn-defer-row-sums="max-columns=64" \
// RUN:   | FileCheck %s --check-prefix=WIDE
// RUN: attn-opt %s -split-input-file \
// RUN:   -attn-defer-row-sums="max-columns=64 wgmma=0" \
// RUN:   | FileCheck %s --check-prefix=MMASYNC
// RUN: not attn-opt %s -attn-defer-row-sums="wgmma=2" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADWGMMA
// A bad option is an error before any IR is touched.
// BADWGMMA: <unknown>:0: error: pass option wgmma must be -1 (heuristic), 0 or 1, got 2

// The online softmax's row sum l' = α·l + rowsum(P) is carried as L: [R, 8]
// (the row reduced in the 8 column groups c ≡ w mod 8):
//   L' = broadcast(α)·L + reduce_groups(P);  l = rowsum(L) after the loop.
// A masked loop that continues the unmasked one takes L itself, and the one
// cross-column reduction runs after the last loop.

// CHECK-LABEL: func.func @two_loops
// CHECK:         %[[Z8:.*]] = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
// CHECK:         %[[R1:.*]]:2 = scf.for {{.*}} iter_args(%[[L:.*]] = %[[Z8]], %[[O:.*]] = %{{.*}}) -> (tensor<16x8xf32>, tensor<16x64xf32>)
// CHECK:           %[[P:.*]] = math.exp2
// CHECK:           %[[G:.*]] = attn.reduce sum %[[P]] : tensor<16x64xf32> -> tensor<16x8xf32>
// CHECK:           %[[AB:.*]] = attn.broadcast %[[ALPHA:.*]] : tensor<16xf32> -> tensor<16x8xf32>
// CHECK:           %[[X:.*]] = arith.mulf %[[AB]], %[[L]] : tensor<16x8xf32>
// CHECK:           %[[L2:.*]] = arith.addf %[[X]], %[[G]] : tensor<16x8xf32>
// CHECK:           scf.yield %[[L2]], %{{.*}} : tensor<16x8xf32>, tensor<16x64xf32>
// CHECK-NOT:     attn.reduce
// CHECK:         %[[R2:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %[[R1]]#0, %{{.*}} = %[[R1]]#1) -> (tensor<16x8xf32>, tensor<16x64xf32>)
// CHECK:           attn.reduce sum %{{.*}} : tensor<16x64xf32> -> tensor<16x8xf32>
// CHECK:         }
// CHECK:         %[[LS:.*]] = attn.reduce sum %[[R2]]#0 : tensor<16x8xf32> -> tensor<16xf32>
// CHECK:         return %[[LS]], %[[R2]]#1

// NARROW-LABEL: func.func @two_loops
// NARROW-NOT:     tensor<16x8xf32>
func.func @two_loops(%s: tensor<16x64xf32>, %alpha: tensor<16xf32>,
                     %v: tensor<64x64xf32>, %n: index)
    -> (tensor<16xf32>, tensor<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : tensor<16xf32>
  %zo = arith.constant dense<0.0> : tensor<16x64xf32>
  %r1:2 = scf.for %i = %c0 to %n step %c1 iter_args(%l = %zero, %o = %zo)
      -> (tensor<16xf32>, tensor<16x64xf32>) {
    %p = math.exp2 %s : tensor<16x64xf32>
    %rs = attn.reduce sum %p : tensor<16x64xf32> -> tensor<16xf32>
    %x = arith.mulf %alpha, %l : tensor<16xf32>
    %l2 = arith.addf %x, %rs : tensor<16xf32>
    %ab = attn.broadcast %alpha : tensor<16xf32> -> tensor<16x64xf32>
    %o1 = arith.mulf %ab, %o : tensor<16x64xf32>
    %o2 = attn.dot %p, %v, %o1 : tensor<16x64xf32>, tensor<64x64xf32> -> tensor<16x64xf32>
    scf.yield %l2, %o2 : tensor<16xf32>, tensor<16x64xf32>
  }
  %r2:2 = scf.for %i = %c0 to %n step %c1 iter_args(%l = %r1#0, %o = %r1#1)
      -> (tensor<16xf32>, tensor<16x64xf32>) {
    %p = math.exp2 %s : tensor<16x64xf32>
    %rs = attn.reduce sum %p : tensor<16x64xf32> -> tensor<16xf32>
    %x = arith.mulf %l, %alpha : tensor<16xf32>
    %l2 = arith.addf %rs, %x : tensor<16xf32>
    scf.yield %l2, %o : tensor<16xf32>, tensor<16x64xf32>
  }
  return %r2#0, %r2#1 : tensor<16xf32>, tensor<16x64xf32>
}

// -----

// Left alone: the row sum is read inside the loop (an exp of it here), the
// start value is not zero, or the sum is a max.
// CHECK-LABEL: func.func @not_deferred
// CHECK-NOT:     tensor<16x8xf32>
// CHECK:         return
func.func @not_deferred(%s: tensor<16x64xf32>, %alpha: tensor<16xf32>,
                        %init: tensor<16xf32>, %n: index)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : tensor<16xf32>
  %a = scf.for %i = %c0 to %n step %c1 iter_args(%l = %zero) -> (tensor<16xf32>) {
    %rs = attn.reduce sum %s : tensor<16x64xf32> -> tensor<16xf32>
    %x = arith.mulf %alpha, %l : tensor<16xf32>
    %e = math.exp %l : tensor<16xf32>
    %y = arith.addf %x, %e : tensor<16xf32>
    %l2 = arith.addf %y, %rs : tensor<16xf32>
    scf.yield %l2 : tensor<16xf32>
  }
  %b = scf.for %i = %c0 to %n step %c1 iter_args(%l = %init) -> (tensor<16xf32>) {
    %rs = attn.reduce sum %s : tensor<16x64xf32> -> tensor<16xf32>
    %x = arith.mulf %alpha, %l : tensor<16xf32>
    %l2 = arith.addf %x, %rs : tensor<16xf32>
    scf.yield %l2 : tensor<16xf32>
  }
  %c = scf.for %i = %c0 to %n step %c1 iter_args(%l = %zero) -> (tensor<16xf32>) {
    %rs = attn.reduce max %s : tensor<16x64xf32> -> tensor<16xf32>
    %x = arith.mulf %alpha, %l : tensor<16xf32>
    %l2 = arith.addf %x, %rs : tensor<16xf32>
    scf.yield %l2 : tensor<16xf32>
  }
  // The reduced row is used twice.
  %d = scf.for %i = %c0 to %n step %c1 iter_args(%l = %zero) -> (tensor<16xf32>) {
    %rs = attn.reduce sum %s : tensor<16x64xf32> -> tensor<16xf32>
    %x = arith.mulf %alpha, %l : tensor<16xf32>
    %l2 = arith.addf %x, %rs : tensor<16xf32>
    %l3 = arith.addf %l2, %rs : tensor<16xf32>
    scf.yield %l3 : tensor<16xf32>
  }
  return %a, %b, %c, %d : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// The fused program of an attention, as the GPU pipeline runs it: the row
// sum of both loops is deferred, LSE and the epilogue read rowsum(L).
// CHECK-LABEL: func.func @fused
// CHECK-COUNT-2: attn.reduce sum %{{.*}} : tensor<64x64xf32> -> tensor<64x8xf32>
// CHECK:         %[[L:.*]] = attn.reduce sum %{{.*}} : tensor<64x8xf32> -> tensor<64xf32>
// CHECK:         arith.cmpf oeq, %[[L]]
// CHECK:         math.log
func.func @fused(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                 %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>,
                 %lse: memref<?x?x?xf32>) {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) {causal, scale = 0.125 : f32}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}

// -----

// max-columns spares the registers of mma.sync programs; a program that
// takes wgmma layouts (sm_90a, 64-row blocks, 16-bit operands of 128
// columns) has room for the partial sums at D = 128, unless wgmma=0 says it
// will not take them.
// WIDE-LABEL:    func.func @wgmma_program
// WIDE:            attn.reduce sum %{{.*}} : tensor<64x128xf32> -> tensor<64x8xf32>
// MMASYNC-LABEL: func.func @wgmma_program
// MMASYNC-NOT:     tensor<64x8xf32>
// MMASYNC:         attn.reduce sum %{{.*}} : tensor<64x128xf32> -> tensor<64xf32>
// MMASYNC-NOT:     tensor<64x8xf32>
func.func @wgmma_program(%q: tensor<64x128xbf16>, %k: tensor<128x128xbf16>,
                         %v: tensor<128x128xbf16>, %alpha: tensor<64xf32>,
                         %n: index, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%i) in (1) {
    %zero = arith.constant dense<0.0> : tensor<64xf32>
    %zs = arith.constant dense<0.0> : tensor<64x128xf32>
    %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%l = %zero, %o = %zs)
        -> (tensor<64xf32>, tensor<64x128xf32>) {
      %s = attn.dot %q, %k, %zs {rhs_transposed} : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xf32>
      %p = math.exp2 %s : tensor<64x128xf32>
      %rs = attn.reduce sum %p : tensor<64x128xf32> -> tensor<64xf32>
      %x = arith.mulf %alpha, %l : tensor<64xf32>
      %l2 = arith.addf %x, %rs : tensor<64xf32>
      %pb = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>
      %o2 = attn.dot %pb, %v, %o : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xf32>
      scf.yield %l2, %o2 : tensor<64xf32>, tensor<64x128xf32>
    }
    attn.store_tile %r#0, %out[%c0] rows %c1 : tensor<64xf32>, memref<64xf32>
  } {attn.target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>}
  return
}
