// RUN: attn-opt %s -convert-attn-gpu-to-nvvm -canonicalize | FileCheck %s

// A dynamic persistent grid (attn-persist-tiles' form with dynamic=1): the
// kernel takes the launch's tile counter last (!llvm.ptr<1>) and says so
// (tile_counter = true); the compiler's host launch passes a zeroed i32 of
// device memory.
// CHECK-LABEL: func.func @dyn(
// CHECK:         %[[CTR:.*]] = gpu.alloc  () : memref<1xi32>
// CHECK-NEXT:    gpu.memset  %[[CTR]], %{{.*}} : memref<1xi32>, i32
// CHECK-NEXT:    %[[ADDR:.*]] = memref.extract_aligned_pointer_as_index %[[CTR]]
// CHECK-NEXT:    %[[A64:.*]] = arith.index_cast %[[ADDR]] : index to i64
// CHECK-NEXT:    %[[PTR:.*]] = llvm.inttoptr %[[A64]] : i64 to !llvm.ptr<1>
// CHECK-NEXT:    gpu.launch_func  @attn_kernels::@dyn_kernel {{.*}} %[[PTR]] : !llvm.ptr<1>)
// CHECK-NEXT:    gpu.dealloc  %[[CTR]] : memref<1xi32>
// CHECK-LABEL: gpu.func @dyn_kernel(
// CHECK-SAME:    %[[COUNTER:[^:]*]]: !llvm.ptr<1>) kernel
// CHECK-SAME:    persistent = true, tile_counter = true>
// The queue (2 slots of 4 bytes after the tiles, at 32768; its barriers
// after the K/V ring's, "full" at 32928 and 32936, "empty" at 32944 and
// 32952): one thread posts, all 384 take.
// CHECK:         %[[BASE:.*]] = llvm.mlir.addressof @attn_smem
// CHECK:         %[[Q:.*]] = llvm.getelementptr %[[BASE]][32768]
// CHECK:         scf.if
// CHECK-NEXT:      %[[F0:.*]] = llvm.getelementptr %[[BASE]][32928]
// CHECK-NEXT:      nvvm.mbarrier.init %[[F0]], %c1_i32
// CHECK-NEXT:      %[[E0:.*]] = llvm.getelementptr %[[BASE]][32944]
// CHECK-NEXT:      nvvm.mbarrier.init %[[E0]], %c384_i32
// Take: wait for the entry's fill, load it, arrive at "empty".
// CHECK:         nvvm.setmaxregister  increase 232
// CHECK-NEXT:    scf.while
// CHECK:           nvvm.mbarrier.try_wait.parity
// CHECK:           %[[T:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK:           nvvm.mbarrier.arrive
// CHECK:           %[[TI:.*]] = arith.index_castui %[[T]] : i32 to index
// CHECK-NEXT:      %[[MORE:.*]] = arith.cmpi ult, %[[TI]]
// CHECK-NEXT:      scf.condition(%[[MORE]])
// Post of the first tile (the block's index) by the producer's first thread.
// CHECK:         nvvm.setmaxregister  decrease 32
// CHECK:         %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c256_i32 : i32
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK-NEXT:      %[[B:.*]] = arith.index_cast %block_id_x : index to i32
// CHECK-NEXT:      %[[E:.*]] = llvm.getelementptr %[[BASE]][32944]
// CHECK-NEXT:      nvvm.mbarrier.try_wait.parity %[[E]], %c1_i32, %c0_i32
// CHECK-NEXT:      llvm.store %[[B]], %[[Q]] : i32, !llvm.ptr<3>
// CHECK-NEXT:      %[[F:.*]] = llvm.getelementptr %[[BASE]][32928]
// CHECK-NEXT:      nvvm.mbarrier.arrive %[[F]]
// Claim: c = atomic add; the claim drawing tiles - 1 zeroes the counter;
// the next tile is gridDim.x + c.
// CHECK:         } do {
// CHECK:           scf.if
// CHECK-NEXT:        %[[C:.*]] = llvm.atomicrmw add %[[COUNTER]], %c1_i32 monotonic : !llvm.ptr<1>, i32
// CHECK-NEXT:        %[[TILES:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT:        %[[LASTC:.*]] = arith.subi %[[TILES]], %c1_i32 : i32
// CHECK-NEXT:        %[[LAST:.*]] = arith.cmpi eq, %[[C]], %[[LASTC]] : i32
// CHECK-NEXT:        scf.if %[[LAST]] {
// CHECK-NEXT:          llvm.store %c0_i32, %[[COUNTER]] : i32, !llvm.ptr<1>
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[P:.*]] = arith.index_cast %grid_dim_x : index to i32
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addi %[[P]], %[[C]] : i32
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK:             llvm.store %[[NEXT]], %{{.*}} : i32, !llvm.ptr<3>
// CHECK:             nvvm.mbarrier.arrive
// CHECK-NOT:     attn.
// CHECK:         gpu.return

