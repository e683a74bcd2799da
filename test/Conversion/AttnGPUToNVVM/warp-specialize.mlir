// RUN: attn-opt %s -convert-attn-gpu-to-nvvm -canonicalize | FileCheck %s

// Two consumer warpgroups (the layouts' 8 warps) and a producer warpgroup:
// 384 threads, one block per multiprocessor (setmaxnreg's register cap).
// The rings' "full" barriers (after the tiles: K's 2 x 8 KiB and Q's
// 16 KiB) expect the producer's 128 threads, the "empty" ones the
// consumers' 256. Threads 0-255 raise their registers and
// run the consumers; 256-383 lower theirs and copy, numbering themselves
// from 0 (tid − 256) to spread a tile's 16-byte chunks over 128 threads:
// Q (128x64 bf16) is 1024 chunks, 8 per thread; K (64x64) 4 per thread.
// CHECK-LABEL: gpu.func @ws_kernel
// CHECK-SAME:    threads = 384,
// CHECK-SAME:    known_block_size = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : i32
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : i32
// CHECK:         scf.if %{{.*}} {
// CHECK-NEXT:      %[[F0:.*]] = llvm.getelementptr %{{.*}}[32768]
// CHECK-NEXT:      nvvm.mbarrier.init %[[F0]], %[[C128]]
// CHECK-NEXT:      %[[E0:.*]] = llvm.getelementptr %{{.*}}[32784]
// CHECK-NEXT:      nvvm.mbarrier.init %[[E0]], %[[C256]]
// CHECK:         nvvm.barrier0
// CHECK:         %[[CONSUMER:.*]] = arith.cmpi ult, %{{.*}}, %[[C256]] : i32
// CHECK-NEXT:    scf.if %[[CONSUMER]] {
// CHECK-NEXT:      nvvm.setmaxregister increase 240
// CHECK-NOT:       nvvm.cp.async
// CHECK:           nvvm.mbarrier.try_wait.parity
// CHECK:           nvvm.wgmma.mma_async
// CHECK:           nvvm.mbarrier.arrive
// CHECK:         } else {
// CHECK-NEXT:      nvvm.setmaxregister decrease 24
// CHECK-NOT:       nvvm.wgmma
// CHECK:           %[[PTID:.*]] = arith.subi %{{.*}}, %[[C256]] : i32
// CHECK:           arith.divui %[[PTID]]
// CHECK-COUNT-8:   nvvm.cp.async.shared.global
// CHECK:           nvvm.cp.async.mbarrier.arrive %{{.*}} {noinc = true}
// CHECK:           nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-4:   nvvm.cp.async.shared.global
// CHECK-NOT:       nvvm.cp.async.shared.global
// CHECK:           nvvm.cp.async.mbarrier.arrive %{{.*}} {noinc = true}
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.return
#acc = #attn.mma<warps = 8, version = 3>
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
!ring = !attn.ring<2, tensor<64x64xbf16, #sl>>
!qring = !attn.ring<1, tensor<128x64xbf16, #sl>>
func.func @ws(%q: memref<?x64xbf16>, %k: memref<?x64xbf16>, %o: memref<?x64xf32>, %n: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  scf.forall (%b, %h, %i) in (%c1, %c1, %c1) {
    %r = attn.alloc_ring : !ring
    %qr = attn.alloc_ring : !qring
    attn.warp_specialize registers(consumers = 240, producer = 24) {
      %slot = arith.remui %j, %c2 : index
      %fill = arith.divui %j, %c2 : index
      attn.ring_wait %qr[%c0] fill %c0 : !qring
      %qt = attn.ring_slot %qr[%c0] : !qring
      attn.ring_wait %r[%slot] fill %fill : !ring
      %kt = attn.ring_slot %r[%slot] : !ring
      %z = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
      %s = attn.dot %qt, %kt, %z {rhs_transposed} : tensor<128x64xbf16, #sl>, tensor<64x64xbf16, #sl> -> tensor<128x64xf32, #acc>
      attn.ring_release %r[%slot] : !ring
      attn.store_tile %s, %o[%c0] rows %n : tensor<128x64xf32, #acc>, memref<?x64xf32>
    } producer {
      %slot = arith.remui %j, %c2 : index
      %fill = arith.divui %j, %c2 : index
      attn.async_load_tile %q[%c0] rows %n, %qr[%c0] : memref<?x64xbf16>, !qring
      attn.async_arrive %qr[%c0] : !qring
      attn.ring_acquire %r[%slot] fill %fill : !ring
      attn.async_load_tile %k[%j] rows %c64, %r[%slot] : memref<?x64xbf16>, !ring
      attn.async_arrive %r[%slot] : !ring
    }
  }
  return
}
