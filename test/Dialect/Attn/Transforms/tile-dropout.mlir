// RUN: attn-opt %s -split-input-file --attn-tile-attention | FileCheck %s
// RUN: attn-opt %s -split-input-file --attn-tile-attention --attn-fuse-online-softmax | FileCheck %s --check-prefix=FUSED

// Dropout: each program computes its Philox stream b·Hq + h, the threshold
//   T = u32(min(p·2^16, 65535)) << 16
// and f = 1/(1 − p) once; the pv pass then keeps P where attn.random's
// value >= T, scaled by f, before the P·V product (the sum pass's row sums
// stay undropped).
// CHECK-LABEL: func.func @dropout
// CHECK-SAME:    %[[P:[^:]+]]: f32, %[[SEED:[^:]+]]: i64, %[[OFF:[^:]+]]: i32
// CHECK:       scf.forall (%[[B:.+]], %[[H:.+]], %[[X:.+]]) in (%{{.*}}, %[[HQ:[^,]+]], %{{.*}})
// CHECK:         %[[QSTART:.+]] = arith.muli %[[X]], %{{c64(_[0-9]+)?}}
// CHECK:         %[[BH:.+]] = arith.muli %[[B]], %[[HQ]]
// CHECK:         %[[S:.+]] = arith.addi %[[BH]], %[[H]]
// CHECK:         %[[STREAM:.+]] = arith.index_cast %[[S]] : index to i32
// CHECK:         %[[PT:.+]] = arith.mulf %[[P]], %{{.*}} : f32
// CHECK:         %[[CAP:.+]] = arith.minimumf %[[PT]], %{{.*}} : f32
// CHECK:         %[[T16:.+]] = arith.fptoui %[[CAP]] : f32 to i32
// CHECK:         %[[T:.+]] = arith.shli %[[T16]], %{{.*}} : i32
// CHECK:         %[[KEEP:.+]] = arith.subf %{{.*}}, %[[P]] : f32
// CHECK:         %[[F:.+]] = arith.divf %{{.*}}, %[[KEEP]] : f32
// CHECK:         } {attn.softmax_pass = "max"
// CHECK-NOT:     attn.random
// CHECK:         } {attn.softmax_pass = "sum"
// CHECK:         scf.for
// CHECK:           %[[KV:.+]] = arith.muli %{{.*}}, %{{c32(_[0-9]+)?}}
// CHECK:           %[[NORM:.+]] = arith.divf
// CHECK:           %[[BITS:.+]] = attn.random key(%[[SEED]]) counter(%[[STREAM]], %[[OFF]]) q(%[[QSTART]]) kv(%[[KV]]) : tensor<64x32xi32>
// CHECK:           %[[TS:.+]] = tensor.splat %[[T]] : tensor<64x32xi32>
// CHECK:           %[[KEPT:.+]] = arith.cmpi uge, %[[BITS]], %[[TS]]
// CHECK:           %[[FS:.+]] = tensor.splat %[[F]] : tensor<64x32xf32>
// CHECK:           %[[SCALED:.+]] = arith.mulf %[[NORM]], %[[FS]]
// CHECK:           %[[DROPPED:.+]] = arith.select %[[KEPT]], %[[SCALED]], %{{.*}}
// CHECK:           %[[P16:.+]] = arith.truncf %[[DROPPED]]
// CHECK:           attn.dot %[[P16]]
// CHECK:         } {attn.softmax_pass = "pv"

// The fused loop: the row sum from the undropped P, the dropout's select
// and multiply on the unnormalised P before the product (they commute with
// the deferred division by l).
// FUSED-LABEL: func.func @dropout
// FUSED:         scf.for
// FUSED:           %[[E:.+]] = math.exp2
// FUSED:           attn.reduce sum %[[E]]
// FUSED:           %[[SCALED:.+]] = arith.mulf %[[E]], %{{.*}}
// FUSED:           %[[BITS:.+]] = attn.random
// FUSED:           %[[KEPT:.+]] = arith.cmpi uge, %[[BITS]]
// FUSED:           %[[DROPPED:.+]] = arith.select %[[KEPT]], %[[SCALED]], %{{.*}}
// FUSED:           %[[P16:.+]] = arith.truncf %[[DROPPED]]
// FUSED:           attn.dot %[[P16]]
// FUSED:         } {attn.online_softmax
func.func @dropout(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>,
                   %o: memref<?x?x?x64xbf16>, %p: f32, %seed: i64,
                   %offset: i32) {
  attn.attention %q, %k, %k into %o dropout(%p, %seed, %offset)
      {block_q = 64 : i64, block_kv = 32 : i64}
      : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>,
        memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>
  return
}