#acc = #attn.mma<warps = 8, version = 3>
#sl = #attn.shared<swizzle = 8, pad = 0, slab = 128>
!ring = !attn.ring<2, tensor<64x64xbf16, #sl>>
!qring = !attn.ring<1, tensor<128x64xbf16, #sl>>
!queue = !attn.ring<2, tensor<1x1xi32, #attn.shared<swizzle = 0, pad = 0>>>
func.func @dyn(%q: memref<?x64xbf16>, %k: memref<?x64xbf16>, %o: memref<?x64xf32>, %n: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %tiles = arith.muli %n, %j : index
  %programs = attn.num_programs %tiles
  scf.forall (%p) in (%programs) {
    %r = attn.alloc_ring : !ring
    %qr = attn.alloc_ring : !qring
    %queue = attn.alloc_ring : !queue
    attn.warp_specialize registers(consumers = 232, producer = 32) {
      %w:2 = scf.while (%i = %c0) : (index) -> (index, index) {
        %s = arith.remui %i, %c2 : index
        %f = arith.divui %i, %c2 : index
        %t = attn.take_tile %queue[%s] fill %f : !queue
        %more = arith.cmpi ult, %t, %tiles : index
        scf.condition(%more) %t, %i : index, index
      } do {
      ^bb0(%t: index, %i: index):
        %qt = attn.ring_slot %qr[%c0] : !qring
        %slot = arith.remui %i, %c2 : index
        %fill = arith.divui %i, %c2 : index
        attn.ring_wait %r[%slot] fill %fill : !ring
        %kt = attn.ring_slot %r[%slot] : !ring
        %z = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
        %s = attn.dot %qt, %kt, %z {rhs_transposed} : tensor<128x64xbf16, #sl>, tensor<64x64xbf16, #sl> -> tensor<128x64xf32, #acc>
        attn.ring_release %r[%slot] : !ring
        attn.store_tile %s, %o[%t] rows %n : tensor<128x64xf32, #acc>, memref<?x64xf32>
        %i1 = arith.addi %i, %c1 : index
        scf.yield %i1 : index
      }
    } producer {
      attn.post_tile %queue[%c0] fill %c0, %p : !queue
      %w:2 = scf.while (%i = %c0) : (index) -> (index, index) {
        %s = arith.remui %i, %c2 : index
        %f = arith.divui %i, %c2 : index
        %t = attn.take_tile %queue[%s] fill %f : !queue
        %more = arith.cmpi ult, %t, %tiles : index
        scf.condition(%more) %t, %i : index, index
      } do {
      ^bb0(%t: index, %i: index):
        %i1 = arith.addi %i, %c1 : index
        %s1 = arith.remui %i1, %c2 : index
        %f1 = arith.divui %i1, %c2 : index
        attn.claim_tile %queue[%s1] fill %f1, tiles %tiles programs %programs : !queue
        %slot = arith.remui %i, %c2 : index
        %fill = arith.divui %i, %c2 : index
        attn.ring_acquire %r[%slot] fill %fill : !ring
        attn.async_load_tile %k[%t] rows %c64, %r[%slot] : memref<?x64xbf16>, !ring
        attn.async_arrive %r[%slot] : !ring
        scf.yield %i1 : index
      }
    }
  } {attn.persistent, attn.grid = ["batch", "heads_q", "q_blocks"], attn.target = #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>}
  return
}

