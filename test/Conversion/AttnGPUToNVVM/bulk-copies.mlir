// RUN: attn-opt %s -split-input-file -convert-attn-gpu-to-nvvm -canonicalize | FileCheck %s

// Bulk tensor copies (TMA) in a producer warpgroup. The launch passes one
// tensor map per source memref after the function's arguments (encoded on
// the host: attn.tensor_map, box = the tile's rows by one 128-byte slab);
// the kernel takes them as 64-byte aligned pointers (grid constants once
// attn-gpu-module-to-binary has run) and records them in attn.kernel as
// (argument, box rows, box bytes) triples. The "full" barriers of bulk-filled rings
// expect one arrival (the copying thread's, with the fill's bytes); the
// "empty" ones the 256 consumer threads. Thread 256, the producer's first,
// issues one copy per 64-column slab at column 64·s, the indices reversed
// (innermost first), into slab s of the slot (s · rows · 128 bytes), then
// arrives with the tile's bytes: Q 128x128 bf16 = 32768, K 64x128 = 16384.
// The producer's first warp runs its program (no tile queue; the other
// three lower their registers and leave), chosen by its warp index
// broadcast from lane 0 (warp-uniform for ptxas), and before each of the
// copying thread's sections the lanes of its warp reconverge
// (bar.warp.sync): left to itself, a lane that only waits can fall two
// phases behind and wait for good.
// CHECK-LABEL: func.func @bulk
// CHECK:         %[[QMAP:.*]] = attn.tensor_map %arg0 box[128, 64] : memref<?x?x128xbf16> -> !llvm.ptr
// CHECK-NEXT:    %[[KMAP:.*]] = attn.tensor_map %arg1 box[64, 64] : memref<?x?x128xbf16> -> !llvm.ptr
// CHECK-NEXT:    gpu.launch_func @attn_kernels::@bulk_kernel {{.*}} args({{.*}}, %[[QMAP]] : !llvm.ptr, %[[KMAP]] : !llvm.ptr)
// CHECK:       gpu.func @bulk_kernel({{.*}}, %[[QARG:.*]]: !llvm.ptr {llvm.align = 64 : i64}, %[[KARG:.*]]: !llvm.ptr {llvm.align = 64 : i64}) kernel
// CHECK-SAME:    tensor_maps = [0, 128, 128, 1, 64, 128]
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : i32
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : i32
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[C9:.*]] = arith.constant 9 : i32
// CHECK-DAG:     %[[QBYTES:.*]] = arith.constant 32768 : i32
// CHECK-DAG:     %[[KBYTES:.*]] = arith.constant 16384 : i32
// CHECK:         nvvm.mbarrier.init %{{.*}}, %[[C1]]
// CHECK-NEXT:    llvm.getelementptr
// CHECK-NEXT:    nvvm.mbarrier.init %{{.*}}, %[[C256]]
// CHECK:         nvvm.setmaxregister increase 240
// CHECK-NOT:     nvvm.cp.async
// The consumers' waits on bulk-filled slots need no proxy fence: the copies
// wrote through the async proxy that wgmma reads through.
// CHECK:         nvvm.mbarrier.try_wait.parity
// CHECK-NOT:     nvvm.fence.proxy
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK-NOT:     nvvm.fence.proxy
// CHECK:         } else {
// CHECK-NEXT:      nvvm.setmaxregister decrease 24
// CHECK:           %[[WARP:.*]] = nvvm.shfl.sync idx %{{.*}}, %{{.*}}, %[[C0]], %{{.*}} : i32 -> i32
// CHECK-NEXT:      %[[ONE:.*]] = arith.cmpi ult, %[[WARP]], %[[C9]] : i32
// CHECK-NEXT:      scf.if %[[ONE]] {
// Q's "full" barrier: after the tiles (K's ring, 2 x 16384, then Q), with
// the other rings' barriers.
// CHECK:           %[[QFULL:.*]] = llvm.getelementptr %{{.*}}[65568]
// CHECK:           %[[ROW:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:           %[[B:.*]] = arith.index_cast %block_id_z : index to i32
// CHECK-NEXT:      nvvm.bar.warp.sync %{{.*}} : i32
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %[[C256]] : i32
// CHECK-NEXT:      scf.if %[[FIRST]] {
// CHECK-NEXT:        %[[TO0:.*]] = llvm.addrspacecast %[[QSLOT:[^ ]+]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT:        nvvm.cp.async.bulk.tensor.shared.cluster.global %[[TO0]], %[[QARG]], %[[QFULL]], box[%[[C0]], %[[ROW]], %[[B]]]
// CHECK-NEXT:        %[[SLAB1:.*]] = llvm.getelementptr %[[QSLOT]][16384]
// CHECK-NEXT:        %[[TO1:.*]] = llvm.addrspacecast %[[SLAB1]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT:        nvvm.cp.async.bulk.tensor.shared.cluster.global %[[TO1]], %[[QARG]], %[[QFULL]], box[%[[C64]], %[[ROW]], %[[B]]]
// CHECK-NEXT:      }
// CHECK:           nvvm.bar.warp.sync
// CHECK:           scf.if
// CHECK-NEXT:        nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[QBYTES]] : !llvm.ptr<3>, i32
// CHECK:           nvvm.mbarrier.try_wait.parity
// CHECK:           nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KARG]]
// CHECK:           nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KARG]]
// CHECK:           nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[KBYTES]] : !llvm.ptr<3>, i32
// CHECK-NOT:       nvvm.cp.async.shared.global
// CHECK:         gpu.return
#acc = #attn.mma<warps = 8, version = 3>
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
!ring = !attn.ring<2, tensor<64x128xbf16, #sl>>
!qring = !attn.ring<1, tensor<128x128xbf16, #sl>>
func.func @bulk(%q: memref<?x?x128xbf16>, %k: memref<?x?x128xbf16>, %o: memref<?x64xf32>, %n: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
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
      %s = attn.dot %qt, %kt, %z {rhs_transposed} : tensor<128x128xbf16, #sl>, tensor<64x128xbf16, #sl> -> tensor<128x64xf32, #acc>
      attn.ring_release %r[%slot] : !ring
      attn.store_tile %s, %o[%c0] rows %n : tensor<128x64xf32, #acc>, memref<?x64xf32>
    } producer {
      %slot = arith.remui %j, %c2 : index
      %fill = arith.divui %j, %c2 : index
      %dq = memref.dim %q, %c1 : memref<?x?x128xbf16>
      %left = arith.subi %dq, %i : index
      %rows = arith.minsi %left, %c128 : index
      attn.async_load_tile %q[%b, %i] rows %rows, %qr[%c0] {bulk} : memref<?x?x128xbf16>, !qring
      attn.async_arrive %qr[%c0] : !qring
      attn.ring_acquire %r[%slot] fill %fill : !ring
      attn.async_load_tile %k[%h, %j] rows %c64, %r[%slot] {bulk} : memref<?x?x128xbf16>, !ring
      attn.async_arrive %r[%slot] : !ring
    }
  }
  return
}

