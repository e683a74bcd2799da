// RUN: attn-opt %s -convert-attn-gpu-to-nvvm -canonicalize | FileCheck %s

// A ring synchronised per slot (two warpgroups of a wgmma program). The
// ring's two 8 KiB slots come first and Q right after them (16384); the
// mbarriers of all rings lie after the tiles, "full" then "empty" per slot
// (32768, 32776 and 32784, 32792), so that no slab tile is pushed to the
// next 1024-byte boundary by them. Thread 0 initialises the four barriers
// for 256 arrivals, then a barrier publishes them.
//   ring_acquire  fill k waits on "empty" with parity (k & 1) ^ 1 (no
//                 suspend-time hint: ptxas would sleep that long on a miss)
//   async_arrive  cp.async.mbarrier.arrive.noinc on "full"
//   ring_wait     fill k waits on "full" with parity k & 1, then fences into
//                 the async proxy (wgmma reads the slot)
//   ring_release  mbarrier.arrive on "empty", after the dot's wgmma wait
// CHECK-LABEL: gpu.func @ring_kernel
// CHECK-SAME:    threads = 256, smem_bytes = 32800
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : i32
// CHECK:         %[[BASE:.*]] = llvm.mlir.addressof @attn_smem : !llvm.ptr<3>
// CHECK:         scf.if
// CHECK-NEXT:      %[[F0:.*]] = llvm.getelementptr %[[BASE]][32768]
// CHECK-NEXT:      nvvm.mbarrier.init %[[F0]], %[[C256]]
// CHECK-NEXT:      %[[E0:.*]] = llvm.getelementptr %[[BASE]][32784]
// CHECK-NEXT:      nvvm.mbarrier.init %[[E0]], %[[C256]]
// CHECK-NEXT:      %[[F1:.*]] = llvm.getelementptr %[[BASE]][32776]
// CHECK-NEXT:      nvvm.mbarrier.init %[[F1]], %[[C256]]
// CHECK-NEXT:      %[[E1:.*]] = llvm.getelementptr %[[BASE]][32792]
// CHECK-NEXT:      nvvm.mbarrier.init %[[E1]], %[[C256]]
// CHECK:         }
// CHECK-NEXT:    nvvm.barrier0
// CHECK-NEXT:    llvm.getelementptr %[[BASE]][16384]
// CHECK:         %[[AND:.*]] = arith.andi %{{.*}}, %c1_i32 : i32
// CHECK-NEXT:    %[[PAR:.*]] = arith.xori %[[AND]], %c1_i32 : i32
// CHECK:         nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PAR]], %c0_i32 : !llvm.ptr<3>, i32, i32
// CHECK:         nvvm.cp.async.shared.global
// CHECK:         nvvm.cp.async.mbarrier.arrive %{{.*}} {noinc = true} : !llvm.ptr<3>
// CHECK:         %[[WPAR:.*]] = arith.andi %{{.*}}, %c1_i32 : i32
// CHECK:         nvvm.mbarrier.try_wait.parity %{{.*}}, %[[WPAR]], %{{.*}} : !llvm.ptr<3>, i32, i32
// CHECK-NEXT:    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:         nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3> -> i64
// CHECK-NOT:     nvvm.cp.async.wait.group
#acc = #attn.mma<warps = 8, version = 3>
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
!ring = !attn.ring<2, tensor<64x64xbf16, #sl>>
func.func @ring(%q: memref<?x64xbf16>, %k: memref<?x64xbf16>, %o: memref<?x64xf32>, %n: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %r = attn.alloc_ring : !ring
    %qt = attn.load_tile %q[%c0] rows %n : memref<?x64xbf16> -> tensor<128x64xbf16, #sl>
    %slot = arith.remui %j, %c2 : index
    %fill = arith.divui %j, %c2 : index
    attn.ring_acquire %r[%slot] fill %fill : !ring
    attn.async_load_tile %k[%j] rows %c64, %r[%slot] : memref<?x64xbf16>, !ring
    attn.async_arrive %r[%slot] : !ring
    attn.ring_wait %r[%slot] fill %fill : !ring
    %kt = attn.ring_slot %r[%slot] : !ring
    %z = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
    %s = attn.dot %qt, %kt, %z {rhs_transposed} : tensor<128x64xbf16, #sl>, tensor<64x64xbf16, #sl> -> tensor<128x64xf32, #acc>
    attn.ring_release %r[%slot] : !ring
    attn.store_tile %s, %o[%c0] rows %n : tensor<128x64xf32, #acc>, memref<?x64xf32>
  }
  return
}