// -----

// A column window (a score bias's [128, 64] block of a [B, H, Nq, Nk]
// bias) by one bulk copy: a tensor map of the 4-d memref with a box of 128
// rows by one 128-byte slab, coordinates innermost first (the first key
// column, the first query row, then head and batch), completing on the
// slot's barrier with the window's 16384 bytes; the consumers read the slot
// with ldmatrix into the accumulator layout.
// CHECK-LABEL: func.func @bulk_window
// CHECK:         %[[MAP:.*]] = attn.tensor_map %arg0 box[128, 64] : memref<?x?x?x?xbf16> -> !llvm.ptr
// CHECK:       gpu.func @bulk_window_kernel({{.*}}, %[[ROW:.*]]: index, %[[COL:.*]]: index, %[[MARG:.*]]: !llvm.ptr {llvm.align = 64 : i64}) kernel
// CHECK-SAME:    tensor_maps = [0, 128, 128]
// CHECK-COUNT-4: nvvm.ldmatrix
// CHECK:         } else {
// CHECK:           %[[C:.*]] = arith.index_cast %[[COL]] : index to i32
// CHECK-NEXT:      %[[R:.*]] = arith.index_cast %[[ROW]] : index to i32
// CHECK-NEXT:      %[[H:.*]] = arith.index_cast %block_id_y : index to i32
// CHECK-NEXT:      %[[B:.*]] = arith.index_cast %block_id_z : index to i32
// CHECK:           nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MARG]], %{{.*}}, box[%[[C]], %[[R]], %[[H]], %[[B]]]
// CHECK-NOT:       nvvm.cp.async.bulk.tensor
// CHECK:           nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32 : !llvm.ptr<3>, i32
#acc = #attn.mma<warps = 8, version = 3>
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
!wring = !attn.ring<2, tensor<128x64xbf16, #sl>>
func.func @bulk_window(%bias: memref<?x?x?x?xbf16>, %o: memref<?x64xbf16>, %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.forall (%b, %h, %x) in (%c1, %c1, %c1) {
    %r = attn.alloc_ring : !wring
    attn.warp_specialize registers(consumers = 240, producer = 24) {
      %slot = arith.remui %j, %c2 : index
      %fill = arith.divui %j, %c2 : index
      attn.ring_wait %r[%slot] fill %fill : !wring
      %t = attn.ring_slot %r[%slot] : !wring
      %w = attn.convert_layout %t : tensor<128x64xbf16, #sl> -> tensor<128x64xbf16, #acc>
      attn.ring_release %r[%slot] : !wring
      attn.store_tile %w, %o[%c0] rows %c128 : tensor<128x64xbf16, #acc>, memref<?x64xbf16>
    } producer {
      %slot = arith.remui %j, %c2 : index
      %fill = arith.divui %j, %c2 : index
      %nq = memref.dim %bias, %c2 : memref<?x?x?x?xbf16>
      %rleft = arith.subi %nq, %i : index
      %rows = arith.minsi %rleft, %c128 : index
      %nk = memref.dim %bias, %c3 : memref<?x?x?x?xbf16>
      %cleft = arith.subi %nk, %j : index
      %cols = arith.minsi %cleft, %c64 : index
      attn.ring_acquire %r[%slot] fill %fill : !wring
      attn.async_load_tile %bias[%b, %h, %i, %j] rows %rows cols %cols, %r[%slot] {bulk} : memref<?x?x?x?xbf16>, !wring
      attn.async_arrive %r[%slot] : !wring
    }
  }
  return
}
